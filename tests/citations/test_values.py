"""`citations.values`: values in their normal forms, what a source's values support, and the one
unsupported-value check (moved from test_claims.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidencepack.citations.values import claimed_values, extract_values, supported, unsupported_in


def keys(text: str) -> list[str]:
    return [v.key for v in extract_values(text)]


@pytest.mark.parametrize(("text", "want"), [
    ("fourteen weeks", ["14 week"]), ("14 weeks", ["14 week"]), ("a 90-day period", ["90 day"]),
    ("every 90 days", ["90 day"]), ("twenty-one days", ["21 day"]), ("2 or more consecutive days", ["2 day"]),
    ("up to a week", ["1 week"]), ("within a year", ["1 year"]), ("$40 a month", ["$40"]),
    ("$1,500", ["$1500"]), ("1500 dollars", ["$1500"]), ("three hundred dollars", ["$300"]), ("$2k", ["$2000"]),
    ("70 cents", ["$0.7"]), ("75%", ["75%"]), ("seventy-five percent", ["75%"]), ("1.5 times", ["1.5"]),
    ("January 1, 2025", ["2025-01-01"]), ("Jan. 1 2025", ["2025-01-01"]), ("1 January 2025", ["2025-01-01"]),
    ("2025-01-01", ["2025-01-01"]), ("12/31/2025", ["2025-12-31"]), ("Dec 31", ["--12-31"]),
    ("Employee Handbook 2025", ["2025"]),
    # not values: handles, list numbering, bare number words ("the current one")
    ("as S2 says [S2] and (S1, S3)", []), ("1. Ask your manager", []), ("the current one of the two", []),
])
def test_values_in_normal_form(text: str, want: list[str]) -> None:
    assert keys(text) == want


@pytest.mark.parametrize(("claim", "source", "ok"), [
    ("fourteen weeks", "14 weeks of leave", True), ("every 90 days", "a 90-day period", True),
    ("up to a week", "7 days", True), ("within a year", "within 12 months", True),
    ("three hundred dollars", "$300", True),
    ("Jan. 1, 2025", "Effective January 1, 2025", True), ("Dec 31", "on December 31, 2026", True),
    ("the 2025 handbook", "updated 2025-03-01", True), ("2 times", "2 weeks", True),
    ("15 weeks", "14 weeks", False), ("$500", "$50", False), ("2 hours", "2 days", False),
    ("80%", "100% of base pay", False), ("March 31, 2026", "March 31, 2027", False),
])
def test_supported_compares_normal_forms(claim: str, source: str, ok: bool) -> None:
    (value,) = extract_values(claim)
    assert supported(value, extract_values(source)) is ok


def test_unsupported_in_names_only_the_missing_value_and_takes_the_question_as_given() -> None:
    got = unsupported_in("Carry up to 10 days by March 31.", ["Carry up to 5 days; use them by March 31."])
    assert [v.text for v in got] == ["10 days"]
    assert unsupported_in("For my 3 kids, 14 weeks.", ["14 weeks of leave"], also_given="I have 3 kids") == ()


@given(st.integers(min_value=1, max_value=999), st.sampled_from(["[S{}]", "(S{})", "[S{}, S1]", "【S{}】"]))
def test_handles_are_never_values(n: int, form: str) -> None:
    assert extract_values("PTO is forfeited " + form.format(n)) == ()




@pytest.mark.parametrize(("text", "claimed"), [
    ("The old 90-day rotation no longer applies.", []),
    ("The previous rule of rotating every 90 days has been withdrawn.", []),
    ("The former $500 cap does not apply to contractors.", []),
    ("The 90-day rotation still applies.", ["90 day"]),  # nothing says the rule is gone
    ("The old 90-day rotation was extended to 120 days.", ["90 day", "120 day"]),  # changed, not retracted
    ("Rotation no longer applies after 90 days.", ["90 day"]),  # the value is a condition, not the old rule
    ("The old rule no longer applies; passwords rotate every 60 days.", ["60 day"]),
    ("The old 90-day rotation no longer applies; passwords now rotate every 60 days.", ["60 day"]),
    ("The old rule no longer applies, and passwords now rotate every 60 days.", ["60 day"]),
    ("The old policy said 30 days: the 90-day rotation no longer applies.", ["30 day", "90 day"]),  # 2 clauses
])
def test_a_value_naming_a_rule_said_to_be_gone_is_not_claimed(text: str, claimed: list[str]) -> None:
    assert [v.key for v in claimed_values(text)] == claimed
    assert extract_values(text)  # every example has values: only the claim filter differs
