"""An answer form's `Answer:` line rests on what its lead lines cite: the default asks for "Rule: ... [S1]", then
"Answer: ...", so an answer written exactly as asked is not `uncited`, and one that follows a weak source's rule
rests on that source."""

from __future__ import annotations

import pytest

from evidencepack import Layout, assemble, validate_citations
from evidencepack.data.demo import DEMO_KEY, demo_records

RECORDS, QUESTION = demo_records()
DEFAULT = assemble(RECORDS, QUESTION, as_of="2026-06-01", boundary_key=DEMO_KEY)
SURFACE = assemble(RECORDS, QUESTION, as_of="2026-06-01", boundary_key=DEMO_KEY, layout=Layout.preset("structured"))
CUR = next(m.handle for m in DEFAULT.manifest if m.id == "hb-pto-carryover-2025")


def kinds(answer: str, assembly: object = DEFAULT) -> list[tuple[str, int | None]]:
    return [(f.kind, f.sentence) for f in validate_citations(answer, assembly).findings]


def test_the_answer_line_rests_on_the_rule_line_it_follows() -> None:
    answer = f"Rule: Unused PTO does not carry over into the next calendar year [{CUR}].\nAnswer: No, it does not."
    verdict = validate_citations(answer, DEFAULT)
    assert verdict.findings == () and verdict.valid
    assert [s.handles for s in verdict.support] == [(CUR,), (CUR,)]


@pytest.mark.parametrize(("answer", "expected"), [
    # no form: a verdict that cites nothing is uncited, as before
    ("Unused PTO does not carry over. No, you cannot carry it over.", [("uncited", 0), ("uncited", 1)]),
    # a rule line that cites nothing gives the answer nothing to rest on
    ("Rule: Unused PTO does not carry over.\nAnswer: No, you cannot carry it over.", [("uncited", 0), ("uncited", 1)]),
    # only the Answer line inherits: a further line that cites nothing is still uncited
    (f"Rule: Unused PTO does not carry over [{CUR}].\nAnswer: No, you cannot carry it over.\nManagers cannot approve "
     "exceptions either.", [("uncited", 2)]),
])
def test_what_does_not_inherit(answer: str, expected: list[tuple[str, int]]) -> None:
    assert kinds(answer) == expected


def test_an_answer_that_follows_a_weak_sources_rule_rests_on_it() -> None:
    weak = next(m.handle for m in SURFACE.manifest if m.authority == "informal")
    answer = f"Rule: Your manager can move a week into next year [{weak}].\nAnswer: Yes, ask your manager."
    found = kinds(answer, SURFACE)
    assert ("stale_only", 1) in found and ("uncited", 1) not in found
