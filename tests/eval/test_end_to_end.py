"""End to end with the scripted backend: CLI, both experiments, guard regeneration, truncation, reports."""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from evidencepack import Admission, Layout, assemble
from evidencepack.data.demo import corpus
from evidencepack.eval.backends import Messages, Sampling, ScriptedBackend
from evidencepack.eval.cache import AnswerCache
from evidencepack.eval.cli import add_parser, progress_bar, run
from evidencepack.eval.datasets import SweepQuestion, load_traps, sweep_items
from evidencepack.eval.experiments import (
    EVAL_KEY,
    SWEEP_SYSTEM,
    TRAP_VARIANTS,
    SweepRun,
    TrapRun,
    condition_options,
    default_validator,
    repair_message,
)
from evidencepack.eval.report import trap_metrics, trap_report
from evidencepack.eval.report_html import trap_report_html
from evidencepack.render.layout import VARIANTS

ALL = "flat,structured,structured+guard,structured+exclude"
needs_validator = pytest.mark.skipif(default_validator() is None, reason="evidencepack.citations not present")


def cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="evidencepack")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["eval", *argv])
    assert args.func is run
    return args.func(args)


@needs_validator
def test_traps_cli_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert cli("traps", "--backend", "scripted", "--out", str(out), "--conditions", ALL, "--limit", "6",
               "--llm-judge", "--no-plots") == 0
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 24 and {r["condition"] for r in rows} == set(ALL.split(","))
    for r in rows:
        assert {"condition", "question", "prompt_hash", "answer", "verdict", "status"} <= set(r)
    report = (out / "report.md").read_text()
    assert "SCRIPTED BACKEND" in report and "| flat |" in report and "Rule judge vs LLM judge" in report
    flat = [r for r in rows if r["condition"] == "flat"]
    assert all(r["citation"] is None for r in flat)
    structured = [r for r in rows if r["condition"] == "structured"]
    assert all(r["citation"] is not None for r in structured)
    excl = next(r for r in rows if r["condition"] == "structured+exclude" and r["question"] == "pto-carryover")
    assert "slack-pto-carryover-2023" not in excl["included"]
    # a rerun is served from the cache, with identical results
    assert cli("traps", "--backend", "scripted", "--out", str(out), "--conditions", ALL, "--limit", "6",
               "--llm-judge", "--no-plots", "--quiet") == 0
    assert "0 calls" in capsys.readouterr().out
    again = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["verdict"] for r in again] == [r["verdict"] for r in rows]


@needs_validator
def test_guard_regenerates_once_on_stale_only_and_unknown_handle(tmp_path: Path) -> None:
    calls: list[Messages] = []

    def rule(messages: Messages) -> str:
        calls.append(messages)
        if len(messages) == 2:  # first answer: cites a stale source only, and a handle that does not exist
            return "Yes, you can carry up to 5 days into next year [S2]. Ask HR [S9]."
        return "No. Unused PTO does not carry over and is forfeited on December 31 [S5]."

    traps = [t for t in load_traps() if t.id == "pto-carryover"]
    run_ = TrapRun(ScriptedBackend(rule=rule), traps, corpus(), Sampling(), AnswerCache(tmp_path),
                   ("structured", "structured+guard"), validator=default_validator())
    rows = run_.run()
    plain, guarded = rows
    assert plain["verdict"] == "stale" and "guard" not in plain
    assert guarded["guard"]["regenerated"] is True and guarded["verdict"] == "current"
    kinds = {f["kind"] for f in guarded["guard"]["first_citation"]["findings"]}
    assert {"stale_only", "unknown_handle"} <= kinds
    repair = calls[-1]
    assert [m["role"] for m in repair] == ["system", "user", "assistant", "user"]
    assert "S9" in repair[-1]["content"] and "expired, superseded or informal" in repair[-1]["content"]
    assert len(calls) == 2  # structured's first answer came from the cache; one regeneration
    assert "S2" in repair_message(guarded["guard"]["first_citation"]["findings"])


def test_truncated_answers_are_counted_not_judged(tmp_path: Path) -> None:
    traps = load_traps()[:3]
    backend = ScriptedBackend(rule=lambda m: ("Unused PTO is", "length"))
    rows = TrapRun(backend, traps, corpus(), Sampling(), None, ("flat",)).run()
    assert all(r["status"] == "truncated" and r["verdict"] is None for r in rows)
    m = trap_metrics(rows)["flat"]
    assert m["truncated"] == 3 and m["judged"] == 0 and m["stale"]["n"] == 0


def test_a_cut_answer_keeps_what_it_says_so_far_apart_from_the_rates(tmp_path: Path) -> None:
    """A cut answer is never judged, but its opening verdict and the assembler's notes are kept beside it."""
    traps = [t for t in load_traps() if t.id == "pto-carryover"]
    backend = ScriptedBackend(rule=lambda m: ("Yes, you can carry up to a week over if you just ask your", "length"))
    (row,) = TrapRun(backend, traps, corpus(), Sampling(), None, ("default",)).run()
    assert row["status"] == "truncated" and row["verdict"] is None
    assert row["partial"]["verdict"] == "stale" and row["partial"]["notes"]  # the weak records were withheld
    assert trap_metrics([row])["default"]["stale"]["n"] == 0
    assert "the part written reads as `stale`" in trap_report([row], {"model": "scripted"})
    assert "the part written reads as stale (not counted)" in trap_report_html([row], {"model": "scripted"})


def test_unknown_condition_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("traps", "--backend", "scripted", "--out", str(tmp_path), "--conditions", "flat,fancy") == 2
    assert "unknown condition(s) fancy" in capsys.readouterr().err
    assert cli("positions", "--backend", "scripted", "--out", str(tmp_path), "--conditions", "middle") == 2


def test_positions_cli_end_to_end(tmp_path: Path) -> None:
    data = tmp_path / "kv.jsonl.gz"
    pairs = [[f"0000-key-{i:02d}", f"value-{i:02d}"] for i in range(25)]
    with gzip.open(data, "wt") as fh:
        for n in range(4):
            fh.write(json.dumps({"ordered_kv_records": pairs, "key": pairs[n][0], "value": pairs[n][1]}) + "\n")
    out = tmp_path / "pos"
    assert cli("positions", "--backend", "scripted", "--data", str(data), "--k", "9", "19", "--questions", "3",
               "--out", str(out), "--no-plots", "--quiet") == 0
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    ranked = [r for r in rows if r["condition"] == "ranked"]
    assert len(ranked) == 3 * (10 + 20)
    assert {r["position"] for r in ranked if r["k"] == 19} == set(range(1, 21))
    assert all(r["correct"] for r in ranked)  # the scripted reader finds the key wherever it sits
    closed = [r for r in rows if r["condition"] == "closed_book"]
    assert len(closed) == 3 and not any(r["correct"] for r in closed)
    edges = [r for r in rows if r["condition"] == "edges"]
    assert {r["position"] for r in edges} == {1}
    report = (out / "report.md").read_text()
    assert "SCRIPTED BACKEND" in report and "k = 19 distractors" in report and "Closed book" in report


def test_plots_or_a_note(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from evidencepack.eval.report import plot_positions, plot_traps

    rows = TrapRun(ScriptedBackend(), load_traps()[:4], corpus(), Sampling(), None, ("flat", "structured")).run()
    assert plot_traps(rows, tmp_path / "t.png", "scripted") is None and (tmp_path / "t.png").stat().st_size > 0
    pos = [{"condition": "ranked", "k": 9, "position": p, "status": "ok", "correct": p % 2 == 0,
            "assembly_prompt_tokens": 100} for p in range(1, 11)]
    pos += [{"condition": "closed_book", "k": 0, "position": None, "status": "ok", "correct": False,
             "assembly_prompt_tokens": 0}]
    assert plot_positions(pos, tmp_path / "p.png", "scripted") is None


def test_progress_bar_writes_lines(tmp_path: Path) -> None:
    path = tmp_path / "log.txt"
    with path.open("w") as fh:
        bar = progress_bar("flat", stream=fh, width=10)
        bar(1, 4)
        bar(4, 4)
    lines = path.read_text().splitlines()
    assert lines[0].startswith("flat") and "1/4" in lines[0] and "##########" in lines[1]


def test_failed_calls_make_the_command_exit_1(tmp_path, capsys):
    from evidencepack.eval.cache import AnswerCache
    from evidencepack.eval.cli import _finish

    cache = AnswerCache(tmp_path / "cache")
    assert _finish(tmp_path, [{"status": "ok"}], cache) == 0
    assert _finish(tmp_path, [{"status": "ok"}, {"status": "error", "error": "connection refused"}], cache) == 1
    assert "1 of 2 calls failed; first: connection refused" in capsys.readouterr().err


def test_cache_only_reports_what_is_cached_and_makes_no_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    cache = str(tmp_path / "cache")
    assert cli("traps", "--backend", "scripted", "--out", str(tmp_path / "a"), "--cache", cache,
               "--conditions", "flat,structured", "--limit", "2", "--no-plots", "--quiet") == 0
    first = [json.loads(line) for line in (tmp_path / "a" / "results.jsonl").read_text().splitlines()]
    capsys.readouterr()
    assert cli("traps", "--backend", "scripted", "--out", str(tmp_path / "b"), "--cache", cache, "--cache-only",
               "--conditions", "flat,structured+scaffold", "--limit", "3", "--no-plots", "--quiet") == 0
    assert "cache only: 4 not cached, 2 cached" in capsys.readouterr().out
    rows = [json.loads(line) for line in (tmp_path / "b" / "results.jsonl").read_text().splitlines()]
    assert [(r["condition"], r["question"]) for r in rows] == [("flat", r["question"]) for r in first[:2]]
    assert [r["answer"] for r in rows] == [r["answer"] for r in first if r["condition"] == "flat"]
    assert "4 of 6 prompts were not in the answer cache" in (tmp_path / "b" / "report.md").read_text()


#: The library defaults the harness relied on before they moved: its prompts (and the answer cache keyed on
#: them) must not move with the defaults.
PINNED = {"format": "text", "order": "edges", "abstain": "if-unanswered", "on_flagged": "keep",
          "conflict_policy": "surface", "answer_form": None}


def _pinned(condition: str) -> dict[str, Any]:
    layout = condition_options(condition)["layout"]
    return {k: getattr(layout, k) for k in PINNED}


def test_trap_conditions_pin_the_options_whose_defaults_moved() -> None:
    assert _pinned("original") == PINNED
    # the baseline keeps what the scan flags and shows every record
    flat = Layout(format="flat", order="edges", on_flagged="keep", conflict_policy="surface", answer_form=None)
    assert condition_options("flat") == {"layout": flat, "admission": Admission()}
    assert condition_options("flat+exclude") == {"layout": flat,
                                                 "admission": Admission(exclude_expired=True, exclude_superseded=True)}
    for other in ("flat+guard", "flat+exclude+reminder"):
        with pytest.raises(ValueError, match="only \\+exclude"):
            condition_options(other)
    for name in TRAP_VARIANTS:
        variant = VARIANTS.get(name, {})
        assert _pinned(f"original+{name}") == {**PINNED, **{k: v for k, v in variant.items() if k in PINNED}}
    with pytest.raises(ValueError, match="answer_form twice"):
        condition_options("structured+scaffold+conflict-form")


def test_default_is_whatever_assemble_does_by_default_and_structured_the_earlier_default() -> None:
    """`default` measures the product: its prompt is `assemble`'s with nothing but the harness's key; `structured`
    is the earlier default, pinned (the conflict surfaced to the model, no answer form)."""
    trap = load_traps()[0]
    run = TrapRun(ScriptedBackend(), [trap], corpus(), Sampling())
    records = [r for r in corpus() if r.id in trap.records]
    records.sort(key=lambda r: trap.records.index(r.id))
    plain = assemble(records, trap.question, as_of=trap.as_of, boundary_key=EVAL_KEY)
    assert condition_options("default") == {"layout": Layout(), "admission": Admission()}
    assert run.assembly(trap, "default").messages == plain.messages
    assert run.assembly(trap, "decide-form").messages == plain.messages  # the preset the default came from
    earlier = assemble(records, trap.question, as_of=trap.as_of, boundary_key=EVAL_KEY,
                       layout=Layout(conflict_policy="surface", answer_form=None))
    assert condition_options("structured")["layout"] == Layout(conflict_policy="surface", answer_form=None)
    assert run.assembly(trap, "structured").messages == earlier.messages != plain.messages
    assert run.assembly(trap, "original").messages != earlier.messages
    assert run.assembly(trap, "structured+reminder").messages != earlier.messages


@pytest.mark.parametrize("system", [SWEEP_SYSTEM, None])
def test_sweep_prompts_pin_the_options_whose_defaults_moved(system: str | None) -> None:
    q = SweepQuestion("kv-0", "What is the value of k0?", ("v0",), {"id": "gold", "text": '{"k0": "v0"}'},
                      tuple({"id": f"d{i}", "text": f'{{"k{i}": "v{i}"}}'} for i in range(1, 5)), "kv")
    run = SweepRun(ScriptedBackend(), [], Sampling(), system=system)
    for item in sweep_items([q], conditions=("ranked", "edges", "alternate")):
        layout = Layout(order=item.order, profile="minimal", conflict_notice=False, system_template=system,
                        **{k: v for k, v in PINNED.items() if k != "order"})
        want = assemble(list(item.records), item.question, as_of=run.as_of, layout=layout, boundary_key=EVAL_KEY)
        assert run.messages(item)[0] == want.messages


def test_flat_exclude_flattens_what_structured_exclude_keeps() -> None:
    run = TrapRun(ScriptedBackend(), load_traps(), corpus(), Sampling())
    left_out = 0
    for trap in load_traps():
        flat, kept = run.assembly(trap, "flat+exclude"), run.assembly(trap, "structured+exclude")
        assert flat.format == "flat"
        assert sorted(m.id for m in flat.manifest) == sorted(m.id for m in kept.manifest)
        assert {m.status for m in flat.manifest} <= {"current", "undated"}
        left_out += len(trap.records) - len(flat.manifest)
    assert left_out > 0
