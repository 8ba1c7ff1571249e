"""An answer form's conflict line reports what the disagreeing sources say: the validator's `stale_only` does
not treat it as a claim the answer rests on (issue 12, `conflict_form`), and nothing else changes."""

from __future__ import annotations

import pytest

from evidencepack import Layout, assemble
from evidencepack.citations import validate_citations, withhold
from evidencepack.data.demo import DEMO_KEY, demo_records

RECORDS, QUESTION = demo_records()
A = assemble(RECORDS, QUESTION, as_of="2026-06-01", boundary_key=DEMO_KEY, layout=Layout.preset("conflict-form"))
ANSWER = "Answer: No, unused PTO does not carry over into the next calendar year [S1]."
# The 2024 handbook's rule restated in a second, uncited sentence: attribution gives it to S3 (superseded).
STALE = "Employees may carry up to 5 days of unused PTO from one calendar year into the next."


def stale_only(text: str) -> list[int]:
    v = validate_citations(text, A, attribute=True)
    return [f.sentence for f in v.findings if f.kind == "stale_only"]


@pytest.mark.parametrize("layout", [
    "{answer}\nConflict on pto-carryover: [S3] (superseded, EXPIRED since 2024-12-31) says it did. {stale}",
    "{answer}\nConflicts: [S3] is superseded and says otherwise. {stale}",
    "{answer}\n\nConflict on pto-carryover:\n[S3] (superseded) says it did. {stale}",
])
def test_a_marked_conflict_line_is_reported_not_rested_on(layout: str) -> None:
    text = layout.format(answer=ANSWER, stale=STALE)
    assert stale_only(text) == []
    assert withhold(validate_citations(text, A, attribute=True), A) == ()


@pytest.mark.parametrize("layout", [
    "{answer} {stale}",  # the stale rule as part of the answer
    "{answer}\n{stale}",  # on a line of its own
    "{answer}\nConflicts: none. {stale}",  # a conflict line that marks nothing
    "Conflict on pto-carryover: [S3] (superseded) says it did.\n{stale}",  # the line after a filled one
])
def test_the_stale_rule_anywhere_else_still_fires(layout: str) -> None:
    text = layout.format(answer=ANSWER, stale=STALE)
    fired = stale_only(text)
    assert len(fired) == 1
    assert STALE in validate_citations(text, A, attribute=True).sentences[fired[0]].text
