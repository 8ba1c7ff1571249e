"""Checks every held-out trap set shares: its patterns tell the current rule from the stale ones, and the judge
reads each record, quoted alone, as its own rule. The set's test file decides which records play which role."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from evidencepack.eval.datasets import TrapQuestion
from evidencepack.eval.judge import judge
from evidencepack.records.record import Record

# The opening-verdict patterns every set writes ("No, …", "No. …", "No you can't"; not "No one …" / "No need …").
NO = r"^\W*no(?:\s*[,.!;:\u2014-]|\s+(?:you|he|she|it|that|they|this)\b)"
YES = r"^\W*yes(?:\s*[,.!;:\u2014-]|\s+(?:you|he|she|it|that|they|this)\b)"


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


def check_assembler_sees_gold_current(t: TrapQuestion, records: Sequence[Record], gold: Record,
                                      stale: Sequence[Record]) -> None:
    """Through the real assembler's manifest at `as_of`: every record is admitted, the gold one authoritative and
    current, every stale one expired or not authoritative (the trap informal or superseded), and exactly one
    conflict group holds the gold record and names the stale ones."""
    from evidencepack import assemble

    a = assemble(list(records), t.question, as_of=t.as_of)
    entries = {m.id: m for m in a.manifest}
    assert set(entries) == set(t.records), "every record is admitted"
    g = entries[gold.id]
    assert (g.status, g.authority) == ("current", "authoritative")
    for r in stale:
        m = entries[r.id]
        assert m.status == "expired" or m.authority in ("informal", "superseded"), r.id
    assert entries[t.trap or ""].authority in ("informal", "superseded")
    groups = [c for c in a.report.conflicts if g.handle in c.current]
    assert len(groups) == 1, f"{t.id}: the gold record is not in exactly one conflict group"
    assert {h for h, _ in groups[0].others} == {entries[r.id].handle for r in stale}


def check_sample_answers(t: TrapQuestion, current: str, stale: str) -> None:
    """A hand-written current answer is judged current, a stale one stale."""
    assert judge(current, t).verdict == "current", judge(current, t).to_dict()
    assert judge(stale, t).verdict == "stale", judge(stale, t).to_dict()


def check_yes_bias(t: TrapQuestion, answer: str) -> None:
    """"Yes, you can …" and then the current rule that says the opposite: the reader acts on the "Yes" (issue 24)."""
    j = judge(answer, t)
    assert (j.verdict, j.reason) == ("stale", "opens with the stale yes/no"), j.to_dict()


def check_bare_verdicts(t: TrapQuestion, kind: str) -> None:
    """A bare verdict with no rule at all: the current one is current, the other stale, comma or not."""
    if kind == "no":
        assert judge("Yes, you can.", t).verdict == "stale"
        assert judge("Yes you can.", t).verdict == "stale"
        assert judge("No.", t).verdict == "current"
    else:
        assert judge("Yes.", t).verdict == "current"
        assert judge("No, you don't.", t).verdict == "stale"
