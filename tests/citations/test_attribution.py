"""`citations.attribution`: attribution of uncited sentences, the standalone `unsupported_value`, and the
measured precision on the labelled sets (issue 12, items 2-3). Values themselves: test_values.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencepack import Layout, assemble
from evidencepack.citations.attribution import attribute, content_words, sources_of, unsupported_value
from evidencepack.citations.parse import handles_in
from evidencepack.citations.sentences import split_sentences
from evidencepack.data.demo import DEMO_KEY, demo_records
from evidencepack.errors import CitationInputError
from evidencepack.eval.claims_eval import measure

DATA = Path(__file__).parents[1] / "data"
RECORDS, QUESTION = demo_records()
DEMO = assemble(RECORDS, QUESTION, as_of="2026-06-01", boundary_key=DEMO_KEY,
                layout=Layout.preset("structured"))  # every demo record in the prompt, stale ones included
HANDLE = {m.id: m.handle for m in DEMO.manifest}


def test_content_words_drop_stop_words_handles_and_stem() -> None:
    assert content_words("The managers [S2] approved carrying the days") == {"manager", "approv", "carry", "day"}


def test_sentences_keep_a_trailing_citation() -> None:
    assert [x.text for x in split_sentences("PTO is forfeited. [S5] Ask HR.\n- Item two")] == [
        "PTO is forfeited. [S5]", "Ask HR.", "- Item two"]


def test_attribute_keeps_written_handles_and_attributes_the_rest() -> None:
    cur, old, slack = HANDLE["hb-pto-carryover-2025"], HANDLE["hb-pto-carryover-2024"], HANDLE[
        "slack-pto-carryover-2023"]
    answer = (f"Unused PTO does not carry over [{cur}]. Any balance left on December 31 is forfeited. "
              "The 2024 handbook let you carry up to five days into the next year. "
              "A lead on Slack offered to move about a week into next year if you sent a DM. Hope this helps!")
    a = attribute(answer, DEMO)
    assert [(x.handles, x.written) for x in a] == [((cur,), True), ((cur,), False), ((old,), False),
                                                   ((slack,), False), ((), False)]


def test_embeddings_are_compared_with_the_one_cosine() -> None:
    """`records.vectors.cosine`; vectors of different lengths raise (they used to be silently truncated)."""
    answer = "Any balance left on December 31 is forfeited."
    lexical = attribute(answer, DEMO)[0].scores
    averaged = attribute(answer, DEMO, embed=lambda text: (1.0, 2.0))[0].scores  # every cosine is 1
    assert lexical and all(averaged[h] == pytest.approx((s + 1) / 2) for h, s in lexical.items())
    with pytest.raises(CitationInputError, match="embed returned vectors of different lengths"):
        attribute(answer, DEMO, embed=lambda text: (1.0,) * (2 if "\n" in text else 3))  # sources: header\ntext


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
    assert handles_in("It does not carry over [S5], see also [S1, S2].") == ("S5", "S1", "S2")
    assert handles_in("Look-alikes are not handles: [s1] [S01] [S\uff11] [1].") == ()
