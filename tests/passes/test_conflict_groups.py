"""The embedding conflict groups: the vectorised grouping must equal the pure-Python single-link grouping it
replaced, pair for pair, including pairs exactly at the threshold; and an assembly computes it once."""

from __future__ import annotations

import gc
import math
import random
import subprocess
import sys
import weakref
from collections.abc import Sequence
from datetime import date

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from evidencepack import Budget, Layout, Record, assemble
from evidencepack.passes import conflicts
from evidencepack.passes import dedup as dedup_pass
from evidencepack.passes.conflicts import find_conflicts, group_embeddings
from evidencepack.passes.dedup import dedup
from evidencepack.records import vectors
from evidencepack.records.candidates import Candidate
from evidencepack.records.vectors import KeptVectors, components, cosine

# -- the reference: the grouping and the cosine as they were before NumPy ------------------------------------


def reference_cosine(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    if len(a) != len(b):
        raise ValueError(f"embeddings of different lengths ({len(a)} and {len(b)}) cannot be compared")
    dot = sum(x * y for x, y in zip(a, b))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def reference_groups(embeddings: list[tuple[float, ...]], threshold: float) -> list[list[int]]:
    """`conflicts._cluster` before this change, on indices: every pair, one `cosine` at a time."""
    parent = list(range(len(embeddings)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(embeddings)):
        for j in range(i + 1, len(embeddings)):
            a, b = embeddings[i], embeddings[j]
            if len(a) == len(b) and reference_cosine(a, b) >= threshold:
                parent[root(j)] = root(i)
    clusters: dict[int, list[int]] = {}
    for i in range(len(embeddings)):
        clusters.setdefault(root(i), []).append(i)
    return [members for members in clusters.values() if len(members) > 1]


# -- generated inputs ------------------------------------------------------------------------------------------

PLAIN = st.one_of(st.integers(-3, 3), st.floats(-2.0, 2.0, allow_nan=False), st.sampled_from([0.0, -0.0, 0.5]))
EXTREME = st.sampled_from([1e-200, -1e-150, 1e-101, 1e101, -1e150, 1e200, 5e-324])
VALUE = st.one_of(PLAIN, PLAIN, PLAIN, EXTREME)


@st.composite
def embedding_sets(draw: st.DrawFn) -> tuple[list[tuple[float, ...]], float]:
    """Up to 9 vectors of lengths 0 to 24 (mostly one length), with zero vectors, duplicates and scaled copies;
    a threshold that is often exactly some pair's cosine, or the float just beside it."""
    main = draw(st.sampled_from([0, 1, 2, 3, 4, 4, 12, 24]))
    out: list[tuple[float, ...]] = []
    for _ in range(draw(st.integers(0, 9))):
        kind = draw(st.sampled_from(["new", "new", "new", "other length", "zero", "duplicate", "scaled"]))
        if kind in ("duplicate", "scaled") and out:
            base = draw(st.sampled_from(out))
            factor = draw(st.sampled_from([1.0, 2.0, -1.0, 3.0, 1e-3])) if kind == "scaled" else 1.0
            out.append(tuple(x * factor for x in base))
        elif kind == "zero":
            out.append((0.0,) * main)
        else:
            length = draw(st.integers(0, 4)) if kind == "other length" else main
            out.append(tuple(draw(st.lists(VALUE, min_size=length, max_size=length))))
    pairs = [(a, b) for i, a in enumerate(out) for b in out[i + 1:] if len(a) == len(b)]
    how = draw(st.sampled_from(["fixed", "any", "tie", "below", "above"]))
    if how == "fixed" or (how in ("tie", "below", "above") and not pairs):
        return out, draw(st.sampled_from([-1.0, -0.5, 0.0, 0.5, 0.9, 1.0]))
    if how == "any":
        return out, draw(st.floats(-1.0, 1.0))
    a, b = draw(st.sampled_from(pairs))
    tie = reference_cosine(a, b)
    assume(math.isfinite(tie))
    return out, {"tie": tie, "below": math.nextafter(tie, -math.inf), "above": math.nextafter(tie, math.inf)}[how]


@settings(max_examples=600, deadline=None)
@given(embedding_sets())
def test_grouping_equals_the_pairwise_reference(case: tuple[list[tuple[float, ...]], float]) -> None:
    """The property: whatever the vectors and the threshold (ties included), the groups are the reference's.
    600 examples run; `assume` rejects only ties at a non-finite cosine (a NaN from overflowing values): 1-3 %
    of the draws (`pytest --hypothesis-show-statistics` counts them)."""
    embeddings, threshold = case
    assert group_embeddings(embeddings, threshold) == reference_groups(embeddings, threshold)


@settings(max_examples=300, deadline=None)
@given(st.lists(PLAIN, min_size=0, max_size=6), st.lists(PLAIN, min_size=0, max_size=6))
def test_cosine_is_unchanged(a: list[float], b: list[float]) -> None:
    if len(a) != len(b):
        with pytest.raises(ValueError, match="different lengths"):
            cosine(tuple(a), tuple(b))
        return
    assert cosine(tuple(a), tuple(b)) == reference_cosine(tuple(a), tuple(b))


# -- exact ties in real dimensions -----------------------------------------------------------------------------

def _gauss(rng: random.Random, dim: int) -> tuple[float, ...]:
    return tuple(rng.gauss(0.0, 1.0) for _ in range(dim))


def _disagreeing_pair(dim: int) -> tuple[tuple[float, ...], tuple[float, ...], float]:
    """Two vectors whose NumPy cosine differs from `cosine` in the last bits, and `cosine`'s value."""
    import numpy as np

    rng = random.Random(5)
    for _ in range(200):
        centre = _gauss(rng, dim)
        a = tuple(c + 0.3 * g for c, g in zip(centre, _gauss(rng, dim)))
        b = tuple(c + 0.3 * g for c, g in zip(centre, _gauss(rng, dim)))
        x, y = np.array(a), np.array(b)
        fast = float((x / np.sqrt(x @ x)) @ (y / np.sqrt(y @ y)))
        if fast != cosine(a, b):
            return a, b, cosine(a, b)
    raise AssertionError("no disagreeing pair found")


@pytest.mark.parametrize("dim", [64, 1536])
def test_a_pair_exactly_at_the_threshold_is_decided_as_before(dim: int) -> None:
    a, b, exact = _disagreeing_pair(dim)
    for threshold in (exact, math.nextafter(exact, 2.0), math.nextafter(exact, -2.0)):
        assert group_embeddings([a, b], threshold) == reference_groups([a, b], threshold)
    assert group_embeddings([a, b], exact) == [[0, 1]]  # at the threshold counts
    assert group_embeddings([a, b], math.nextafter(exact, 2.0)) == []


def test_without_the_margin_a_tie_would_flip(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tie test above can fail: deciding by NumPy's value alone flips at least one of these pairs."""
    monkeypatch.setattr(vectors, "_margin", lambda dim: 0.0)
    flipped = 0
    rng = random.Random(9)
    for _ in range(20):
        a, b = _gauss(rng, 1536), _gauss(rng, 1536)
        a = tuple(x + 2.0 * y for x, y in zip(b, a))  # correlated: a cosine far from 0
        for threshold in (cosine(a, b), math.nextafter(cosine(a, b), 2.0)):
            flipped += group_embeddings([a, b], threshold) != reference_groups([a, b], threshold)
    assert flipped > 0


def test_many_vectors_in_several_blocks_match_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "_BLOCK_CELLS", 500)  # 8 rows per block of 60
    rng = random.Random(3)
    centres = [_gauss(rng, 24) for _ in range(12)]
    embeddings = [tuple(c + 0.25 * g for c, g in zip(rng.choice(centres), _gauss(rng, 24))) for _ in range(60)]
    embeddings[7] = embeddings[30]  # a duplicate
    embeddings[12] = (0.0,) * 24  # a zero vector
    embeddings[40] = tuple(1e-120 * x for x in embeddings[41])  # tiny: compared one pair at a time
    embeddings[50] = (1.0, 2.0)  # another length
    for threshold in (-0.2, 0.0, 0.5, 0.8, 0.9, 1.0, cosine(embeddings[1], embeddings[2])):
        expected = reference_groups(embeddings, threshold)
        assert group_embeddings(embeddings, threshold) == expected
    assert any(len(g) > 2 for g in reference_groups(embeddings, 0.8))  # the case has real groups


def test_labels_are_the_smallest_index_of_each_component() -> None:
    assert components([(1.0, 0.0), (0.0, 1.0), (1.0, 0.1), (0.1, 1.0), (1.0,)], 0.9) == [0, 1, 0, 1, 4]


def test_non_finite_values_never_group_as_before() -> None:
    nan, inf = (math.nan, 1.0), (math.inf, 1.0)
    embeddings = [nan, (1.0, 1.0), inf, (1.0, 1.0), nan]
    for threshold in (-1.0, 0.0, 0.9):
        assert group_embeddings(embeddings, threshold) == reference_groups(embeddings, threshold)


# -- computed once per assembly; never kept alive -----------------------------------------------------------------

def _records(n: int, dim: int = 16) -> list[Record]:
    rng = random.Random(4)
    out = []
    for i in range(n):
        base = [0.0] * dim
        base[i // 3 % dim] = 1.0  # threes share a direction: groups of three
        vec = tuple(x + 0.05 * rng.random() for x in base)
        authority = "authoritative" if i % 3 == 0 else "informal"
        out.append(Record(id=f"r{i}", text=f"record {i} about item {i}", authority=authority, embedding=vec))
    return out


def test_an_assembly_groups_once_and_reports_what_the_order_used(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = conflicts.components

    def counting(embeddings: list[tuple[float, ...]], threshold: float) -> list[int]:
        calls.append(len(embeddings))
        return real(embeddings, threshold)

    monkeypatch.setattr(conflicts, "components", counting)
    conflicts._last.__dict__.clear()
    result = assemble(_records(12), "Which item?", as_of=date(2026, 1, 1), budget=Budget(context_window=100_000),
                      layout=Layout(conflict_policy="surface"))  # `withhold` also groups as the budget fills
    assert calls == [12]  # the order strategy computed it; the conflict report reused it
    assert len(result.report.conflicts) == 4


def test_the_cache_answers_in_the_callers_order_and_only_for_the_same_candidates() -> None:
    cands = [Candidate(r, i + 1) for i, r in enumerate(_records(9))]
    seated = [(str(i), c) for i, c in enumerate(cands)]
    fresh = find_conflicts(seated)
    reordered = list(reversed(seated))
    assert find_conflicts(reordered) == _uncached(reordered)  # a cache hit, in the new order
    assert find_conflicts(seated) == fresh
    assert find_conflicts(seated[:5]) == _uncached(seated[:5])  # a different set: recomputed
    assert find_conflicts(seated, embedding_threshold=0.999) == _uncached(seated, 0.999)


def _uncached(seated: list[tuple[str, Candidate]], threshold: float = 0.9) -> tuple[conflicts.Conflict, ...]:
    conflicts._last.__dict__.clear()
    return find_conflicts(seated, embedding_threshold=threshold)


def test_the_cache_keeps_no_candidate_alive() -> None:
    cands = [Candidate(r, i + 1) for i, r in enumerate(_records(6))]
    assert find_conflicts([(str(i), c) for i, c in enumerate(cands)])
    refs = [weakref.ref(c) for c in cands]
    del cands
    gc.collect()
    assert all(ref() is None for ref in refs)


def test_import_stays_without_numpy_until_embeddings_are_grouped() -> None:
    code = ("import sys, evidencepack; from datetime import date; "
            "evidencepack.assemble([{'id': 'a', 'text': 'x'}], 'q', as_of=date(2026, 1, 1)); "
            "print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- dedup: kept embeddings compared in one product, with the verdicts of `cosine` ------------------------------

@settings(max_examples=400, deadline=None)
@given(embedding_sets())
def test_kept_vectors_give_the_verdicts_of_cosine(case: tuple[list[tuple[float, ...]], float]) -> None:
    """400 examples run, on the same draws (the same `assume`, 1-3 % rejected)."""
    embeddings, cutoff = case
    kept = KeptVectors()
    for key, vec in enumerate(embeddings):
        kept.add(key, vec)
    keys = list(range(len(embeddings)))
    for vec in embeddings:
        expected = {k for k in keys
                    if len(embeddings[k]) == len(vec) and reference_cosine(vec, embeddings[k]) >= cutoff}
        assert kept.at_least(vec, keys, cutoff) == expected


class _PairByPair(KeptVectors):
    """The specification: every verdict from `cosine`, one pair at a time."""

    def __init__(self) -> None:
        super().__init__()
        self.held: dict[int, tuple[float, ...]] = {}

    def add(self, key: int, vector: tuple[float, ...]) -> None:
        self.held[key] = vector

    def at_least(self, vector: tuple[float, ...], keys: Sequence[int], cutoff: float) -> set[int]:
        return {k for k in keys if k in self.held and len(self.held[k]) == len(vector)
                and reference_cosine(vector, self.held[k]) >= cutoff}


@pytest.mark.parametrize("limit", [4, 64])
def test_dedup_by_embedding_drops_what_pairwise_cosine_drops(monkeypatch: pytest.MonkeyPatch, limit: int) -> None:
    rng = random.Random(8)
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta"]
    centres = [_gauss(rng, 32) for _ in range(15)]
    cands = []
    for i in range(150):
        vec = tuple(c + 0.2 * g for c, g in zip(centres[i % 15], _gauss(rng, 32)))
        text = " ".join(rng.choice(words) for _ in range(12))
        cands.append(Candidate(Record(id=f"r{i}", text=text, embedding=vec), i + 1))
    ties = [cosine(cands[0].record.embedding, cands[15].record.embedding)]  # type: ignore[arg-type]
    for cutoff in (0.9, 0.95, *ties):
        fast = [(d.id, getattr(d, "duplicate_of", None)) for d in dedup(cands, embedding_cutoff=cutoff,
                                                                      exact_scan_limit=limit)]
        with monkeypatch.context() as patched:
            patched.setattr(dedup_pass, "KeptVectors", _PairByPair)
            slow = [(d.id, getattr(d, "duplicate_of", None)) for d in dedup(cands, embedding_cutoff=cutoff,
                                                                          exact_scan_limit=limit)]
        assert fast == slow
        assert any(dup for _, dup in fast)  # the case drops records


def test_dedup_still_refuses_embeddings_of_different_lengths() -> None:
    cands = [Candidate(Record(id="a", text="one text", embedding=(1.0, 0.0)), 1),
             Candidate(Record(id="b", text="another", embedding=(1.0, 0.0, 0.0)), 2)]
    with pytest.raises(ValueError, match="different lengths"):
        list(dedup(cands))
