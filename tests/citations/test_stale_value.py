"""`stale_value`: a value that only expired, superseded or informal sources state came from them, whatever the
sentence cites; a sentence that reports what disagreeing sources say is not giving it as the answer."""

from __future__ import annotations

import pytest

from evidencepack import Layout, assemble, validate_citations
from evidencepack.citations import withhold

RECORDS = [
    {"id": "hb-2026", "text": "The gym benefit reimburses up to $40 per month, paid quarterly.", "doc": "Handbook 2026",
     "authority": "authoritative", "topic": "gym"},
    {"id": "mail-2022", "text": "Gym memberships are covered up to $75 a month.", "doc": "HR email",
     "authority": "informal", "valid_until": "2023-01-01", "topic": "gym"},
    {"id": "hb-eap", "text": "The assistance programme offers 6 free counselling sessions a year.", "doc": "Handbook",
     "authority": "authoritative"},
]
A = assemble(RECORDS, "How much of my gym membership is reimbursed each month?", as_of="2026-06-01",
             layout=Layout(order="ranked", conflict_policy="surface"))
CUR, OLD = (next(m.handle for m in A.manifest if m.id == i) for i in ("hb-2026", "mail-2022"))


def kinds(answer: str, **kw: object) -> list[str]:
    return [f.kind for f in validate_citations(answer, A, **kw).findings]  # type: ignore[arg-type]


def test_a_value_only_the_stale_source_states_is_flagged_whatever_the_sentence_cites() -> None:
    answer = f"The company pays up to $75 a month [{CUR}]."
    verdict = validate_citations(answer, A)
    (finding,) = [f for f in verdict.findings if f.kind == "stale_value"]
    assert not verdict.valid and finding.sources == (OLD,) and "'$75'" in finding.message
    assert answer[finding.start:finding.end] == "$75"
    assert withhold(verdict, A) == ("mail-2022",)
    # uncited, no attribution: still flagged (small models rarely write a handle)
    assert "stale_value" in kinds("The company pays up to $75 a month.")


@pytest.mark.parametrize("answer", [
    "The company pays up to $40 per month [{cur}].",                       # the current value
    "You get 6 free counselling sessions [{cur}].",                        # a value a current source states
    "It was $75 a month, but that email is outdated; now it is $40 [{cur}].",  # marked as outdated
    "The handbook says $40 per month [{cur}], while an HR email says $75 [{old}].",  # sets sources against each other
    "Answer: $40 per month [{cur}].\nConflicts: [{old}] says $75 a month. [{cur}] holds.",  # an answer form's line
    "Answer: $40 per month [{cur}].\nConflicts:\n[{old}] says $75 a month.",  # the line under a bare label
])
def test_reported_or_current_values_are_not_flagged(answer: str) -> None:
    assert "stale_value" not in kinds(answer.format(cur=CUR, old=OLD))


def test_values_in_the_question_count_as_given() -> None:
    a = assemble(RECORDS, "Is it still $75 a month?", as_of="2026-06-01",
                 layout=Layout(order="ranked", conflict_policy="surface"))
    assert "stale_value" not in [f.kind for f in validate_citations("It is not $75 a month.", a).findings]


def test_stale_only_takes_precedence_and_the_level_can_be_changed() -> None:
    assert kinds(f"The company pays up to $75 a month [{OLD}].") == ["stale_only"]
    assert kinds(f"The company pays up to $75 a month [{CUR}].", severities={"stale_value": "off"}) == \
        ["unsupported_value"]
    warned = validate_citations(f"The company pays up to $75 a month [{CUR}].", A, severities={"stale_value": "warn"})
    assert [(f.kind, f.severity) for f in warned.findings] == [("stale_value", "warn"), ("unsupported_value", "warn")]
    assert warned.valid
