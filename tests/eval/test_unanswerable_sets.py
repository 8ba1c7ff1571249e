"""The unanswerable questions of every trap set that has them (`unanswerable_<set>_traps.jsonl`): no record answers
them, and the judge reads an answer to one as invented and a refusal as abstained. The third and IT sets' older
unanswerable files are checked in `test_unanswerable.py`."""

from __future__ import annotations

from types import ModuleType

import pytest

from evidencepack.eval.datasets import TrapQuestion
from trap_set_checks import check_unanswerable_question
from trap_sets import BALANCED, OLDER, load

SETS = {name: s for name, s in load(OLDER + BALANCED).items() if s.SET.unanswerable}


@pytest.mark.parametrize("s", list(SETS.values()), ids=list(SETS))
def test_the_unanswerable_set_has_its_shape(s: ModuleType) -> None:
    s.SHAPE.check_unanswerable(s.SET, s.ANSWER_SHAPES, s.GROUPED, s.U_YES_NO)


@pytest.mark.parametrize(("s", "t"), [pytest.param(s, t, id=f"{name}/{t.id}") for name, s in SETS.items()
                                      for t in s.SET.unanswerable])
def test_each_unanswerable_question(s: ModuleType, t: TrapQuestion) -> None:
    """No record answers it, its neighbouring values are retrieved, `withhold` acts on it only with a decided group,
    and the judge reads an answer as invented and a refusal as abstained."""
    check_unanswerable_question(s.SET, t, *s.ANSWER_SHAPES[t.id], grouped=t.id in s.GROUPED,
                                yes_no=t.id in s.U_YES_NO)
