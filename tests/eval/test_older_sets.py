"""The older trap sets (the third, the fourth and the IT set), none balanced between "yes" and "no": is each well
formed, and does the judge read it?

Each set's data, its description and the counts that description promises (`OlderShape`: mostly lower bounds) live
in `tests/trap_sets/<name>.py`; every check here runs on every set it applies to, through the same helpers as
`test_balanced_sets.py` (`tests/trap_set_checks.py`). A question's kind ("no", "yes", open) is its `yes_no`, or, in
the third set, which predates that field, what its opening-verdict patterns say (`question_kind`): the yes-bias check
runs on the "no" questions, the bare verdicts on the yes/no ones. A record's role is read from the gold record's
conflict group: its topic, or, for the third set's topic-less records, its embedding (`TopicSet.same_group`).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest

from evidencepack.eval.datasets import TrapQuestion
from trap_set_checks import (
    COSINE_DEDUP,
    COSINE_GROUP,
    check_answer_shape,
    check_assembler_sees_gold_current,
    check_bare_verdicts,
    check_judge_reads_records,
    check_patterns_separate,
    check_refusal,
    check_sample_answers,
    check_yes_bias,
    cosine,
    question_kind,
)
from trap_sets import OLDER, load

NAMES = OLDER
SETS = load(NAMES)


def _sets(where: Callable[[ModuleType], object] = lambda s: True) -> list[object]:
    """The set modules (those `where` holds for), named by set."""
    return [pytest.param(s, id=name) for name, s in SETS.items() if where(s)]


def _questions(attr: str = "traps", kinds: tuple[str, ...] | None = None) -> list[object]:
    """(set, question) pairs over every set's answerable (`traps`) or unanswerable questions, of `kinds` if given,
    named set/question."""
    return [pytest.param(s, t, id=f"{name}/{t.id}") for name, s in SETS.items() for t in getattr(s.SET, attr)
            if kinds is None or question_kind(t) in kinds]


def _shapes() -> list[object]:
    return [pytest.param(s, qid, answer, verdict, id=f"{name}/{qid}-{n}")
            for name, s in SETS.items() for n, (qid, answer, verdict) in enumerate(s.SHAPES)]


# ---------------------------------------------------------------- shape


@pytest.mark.parametrize("s", _sets())
def test_set_shape_and_counts(s: ModuleType) -> None:
    s.SHAPE.check_questions(s.SET)


@pytest.mark.parametrize("s", _sets(lambda s: s.SHAPE.corpus))
def test_corpus_shape(s: ModuleType) -> None:
    s.SHAPE.check_corpus(s.SET)


@pytest.mark.parametrize("s", _sets())
def test_seats_vary(s: ModuleType) -> None:
    s.SHAPE.check_seats(s.SET)


@pytest.mark.parametrize("s", _sets())
def test_every_kind_of_stale_source_appears(s: ModuleType) -> None:
    s.SHAPE.check_stale_sources(s.SET)


# ---------------------------------------------------------------- each question


@pytest.mark.parametrize(("s", "t"), _questions())
def test_question_records_have_the_intended_roles(s: ModuleType, t: TrapQuestion) -> None:
    s.SHAPE.check_roles(t, *s.SET.roles(t))


@pytest.mark.parametrize(("s", "t"), _questions())
def test_the_assembler_sees_gold_current_and_trap_stale(s: ModuleType, t: TrapQuestion) -> None:
    """Through the real assembler's manifest at `as_of`: the gold record is admitted, authoritative and current;
    every other record of its group is expired or not authoritative; the conflict group names them."""
    gold, stale, _ = s.SET.roles(t)
    check_assembler_sees_gold_current(t, [s.SET.by_id[i] for i in t.records], gold, stale)


@pytest.mark.parametrize(("s", "t"), _questions())
def test_patterns_separate_current_from_stale_text(s: ModuleType, t: TrapQuestion) -> None:
    check_patterns_separate(t, *s.SET.roles(t))


@pytest.mark.parametrize(("s", "t"), _questions())
def test_judge_reads_each_record_as_its_own_rule(s: ModuleType, t: TrapQuestion) -> None:
    """Quoted as an answer on its own, the current record is judged current and each stale record stale."""
    gold, stale, _ = s.SET.roles(t)
    check_judge_reads_records(t, gold, stale)


# ---------------------------------------------------------------- hand-written answers


@pytest.mark.parametrize("s", _sets())
def test_every_question_has_samples(s: ModuleType) -> None:
    s.SHAPE.check_samples(s.SET, s.SAMPLES)


@pytest.mark.parametrize(("s", "t"), _questions())
def test_judge_reads_the_current_and_the_stale_answer(s: ModuleType, t: TrapQuestion) -> None:
    check_sample_answers(t, s.SAMPLES[t.id].current, s.SAMPLES[t.id].stale)


@pytest.mark.parametrize(("s", "t"), _questions())
def test_a_refusal_is_neither(s: ModuleType, t: TrapQuestion) -> None:
    check_refusal(t, s.SAMPLES[t.id].refusal)


@pytest.mark.parametrize(("s", "t"), _questions(kinds=("no",)))
def test_yes_bias_is_stale(s: ModuleType, t: TrapQuestion) -> None:
    """The assembler's known weakness: the reader acts on the opening "Yes", so it is never current-correct."""
    check_yes_bias(t, s.SAMPLES[t.id].wrong_opening)


@pytest.mark.parametrize(("s", "t"), _questions(kinds=("no", "yes")))
def test_bare_verdicts(s: ModuleType, t: TrapQuestion) -> None:
    check_bare_verdicts(t, question_kind(t))


@pytest.mark.parametrize(("s", "qid", "answer", "verdict"), _shapes())
def test_judge_reads_other_answer_shapes(s: ModuleType, qid: str, answer: str, verdict: str) -> None:
    check_answer_shape(s.SET.by_question[qid], answer, verdict)


# ---------------------------------------------------------------- particular to the third set


def test_some_groups_have_no_topic_and_come_from_embeddings() -> None:
    """The idling and reversing records carry no `topic`: each group's records lie within the grouping cosine of each
    other and below the dedup one, and the groups lie far apart."""
    s = SETS["holdout3"].SET
    topicless = [t for t in s.traps if s.by_id[t.gold or ""].topic is None]
    assert len(topicless) >= 2
    for t in topicless:
        gold, stale, others = s.roles(t)
        assert stale and all(r.topic is None for r in stale)
        group = [gold, *stale]
        for a in group:  # every pair, so the group does not hang on the gold record alone
            for b in group:
                if a is not b:
                    assert a.embedding is not None and b.embedding is not None
                    assert COSINE_GROUP <= cosine(a.embedding, b.embedding) < COSINE_DEDUP, (a.id, b.id)
    # records of different topic-less groups are far apart
    golds = [s.by_id[t.gold or ""] for t in topicless]
    for a in golds:
        for b in golds:
            if a is not b:
                assert a.embedding is not None and b.embedding is not None
                assert cosine(a.embedding, b.embedding) < 0.5
