"""Dedup: collapse exact and near-duplicate records onto the higher-ranked copy, before ordering.

Runs lazily (a generator in rank order) so the budget pass can stop pulling once the window is full: the
cost follows what is selected, not how many candidates arrived.

Near-duplicates are found by exact Jaccard similarity of character 5-gram shingles over normalised text
(NFKC, case-folded, punctuation and whitespace collapsed). Two guards keep policy versions apart: texts that
differ in a number or in a negation word are never merged, because in a policy corpus that is exactly how
the 2024 rule differs from the 2025 rule, and merging them would erase the conflict the model must see.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Iterator
from functools import lru_cache

from ._vectors import cosine
from .candidates import Candidate, Dropped

#: Chosen by `tests/test_dedup.py::test_default_threshold_separates_labelled_pairs`: every labelled
#: duplicate pair there scores >= 0.91 and every distinct pair <= 0.65.
DEFAULT_THRESHOLD = 0.85
EMBEDDING_CUTOFF = 0.95
SHINGLE_SIZE = 5

_NON_WORD = re.compile(r"[\W_]+")
_SPACE = re.compile(r"\s+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NEGATIONS = frozenset(("no", "not", "never", "none", "nor", "cannot", "without", "neither", "nobody",
                        "nothing", "n't", "dont", "doesnt", "isnt", "arent", "wont", "cant", "shouldnt"))


def normalise(text: str) -> str:
    """Whitespace- and case-insensitive form used for exact-duplicate hashing."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


@lru_cache(maxsize=65_536)
def _fingerprint(text: str) -> tuple[bytes, frozenset[str], tuple[str, ...], frozenset[str]]:
    """(exact hash, shingles, numbers, negation words) for one text; cached since chunks recur."""
    norm = normalise(text)
    exact = hashlib.blake2b(norm.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    words = _NON_WORD.sub(" ", norm.replace("n't", "nt")).strip()
    if len(words) <= SHINGLE_SIZE:
        grams = frozenset((words,))
    else:
        grams = frozenset(map("".join, zip(*(words[i:] for i in range(SHINGLE_SIZE)))))  # C-speed 5-grams
    numbers = tuple(sorted(_NUMBER.findall(norm)))
    negations = frozenset(w for w in words.split() if w in _NEGATIONS)
    return exact, grams, numbers, negations


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two texts' shingle sets (1.0 for texts equal after normalisation)."""
    fa, fb = _fingerprint(a), _fingerprint(b)
    if fa[0] == fb[0]:
        return 1.0
    return _jaccard(fa[1], fb[1])


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def dedup(
    candidates: Iterable[Candidate | Dropped],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    embedding_cutoff: float | None = EMBEDDING_CUTOFF,
) -> Iterator[Candidate | Dropped]:
    """Yield each candidate in rank order, or a `duplicate` drop pointing at the kept copy.

    Candidates must arrive best-first; the first copy seen is the one kept. `threshold` above 1 turns
    near-duplicate detection off (exact duplicates are still collapsed).
    """
    if not threshold > 0.0:
        raise ValueError(f"dedup threshold must be > 0, got {threshold}")
    exact_seen: dict[bytes, str] = {}
    kept: list[tuple[Candidate, tuple[bytes, frozenset[str], tuple[str, ...], frozenset[str]]]] = []
    for cand in candidates:
        if isinstance(cand, Dropped):  # a drop from an earlier pass travels on in rank order
            yield cand
            continue
        fp = _fingerprint(cand.record.text)
        original = exact_seen.get(fp[0]) or _near_duplicate_of(cand, fp, kept, threshold, embedding_cutoff)
        if original is not None:
            yield Dropped.of(cand, "duplicate", duplicate_of=original)
            continue
        exact_seen[fp[0]] = cand.id
        kept.append((cand, fp))
        yield cand


def _near_duplicate_of(cand, fp, kept, threshold: float, embedding_cutoff: float | None) -> str | None:
    size = len(fp[1])
    for other, ofp in kept:
        if fp[2] != ofp[2] or fp[3] != ofp[3]:
            continue  # a different number or negation: a different rule, however similar the wording
        if (embedding_cutoff is not None and cand.record.embedding is not None
                and other.record.embedding is not None
                and cosine(cand.record.embedding, other.record.embedding) >= embedding_cutoff):
            return other.id
        if threshold > 1.0:
            continue
        other_size = len(ofp[1])
        if min(size, other_size) < threshold * max(size, other_size):
            continue  # Jaccard cannot reach the threshold with sets this different in size
        if _jaccard(fp[1], ofp[1]) >= threshold:
            return other.id
    return None
