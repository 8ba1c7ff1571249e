"""`passes.budget`: the seed's budget vector, reserves, and how `fill` stops, skips and pulls."""

import pytest

from evidencepack import Budget, BudgetError, Record
from evidencepack.passes.budget import fill
from evidencepack.records.candidates import Candidate


def R(id, text="x", **kw):
    return Record(id=id, text=text, **kw)


def test_seed_budget_vector():
    b = Budget(context_window=16_000, output_reserve=1_500, safety_margin=300)
    assert b.retrieval_budget(400, 120) == 13_680


def test_reserves_larger_than_window_is_an_error():
    with pytest.raises(BudgetError, match="exceed the context window"):
        Budget(context_window=1000, output_reserve=900, safety_margin=50).retrieval_budget(40, 20)


def _fill(costs, available, **kw):
    cands = [Candidate(R(f"r{i}"), i) for i in range(1, len(costs) + 1)]
    return fill(cands, cost=lambda c: costs[c.rank - 1], available=available, **kw)


def test_fill_stops_at_first_record_that_does_not_fit():
    f = _fill([40, 40, 40, 5], 100)
    assert [c.id for c, _ in f.selected] == ["r1", "r2"]
    assert [(d.id, d.reason) for d in f.dropped] == [("r3", "over_budget")]
    assert f.stopped_by == "over_budget" and f.used == 80


def test_fill_gaps_lets_smaller_records_in():
    f = _fill([40, 40, 40, 5], 100, fill_gaps=True)
    assert [c.id for c, _ in f.selected] == ["r1", "r2", "r4"]
    assert f.stopped_by is None


def test_larger_than_budget_is_skipped_not_a_stop():
    f = _fill([500, 40], 100)
    assert [(d.id, d.reason) for d in f.dropped] == [("r1", "larger_than_budget")]
    assert [c.id for c, _ in f.selected] == ["r2"]


def test_max_records():
    f = _fill([1, 1, 1], 100, max_records=2)
    assert [c.id for c, _ in f.selected] == ["r1", "r2"]
    assert f.dropped[-1].reason == "max_records" and f.stopped_by == "max_records"


def test_fill_pulls_lazily():
    pulled = []

    def stream():
        for i in range(1, 1000):
            pulled.append(i)
            yield Candidate(R(f"r{i}"), i)

    fill(stream(), cost=lambda c: 10, available=35)
    assert len(pulled) == 4  # three fit, the fourth stops the pass; the rest are never touched
