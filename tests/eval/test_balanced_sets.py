"""The trap sets balanced between "yes" and "no" (the fifth to the eleventh): is each well formed, and does the judge
read it?

Each set's data, its description and the counts that description promises live in `tests/trap_sets/<name>.py`;
every check here runs on every set. A new balanced set is one module there and its name in `trap_sets.BALANCED`.
The unanswerable questions of every set are checked in `test_unanswerable_sets.py`.

A "yes" question is checked the same way as a "no" one, mirrored: its stale answer opens "No, …", the wrong-opening
shape is "No, …" followed by the current rule (the no-bias), and a bare "No." is stale and a bare "Yes." current.
The "yes" questions' stale patterns leave out what the questions state (a concession "Yes, even though X, you still
…" has no negator), and carry an opening "Nope" / "Not allowed", which the judge's opening-verdict reader does not
see.
"""

from __future__ import annotations

from types import ModuleType

import pytest

from evidencepack.eval.datasets import TrapQuestion
from trap_set_checks import (
    check_answer_shape,
    check_balanced_answers,
    check_samples_shape,
    check_stale_kinds,
    check_topic_question,
)
from trap_sets import BALANCED, load

NAMES = BALANCED
SETS = load(NAMES)


def _sets() -> list[ModuleType]:
    return list(SETS.values())


def _questions(attr: str) -> list[object]:
    """(set, question) pairs over every set's answerable (`traps`) or unanswerable questions, named set/question."""
    return [pytest.param(s, t, id=f"{name}/{t.id}") for name, s in SETS.items() for t in getattr(s.SET, attr)]


def _shapes() -> list[object]:
    return [pytest.param(s, qid, answer, verdict, id=f"{name}/{qid}-{n}")
            for name, s in SETS.items() for n, (qid, answer, verdict) in enumerate(s.SHAPES)]


# ---------------------------------------------------------------- shape


@pytest.mark.parametrize("s", _sets(), ids=NAMES)
def test_set_shape_and_counts(s: ModuleType) -> None:
    s.SHAPE.check_questions(s.SET)


@pytest.mark.parametrize("s", _sets(), ids=NAMES)
def test_corpus_shape(s: ModuleType) -> None:
    s.SHAPE.check_corpus(s.SET)


@pytest.mark.parametrize("s", _sets(), ids=NAMES)
def test_seats_vary(s: ModuleType) -> None:
    s.SHAPE.check_seats(s.SET)


@pytest.mark.parametrize("s", _sets(), ids=NAMES)
def test_every_kind_of_stale_source_appears_and_traps_both_sides(s: ModuleType) -> None:
    check_stale_kinds(s.SET)


@pytest.mark.parametrize(("s", "t"), _questions("traps"))
def test_each_question_roles_assembler_patterns_and_judge(s: ModuleType, t: TrapQuestion) -> None:
    """The records' roles; through the real assembler at `as_of`, the gold record current and authoritative and the
    conflict group naming the stale ones; the patterns telling the current rule from the stale ones; the judge
    reading each record, quoted alone, as its own rule."""
    check_topic_question(s.SET, t)


# ---------------------------------------------------------------- hand-written answers


@pytest.mark.parametrize("s", _sets(), ids=NAMES)
def test_every_question_has_samples(s: ModuleType) -> None:
    assert set(s.SAMPLES) == {t.id for t in s.SET.traps}
    for t in s.SET.traps:
        check_samples_shape(t, s.SAMPLES[t.id])


@pytest.mark.parametrize(("s", "t"), _questions("traps"))
def test_judge_reads_each_questions_answers(s: ModuleType, t: TrapQuestion) -> None:
    """The current and stale samples, a refusal, and for a yes/no question the wrong opening and the bare verdicts
    both ways (`check_balanced_answers`)."""
    check_balanced_answers(t, s.SAMPLES[t.id])


@pytest.mark.parametrize(("s", "qid", "answer", "verdict"), _shapes())
def test_judge_reads_other_answer_shapes(s: ModuleType, qid: str, answer: str, verdict: str) -> None:
    check_answer_shape(s.SET.by_question[qid], answer, verdict)
