"""Attribution and value checks wired into the citation validator, the policies, the CLI and the eval guard
(issue 12, items 2-4; moved from tests/test_attribution_validation.py): one sentence splitter, written vs
attributed support, `unsupported_value`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencepack import Layout, assemble
from evidencepack.citations import (
    SEVERITIES,
    StreamValidator,
    read_assembly,
    regenerate,
    repair_prompt,
    resolve,
    split_sentences,
    validate_citations,
)
from evidencepack.citations.attribution import attribute, unsupported_value
from evidencepack.citations.parse import handles_in, read_sentences
from evidencepack.citations.policies import repair_line
from evidencepack.citations.values import extract_values
from evidencepack.cli import main
from evidencepack.data import corpus, traps
from evidencepack.data.demo import DEMO_KEY, demo_records
from evidencepack.errors import CitationInputError
from evidencepack.eval.backends import Messages, Sampling, ScriptedBackend
from evidencepack.eval.cache import AnswerCache
from evidencepack.eval.datasets import load_traps
from evidencepack.eval.experiments import (
    EVAL_KEY,
    GUARD_KINDS,
    TrapRun,
    default_validator,
    guard_kinds,
    repair_message,
)
from evidencepack.eval.report import trap_metrics, trap_report

RECORDS, QUESTION = demo_records()
# the model is shown the conflict (`surface`, the earlier default): these tests read what it then cites
DEMO = assemble(RECORDS, QUESTION, as_of="2026-06-01", boundary_key=DEMO_KEY, layout=Layout.preset("structured"))
JSON = json.loads(DEMO.to_json())  # what `evidencepack assemble --json` prints, under that layout
H = {m.id: m.handle for m in DEMO.manifest}
CUR, OLD, SLACK = H["hb-pto-carryover-2025"], H["hb-pto-carryover-2024"], H["slack-pto-carryover-2023"]
STALE_CLAIM = "A lead on Slack offered to move about a week of leftover PTO into next year if you sent a DM."
OLD_KEYS = {"valid", "findings", "citations", "cited_ids", "coverage", "sentences", "stating_sentences"}


def kinds(verdict: object) -> list[str]:
    return [f.kind for f in verdict.findings]  # type: ignore[attr-defined]


# ---------------------------------------------------------------- one splitter, one grammar


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="ab .!?\n-[]S1234,()`:#", max_size=120))
def test_attribution_and_the_validator_split_sentences_alike(text: str) -> None:
    # (there is one splitter, `citations.sentences`; read_sentences feeds it the scanner's units)
    assert [x.sentence for x in read_sentences(text)] == split_sentences(text)


@pytest.mark.parametrize(("answer", "want"), [
    ("It is forfeited [S3-S4].", ("S3", "S4")), ("It is forfeited [S1, S2].", ("S1", "S2")),
    ("It is forfeited (S2–3).", ("S2", "S3")), ("It is forfeited 【S5】.", ("S5",)),
    ("Not handles: [s1] [S01] [^1] `[S2]`.", ()),
])
def test_written_handles_are_the_validators_handles(answer: str, want: tuple[str, ...]) -> None:
    assert handles_in(answer) == want
    written = [c.handle for c in validate_citations(answer, DEMO).citations if c.form == "handle"]
    assert tuple(dict.fromkeys(written)) == want


def test_range_digits_are_not_values() -> None:
    (a,) = attribute(f"Balances are forfeited on December 31 [{CUR}-{CUR}].", DEMO)
    assert a.written and unsupported_value("Balances are forfeited on December 31 [S3-S5].", DEMO) == ()


# ---------------------------------------------------------------- the validator


def test_attribution_fills_support_and_is_reported_apart_from_written_citations() -> None:
    answer = f"Unused PTO does not carry over [{CUR}]. Any balance left on December 31 is forfeited."
    off = validate_citations(answer, DEMO)
    on = validate_citations(answer, DEMO, attribute=True)
    assert off.coverage == on.coverage == 0.5  # coverage stays "written"
    assert off.attributed_coverage is None and on.attributed_coverage == 1.0
    assert [(s.handles, s.written) for s in on.support] == [((CUR,), True), ((CUR,), False)]
    assert on.support[1].record_ids == ("hb-pto-carryover-2025",) and on.attributed_ids == ("hb-pto-carryover-2025",)
    assert [(s.handles, s.written) for s in off.support] == [((CUR,), True), ((), False)]
    assert on.cited_ids == off.cited_ids == ("hb-pto-carryover-2025",)  # attributed ids are never "cited"
    d = on.to_dict()
    assert set(d) >= OLD_KEYS and d["attribution"] is True and d["attributed_coverage"] == 1.0
    assert d["support"][1] == {"sentence": 1, "handles": [CUR], "record_ids": ["hb-pto-carryover-2025"],
                               "written": False}


def test_stale_only_fires_on_attributed_weak_support_and_says_so() -> None:
    assert "stale_only" not in kinds(validate_citations(STALE_CLAIM, DEMO))
    v = validate_citations(STALE_CLAIM, DEMO, attribute=True)
    (stale,) = [f for f in v.findings if f.kind == "stale_only"]
    assert SLACK in stale.message and "attributed" in stale.message and not v.valid
    (uncited,) = [f for f in v.findings if f.kind == "uncited"]
    assert SLACK in uncited.message  # says what the content matches
    # a sentence that reports the source as outdated is not relying on it
    assert "stale_only" not in kinds(validate_citations(STALE_CLAIM.replace("offered", "once offered, in an "
                                                                            "expired post,"), DEMO, attribute=True))


def test_unsupported_value_names_the_value_and_the_handles() -> None:
    v = validate_citations(f"Any balance left on December 30 is forfeited [{CUR}].", JSON)
    (f,) = v.findings
    assert f.kind == "unsupported_value" and f.severity == SEVERITIES["unsupported_value"] == "warn"
    assert "December 30" in f.message and CUR in f.message and "cites" in f.message
    assert v.valid  # a warning by default
    assert not validate_citations(f"Any balance is forfeited on December 30 [{CUR}].", JSON,
                                  severities={"unsupported_value": "error"}).valid
    assert validate_citations(f"Any balance is forfeited on Dec. 31 [{CUR}].", JSON).findings == ()
    assert kinds(validate_citations(f"It is forfeited on December 30 [{CUR}].", JSON,
                                    severities={"unsupported_value": "off"})) == []


def test_values_of_attributed_sentences_are_checked_only_with_attribution() -> None:
    answer = "Employees could carry up to 5 days of unused PTO into the next calendar year, to be taken by April 30."
    on = validate_citations(answer, DEMO, attribute=True)
    assert [(s.handles, s.written) for s in on.support] == [((OLD,), False)]
    (f,) = [f for f in on.findings if f.kind == "unsupported_value"]
    assert "April 30" in f.message and OLD in f.message and "attributed" in f.message
    assert "unsupported_value" not in kinds(validate_citations(answer, DEMO))
    assert unsupported_value(answer, DEMO)[0].value.text == "April 30"  # the same answer as claims gives


def test_values_in_the_question_count_as_given() -> None:
    a = assemble(RECORDS, "I have 3 weeks of PTO left; does it carry over?", as_of="2026-06-01",
                 boundary_key=DEMO_KEY)
    handle = next(m.handle for m in a.manifest if m.id == "hb-pto-carryover-2025")
    assert validate_citations(f"Your 3 weeks do not carry over [{handle}].", a).findings == ()
    assert kinds(validate_citations(f"Your 4 weeks do not carry over [{handle}].", a)) == ["unsupported_value"]


def test_attribution_needs_the_prompt() -> None:
    bare = {k: v for k, v in JSON.items() if k not in ("prompt", "messages")}
    assert validate_citations(f"Unused PTO does not carry over [{CUR}].", bare).valid  # no prompt needed here
    with pytest.raises(CitationInputError):
        validate_citations("Unused PTO does not carry over.", bare, attribute=True)


def test_a_worked_example_in_the_system_prompt_is_never_a_source() -> None:
    a = assemble(RECORDS, QUESTION, as_of="2026-06-01", boundary_key=DEMO_KEY, layout=Layout(example=True))
    index = read_assembly(a)
    assert set(index.passages) == {m.handle for m in a.manifest}
    assert "library" not in " ".join(index.passages.values())
    assert index.question == QUESTION


def test_streaming_close_equals_batch_with_attribution() -> None:
    answer = f"Unused PTO does not carry over [{CUR}]. {STALE_CLAIM} It ends on December 30 [{CUR}]."
    sv = StreamValidator(DEMO, attribute=True)
    for i in range(0, len(answer), 7):
        sv.feed(answer[i:i + 7])
    assert sv.close() == validate_citations(answer, DEMO, attribute=True)


_WORDS = st.sampled_from(["unused", "PTO", "carry", "over", "forfeited", "December", "31", "five", "days",
                          "Slack", "lead", "handbook", "2024", "2025", "manager", "week", "[S1]", "[S7]",
                          "[S2-S4]", ".", "\n", "- ", "$40", "volunteer", "FSA", "hours"])


@settings(max_examples=80, deadline=None)
@given(st.lists(_WORDS, max_size=40))
def test_attribution_never_assigns_a_handle_absent_from_the_manifest(words: list[str]) -> None:
    answer = " ".join(words)
    known = {m.handle for m in DEMO.manifest}
    v = validate_citations(answer, JSON, attribute=True)
    assert all(set(s.handles) <= known for s in v.support)
    assert all(set(a.handles) <= known for a in attribute(answer, JSON) if not a.written)
    assert set(v.attributed_ids) <= {m.id for m in DEMO.manifest}


def _source_values() -> list[tuple[str, str, str]]:
    """(trap, handle, value text) for every value stated in a record of the bundled traps."""
    by_id = {r.id: r for r in corpus()}
    out = []
    for t in traps():
        a = assemble([by_id[i] for i in t["records"]], t["question"], as_of=t["as_of"], boundary_key=EVAL_KEY)
        for m in a.manifest:
            record = by_id[m.id]
            out += [(t["id"], m.handle, v.text) for v in extract_values(record.text)]
    return out


SOURCE_VALUES = _source_values()
ASSEMBLIES: dict[str, object] = {}


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(SOURCE_VALUES), st.sampled_from(["The rule is {} [{}].", "It says {} applies [{}].",
                                                        "- {} [{}]"]))
def test_unsupported_value_never_fires_on_a_value_the_cited_source_states_verbatim(
        item: tuple[str, str, str], form: str) -> None:
    trap, handle, text = item
    if trap not in ASSEMBLIES:
        by_id = {r.id: r for r in corpus()}
        t = next(x for x in traps() if x["id"] == trap)
        ASSEMBLIES[trap] = assemble([by_id[i] for i in t["records"]], t["question"], as_of=t["as_of"],
                                    boundary_key=EVAL_KEY)
    v = validate_citations(form.format(text, handle), ASSEMBLIES[trap])
    assert "unsupported_value" not in kinds(v), (text, handle, [f.message for f in v.findings])


# ---------------------------------------------------------------- policies


def test_regenerate_on_uncited_asks_for_a_handle_after_each_claim() -> None:
    prompts: list[str] = []
    done = regenerate(STALE_CLAIM, DEMO, lambda p: prompts.append(p) or "Unused PTO does not carry over "
                      f"into the next year [{CUR}].", severities={"uncited": "error"}, attribute=True)
    assert done.verdict.valid and done.attempts == 1
    (prompt,) = prompts
    assert "cites nothing" in prompt and "such as [S1]" in prompt and "A lead on Slack offered" in prompt


def test_regenerate_on_unsupported_value_names_the_value() -> None:
    prompts: list[str] = []
    done = regenerate(f"Balances are forfeited on December 30 [{CUR}].", DEMO,
                      lambda p: prompts.append(p) or f"Balances are forfeited on December 31 [{CUR}].",
                      severities={"unsupported_value": "error"})
    assert done.verdict.valid and done.attempts == 1
    assert "'December 30'" in prompts[0] and "values the sources state" in prompts[0]


def test_repair_lines_of_the_pointer_kinds_are_unchanged() -> None:
    for kind in ("stale_only", "unknown_handle", "record_id", "excluded_source"):
        assert repair_line(kind, "the message", "S", "a quoted sentence") == "the message"
    findings = [{"kind": "unknown_handle", "message": "[S9] was not in the prompt"},
                {"kind": "uncited", "message": "sentence 2 states something and cites nothing"}]
    assert repair_message(findings) == repair_prompt(["[S9] was not in the prompt"])
    assert "such as [S1]" in repair_message(findings, ("uncited",))


def test_resolve_marks_attributed_sources() -> None:
    answer = f"Unused PTO does not carry over [{CUR}]. {STALE_CLAIM}"
    links = resolve(answer, DEMO, attribute=True)
    assert "a DM (attributed: [" in links and links.endswith(").")
    assert resolve(answer, DEMO) == resolve(answer, DEMO, attribute=False)
    notes = resolve(answer, DEMO, style="footnotes", attribute=True)
    assert notes.count("(attributed)") == 1 and "[^2]." in notes


# ---------------------------------------------------------------- CLI


def _files(tmp_path: Path, answer: str) -> tuple[str, str]:
    (tmp_path / "a.json").write_text(DEMO.to_json(), encoding="utf-8")
    (tmp_path / "answer.txt").write_text(answer, encoding="utf-8")
    return str(tmp_path / "a.json"), str(tmp_path / "answer.txt")


def test_cli_validate_attribute_and_unsupported_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    asm, ans = _files(tmp_path, f"Unused PTO does not carry over [{CUR}]. Any balance left on December 31 is "
                                "forfeited. It ends on December 30 [" + CUR + "].")
    assert main(["validate", asm, ans, "--attribute"]) == 0
    out = capsys.readouterr().out
    assert "attributed coverage 100%" in out and "attributed  " + CUR in out and "written     " + CUR in out
    assert "unsupported_value" in out and "December 30" in out
    assert main(["validate", asm, ans, "--unsupported-value", "error"]) == 1
    capsys.readouterr()
    assert main(["validate", asm, ans, "--attribute", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d) >= OLD_KEYS and {"attribution", "attributed_coverage", "support", "attributed_ids"} <= set(d)
    assert [s["written"] for s in d["support"]] == [True, False, True]
    with pytest.raises(SystemExit) as bad:
        main(["validate", asm, ans, "--unsupported-value", "loud"])
    assert bad.value.code == 2


def test_cli_inspect_shows_attributed_support(tmp_path: Path) -> None:
    asm, ans = _files(tmp_path, STALE_CLAIM)
    page = tmp_path / "p.html"
    assert main(["inspect", asm, ans, "-o", str(page), "--attribute"]) == 0
    html = page.read_text("utf-8")
    assert "attributed: " + SLACK in html and "attributed coverage 100%" in html


# ---------------------------------------------------------------- the eval guard


def test_guard_kinds_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert guard_kinds("stale_only, uncited") == ("stale_only", "uncited")
    with pytest.raises(ValueError):
        guard_kinds("stale_only,loud")
    args = ["eval", "traps", "--backend", "scripted", "--out", str(tmp_path), "--limit", "1", "--no-plots",
            "--quiet", "--conditions", "structured,structured+guard"]
    assert main([*args, "--guard-on", "stale_only,loud"]) == 2
    assert "loud" in capsys.readouterr().err
    assert main([*args, "--guard-on", "stale_only,unknown_handle,uncited,unsupported_value"]) == 0
    rows = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    guard = next(r["guard"] for r in rows if r["condition"] == "structured+guard")
    assert guard["kinds"] == ["stale_only", "unknown_handle", "uncited", "unsupported_value"] and guard["attribute"]
    assert "## The guard" in (tmp_path / "report.md").read_text()


def _guard_run(tmp_path: Path, guard_on: tuple[str, ...], second: str) -> tuple[list[dict], list[Messages]]:
    calls: list[Messages] = []

    def rule(messages: Messages) -> str:
        calls.append(messages)
        if len(messages) == 2:  # first answer: cites nothing, states a value no source states
            return "Employees can carry 12 days of unused PTO into next year."
        return second

    t = [x for x in load_traps() if x.id == "pto-carryover"]
    run = TrapRun(ScriptedBackend(rule=rule), t, corpus(), Sampling(), AnswerCache(tmp_path),
                  ("structured", "structured+guard"), validator=default_validator(), guard_on=guard_on)
    return run.run(), calls


def test_default_guard_does_not_act_on_uncited_answers(tmp_path: Path) -> None:
    rows, calls = _guard_run(tmp_path, GUARD_KINDS, "unused")
    guarded = rows[1]["guard"]
    assert guarded["regenerated"] is False and guarded["fired"] == [] and guarded["attribute"] is False
    assert len(calls) == 1  # the guarded first answer came from the structured condition's cache


def test_guard_on_uncited_regenerates_and_records_what_was_fixed(tmp_path: Path) -> None:
    trap = next(x for x in load_traps() if x.id == "pto-carryover")
    a = TrapRun(ScriptedBackend(rule=lambda m: ""), [trap], corpus(), Sampling()).assembly(trap, "structured")
    current = next(m.handle for m in a.manifest if m.id == "hb-pto-carryover-2025")
    rows, calls = _guard_run(tmp_path, ("stale_only", "unknown_handle", "uncited"),
                             f"No. Unused PTO does not carry over into the next year [{current}].")
    g = rows[1]["guard"]
    assert g["regenerated"] and g["fired"] == ["uncited"] and g["fixed"] == ["uncited"] and g["attribute"]
    assert "such as [S1]" in calls[-1][-1]["content"] and "12 days" in calls[-1][-1]["content"]
    m = trap_metrics(rows)["structured+guard"]["guard"]
    assert m["regenerated"] == 1 and m["fired"] == {"uncited": 1} and m["fixed"] == 1
    report = trap_report(rows, {"is_model": False})
    assert "## The guard" in report and "uncited 1/1" in report


def test_guard_records_a_kind_the_second_answer_did_not_fix(tmp_path: Path) -> None:
    rows, _ = _guard_run(tmp_path, ("uncited",), "Still, you can carry twelve days.")
    g = rows[1]["guard"]
    assert g["fired"] == ["uncited"] and g["fixed"] == [] and g["second_fired"] == ["uncited"]
