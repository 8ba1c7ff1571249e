"""`transplanted_value` (citations/transplant.py, issue 24 item 2): a value given for what the question asks about
that the sources state only about something else is flagged; the value that answers the question is not."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evidencepack import Layout, assemble
from evidencepack.citations import Severities, StreamValidator, validate_citations
from evidencepack.cli import build_parser

LODGING = {"id": "lodging", "text": "Drivers who cannot get back to the terminal may stay in a hotel. Claim up to $140 "
           "per night plus tax.", "doc": "Travel Policy", "section": "Overnight stays", "authority": "authoritative"}
RECEIPTS = {"id": "receipts", "text": "An itemized receipt is required for every expense of $25 or more.",
            "doc": "Travel Policy", "section": "Receipts", "authority": "authoritative"}
MEALS = {"id": "meals", "text": "The daily meal allowance on overnight routes is $25.", "doc": "Travel Policy",
         "section": "Meals", "authority": "authoritative"}
UNANSWERABLE = "How much is the daily meal allowance when I'm out overnight on a route?"


def _assembly(records: list[dict[str, str]], question: str = UNANSWERABLE, fmt: str = "structured"):  # type: ignore[no-untyped-def]
    layout = Layout(order="ranked") if fmt == "structured" else Layout(format="flat")
    return assemble(records, question, as_of="2026-06-01", layout=layout)


def _handle(a, record_id: str) -> str:  # type: ignore[no-untyped-def]
    return next(m.handle for m in a.manifest if m.id == record_id)


def _found(answer: str, a, **kw: object) -> list[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    verdict = validate_citations(answer, a, **kw)  # type: ignore[arg-type]
    return [(f.severity, answer[f.start:f.end], f.message) for f in verdict.findings if f.kind == "transplanted_value"]


def test_a_value_the_sources_state_about_another_subject_is_flagged() -> None:
    a = _assembly([LODGING, RECEIPTS])
    s = _handle(a, "receipts")
    answer = f"The daily meal allowance is $25 [{s}]."
    [(level, text, message)] = _found(answer, a)
    assert (level, text) == ("warn", "$25")
    assert f"[{s}]" in message and "itemized receipt" in message and "'meal'" in message
    finding = next(f for f in validate_citations(answer, a).findings if f.kind == "transplanted_value")
    assert finding.sources == (s,)
    assert validate_citations(answer, a).valid  # warn: the answer stays valid


def test_a_flat_prompt_is_read_as_one_text() -> None:
    a = _assembly([LODGING, RECEIPTS], fmt="flat")
    [(_, text, message)] = _found("The daily meal allowance is $25.", a)
    assert text == "$25" and "a source states" in message


def test_the_value_that_answers_the_question_is_silent() -> None:
    a = _assembly([LODGING, RECEIPTS, MEALS])
    assert _found(f"The daily meal allowance is $25 [{_handle(a, 'meals')}].", a) == []


def test_a_value_stated_about_the_subject_and_another_is_silent() -> None:
    # $25 is the receipt threshold and, in another source, the meal allowance: the answer may be right
    a = _assembly([LODGING, RECEIPTS, MEALS])
    assert _found(f"The daily meal allowance is $25 [{_handle(a, 'receipts')}].", a) == []


def test_an_answer_repeating_the_users_details_about_the_right_rule_is_silent() -> None:
    mileage = {"id": "mileage", "text": "When you use your own car on company business, the company reimburses "
               "72 cents per mile.", "doc": "Travel Policy", "section": "Personal vehicles",
               "authority": "authoritative"}
    question = "What's the mileage rate if I drive my own car to the Fort Wayne terminal for the hazmat course?"
    a = _assembly([mileage, RECEIPTS], question)
    answer = "The mileage rate for driving your own car to Fort Wayne for the hazmat course is 72 cents per mile."
    assert _found(answer, a) == []


def test_saying_the_sources_do_not_answer_is_silent() -> None:
    a = _assembly([LODGING, RECEIPTS])
    assert _found("The sources do not state a daily meal allowance; receipts are needed from $25.", a) == []


def test_values_of_the_question_and_values_no_source_states_are_not_its_own() -> None:
    a = _assembly([LODGING, RECEIPTS], "Is the daily meal allowance $25 on a route?")
    assert _found("Yes, the daily meal allowance is $25.", a) == []
    b = _assembly([LODGING, RECEIPTS])
    assert _found("The daily meal allowance is $31.", b) == []  # unsupported_value's, not this check's


def test_the_level_flows_through_severities_and_streaming() -> None:
    a = _assembly([LODGING, RECEIPTS])
    answer = f"The daily meal allowance is $25 [{_handle(a, 'receipts')}]."
    assert _found(answer, a, severities={"transplanted_value": "off"}) == []
    assert _found(answer, a, severities=Severities(transplanted_value="off")) == []
    assert [x[0] for x in _found(answer, a, severities={"transplanted_value": "error"})] == ["error"]
    assert not validate_citations(answer, a, severities={"transplanted_value": "error"}).valid
    stream = StreamValidator(a, severities=Severities(transplanted_value="error"))
    stream.feed(answer)
    assert [f.severity for f in stream.close().findings if f.kind == "transplanted_value"] == ["error"]
    assert Severities().transplanted_value == "warn"


def test_the_cli_flag_is_generated() -> None:
    args = build_parser().parse_args(["validate", "a.json", "b.txt", "--transplanted-value", "error"])
    assert args.transplanted_value == "error"


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Nd", "No", "Cs")), max_size=200))
def test_never_fires_on_an_answer_without_digits(answer: str) -> None:
    # number words stay: "forty dollars" is a value, but no source here states one in words
    a = _assembly([LODGING, RECEIPTS])
    assert _found(answer, a) == []


def test_the_reader_gets_a_note_built_from_metadata_with_the_first_answer() -> None:
    """`transplant_note` (and `Answered.with_notes`): the value is the answer's own, the source is named by its
    doc and section, never quoted; no finding, no note."""
    from evidencepack.citations import transplant_note
    from evidencepack.integrations.common import Answered

    a = _assembly([LODGING, RECEIPTS])
    answer = f"The daily meal allowance is $25 [{_handle(a, 'receipts')}]."
    verdict = validate_citations(answer, a)
    note = transplant_note(answer, a, verdict)
    assert note == "No source states this for what was asked: $25 is what Travel Policy, §Receipts gives for " \
                   "something else."
    assert "itemized" not in note  # no record text reaches the reader through the note
    answered = Answered(answer, verdict, (), 0, a)
    assert answered.with_notes().endswith("\n\nNote: " + note) and answered.to_dict()["value_note"] == note
    right = _assembly([LODGING, RECEIPTS, MEALS])
    fine = f"The daily meal allowance is $25 [{_handle(right, 'meals')}]."
    assert transplant_note(fine, right, validate_citations(fine, right)) == ""


def test_validate_notes_gives_the_value_note(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from evidencepack.cli import main

    a = _assembly([LODGING, RECEIPTS])
    (tmp_path / "a.json").write_text(a.to_json(), encoding="utf-8")
    (tmp_path / "answer.txt").write_text(f"The daily meal allowance is $25 [{_handle(a, 'receipts')}].", "utf-8")
    args = ["validate", str(tmp_path / "a.json"), str(tmp_path / "answer.txt"), "--notes"]
    assert main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value_note"].startswith("No source states this for what was asked")
    assert main(args) == 0
    assert "  Note: No source states this for what was asked: $25 is what" in capsys.readouterr().out
