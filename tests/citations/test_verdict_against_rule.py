"""`verdict_against_rule`: an answer that opens "Yes" while the sentence of a conflict group's current
authoritative source closest to the question restricts, and the note that tells the reader (issue 24)."""

from __future__ import annotations

import json

import pytest

from evidencepack import Layout, assemble
from evidencepack.citations import read_assembly, validate_citations, verdict_note, with_notes
from evidencepack.citations.verdict import deciding_rule
from evidencepack.cli import main

QUESTION = "Can I rent an SUV for the long drive to the Denver office?"
RECORDS = [
    {"id": "email", "text": "Sure, grab an SUV, nobody checks.", "authority": "informal", "topic": "rental",
     "doc": "Email from a manager"},
    {"id": "policy", "text": "Book rental cars through the travel desk. Upgrades to SUVs or premium classes are not "
     "reimbursed, whatever the trip length.", "authority": "authoritative", "topic": "rental",
     "doc": "Travel Policy", "section": "Rental cars"},
    {"id": "hotel", "text": "Day-trip drivers who cannot get home may stay in a hotel for the night.",
     "authority": "authoritative", "topic": "hotel", "doc": "Travel Policy", "section": "Hotels"},
    {"id": "hotel-old", "text": "Hotels are never paid for day trips.", "authority": "superseded", "topic": "hotel",
     "doc": "Travel Policy v1", "section": "Hotels"},
]


def build(question: str = QUESTION, records=RECORDS, **layout):
    return assemble(records, question, as_of="2026-06-01", boundary_key=b"k" * 16, layout=Layout(**layout))


def kinds(answer: str, a=None) -> list[str]:
    return [f.kind for f in validate_citations(answer, a or build()).findings if f.kind == "verdict_against_rule"]


@pytest.mark.parametrize("policy", ["surface", "withhold"])
def test_a_yes_against_a_restricting_rule_is_flagged_and_the_reader_told(policy: str) -> None:
    a = build(conflict_policy=policy)
    handle = next(m.handle for m in a.manifest if m.id == "policy")
    assert deciding_rule(read_assembly(a)) == (handle, "Upgrades to SUVs or premium classes are not reimbursed, "
                                                      "whatever the trip length.")
    answer = f"Yes, you can rent an SUV for the long drive [{handle}]."
    verdict = validate_citations(answer, a)
    (finding,) = [f for f in verdict.findings if f.kind == "verdict_against_rule"]
    assert finding.severity == "warn" and verdict.valid and answer[finding.start:finding.end] == "Yes"
    assert finding.sources == (handle,)
    note = verdict_note(answer, a, verdict)
    assert note.startswith('This answer opens with "Yes", but the current rule in') and f"[{handle}]" in note
    assert "Travel Policy" in note and "reimbursed" not in note  # metadata only, never record text
    assert with_notes(answer, (note,)).endswith("Note: " + note)


@pytest.mark.parametrize("answer", [
    "Rule: [S1] Upgrades to SUVs are not reimbursed.\nAnswer: Yes, you can rent it.",  # the answer form's verdict
    "**Answer:** Yes, rent the SUV.",
    "Rule: [S1] Upgrades to SUVs are not reimbursed.\n\nAnswer: Yes, you can rent it.",  # a blank line before it
    # `check_form`'s check written as a list: the verdict is on the Answer line below it
    "Rule: [S1] Upgrades to SUVs are not reimbursed.\nCheck:\n- an SUV is an upgrade: met\nAnswer: Yes, rent it.",
])
def test_the_verdict_after_an_answer_form_line_is_read(answer: str) -> None:
    assert kinds(answer) == ["verdict_against_rule"]


@pytest.mark.parametrize(("question", "answer"), [
    (QUESTION, "No: upgrades to SUVs are not reimbursed."),  # the verdict the rule gives
    (QUESTION, "You can book a compact car through the travel desk."),  # no yes/no verdict to read
    ("Can I get a hotel if I cannot get home from a day trip?", "Yes, you may stay in a hotel."),  # it permits
    ("What is the capital of Peru?", "Yes."),  # no sentence of a current record shares a word with the question
])
def test_no_finding_when_the_verdict_does_not_go_against_a_restriction(question: str, answer: str) -> None:
    assert kinds(answer, build(question)) == []


def test_nothing_to_read_without_a_decided_group_or_without_blocks() -> None:
    lone = [r for r in RECORDS if r["id"] in ("policy", "hotel")]
    assert kinds("Yes, rent it.", build(records=lone)) == []  # no conflict group: nothing decided
    assert kinds("Yes, rent it.", build(format="flat", order="edges")) == []  # flat: no blocks to read
    off = validate_citations("Yes, rent it.", build(), severities={"verdict_against_rule": "off"})
    assert not [f for f in off.findings if f.kind == "verdict_against_rule"]


def test_validate_notes_json_carries_the_note(tmp_path, capsys) -> None:
    a = build()
    handle = next(m.handle for m in a.manifest if m.id == "policy")
    (tmp_path / "a.json").write_text(a.to_json(), encoding="utf-8")
    (tmp_path / "answer.txt").write_text(f"Yes, rent the SUV [{handle}].", encoding="utf-8")
    assert main(["validate", str(tmp_path / "a.json"), str(tmp_path / "answer.txt"), "--notes", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict_note"].startswith('This answer opens with "Yes"')


PAY = [
    {"id": "chat", "text": "Nobody gets paid for the Sunday in-service unless they were already on the rota.",
     "authority": "informal", "topic": "in-service", "doc": "Team chat"},
    {"id": "sop", "text": "Monthly in-service training is mandatory and is paid at the regular hourly rate, also "
     "outside scheduled shifts. Clock in when you arrive.", "authority": "authoritative", "topic": "in-service",
     "doc": "Aquatics SOP", "section": "Training"},
]
PAY_QUESTION = "I'm not on the schedule on Sunday. Do I get paid for going to the in-service?"


@pytest.mark.parametrize("answer", [
    "No, you do not get paid for going.",
    "The answer is no, you don't get paid for it.",  # a lead-in the judge reads past, read past here too
    "Rule: [S1] says training is paid. Answer: No, you are not paid for it.",  # the form's answer on the rule's line
])
def test_a_no_that_denies_what_the_rule_states_is_flagged_and_the_reader_told(answer: str) -> None:
    a = build(PAY_QUESTION, records=PAY)
    verdict = validate_citations(answer, a)
    (finding,) = [f for f in verdict.findings if f.kind == "verdict_against_rule"]
    assert answer[finding.start:finding.end].lower() == "no" and "denies" in finding.message
    note = verdict_note(answer, a, verdict)
    assert note.startswith('This answer opens with "No", but the current rule in Aquatics SOP') and \
        note.endswith("acting on the No.") and "hourly" not in note


@pytest.mark.parametrize(("question", "answer"), [
    (PAY_QUESTION, "Yes, it is paid at your regular rate."),  # the verdict the rule gives
    (PAY_QUESTION, "No, you do not need a badge for it: it is paid."),  # denies a word the rule does not state
    (PAY_QUESTION, "No. You are paid at the regular rate."),  # nothing denied after the opening No
    (QUESTION, "No, you cannot get it reimbursed."),  # the rule restricts: a No agrees with it
])
def test_a_no_is_flagged_only_when_it_denies_a_word_the_rule_states_unrestricted(question: str, answer: str) -> None:
    records = PAY if question == PAY_QUESTION else RECORDS
    assert kinds(answer, build(question, records=records)) == []


def test_the_rules_own_negations_are_not_what_it_states() -> None:
    from evidencepack.citations.verdict import polarity

    denied, stated = polarity("You do not get paid; you are not allowed to clear it. Training is mandatory.")
    assert denied == {"paid", "clear"}
    assert "train" in stated and "paid" not in stated and "clear" not in stated


@pytest.mark.parametrize("answer", [
    "You can rent the SUV for that drive.",
    "Answer: We can rent an SUV since it is a long drive.",  # after the form's label
    "You are allowed to rent an SUV [S1].",
])
def test_a_grant_without_yes_is_read_as_yes(answer: str) -> None:
    a = build()
    verdict = validate_citations(answer, a)
    (finding,) = [f for f in verdict.findings if f.kind == "verdict_against_rule"]
    assert "opens by granting" in finding.message
    note = verdict_note(answer, a, verdict)
    assert note.startswith(f'This answer says "{answer[finding.start:finding.end].lower()}", but the current rule in')
    assert note.endswith("before acting on it.") and "reimbursed" not in note


@pytest.mark.parametrize("answer", [
    "You can book a compact car through the travel desk.",  # grants an alternative: no word of the question
    "You cannot rent an SUV for it.",  # a denial, not a grant
    "You may not rent an SUV.",
])
def test_a_grant_of_something_else_or_a_denial_is_not_read_as_yes(answer: str) -> None:
    assert kinds(answer) == []


@pytest.mark.parametrize(("question", "answer", "word"), [
    # an answer form's Answer line that grants with a modal and a named subject, as the judge reads it
    (QUESTION, "Rule: [S1] Upgrades to SUVs are not reimbursed.\nAnswer: Dana can rent the SUV for the drive.", "can"),
    # ... or denies with one what the rule states unrestricted
    (PAY_QUESTION, "Rule: [S1] says training is paid.\nAnswer: Staff off the schedule cannot get paid for it.",
     "cannot"),
])
def test_a_modal_verdict_on_a_forms_answer_line_is_read(question: str, answer: str, word: str) -> None:
    verdict = validate_citations(answer, build(question, records=PAY if question == PAY_QUESTION else RECORDS))
    (finding,) = [f for f in verdict.findings if f.kind == "verdict_against_rule"]
    assert answer[finding.start:finding.end] == word


@pytest.mark.parametrize("answer", [
    "Rule: [S1] Upgrades to SUVs are not reimbursed.\nAnswer: Dana can book a compact car instead.",  # another action
    "Rule: [S1] Upgrades to SUVs are not reimbursed.\nAnswer: Dana may rent an SUV only if she pays the difference.",
    "Dana can rent the SUV for the drive.",  # no form's Answer line, and no pronoun the grant reading knows
])
def test_a_modal_that_restricts_names_another_action_or_stands_outside_a_form_is_not_read(answer: str) -> None:
    assert kinds(answer) == []


@pytest.mark.parametrize("answer", [
    # a modal in a clause that sets a condition is not the verdict ("before you can ...")
    "Rule: [S1] Upgrades to SUVs are not reimbursed.\nAnswer: Dana needs the travel desk's approval of 2.5 days "
    "before she can rent the SUV.",
    "Rule: [S1] Upgrades to SUVs are not reimbursed.\nAnswer: Book with the travel desk before you can rent the SUV.",
])
def test_a_modal_in_a_conditional_clause_is_not_read_as_the_verdict(answer: str) -> None:
    assert kinds(answer) == []


def test_the_check_and_the_judge_read_the_same_first_sentence() -> None:
    """An echo of the question is skipped and a decimal point ends no sentence: both readers take the sentence
    `reading.verdict_sentence` gives, and the finding points into it."""
    from evidencepack.citations.reading import verdict_sentence

    answer = "Rule: [S1] Upgrades to SUVs are not reimbursed.\nAnswer: Can I rent an SUV? Yes, rent the 2.5 l SUV."
    at, first = verdict_sentence(answer)
    assert first == "Yes, rent the 2.5 l SUV." and answer[at:].startswith(first)
    (finding,) = [f for f in validate_citations(answer, build()).findings if f.kind == "verdict_against_rule"]
    assert (finding.start, finding.end) == (at, at + 3)
    assert verdict_sentence("Answer: ") == (len("Answer: "), "")
