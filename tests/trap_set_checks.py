"""Checks every held-out trap set shares: its patterns tell the current rule from the stale ones, and the judge
reads each record, quoted alone, as its own rule. Every set loads through `TopicSet`, which reads the records' roles
from the gold record's conflict group; its counts are a `BalancedShape` (the sets balanced between "yes" and "no")
or an `OlderShape` (the third, the fourth and the IT set), stated in its module under `tests/trap_sets/`."""

from __future__ import annotations

import math
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


def question_kind(t: TrapQuestion) -> str:
    """'no' / 'yes' / 'open': the question's `yes_no`, else (the third set predates that field) what its
    opening-verdict patterns say."""
    if t.yes_no is not None:
        return t.yes_no
    if NO in t.current and YES in t.stale:
        return "no"
    if YES in t.current and NO in t.stale:
        return "yes"
    return "open"


COSINE_GROUP = 0.9  # the assembler groups topic-less records at this cosine (README, "Conflict notices")
COSINE_DEDUP = 0.95  # and merges near-duplicates at this one: a conflict group must stay below it


def cosine(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


@dataclass(frozen=True)
class TopicSet:
    """A trap set whose conflict groups are topics (or, for topic-less records, embeddings, as the assembler groups
    them): its corpus, its questions (answerable and unanswerable), and the role each record plays in a question,
    read from the gold record's group."""

    corpus: tuple[Record, ...]
    traps: tuple[TrapQuestion, ...]
    unanswerable: tuple[TrapQuestion, ...]

    @classmethod
    def named(cls, stem: str, *, unanswerable: bool = True) -> TopicSet:
        """The set in `tests/data/` as `{stem}_corpus.jsonl`, `{stem}_traps.jsonl` and, with `unanswerable`,
        `unanswerable_{stem}_traps.jsonl`."""
        data = Path(__file__).parent / "data"
        records = load_jsonl(data / f"{stem}_corpus.jsonl")
        return cls(tuple(records), tuple(load_traps(data / f"{stem}_traps.jsonl", corpus=records)),
                   tuple(load_traps(data / f"unanswerable_{stem}_traps.jsonl", corpus=records)) if unanswerable
                   else ())

    @cached_property
    def by_id(self) -> dict[str, Record]:
        return {r.id: r for r in self.corpus}

    @cached_property
    def by_question(self) -> dict[str, TrapQuestion]:
        return {t.id: t for t in (*self.traps, *self.unanswerable)}

    @staticmethod
    def same_group(gold: Record, r: Record) -> bool:
        """Same conflict group as the gold record: same topic, or, for topic-less records, embeddings that close."""
        if gold.topic is not None:
            return r.topic == gold.topic
        return (r.topic is None and r.embedding is not None and gold.embedding is not None
                and cosine(gold.embedding, r.embedding) >= COSINE_GROUP)

    def roles(self, t: TrapQuestion) -> tuple[Record, list[Record], list[Record]]:
        """(current record, stale records, distractors) of a question, by its gold record's conflict group."""
        gold = self.by_id[t.gold or ""]
        recs = [self.by_id[i] for i in t.records]
        stale = [r for r in recs if r is not gold and self.same_group(gold, r)]
        others = [r for r in recs if not self.same_group(gold, r)]
        return gold, stale, others

    def never_expiring_informal_trap(self, t: TrapQuestion) -> bool:
        trap = self.by_id[t.trap or ""]
        return trap.authority == "informal" and trap.valid_until is None


def check_summaries_agree(t: TrapQuestion, kind: str | None = None) -> None:
    """A 2026 question with both one-line summaries; for a yes/no question the summaries and the opening-verdict
    patterns agree with `kind` (by default `yes_no`), and an open question has no verdict word."""
    kind = kind or t.yes_no or "open"
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
        corpus = s.corpus
        check_corpus_basics(s, self.corpus)
        informal = [r for r in corpus if r.authority == "informal"]
        assert len(informal) == self.informal
        assert sum(r.valid_until is None for r in informal) == self.never_expiring_informal
        assert sum(r.authority == "superseded" for r in corpus) == self.superseded
        golds = {t.gold for t in s.traps}
        assert len(golds) == self.questions
        assert sum(r.authority == "authoritative" and r.id not in golds for r in corpus) == self.other_authoritative

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
        check_unanswerable_set(s, (self.unanswerable, self.unanswerable_yes_no), answer_shapes, grouped, yes_no)


def check_corpus_basics(s: TopicSet, size: tuple[int, int]) -> None:
    """What every checked corpus promises: `size` (fewest and most records), all three authorities, every field
    filled, texts of 1-4 sentences, superseded versions ended before every question that retrieves them, and every
    record retrieved by some question."""
    corpus, by_id = s.corpus, s.by_id
    assert size[0] <= len(corpus) <= size[1]
    assert {r.authority for r in corpus} == {"authoritative", "informal", "superseded"}
    assert all(r.topic and r.doc and r.section and r.url and r.source_system and r.date for r in corpus)
    assert all(1 <= len(re.findall(r"[.!?](?:\s|$)", r.text)) <= 4 for r in corpus), "texts of 1-4 sentences"
    for t in [*s.traps, *s.unanswerable]:
        for r in (by_id[i] for i in t.records if by_id[i].authority == "superseded"):
            assert r.valid_until is not None and not current_at(r, as_of(t)), (t.id, r.id)
    assert {i for t in [*s.traps, *s.unanswerable] for i in t.records} == set(by_id)


def check_unanswerable_set(s: TopicSet, counts: tuple[int, int], answer_shapes: Mapping[str, object],
                           grouped: Set[str], yes_no: Set[str]) -> None:
    """The unanswerable questions, `counts` of them (all, yes/no): apart from the answerable ones, with no patterns
    and no gold record, each with an answer shape; half of them retrieve a decided conflict group."""
    ids = [t.id for t in s.unanswerable]
    assert len(ids) == counts[0] and not set(ids) & {t.id for t in s.traps}
    assert all(t.unanswerable and not t.current and not t.stale and t.gold is None for t in s.unanswerable)
    assert all(3 <= len(t.records) <= 5 and t.missing and t.as_of.startswith("2026-") for t in s.unanswerable)
    assert set(ids) == set(answer_shapes)
    assert 2 * len(grouped) == len(ids)
    assert set(ids) >= yes_no and len(yes_no) == counts[1]


@dataclass(frozen=True)
class OlderShape:
    """The counts an older set (the third, the fourth, the IT set; none balanced between "yes" and "no") promises:
    mostly lower bounds, as its checks were first written. It checks what `BalancedShape` checks (questions, corpus,
    seats, unanswerable questions) with these counts, and what only the older sets promise (stale sources, stricter
    roles, samples shaped by kind); `None` leaves a count unchecked."""

    questions: tuple[int, int | None]  # fewest and most questions (None: no most)
    records: tuple[int, int]  # fewest and most records a question retrieves
    gold_seats: int  # the gold record sits at every seat 1..gold_seats
    kinds: tuple[int, int, int] | None = None  # at least this many "no", "yes", open questions; None: no yes/no ones
    dates: int | None = None  # at least this many different dates
    never_expiring_informal_traps: int | None = None  # at least this many traps informal and never expiring
    never_expiring_informal_stale: int | None = None  # at least this many such records among the stale ones
    seat_1: tuple[int, int] | None = None  # at least this many questions with the gold record, and the trap, at seat 1
    trap_mostly_before_gold: bool = False
    corpus: tuple[int, int] | None = None  # fewest and most records; None: the corpus is not checked
    never_expiring_informal: int | None = None  # at least this many informal records never expiring (and 1 expiring)
    samples_open_with_verdict: bool = False  # a yes/no question's current sample opens "No. " / "Yes. "
    unanswerable: int = 0  # questions no record answers
    unanswerable_yes_no: int = 0

    def check_questions(self, s: TopicSet) -> None:
        """Counts by kind: at least half answered "no" and a few "yes", so a model that always says "no" does not win;
        each yes/no question's summaries and opening-verdict patterns agree with its kind; the dates vary."""
        traps = s.traps
        fewest, most = self.questions
        assert len(traps) >= fewest and (most is None or len(traps) <= most)
        assert len({t.id for t in traps}) == len(traps)
        assert all(t.as_of.startswith("2026-") for t in traps)
        if self.kinds is not None:
            kinds = [question_kind(t) for t in traps]
            no, yes, open_ = self.kinds
            assert kinds.count("no") >= no and kinds.count("no") * 2 >= len(traps)
            assert yes <= kinds.count("yes") < kinds.count("no")
            assert kinds.count("open") >= open_
            for t, kind in zip(traps, kinds, strict=True):
                check_summaries_agree(t, kind)
        if self.never_expiring_informal_traps is not None:
            assert sum(s.never_expiring_informal_trap(t) for t in traps) >= self.never_expiring_informal_traps
        if self.dates is not None:
            assert len({t.as_of for t in traps}) >= self.dates

    def check_corpus(self, s: TopicSet) -> None:
        """The corpus basics, and informal records both never expiring and expired."""
        assert self.corpus is not None, "a set that states no corpus counts has no corpus check"
        check_corpus_basics(s, self.corpus)
        if self.never_expiring_informal is not None:
            informal = [r for r in s.corpus if r.authority == "informal"]
            assert sum(r.valid_until is None for r in informal) >= self.never_expiring_informal
            assert any(r.valid_until is not None for r in informal)

    def check_seats(self, s: TopicSet) -> None:
        """The gold record is not always in the same seat; in some sets it and the trap are often first, and the
        trap mostly comes before it."""
        gold_seats = [t.records.index(t.gold or "") + 1 for t in s.traps]
        trap_seats = [t.records.index(t.trap or "") + 1 for t in s.traps]
        assert set(range(1, self.gold_seats + 1)) <= set(gold_seats) <= set(range(1, self.records[1] + 1))
        if self.seat_1 is not None:
            assert gold_seats.count(1) >= self.seat_1[0] and trap_seats.count(1) >= self.seat_1[1]
        if self.trap_mostly_before_gold:
            assert sum(trap < gold for trap, gold in zip(trap_seats, gold_seats, strict=True)) * 2 > len(s.traps)

    def check_stale_sources(self, s: TopicSet) -> None:
        """Every kind of stale source appears (too few "yes" questions to trap them both ways), and informal records
        that never expire are among the stale ones."""
        check_stale_kinds(s, both_sides=False)
        if self.never_expiring_informal_stale is not None:
            used = {r.id for t in s.traps for r in s.roles(t)[1]}
            forever = [r.id for r in s.corpus if r.authority == "informal" and r.valid_until is None and r.id in used]
            assert len(forever) >= self.never_expiring_informal_stale, forever

    def check_roles(self, t: TrapQuestion, gold: Record, stale: Sequence[Record], others: Sequence[Record]) -> None:
        """`check_question_roles` with this set's number of records, and stricter: a stale record is informal or
        superseded (never an expired authoritative one), a superseded one ended before the question's date, and
        every distractor has a topic."""
        check_question_roles(t, gold, stale, others, records=self.records)
        assert t.gold is not None
        for r in stale:
            assert r.authority in ("informal", "superseded"), r.id
            if r.authority == "superseded":
                end = day(r.valid_until)
                assert end is not None and end < as_of(t), r.id  # type: ignore[operator]
        assert all(r.topic is not None for r in others)

    def check_samples(self, s: TopicSet, samples: Mapping[str, Samples]) -> None:
        """Every question has samples; the yes-bias sample exactly for a "no" question, and a yes/no question's stale
        sample opening with the wrong verdict, as a model with a yes-bias (or a no-bias) writes it."""
        assert set(samples) == {t.id for t in s.traps}
        for t in s.traps:
            kind, sample = question_kind(t), samples[t.id]
            assert bool(sample.wrong_opening) == (kind == "no"), t.id
            if kind != "open":
                assert sample.stale.startswith("Yes, " if kind == "no" else "No, "), t.id
                if self.samples_open_with_verdict:
                    assert sample.current.startswith("No. " if kind == "no" else "Yes. "), t.id

    def check_unanswerable(self, s: TopicSet, answer_shapes: Mapping[str, object], grouped: Set[str],
                           yes_no: Set[str]) -> None:
        check_unanswerable_set(s, (self.unanswerable, self.unanswerable_yes_no), answer_shapes, grouped, yes_no)


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


def check_question_roles(t: TrapQuestion, gold: Record, stale: Sequence[Record], others: Sequence[Record], *,
                         records: tuple[int, int] = (3, 5)) -> None:
    """`records` (fewest, most) records; the gold record is authoritative and in force at the question's date; 1-2
    stale records, each informal, superseded (and ended), expired or not yet valid; 1-2 distractors, each on its own
    subject, authoritative and in force."""
    when = as_of(t)
    assert records[0] <= len(t.records) <= records[1]
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
    conflict group, on the gold record's topic, holds it and names the stale ones (under `surface`, which shows
    every record: the default withholds the stale ones)."""
    from evidencepack import Layout, assemble

    a = assemble(list(records), t.question, as_of=t.as_of, layout=Layout.preset("structured"))
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
    assert groups[0].topic == gold.topic
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


def check_refusal(t: TrapQuestion, answer: str) -> None:
    """A refusal is neither current nor stale, and is read as a refusal."""
    j = judge(answer, t)
    assert (j.verdict, j.refused) == ("none", True), j.to_dict()


def check_answer_shape(t: TrapQuestion, answer: str, verdict: str) -> None:
    """Another shape a model writes (another opening, the stale rule negated or marked as outdated, both rules with
    nothing saying which holds) gets the verdict it deserves."""
    j = judge(answer, t)
    assert j.verdict == verdict, j.to_dict()


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


# ---------------------------------------------------------------- hand-written answers

REFUSAL = "I do not know; the sources don't say."


@dataclass(frozen=True)
class Samples:
    """Answers as a small model might write them (not copied from the records): the current rule, the stale rule,
    and for a yes/no question the wrong-opening shape: for a "no" question the yes-bias ("Yes, you can …" followed
    by the current rule), for a "yes" question of a balanced set the no-bias ("No, you can't …" followed by the
    current rule). A refusal, unless the set writes its own (the third does), is `REFUSAL`."""

    current: str
    stale: str
    wrong_opening: str = ""
    refusal: str = REFUSAL


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
    check_refusal(t, s.refusal)
    if not t.yes_no:
        return
    check_yes_bias(t, s.wrong_opening)
    check_bare_verdicts(t, t.yes_no)
    right, wrong = ("No", "Yes") if t.yes_no == "no" else ("Yes", "No")
    for answer in (f"{right}.", f"{right}!", f"{right}, you can't." if right == "No" else f"{right}, you can."):
        assert judge(answer, t).verdict == "current", answer
    for answer in (f"{wrong}.", f"{wrong}!", f"{wrong} you can't." if wrong == "No" else f"{wrong} you can."):
        assert judge(answer, t).verdict == "stale", answer
