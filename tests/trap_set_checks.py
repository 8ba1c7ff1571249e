"""Checks every held-out trap set shares: its patterns tell the current rule from the stale ones, and the judge
reads each record, quoted alone, as its own rule. The set's test file decides which records play which role."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from evidencepack.eval.datasets import TrapQuestion
from evidencepack.eval.judge import judge
from evidencepack.records.record import Record


def matches(patterns: tuple[str, ...], text: str) -> list[str]:
    """The patterns that hit `text`, with the judge's semantics (re.search, case-insensitive)."""
    return [p for p in patterns if re.search(p, text, re.IGNORECASE)]


def day(value: object) -> date | None:
    return value.date() if hasattr(value, "date") and callable(value.date) else value  # type: ignore[return-value]


def check_patterns_separate(t: TrapQuestion, gold: Record, stale: Sequence[Record], others: Sequence[Record]) -> None:
    assert matches(t.current, gold.text), f"{gold.id}: no current pattern matches the current rule"
    assert not matches(t.stale, gold.text), f"{gold.id}: stale pattern(s) match the current rule"
    for r in stale:
        assert matches(t.stale, r.text), f"{r.id}: no stale pattern matches the stale rule"
        assert not matches(t.current, r.text), f"{r.id}: current pattern(s) match a stale rule"
    for r in others:
        hits = matches(t.current, r.text) + matches(t.stale, r.text)
        assert not hits, f"{r.id} (distractor) matches {hits}"


def check_judge_reads_records(t: TrapQuestion, gold: Record, stale: Sequence[Record]) -> None:
    assert judge(gold.text, t).verdict == "current"
    for r in stale:
        assert judge(r.text, t).verdict == "stale", r.id
