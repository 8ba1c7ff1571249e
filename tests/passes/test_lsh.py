"""Near-duplicate search with banded MinHash: the same result as comparing with every kept record, without
the quadratic cost (issue 14.6). Speed is measured in benchmarks/bench_dedup.py, not here."""

from __future__ import annotations

import random
import string
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencepack import Record
from evidencepack.passes import lsh as _lsh
from evidencepack.passes.dedup import DEFAULT_THRESHOLD, EMBEDDING_WINDOW, _fingerprint, _jaccard, dedup
from evidencepack.records.candidates import Candidate, Dropped

EXACT = 10**9  # an exact_scan_limit no corpus reaches: compare with every kept record, as before LSH


def outcome(cands: list[Candidate], **kw: object) -> list[tuple[str, str | None]]:
    return [(o.id, o.duplicate_of if isinstance(o, Dropped) else None) for o in dedup(cands, **kw)]


def words(rng: random.Random, vocab: list[str], n: int) -> str:
    return " ".join(rng.choice(vocab) for _ in range(n))


def edit(rng: random.Random, vocab: list[str], text: str, edits: int) -> str:
    """A near copy: a few words replaced, dropped or inserted, sometimes a case or punctuation change."""
    w = text.split()
    for _ in range(edits):
        i = rng.randrange(len(w))
        op = rng.random()
        if op < 0.4:
            w[i] = rng.choice(vocab)
        elif op < 0.7 and len(w) > 1:
            del w[i]
        else:
            w.insert(i, rng.choice(vocab))
    out = " ".join(w)
    return out.upper() if rng.random() < 0.1 else out.replace(" ", ", ", 1) if rng.random() < 0.2 else out


def corpus(seed: int, n: int, *, embeddings: bool = False) -> list[Candidate]:
    """Random records with planted exact copies, near copies (a few edits: mostly above the threshold, some
    below), copies that differ in a number or a negation, and optionally embeddings with planted twins."""
    rng = random.Random(seed)
    vocab = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 8))) for _ in range(400)]
    texts: list[str] = []
    vectors: list[tuple[float, ...] | None] = []
    for _ in range(n):
        kind = rng.random()
        if texts and kind < 0.15:
            t = rng.choice(texts)
        elif texts and kind < 0.45:
            base = rng.choice(texts)
            t = edit(rng, vocab, base, rng.randint(1, max(1, len(base.split()) // 12)))
        elif texts and kind < 0.5:
            t = rng.choice(texts) + rng.choice([" in 2025", " not", " 40 days"])
        else:
            t = words(rng, vocab, rng.choice([1, 3, 8, 20, 60, 150]))
        texts.append(t)
        if embeddings and rng.random() < 0.5:
            twin = vectors[rng.randrange(len(vectors))] if vectors and rng.random() < 0.2 else None
            vectors.append(twin if twin is not None else tuple(rng.uniform(-1, 1) for _ in range(8)))
        else:
            vectors.append(None)
    return [Candidate(Record(id=f"r{i}", text=t, embedding=v), i + 1)
            for i, (t, v) in enumerate(zip(texts, vectors))]


@settings(derandomize=True, max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 200), st.booleans())
def test_property_lsh_dedup_equals_exact_dedup(seed: int, n: int, embeddings: bool) -> None:
    """Deterministic examples (derandomized), so a rare LSH miss could not make this test flaky: it would
    fail every run. With fewer than 2 x EMBEDDING_WINDOW kept records the embedding windows cover all."""
    cands = corpus(seed, n, embeddings=embeddings)
    exact = outcome(cands, exact_scan_limit=EXACT)
    assert outcome(cands, exact_scan_limit=0) == exact
    assert outcome(cands) == exact
    assert outcome(cands, threshold=0.9, exact_scan_limit=0) == outcome(cands, threshold=0.9, exact_scan_limit=EXACT)


def test_planted_near_duplicates_are_found_at_scale() -> None:
    """1,500 records, a third of them near copies: LSH drops exactly what the exact scan drops."""
    cands = corpus(7, 1_500)
    exact = outcome(cands, exact_scan_limit=EXACT)
    assert sum(d is not None for _, d in exact) > 300
    assert outcome(cands) == exact


def test_the_labelled_pairs_also_through_lsh() -> None:
    from dedup_pairs import DISTINCT, DUPLICATES

    merged = 0
    for a, b in DUPLICATES + DISTINCT:
        pair = [Candidate(Record(id="a", text=a), 1), Candidate(Record(id="b", text=b), 2)]
        assert outcome(pair, exact_scan_limit=0) == outcome(pair, exact_scan_limit=EXACT)
        merged += outcome(pair, exact_scan_limit=0)[1][1] == "a"
    assert merged == len(DUPLICATES) - 1  # the copy with an added "section 5.2" differs in a number


def _pair(rng: random.Random, size: int, similarity: float) -> tuple[frozenset[str], frozenset[str]]:
    """Two shingle sets of about `size` elements whose Jaccard similarity is about `similarity`."""
    shared = [f"{rng.getrandbits(40):010x}"[:5] + str(i) for i in range(size)]
    union = round(size / similarity * (1 + similarity) / 2)  # |A| = |B| = size, |A u B| = union
    extra = max(union - size, 0)
    a = set(shared)
    b = set(shared[extra:]) | {f"b{rng.getrandbits(40):010x}" for _ in range(extra)}
    return frozenset(a), frozenset(b)


def test_recall_on_planted_pairs_meets_the_s_curve() -> None:
    """Measured on 1,000 pairs with Jaccard in [0.85, 0.90), sets of 13 to 1,200 shingles (every level):
    at most 0.1 % missed (the documented recall). Pairs far below the threshold rarely become candidates."""
    rng = random.Random(11)
    missed = near = far = far_hits = 0
    while near < 1_000:
        size = rng.choice([13, 40, 120, 400, 1200])
        a, b = _pair(rng, size, rng.uniform(0.85, 0.9))
        if not 0.85 <= _jaccard(a, b) < 0.90:
            continue
        index = _lsh.Index(DEFAULT_THRESHOLD)
        index.add(0, _lsh.fine_minima(a), len(a))
        near += 1
        missed += 0 not in index.candidates(_lsh.fine_minima(b), len(b))
    for _ in range(100):
        a, b = _pair(rng, 1000, rng.uniform(0.05, 0.3))
        index = _lsh.Index(DEFAULT_THRESHOLD)
        index.add(0, _lsh.fine_minima(a), len(a))
        far, far_hits = far + 1, far_hits + (0 in index.candidates(_lsh.fine_minima(b), len(b)))
    assert missed <= 1, (missed, near)
    assert far_hits / far < 0.02, (far_hits, far)


def test_shapes_follow_the_documented_s_curve() -> None:
    shapes = [_lsh.shape_for(DEFAULT_THRESHOLD, _lsh.FINE_BINS >> level) for level in range(_lsh.LEVELS)]
    assert shapes[0] == _lsh.Shape(bands=28, rows=9)
    assert [(s.bands, s.rows) for s in shapes if s] == [(28, 9), (18, 7), (12, 5), (10, 3), (8, 2), (8, 1)]
    for shape, bins in zip(shapes, (256, 128, 64, 32, 16, 8)):
        assert shape is not None and shape.bands * shape.rows <= bins
        assert shape.recall(DEFAULT_THRESHOLD) >= _lsh.TARGET_RECALL
    assert shapes[0].recall(0.5) < 0.06 and shapes[0].recall(0.3) < 0.001
    assert all(_lsh.shape_for(_lsh.MIN_LSH_THRESHOLD, 256 >> level) for level in range(_lsh.LEVELS))
    assert _lsh.shape_for(_lsh.MIN_LSH_THRESHOLD - 0.01, 8) is None


def test_low_thresholds_keep_the_exact_scan() -> None:
    cands = corpus(3, 120)
    assert outcome(cands, threshold=0.4, exact_scan_limit=0) == outcome(cands, threshold=0.4, exact_scan_limit=EXACT)


def test_signatures_are_crc32_minima_and_survive_lone_surrogates() -> None:
    crc = zlib.crc32(b"abcde")
    minima = _lsh.fine_minima(frozenset({"abcde"}))
    assert [(i, v) for i, v in enumerate(minima) if v != _lsh.EMPTY] == [(crc >> 24, crc)]
    grams = _fingerprint("Unused PTO \udc80 does not carry over into the next year.")[1]
    assert _lsh.fine_minima(grams) == _lsh.fine_minima(sorted(grams, reverse=True))


def _embedded(i: int, text: str, vector: tuple[float, ...]) -> Candidate:
    return Candidate(Record(id=f"e{i}", text=text, embedding=vector), i + 1)


@pytest.mark.parametrize("position, found", [(0, True), (EMBEDDING_WINDOW - 1, True), (EMBEDDING_WINDOW, False),
                                             (3 * EMBEDDING_WINDOW - 1, True)])
def test_embedding_duplicates_are_searched_in_bounded_windows(position: int, found: bool) -> None:
    """Once LSH is on, an embedding-only duplicate is found among the first and the latest EMBEDDING_WINDOW
    kept records with embeddings (the documented bound), not elsewhere; the exact scan finds it anywhere."""
    rng = random.Random(5)
    vocab = ["".join(rng.choice(string.ascii_lowercase) for _ in range(7)) for _ in range(5000)]
    size = 3 * EMBEDDING_WINDOW
    kept = [_embedded(i, words(rng, vocab, 12), tuple(rng.gauss(0, 1) for _ in range(16))) for i in range(size)]
    assert all(d is None for _, d in outcome(kept, exact_scan_limit=EXACT))
    twin = _embedded(size, "entirely different wording here", kept[position].record.embedding or ())
    assert outcome([*kept, twin], exact_scan_limit=0)[-1] == (twin.id, kept[position].id if found else None)
    assert outcome([*kept, twin], exact_scan_limit=EXACT)[-1] == (twin.id, kept[position].id)
