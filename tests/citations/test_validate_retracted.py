"""Issue 25: "The old 90-day rotation no longer applies [S1]." was flagged `unsupported_value` ("'90-day' is not
stated in S1"): a sentence that names an old rule to say it is gone does not state its value. Its neighbours,
where the value is stated, are still flagged, by the validator and by `attribution.unsupported_value` alike."""

from __future__ import annotations

import pytest

from evidencepack import assemble, validate_citations
from evidencepack.citations.attribution import unsupported_value

RECORDS = [{"id": "sec-2026", "text": "Passwords no longer expire on a schedule; change a password only when it may "
            "be compromised.", "doc": "Security policy 2026", "authority": "authoritative", "topic": "passwords"}]
A = assemble(RECORDS, "How often must I rotate my password?", as_of="2026-06-01")


def flagged(answer: str) -> list[str]:
    return [answer[f.start:f.end] for f in validate_citations(answer, A).findings if f.kind == "unsupported_value"]


def test_the_reported_false_alarm_is_gone() -> None:
    answer = "The old 90-day rotation no longer applies [S1]."
    assert validate_citations(answer, A).findings == ()
    assert unsupported_value(answer, A) == ()


@pytest.mark.parametrize(("answer", "values"), [
    ("The 90-day rotation still applies [S1].", ["90-day"]),
    ("Passwords rotate every 90 days [S1].", ["90 days"]),
    ("The old 90-day rotation no longer applies; passwords now rotate every 60 days [S1].", ["60 days"]),
    ("The old rule no longer applies, and passwords now rotate every 60 days [S1].", ["60 days"]),
    ("The old 90-day rotation was extended to 120 days [S1].", ["90-day", "120 days"]),
    ("Rotation no longer applies after 90 days [S1].", ["90 days"]),
])
def test_neighbours_that_state_a_value_are_still_flagged(answer: str, values: list[str]) -> None:
    assert flagged(answer) == values
    assert [u.value.text for u in unsupported_value(answer, A)] == values
