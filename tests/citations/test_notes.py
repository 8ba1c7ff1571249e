"""Conflict notes for the reader, and withholding misleading sources for a retry (issue 12, items 1, 4, 6):
what the assembler can say and do when a small model neither names a conflict nor repairs a stale answer."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencepack import Layout, assemble
from evidencepack.citations import conflict_notes, read_assembly, validate_citations, with_notes, withhold
from evidencepack.citations.notes import note_text
from evidencepack.cli import main
from evidencepack.data.demo import DEMO_KEY, corpus, demo_records
from evidencepack.errors import AssemblyFormatError
from evidencepack.eval.backends import Messages, Sampling, ScriptedBackend
from evidencepack.eval.cache import AnswerCache
from evidencepack.eval.datasets import load_traps
from evidencepack.eval.experiments import TrapRun, default_validator
from evidencepack.eval.judge import judge
from evidencepack.eval.report import trap_metrics, trap_report
from evidencepack.passes.conflicts import Conflict

RECORDS, QUESTION = demo_records()
# the model is shown the conflict (`surface`, the earlier default): these tests read what it then cites
DEMO = assemble(RECORDS, QUESTION, as_of="2026-06-01", boundary_key=DEMO_KEY, layout=Layout.preset("structured"))
JSON = json.loads(DEMO.to_json())
H = {m.id: m.handle for m in DEMO.manifest}
CUR, OLD, SLACK = H["hb-pto-carryover-2025"], H["hb-pto-carryover-2024"], H["slack-pto-carryover-2023"]
CURRENT_CLAIM = ("Unused PTO does not carry over into the next calendar year; any balance left on December 31 is "
                 "forfeited.")
STALE_CLAIM = "Employees may carry up to 5 days of unused PTO into the next calendar year."


def test_the_assemblys_conflicts_are_read_back_from_its_json() -> None:
    index = read_assembly(JSON)
    assert index.conflicts == DEMO.report.conflicts and index.conflicts
    assert read_assembly(DEMO).conflicts == index.conflicts


@pytest.mark.parametrize("damage", [
    lambda d: d["report"].__setitem__("conflicts", {"topic": "x"}),
    lambda d: d["report"]["conflicts"][0].__setitem__("current", ["S99"]),
    lambda d: d["report"]["conflicts"][0]["others"][0].__setitem__("handle", 3),
    lambda d: d["report"]["conflicts"][0]["others"][0].__setitem__("reasons", [1]),
])
def test_a_damaged_conflict_list_is_an_assembly_format_error(damage: object) -> None:
    data = copy.deepcopy(JSON)
    damage(data)  # type: ignore[operator]
    with pytest.raises(AssemblyFormatError, match="report.conflicts"):
        read_assembly(data)


def test_json_without_conflicts_reads_as_none() -> None:
    data = copy.deepcopy(JSON)
    del data["report"]["conflicts"]
    assert read_assembly(data).conflicts == ()
    assert conflict_notes(f"{STALE_CLAIM} [{OLD}]", data) == ()


def test_an_answer_resting_on_the_current_source_gets_a_note_naming_the_others() -> None:
    (note,) = conflict_notes(f"{CURRENT_CLAIM} [{CUR}]", DEMO)
    assert note.relied_on == (CUR,) and not note.weak_only
    assert f"[{CUR}]" in note.text and f"[{OLD}]" in note.text and f"[{SLACK}]" in note.text
    assert "EXPIRED" not in note.text and "expired since 2024-12-31" in note.text


def test_an_answer_resting_only_on_a_weak_source_is_told_so() -> None:
    (note,) = conflict_notes(f"{STALE_CLAIM} [{OLD}]", DEMO)
    assert note.weak_only and note.relied_on == (OLD,)
    assert note.text.startswith(f"Conflicting sources: this answer rests on [{OLD}]")
    assert f"[{SLACK}]" not in note.text  # only the weak source it rests on is named as such
    assert f"[{CUR}] is current and authoritative" in note.text


def test_uncited_answers_get_notes_through_attribution() -> None:
    (note,) = conflict_notes(CURRENT_CLAIM, DEMO)
    assert note.relied_on == (CUR,)
    verdict = validate_citations(CURRENT_CLAIM, DEMO)  # attribution off: nothing to rest on
    assert conflict_notes(CURRENT_CLAIM, DEMO, verdict=verdict) == ()


def test_an_answer_off_the_conflict_gets_no_note() -> None:
    vol = H["hb-volunteer-2024"]
    answer = f"Full-time employees receive 2 paid volunteer days per calendar year [{vol}]."
    assert conflict_notes(answer, DEMO) == ()
    assert with_notes(answer, ()) == answer


def test_with_notes_keeps_the_answer_and_appends_one_line_per_note() -> None:
    answer = f"{CURRENT_CLAIM} [{CUR}]\n"
    notes = conflict_notes(answer, DEMO)
    out = with_notes(answer, notes)
    assert out.startswith(answer.rstrip()) and out.endswith(notes[0].text)
    assert out.count("\nNote: ") == 1
    assert notes[0].to_dict()["relied_on"] == [CUR]


def test_plural_wording() -> None:
    c = Conflict("t", ("S1", "S2"), (("S3", ("informal",)),))
    assert note_text(c) == ("Conflicting sources: [S3] (informal) covers the same question as [S1] and [S2], which "
                            "are current and authoritative and hold where they differ.")
    assert note_text(c, ("S3",)).endswith("[S1] and [S2] are current and authoritative and hold where they differ.")


def test_the_note_states_no_rule_so_the_judge_never_calls_a_stale_answer_current() -> None:
    trap = next(t for t in load_traps() if t.id == "pto-carryover")
    for answer in ("Yes, you can carry up to 5 days of PTO into next year.",
                   "Just DM your lead and they will move about a week of PTO into next year."):
        delivered = with_notes(answer, conflict_notes(answer, DEMO))
        assert judge(answer, trap).verdict == judge(delivered, trap).verdict == "stale"


# ---------------------------------------------------------------- withhold


def test_withhold_names_the_weak_sources_a_stale_only_sentence_rests_on_and_their_group() -> None:
    verdict = validate_citations(f"{STALE_CLAIM} [{OLD}]", DEMO)
    assert [f.kind for f in verdict.findings] == ["stale_only"]
    assert withhold(verdict, DEMO) == ("hb-pto-carryover-2024", "slack-pto-carryover-2023")


def test_withhold_is_empty_without_a_stale_finding_and_never_holds_back_a_current_source() -> None:
    assert withhold(validate_citations(f"{CURRENT_CLAIM} [{CUR}]", DEMO), DEMO) == ()
    # citing the current record beside the old one does not launder the old value: stale_value names its sources
    mixed = validate_citations(f"{STALE_CLAIM} [{OLD}][{CUR}]", DEMO)
    assert [f.kind for f in mixed.findings] == ["stale_value"]
    assert withhold(mixed, DEMO) == ("hb-pto-carryover-2024", "slack-pto-carryover-2023")
    off = validate_citations(f"{STALE_CLAIM} [{OLD}]", DEMO, severities={"stale_only": "off", "stale_value": "off"})
    assert off.findings == () and withhold(off, DEMO) == ()


def test_withhold_works_on_attributed_support() -> None:
    verdict = validate_citations(STALE_CLAIM, DEMO, attribute=True)
    assert "stale_only" in [f.kind for f in verdict.findings]
    assert "hb-pto-carryover-2024" in withhold(verdict, DEMO)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([CURRENT_CLAIM, STALE_CLAIM, "The sky is blue.", f"[{OLD}]", f"[{CUR}]",
                                 f"[{SLACK}]", "Hello. ", "\n"]), max_size=6))
def test_withheld_ids_are_weak_included_records(parts: list[str]) -> None:
    answer = " ".join(parts)
    verdict = validate_citations(answer, DEMO, attribute=True)
    weak = {m.id for m in DEMO.manifest if m.status != "current" or m.authority in ("informal", "superseded")}
    assert set(withhold(verdict, DEMO)) <= weak
    for note in conflict_notes(answer, DEMO):
        assert set(note.relied_on) <= {CUR, OLD, SLACK}


# ---------------------------------------------------------------- the CLI


def test_validate_cli_prints_notes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = tmp_path / "a.json"
    a.write_text(DEMO.to_json(), "utf-8")
    ans = tmp_path / "ans.txt"
    ans.write_text(STALE_CLAIM, "utf-8")
    assert main(["validate", str(a), str(ans), "--attribute", "--notes", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    (note,) = out["conflict_notes"]
    assert note["weak_only"] and note["relied_on"] == [OLD]
    assert out["withhold"] == ["hb-pto-carryover-2024", "slack-pto-carryover-2023"]
    assert main(["validate", str(a), str(ans), "--attribute", "--notes"]) == 1
    assert "Note: Conflicting sources: this answer rests on" in capsys.readouterr().out
    # without attribution the sentence rests on nothing, yet its value is one only the weak sources state
    assert main(["validate", str(a), str(ans), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert "conflict_notes" not in out
    assert [(f["kind"], f["sources"]) for f in out["findings"]] == [("uncited", []), ("stale_value", [OLD])]
    assert main(["validate", str(a), str(ans), "--json", "--stale-value", "warn"]) == 0
    assert [f["severity"] for f in json.loads(capsys.readouterr().out)["findings"]] == ["warn", "warn"]
    ans.write_text(CURRENT_CLAIM, "utf-8")
    assert main(["validate", str(a), str(ans), "--json"]) == 0  # uncited is a warning


# ---------------------------------------------------------------- the eval harness


@pytest.mark.skipif(default_validator() is None, reason="evidencepack.citations not present")
def test_guard_withhold_asks_afresh_without_the_misleading_sources(tmp_path: Path) -> None:
    seen: list[Messages] = []

    def rule(messages: Messages) -> str:
        seen.append(messages)
        if "Employees may carry up to 5 days" in messages[-1]["content"]:
            return "You can carry up to 5 days of unused PTO into the next calendar year."
        return "No. Unused PTO does not carry over into the next calendar year and is forfeited on December 31."

    traps = [t for t in load_traps() if t.id == "pto-carryover"]
    run = TrapRun(ScriptedBackend(rule=rule), traps, corpus(), Sampling(), AnswerCache(tmp_path),
                  ("structured", "structured+guard"), validator=default_validator(), guard_on=("stale_only",),
                  guard_attribute=True, guard_repair="withhold")
    plain, guarded = run.run()
    assert plain["verdict"] == "stale"
    g = guarded["guard"]
    assert g["regenerated"] and g["fired"] == ["stale_only"] and g["fixed"] == ["stale_only"]
    assert "hb-pto-carryover-2024" in g["withheld"]
    assert "Employees may carry up to 5 days" in seen[0][-1]["content"]
    assert "Employees may carry up to 5 days" not in seen[-1][-1]["content"]
    assert len(seen[-1]) == 2  # a fresh question, not a second turn
    assert guarded["verdict"] == "current"
    m = trap_metrics([plain, guarded])
    assert m["structured+guard"]["guard"]["withheld"] == 1
    assert "asked afresh without withheld sources" in trap_report([plain, guarded], {})
    with pytest.raises(ValueError, match="guard_repair"):
        TrapRun(ScriptedBackend(rule=rule), traps, corpus(), Sampling(), None, ("structured",),
                validator=default_validator(), guard_repair="beg").run()


@pytest.mark.skipif(default_validator() is None, reason="evidencepack.citations not present")
def test_rows_carry_the_delivered_answer_and_the_report_keeps_model_and_delivered_apart(tmp_path: Path) -> None:
    answers = {"structured": "No. Unused PTO does not carry over into the next calendar year and is forfeited on "
                             "December 31. Earlier you could carry up to 5 days."}
    traps = [t for t in load_traps() if t.id == "pto-carryover"]
    run = TrapRun(ScriptedBackend(rule=lambda m: answers["structured"]), traps, corpus(), Sampling(),
                  AnswerCache(tmp_path), ("flat", "structured"), validator=default_validator())
    flat, row = run.run()
    assert flat["delivered"] is None
    d = row["delivered"]
    assert d["notes"] and d["conflict_named"] is True
    m = trap_metrics([flat, row])
    assert m["structured"]["delivered"]["noted"]["k"] == 1 and m["flat"]["delivered"] is None
    assert "## As delivered, with conflict notes" in trap_report([flat, row], {})


def test_answered_carries_the_notes_of_its_final_answer() -> None:
    from evidencepack.integrations.common import Policy, answer

    replies = iter([f"{STALE_CLAIM} [{OLD}]", f"{CURRENT_CLAIM} [{CUR}]"])
    done = answer(DEMO, lambda messages: next(replies), policy=Policy(attempts=1))
    assert done.attempts == 1 and done.verdict.valid
    (note,) = done.notes()
    assert note.relied_on == (CUR,) and not note.weak_only
    assert done.with_notes().endswith(note.text)
    assert done.to_dict()["conflict_notes"] == [note.to_dict()]
