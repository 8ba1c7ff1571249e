"""Claims: values in their normal forms, attribution of uncited sentences, unsupported values, and the measured
precision on the labelled sets (issue 12, items 2-3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidencepack import Layout, assemble
from evidencepack.citations.claims import (
    attribute,
    content_words,
    extract_values,
    sources_of,
    split_sentences,
    supported,
    unsupported_in,
    unsupported_value,
)
from evidencepack.data.demo import DEMO_KEY, demo_records
from evidencepack.eval.claims_eval import measure

DATA = Path(__file__).parent / "data"
RECORDS, QUESTION = demo_records()
DEMO = assemble(RECORDS, QUESTION, as_of="2026-06-01", boundary_key=DEMO_KEY)
HANDLE = {m.id: m.handle for m in DEMO.manifest}


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


def test_content_words_drop_stop_words_handles_and_stem() -> None:
    assert content_words("The managers [S2] approved carrying the days") == {"manager", "approv", "carry", "day"}


def test_sentences_keep_a_trailing_citation() -> None:
    assert split_sentences("PTO is forfeited. [S5] Ask HR.\n- Item two") == ["PTO is forfeited. [S5]", "Ask HR.",
                                                                               "- Item two"]


def test_attribute_keeps_written_handles_and_attributes_the_rest() -> None:
    cur, old, slack = HANDLE["hb-pto-carryover-2025"], HANDLE["hb-pto-carryover-2024"], HANDLE[
        "slack-pto-carryover-2023"]
    answer = (f"Unused PTO does not carry over [{cur}]. Any balance left on December 31 is forfeited. "
              "The 2024 handbook let you carry up to five days into the next year. "
              "A lead on Slack offered to move about a week into next year if you sent a DM. Hope this helps!")
    a = attribute(answer, DEMO)
    assert [(x.handles, x.written) for x in a] == [((cur,), True), ((cur,), False), ((old,), False),
                                                   ((slack,), False), ((), False)]


def test_a_value_no_source_states_blocks_attribution() -> None:
    (a,) = attribute("Employees may carry up to 12 days of unused PTO into the next year.", DEMO)
    assert a.handles == () and not a.written


def test_unsupported_value_checks_cited_and_attributed_sentences() -> None:
    cur = HANDLE["hb-pto-carryover-2025"]
    found = unsupported_value(f"PTO is forfeited on December 30 [{cur}]. It has been so since January 1, 2025.",
                              DEMO)
    assert [(f.value.key, f.handles, f.written) for f in found] == [("--12-30", (cur,), True)]
    assert "December 30" in found[0].message and cur in found[0].message
    assert unsupported_value(f"Balances are forfeited on Dec. 31 [{cur}].", DEMO) == ()


def test_attribution_reads_the_json_form_too() -> None:
    data = DEMO.to_dict()
    assert sources_of(data) == sources_of(DEMO)
    answer = "Any balance left on December 31 is forfeited."
    assert attribute(answer, data) == attribute(answer, DEMO)


def test_flat_prompts_have_no_sources_to_attribute() -> None:
    flat = assemble(RECORDS, QUESTION, as_of="2026-06-01", boundary_key=DEMO_KEY, layout=Layout(format="flat"))
    assert [a.handles for a in attribute("Any balance left on December 31 is forfeited.", flat)] == [()]


@given(st.integers(min_value=1, max_value=999), st.sampled_from(["[S{}]", "(S{})", "[S{}, S1]", "【S{}】"]))
def test_handles_are_never_values(n: int, form: str) -> None:
    assert extract_values("PTO is forfeited " + form.format(n)) == ()


@pytest.mark.parametrize("name", ["claims_labelled.jsonl", "claims_holdout.jsonl"])
def test_measured_precision_on_the_labelled_sets(name: str) -> None:
    """The issue's target: at least 90 % precision. Both sets were written by hand from the bundled records;
    the holdout set was written after the rules were frozen (see docs/variants.md)."""
    r = measure(DATA / name)
    att, val = r["attribution"], r["values"]
    assert att["assigned"] >= 20 and att["unsupported"] >= 3  # the set exercises both sides
    assert att["precision"] >= 0.9, r["mistakes"]
    assert val["precision"] >= 0.9 and val["recall"] >= 0.8, r["mistakes"]


def test_labelled_set_is_large_and_varied() -> None:
    import json

    items = [json.loads(x) for x in (DATA / "claims_labelled.jsonl").read_text().splitlines() if x.strip()]
    kinds = {i["kind"] for i in items}
    assert len(items) >= 60 and {"paraphrase", "unsupported", "value-words", "wrong-value"} <= kinds


def test_written_handles_are_exactly_what_the_citation_validator_accepts() -> None:
    from evidencepack.citations.claims import handles_in

    assert handles_in("It does not carry over [S5], see also [S1, S2].") == ("S5", "S1", "S2")
    assert handles_in("Look-alikes are not handles: [s1] [S01] [S\uff11] [1].") == ()
