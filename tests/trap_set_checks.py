"""Checks every held-out trap set shares: its patterns tell the current rule from the stale ones, and the judge
reads each record, quoted alone, as its own rule. The set's test file decides which records play which role; a set
grouped by topics (the fourth, the fifth) loads through `TopicSet`, which reads the roles from the gold record's
topic."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from pathlib import Path

from evidencepack.eval.datasets import TrapQuestion, load_traps
from evidencepack.eval.judge import judge
from evidencepack.records.jsonl import load_jsonl
from evidencepack.records.record import Record

# The opening-verdict patterns every set writes ("No, …", "No. …", "No you can't"; not "No one …" / "No need …").
NO = r"^\W*no(?:\s*[,.!;:\u2014-]|\s+(?:you|he|she|it|that|they|this)\b)"
YES = r"^\W*yes(?:\s*[,.!;:\u2014-]|\s+(?:you|he|she|it|that|they|this)\b)"


def matches(patterns: tuple[str, ...], text: str) -> list[str]:
    """The patterns that hit `text`, with the judge's semantics (re.search, case-insensitive)."""
    return [p for p in patterns if re.search(p, text, re.IGNORECASE)]


def day(value: object) -> date | None:
    return value.date() if hasattr(value, "date") and callable(value.date) else value  # type: ignore[return-value]


def as_of(t: TrapQuestion) -> date:
    return date.fromisoformat(t.as_of)


def current_at(r: Record, when: date) -> bool:
    """Is the record in force on `when` (its validity window, ends included)?"""
    start, end = day(r.valid_from), day(r.valid_until)
    return (start is None or start <= when) and (end is None or when <= end)  # type: ignore[operator]


@dataclass(frozen=True)
class TopicSet:
    """A trap set whose conflict groups are topics: its corpus, its questions (answerable and unanswerable), and
    the role each record plays in a question, read from the gold record's topic."""

    corpus: tuple[Record, ...]
    traps: tuple[TrapQuestion, ...]
    unanswerable: tuple[TrapQuestion, ...]

    @classmethod
    def named(cls, stem: str) -> TopicSet:
        """The set in `tests/data/` as `{stem}_corpus.jsonl`, `{stem}_traps.jsonl` and
        `unanswerable_{stem}_traps.jsonl`."""
        data = Path(__file__).parent / "data"
        records = load_jsonl(data / f"{stem}_corpus.jsonl")
        return cls(tuple(records), tuple(load_traps(data / f"{stem}_traps.jsonl", corpus=records)),
                   tuple(load_traps(data / f"unanswerable_{stem}_traps.jsonl", corpus=records)))

    @cached_property
    def by_id(self) -> dict[str, Record]:
        return {r.id: r for r in self.corpus}

    @cached_property
    def by_question(self) -> dict[str, TrapQuestion]:
        return {t.id: t for t in (*self.traps, *self.unanswerable)}

    def roles(self, t: TrapQuestion) -> tuple[Record, list[Record], list[Record]]:
        """(current record, stale records, distractors) of a question, by its gold record's topic."""
        gold = self.by_id[t.gold or ""]
        recs = [self.by_id[i] for i in t.records]
        stale = [r for r in recs if r is not gold and r.topic == gold.topic]
        others = [r for r in recs if r.topic != gold.topic]
        return gold, stale, others

    def never_expiring_informal_trap(self, t: TrapQuestion) -> bool:
        trap = self.by_id[t.trap or ""]
        return trap.authority == "informal" and trap.valid_until is None


def check_summaries_agree(t: TrapQuestion) -> None:
    """A 2026 question with both one-line summaries; for a yes/no question the summaries and the opening-verdict
    patterns agree with `yes_no`, and an open question has no verdict word."""
    kind = t.yes_no or "open"
    assert t.as_of.startswith("2026-"), t.id
    assert t.current_value and t.stale_value, t.id
    if kind == "open":
        assert t.verdict_word is None, t.id
        return
    assert t.verdict_word == kind and t.current_value.startswith(kind + ";"), t.id
    assert t.stale_value.startswith("yes" if kind == "no" else "no"), t.id
    assert (NO if kind == "no" else YES) in t.current and (YES if kind == "no" else NO) in t.stale, t.id


@dataclass(frozen=True)
class BalancedShape:
    """The counts a set balanced between "yes" and "no" promises in its docstring, checked in one place: a new set
    states its numbers here and its test file calls the four checks. `None` leaves a count unchecked."""

    questions: int
    per_verdict: int  # "no" questions, and as many "yes" ones
    open: int
    never_expiring_informal_traps: int
    superseded_traps: int
    corpus: tuple[int, int]  # fewest and most records
    informal: int
    never_expiring_informal: int
    superseded: int
    other_authoritative: int  # authoritative records that are no question's gold
    gold_seats: tuple[int, int, int, int, int]  # questions with the gold record at seat 1..5
    trap_at_seat_1: int
    trap_before_gold: int
    expired_informal_traps: int | None = None
    no_seats_vary: bool = False  # also the "no" questions' gold records sit at 3 or more seats
    unanswerable: int = 0  # questions no record answers
    unanswerable_yes_no: int = 0  # of them yes/no, where a bare verdict is an answer the reader acts on

    def check_questions(self, s: TopicSet) -> None:
        """Counts by kind, and each yes/no question's summaries and opening-verdict patterns agree with `yes_no`."""
        traps, by_id = s.traps, s.by_id
        assert len(traps) == self.questions and len({t.id for t in traps}) == len(traps)
        kinds = [t.yes_no or "open" for t in traps]
        # as many "yes" as "no": a model that always says "no" (or always "yes") gets half of them wrong
        assert kinds.count("no") == kinds.count("yes") == self.per_verdict
        assert kinds.count("open") == self.open
        assert sum(s.never_expiring_informal_trap(t) for t in traps) == self.never_expiring_informal_traps
        assert sum(by_id[t.trap or ""].authority == "superseded" for t in traps) == self.superseded_traps
        if self.expired_informal_traps is not None:
            assert sum(by_id[t.trap or ""].authority == "informal" and by_id[t.trap or ""].valid_until is not None
                       for t in traps) == self.expired_informal_traps
        for t in traps:
            check_summaries_agree(t)
        assert len({t.as_of for t in traps}) == len(traps)  # the dates vary

    def check_corpus(self, s: TopicSet) -> None:
        """Record counts by kind, every field filled, superseded versions ended before every question that
        retrieves them, and every record retrieved by some question."""
        corpus, by_id = s.corpus, s.by_id
        assert self.corpus[0] <= len(corpus) <= self.corpus[1]
        assert {r.authority for r in corpus} == {"authoritative", "informal", "superseded"}
        assert all(r.topic and r.doc and r.section and r.url and r.source_system and r.date for r in corpus)
        assert all(1 <= len(re.findall(r"[.!?](?:\s|$)", r.text)) <= 4 for r in corpus), "texts of 1-4 sentences"
        for t in [*s.traps, *s.unanswerable]:
            for r in (by_id[i] for i in t.records if by_id[i].authority == "superseded"):
                assert r.valid_until is not None and not current_at(r, as_of(t)), (t.id, r.id)
        informal = [r for r in corpus if r.authority == "informal"]
        assert len(informal) == self.informal
        assert sum(r.valid_until is None for r in informal) == self.never_expiring_informal
        assert sum(r.authority == "superseded" for r in corpus) == self.superseded
        golds = {t.gold for t in s.traps}
        assert len(golds) == self.questions
        assert sum(r.authority == "authoritative" and r.id not in golds for r in corpus) == self.other_authoritative
        assert {i for t in [*s.traps, *s.unanswerable] for i in t.records} == set(by_id)

    def check_seats(self, s: TopicSet) -> None:
        """The gold record is not always first, nor always first among the "yes" questions; the trap mostly
        comes before it."""
        gold_seats = [t.records.index(t.gold or "") + 1 for t in s.traps]
        trap_seats = [t.records.index(t.trap or "") + 1 for t in s.traps]
        assert tuple(gold_seats.count(n) for n in (1, 2, 3, 4, 5)) == self.gold_seats
        assert trap_seats.count(1) == self.trap_at_seat_1
        assert sum(trap < gold for trap, gold in zip(trap_seats, gold_seats, strict=True)) == self.trap_before_gold
        for kind in ("yes", "no") if self.no_seats_vary else ("yes",):
            assert len({g for g, t in zip(gold_seats, s.traps, strict=True) if t.yes_no == kind}) >= 3, kind


    def check_unanswerable(self, s: TopicSet, answer_shapes: Mapping[str, object], grouped: Set[str],
                           yes_no: Set[str]) -> None:
        """The unanswerable questions: apart from the answerable ones, with no patterns and no gold record, each
        with an answer shape; half of them retrieve a decided conflict group."""
        ids = [t.id for t in s.unanswerable]
        assert len(ids) == self.unanswerable and not set(ids) & {t.id for t in s.traps}
        assert all(t.unanswerable and not t.current and not t.stale and t.gold is None for t in s.unanswerable)
        assert all(3 <= len(t.records) <= 5 and t.missing and t.as_of.startswith("2026-") for t in s.unanswerable)
        assert set(ids) == set(answer_shapes)
        assert 2 * len(grouped) == len(ids)
        assert set(ids) >= yes_no and len(yes_no) == self.unanswerable_yes_no


def check_stale_kinds(s: TopicSet, *, both_sides: bool = True) -> None:
    """Every kind of stale source appears (superseded, expired informal, never-expiring informal); with
    `both_sides`, never-expiring informal and superseded traps on both "no" and "yes" questions, so neither kind
    of question is only ever trapped one way."""
    kinds = set()
    for t in s.traps:
        for r in s.roles(t)[1]:
            end = day(r.valid_until)
            kinds.add((r.authority, end is not None and end < as_of(t)))  # type: ignore[operator]
    assert {("superseded", True), ("informal", True), ("informal", False)} <= kinds
    for kind in ("no", "yes") if both_sides else ():
        traps = [s.by_id[t.trap or ""] for t in s.traps if t.yes_no == kind]
        assert any(r.authority == "informal" and r.valid_until is None for r in traps), kind
        assert any(r.authority == "superseded" for r in traps), kind


def check_question_roles(t: TrapQuestion, gold: Record, stale: Sequence[Record], others: Sequence[Record]) -> None:
    """The gold record is authoritative and in force at the question's date; 1-2 stale records, each informal,
    superseded (and ended), expired or not yet valid; 1-2 distractors, each on its own subject, authoritative and in
    force."""
    when = as_of(t)
    assert 3 <= len(t.records) <= 5
    assert t.trap in {r.id for r in stale}
    assert gold.authority == "authoritative" and current_at(gold, when)
    assert 1 <= len(stale) <= 2 and 1 <= len(others) <= 2
    for r in stale:
        assert r.authority in ("informal", "superseded") or not current_at(r, when), r.id
        if r.authority == "superseded":
            assert not current_at(r, when), r.id
    assert len({r.topic for r in others}) == len(others)
    assert all(r.authority == "authoritative" and current_at(r, when) for r in others)


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


def check_topic_question(trap_set: TopicSet, t: TrapQuestion) -> None:
    """Everything a topic-grouped set checks per question: the records' roles, what the assembler sees, the
    patterns against each record, and the judge on each record quoted alone."""
    gold, stale, others = trap_set.roles(t)
    check_question_roles(t, gold, stale, others)
    check_assembler_sees_gold_current(t, [trap_set.by_id[i] for i in t.records], gold, stale)
    check_patterns_separate(t, gold, stale, others)
    check_judge_reads_records(t, gold, stale)


def check_unanswerable_question(trap_set: TopicSet, t: TrapQuestion, shape: str, example: str, *, grouped: bool,
                                yes_no: bool) -> None:
    """An unanswerable question: no record of the corpus matches what an answer would have to say (`shape`, which
    must catch `example`); every neighbouring value it could transplant is in a record it retrieves; `withhold`
    acts on it exactly when it retrieves a decided group; the judge reads an answer as `invented` and a refusal as
    `abstained`, and for a yes/no question a bare verdict as `invented`."""
    from evidencepack import Layout, assemble

    assert re.search(shape, example, re.IGNORECASE), "the shape must catch an answer, or the check means nothing"
    answering = [r.id for r in trap_set.corpus if re.search(shape, r.text, re.IGNORECASE)]
    assert answering == [], f"{t.id}: these records may answer it"
    texts = [trap_set.by_id[i].text for i in t.records]
    assert t.neighbour
    for p in t.neighbour:
        assert any(re.search(p, text, re.IGNORECASE) for text in texts), p
    a = assemble([trap_set.by_id[i] for i in t.records], t.question, as_of=t.as_of, layout=Layout.preset("decide"))
    withheld = [o.id for o in a.report.records if o.reason == "conflict_withheld"]
    assert bool(withheld) == grouped
    assert {m.id for m in a.manifest} == set(t.records) - set(withheld)
    assert judge(example, t).verdict == "invented"
    assert judge("I do not know: the sources do not say.", t).verdict == "abstained"
    if yes_no:  # a bare verdict answers although no source does; "No, the sources don't say" declines
        assert judge("Yes.", t).verdict == "invented"
        assert judge("No.", t).verdict == "invented"
        assert judge("No, the sources do not say.", t).verdict == "abstained"


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


# ---------------------------------------------------------------- hand-written answers of a balanced set


@dataclass(frozen=True)
class Samples:
    """Answers as a small model might write them (not copied from the records): the current rule, the stale rule,
    and for a yes/no question the wrong-opening shape: for a "no" question the yes-bias ("Yes, you can …" followed
    by the current rule), for a "yes" question the no-bias ("No, you can't …" followed by the current rule)."""

    current: str
    stale: str
    wrong_opening: str = ""


def check_samples_shape(t: TrapQuestion, s: Samples) -> None:
    """A yes/no question's samples open with their verdicts: the wrong one first in the stale and wrong-opening
    answers, the right one in the current answer; an open question has no wrong-opening sample."""
    assert bool(s.wrong_opening) == (t.yes_no is not None), t.id
    if t.yes_no:
        wrong, right = ("Yes", "No") if t.yes_no == "no" else ("No", "Yes")
        assert s.stale.startswith(wrong + ", ") and s.wrong_opening.startswith(wrong + ", "), t.id
        assert s.current.startswith(right + ". "), t.id


def check_balanced_answers(t: TrapQuestion, s: Samples) -> None:
    """Everything a set balanced between "yes" and "no" checks per question with the judge: the current and stale
    samples, a refusal (neither), and for a yes/no question the wrong opening (the reader acts on it whatever rule
    follows; `check_yes_bias` reads only the opening, so it serves both kinds), the bare verdicts, and the bare
    current and stale words in both spellings (`check_bare_verdicts` tries only "Yes." and "No, you don't." on a
    "yes" question)."""
    check_sample_answers(t, s.current, s.stale)
    j = judge("I do not know; the sources don't say.", t)
    assert (j.verdict, j.refused) == ("none", True), j.to_dict()
    if not t.yes_no:
        return
    check_yes_bias(t, s.wrong_opening)
    check_bare_verdicts(t, t.yes_no)
    right, wrong = ("No", "Yes") if t.yes_no == "no" else ("Yes", "No")
    for answer in (f"{right}.", f"{right}!", f"{right}, you can't." if right == "No" else f"{right}, you can."):
        assert judge(answer, t).verdict == "current", answer
    for answer in (f"{wrong}.", f"{wrong}!", f"{wrong} you can't." if wrong == "No" else f"{wrong} you can."):
        assert judge(answer, t).verdict == "stale", answer
