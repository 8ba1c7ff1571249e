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
