"""The published evaluation results (docs/eval-results/) stay reproducible from their raw rows.

Each `<name>.jsonl` there holds the rows `evidencepack-eval traps|positions` wrote and `<name>.md` the report it
wrote from them. Rebuilding the report from the rows with today's `trap_report`/`sweep_report` must give the
published bytes (a refactor of the report code that moves one character fails here), and re-judging every
published answer with today's rule judge must give the verdict stored beside it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evidencepack.eval.datasets import TrapQuestion, load_traps
from evidencepack.eval.judge import judge
from evidencepack.eval.report import sweep_report, trap_report

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "eval-results"
DATA = ROOT / "tests" / "data"
TRAP_TITLE = "# Stale-guidance trap evaluation\n"
PUBLISHED = sorted(p for p in RESULTS.glob("*.md") if p.with_suffix(".jsonl").exists())
TRAP_REPORTS = [p for p in PUBLISHED if p.read_text(encoding="utf-8").startswith(TRAP_TITLE)]


def _rows(md: Path) -> list[dict[str, Any]]:
    text = md.with_suffix(".jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _meta(md: str) -> dict[str, Any]:
    """The header's `- key: value` lines, as `_header` wrote them (values were printed with str())."""
    lines = md.split("\n")[2:]
    meta: dict[str, Any] = {}
    if lines[0].startswith("> **SCRIPTED BACKEND**"):
        meta["is_model"] = False
        lines = lines[2:]
    for line in lines:
        if not line.startswith("- "):
            break
        key, value = line[2:].split(": ", 1)
        meta[key] = value
    return meta


def _notes(md: str, trap: bool) -> str:
    """What `--notes` and the plot line added: in a trap report, the paragraphs after the verdicts-by-question
    table; in a sweep report, the paragraph after the last table."""
    head = md.split("\n## Answers\n", 1)[0].rstrip("\n")
    if trap:
        return "\n\n".join(head.split("\n## Verdicts by question\n", 1)[1].split("\n\n")[1:])
    last = head.split("\n\n")[-1]
    return "" if last.startswith("|") else last


def test_the_published_results_are_here() -> None:
    # The tests below must not pass by finding nothing.
    assert len(PUBLISHED) >= 10
    assert len(TRAP_REPORTS) >= 5
    assert len(PUBLISHED) > len(TRAP_REPORTS)  # sweep reports too


@pytest.mark.parametrize("md", PUBLISHED, ids=lambda p: p.name)
def test_a_published_report_rebuilds_byte_for_byte(md: Path) -> None:
    text = md.read_text(encoding="utf-8")
    rows = _rows(md)
    trap = text.startswith(TRAP_TITLE)
    build = trap_report if trap else sweep_report
    assert build(rows, _meta(text), _notes(text, trap)) == text


def _traps_for(md: str) -> dict[str, TrapQuestion]:
    """The trap set the report's header names (a file of tests/data), else the bundled set."""
    path = next((p for p in sorted(DATA.glob("*traps.jsonl")) if f"/{p.name}" in md or f" {p.name}" in md), None)
    return {t.id: t for t in load_traps(path)}


@pytest.mark.parametrize("md", TRAP_REPORTS, ids=lambda p: p.name)
def test_the_judge_gives_every_published_answer_its_published_verdict(md: Path) -> None:
    traps = _traps_for(md.read_text(encoding="utf-8"))
    judged = [r for r in _rows(md) if r.get("status") == "ok"]
    assert judged
    keys = ("verdict", "reason", "conflict_named", "flags_stale", "refused")
    for r in judged:
        got = judge(r["answer"], traps[r["question"]]).to_dict()
        assert {k: got[k] for k in keys} == {k: r["judgement"][k] for k in keys}, (r["question"], r["condition"])
        assert got["verdict"] == r["verdict"]
