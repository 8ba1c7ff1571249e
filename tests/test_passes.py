"""Unit tests per pass, with the seed's vectors."""

from datetime import date

import pytest

from evidencepack import Budget, BudgetError, Record
from evidencepack.passes.admit import admit, validity_status
from evidencepack.passes.budget import fill
from evidencepack.passes.dedup import DEFAULT_THRESHOLD, dedup, similarity
from evidencepack.passes.order import alternate_layout, edges_layout, order
from evidencepack.records.candidates import Candidate, Dropped


def R(id, text="x", **kw):
    return Record(id=id, text=text, **kw)


# -- admit -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("as_of, want", [
    (date(2024, 12, 31), "not_yet_valid"),
    (date(2025, 1, 1), "current"),     # first valid day
    (date(2025, 6, 30), "current"),    # last valid day
    (date(2025, 7, 1), "expired"),
])
def test_validity_window_is_inclusive(as_of, want):
    r = R("a", valid_from=date(2025, 1, 1), valid_until=date(2025, 6, 30))
    assert validity_status(r, as_of) == want


def test_clearance_drops_above_and_keeps_at_or_below():
    recs = [R("pub", sensitivity="public"), R("int"), R("conf", sensitivity="confidential"),
            R("res", sensitivity="restricted")]
    out = admit(recs, as_of=date(2026, 1, 1))
    assert [c.id for c in out.kept] == ["pub", "int"]
    assert [(d.id, d.reason) for d in out.dropped] == [("conf", "above_clearance"), ("res", "above_clearance")]
    assert [c.id for c in admit(recs, as_of=date(2026, 1, 1), clearance="restricted").kept] == [
        "pub", "int", "conf", "res"]


def test_expired_is_labelled_by_default_and_excluded_by_policy():
    recs = [R("old", valid_until=date(2024, 6, 30)), R("new")]
    out = admit(recs, as_of=date(2026, 1, 1))
    assert [(c.id, c.status) for c in out.kept] == [("old", "expired"), ("new", "current")]
    out = admit(recs, as_of=date(2026, 1, 1), exclude_expired=True)
    assert [d.reason for d in out.dropped] == ["expired_excluded"]


def test_superseded_can_be_excluded():
    out = admit([R("a", authority="superseded"), R("b")], as_of=date(2026, 1, 1), exclude_superseded=True)
    assert [(d.id, d.reason) for d in out.dropped] == [("a", "superseded_excluded")]


# -- dedup -------------------------------------------------------------------------------------------

POLICY = ("Effective January 1, 2025, unused PTO does not carry over into the next calendar year. Any balance "
          "left on December 31 is forfeited and is not paid out, except where state law requires payout.")
DUPLICATES = [  # (a, b): the same passage as it arrives from overlapping exports and copies
    (POLICY, POLICY.replace(", ", " ").replace(".", "")),                 # punctuation lost in a PDF export
    (POLICY, POLICY.upper()),                                              # case
    (POLICY, "  " + POLICY.replace(" ", "\n", 3)),                         # whitespace
    (POLICY, POLICY.replace("forfeited", "forfieted")),                    # a typo
    (POLICY, POLICY.replace("calendar year", "calendar-year")),            # hyphenation
    (POLICY, POLICY + " See section 5.2."),                                # a trailing reference
]
DISTINCT = [  # (a, b): similar wording, different rules or different content
    (POLICY, "Effective January 1, 2024, employees may carry up to 5 days of unused PTO into the next calendar "
             "year. Any balance above 5 days left on December 31 is forfeited."),
    (POLICY, "Unused sick days do not carry over into the next calendar year and are not paid out."),
    (POLICY, "Employees get 2 paid volunteer days per calendar year for service with registered nonprofits."),
    ("Overtime must be approved in advance by your manager in writing.",
     "Overtime must be approved in advance by your plant director in writing."),
]


def test_default_threshold_separates_labelled_pairs():
    """Why 0.85: every labelled duplicate scores well above it and every distinct pair well below."""
    dup_scores = [similarity(a, b) for a, b in DUPLICATES]
    distinct_scores = [similarity(a, b) for a, b in DISTINCT]
    assert min(dup_scores) >= 0.88, dup_scores
    assert max(distinct_scores) <= 0.80, distinct_scores
    assert max(distinct_scores) < DEFAULT_THRESHOLD <= min(dup_scores)


def _cands(*texts, **kw):
    return [Candidate(R(f"r{i}", t, **kw), i) for i, t in enumerate(texts, start=1)]


def test_dedup_keeps_the_higher_ranked_copy():
    out = list(dedup(_cands(POLICY, "Something else entirely.", POLICY.upper())))
    assert [o.id for o in out if isinstance(o, Candidate)] == ["r1", "r2"]
    assert [(d.id, d.duplicate_of) for d in out if isinstance(d, Dropped)] == [("r3", "r1")]


def test_dedup_never_merges_different_numbers_or_negations():
    a = "Employees may carry over up to 5 days of unused PTO into the next calendar year with approval."
    assert not [o for o in dedup(_cands(a, a.replace("5", "10"))) if isinstance(o, Dropped)]
    assert not [o for o in dedup(_cands(a, a.replace("may", "may not"))) if isinstance(o, Dropped)]


def test_dedup_by_embedding_cosine():
    recs = [Candidate(R("a", "alpha text here", embedding=(1.0, 0.0)), 1),
            Candidate(R("b", "completely different words", embedding=(0.99, 0.05)), 2),
            Candidate(R("c", "another different text", embedding=(0.0, 1.0)), 3)]
    out = list(dedup(recs))
    assert [(d.id, d.duplicate_of) for d in out if isinstance(d, Dropped)] == [("b", "a")]
    assert not [d for d in dedup(recs, embedding_cutoff=None) if isinstance(d, Dropped)]


# -- budget ------------------------------------------------------------------------------------------

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


# -- order -------------------------------------------------------------------------------------------

EDGES = {1: [1], 2: [1, 2], 3: [1, 3, 2], 4: [1, 4, 3, 2], 5: [1, 4, 5, 3, 2], 6: [1, 4, 5, 6, 3, 2],
         7: [1, 4, 5, 7, 6, 3, 2], 8: [1, 4, 5, 8, 7, 6, 3, 2], 9: [1, 4, 5, 8, 9, 7, 6, 3, 2]}


@pytest.mark.parametrize("n", range(1, 10))
def test_edges_layout(n):
    assert edges_layout(n) == EDGES[n]


def test_alternate_matches_haystack_lost_in_the_middle():
    assert alternate_layout(5) == [1, 3, 5, 4, 2]
    assert alternate_layout(4) == [1, 3, 4, 2]
    for n in range(1, 12):
        assert sorted(alternate_layout(n)) == list(range(1, n + 1))


def test_stable_and_ranked():
    items = ["b", "c", "a"]
    assert order(items, "ranked") == items
    assert order(items, "stable", stable_key=str) == ["a", "b", "c"]
    with pytest.raises(ValueError):
        order(items, "random")


def test_datetime_bounds_compare_by_instant_and_naive_as_of_is_utc():
    from datetime import datetime

    from evidencepack import assemble

    rec = {"id": "a", "text": "t", "valid_until": "2025-01-01T10:00:00Z"}
    assert assemble([rec], "q", as_of=datetime(2025, 1, 1, 9)).manifest[0].status == "current"
    assert assemble([rec], "q", as_of=datetime(2025, 1, 1, 11)).manifest[0].status == "expired"
    assert assemble([rec], "q", as_of="2025-01-01").manifest[0].status == "current"  # a day covers the bound
