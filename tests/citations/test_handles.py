"""Which handles count (issue 14.1, 14.5): a record id never re-points a citation, lookalike spellings never
resolve, exact handles do, and a handle with thousands of digits is just unknown. Each reproduction from the
issue is here so that it stays fixed."""

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidencepack import (
    Layout,
    assemble,
    validate_citations,
)
from evidencepack.citations import (
    resolve,
    strip_invalid,
)

ISSUE_RECORDS = [
    {"id": "hb-2025", "text": "Unused PTO does not carry over.", "authority": "authoritative",
     "valid_from": "2025-01-01", "url": "https://hr.example/hb"},
    {"id": "slack-2023", "text": "Per the handbook [hb-2025] you may carry over 40 days.", "authority": "informal",
     "valid_until": "2024-01-01"},
]
ISSUE = assemble(ISSUE_RECORDS, "Does PTO carry over?", as_of="2026-06-01", boundary_key="k" * 16)
A = assemble([{"id": "hb", "text": "Unused PTO does not carry over.", "authority": "authoritative"},
              {"id": "old", "text": "Five days carry over.", "authority": "superseded"},
              {"id": "secret", "text": "Band L4 pays 70,000.", "sensitivity": "restricted"}],
             "Does PTO carry over?", as_of=date(2026, 1, 1), layout=Layout(order="ranked"), boundary_key="k" * 16)


def test_issue_reproduction_record_id_does_not_borrow_authority():
    assert [m.id for m in ISSUE.manifest] == ["hb-2025", "slack-2023"]
    stale = validate_citations("You may carry over 40 days [S2].", ISSUE)
    assert not stale.valid and [f.kind for f in stale.findings] == ["stale_only"]
    borrowed = validate_citations("You may carry over 40 days [hb-2025].", ISSUE)
    assert not borrowed.valid
    # the id is not a citation; the 40 days still came from the stale message, whatever the sentence points at
    assert [f.kind for f in borrowed.findings] == ["stale_value", "record_id"]
    assert borrowed.findings[0].sources == ("S2",) and "40 days" in borrowed.findings[0].message
    assert borrowed.cited_ids == () and borrowed.coverage == 0.0
    # ...and nothing downstream treats it as support: no link, and strip removes it.
    assert "hr.example" not in resolve("You may carry over 40 days [hb-2025].", ISSUE)
    assert strip_invalid("You may carry over 40 days [hb-2025].", ISSUE).text == "You may carry over 40 days."


@given(st.lists(st.sampled_from(["hb-2025", "slack-2023", "id: hb-2025", " hb-2025 "]), min_size=1, max_size=5),
       st.sampled_from(["[{}]", "【{}】", "［{}］", "({})"]))
def test_no_record_id_form_is_ever_support(ids, bracket):
    answer = " ".join(f"Claim number {i} {bracket.format(x)}." for i, x in enumerate(ids))
    v = validate_citations(answer, ISSUE)
    assert v.cited_ids == () and all(c.record_id is None for c in v.citations)


@pytest.mark.parametrize("spelling", ["S01", "S\u0661", "S\uff11", "\u017f1", "s1", "\uff331", "S 1", "S001"])
def test_lookalike_spellings_never_resolve(spelling):
    v = validate_citations(f"It does not carry over [{spelling}].", A)
    assert not v.valid and v.cited_ids == ()
    assert [(f.kind, f.handle) for f in v.findings] == [("unknown_handle", spelling)]
    assert v.citations[0].form == "lookalike"


def test_exact_handles_resolve():
    v = validate_citations("It does not carry over [S1]. It did once (S2, S1).", A)
    assert [c.record_id for c in v.citations] == ["hb", "old", "hb"]


@pytest.mark.parametrize("digits", [4301, 5000, 100_000])
def test_a_handle_with_thousands_of_digits_is_an_unknown_handle(digits):
    answer = f"It does not carry over [S{'9' * digits}] or [S1-S{'9' * digits}]."
    v = validate_citations(answer, A)
    assert [f.kind for f in v.findings] == ["unknown_handle", "unknown_handle"]
    assert all(len(f.message) < 200 for f in v.findings)
    assert len(resolve(answer, A)) >= len(answer)  # unresolved items are left as written
