"""Dedup: collapse exact and near-duplicate records onto the higher-ranked copy, before ordering.

Runs lazily (a generator in rank order) so the budget pass can stop pulling once the window is full: the
cost follows what is selected, not how many candidates arrived.

Near-duplicates are found by exact Jaccard similarity of character 5-gram shingles over normalised text
(NFKC, case-folded, punctuation and whitespace collapsed). Two guards keep policy versions apart: texts that
differ in a number or in a negation word are never merged, because in a policy corpus that is exactly how
the 2024 rule differs from the 2025 rule, and merging them would erase the conflict the model must see.

Which kept records a new one is compared with: only those with the same numbers and negation words (no
other can match); all of them while there are at most `exact_scan_limit` (the common case: a few dozen
seats); beyond that, only those that banded MinHash puts in a bucket with it (`_lsh.py` documents the
S-curve: at the default threshold a pair right at 0.85 is found with probability >= 0.999, pairs above it
almost surely). So `fill_gaps` over thousands of candidates costs about linear time instead of quadratic.
Every candidate is confirmed exactly (guards, size ratio, Jaccard): LSH can miss a duplicate, never invent
one. Thresholds below `_lsh.MIN_LSH_THRESHOLD` keep the exact scan. Embedding cosine, once LSH is on, is
checked against the LSH candidates plus the first and the latest `EMBEDDING_WINDOW` kept records that carry
an embedding (duplicates from overlapping chunks arrive close in rank): an embedding-only duplicate outside
those windows is not found.
"""

from __future__ import annotations

import hashlib
import re
import sys
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from ..errors import OptionError
from ..optspec import check_number, option, optional_float
from ..records.candidates import Candidate, Dropped
from ..records.vectors import KeptVectors, cosine
from . import lsh as _lsh

#: Chosen by `tests/passes/test_dedup.py::test_default_threshold_separates_labelled_pairs`: every labelled
#: duplicate pair there scores >= 0.91 and every distinct pair <= 0.65.
DEFAULT_THRESHOLD = 0.85
EMBEDDING_CUTOFF = 0.95
SHINGLE_SIZE = 5
#: Up to this many kept records a new one is compared with every one: cheaper than building signatures.
EXACT_SCAN_LIMIT = 64
#: Once LSH is on, embeddings are compared with this many of the first and of the latest kept records.
EMBEDDING_WINDOW = 64



@dataclass(frozen=True)
class Dedup:
    """When two records count as one (the dedup pass's option group)."""

    threshold: float = option(DEFAULT_THRESHOLD, "Jaccard similarity of 5-gram shingles at or above which two "
                              "records are near-duplicates (above 1: exact duplicates only)", key="dedup_threshold",
                              parse=float)
    embedding_cutoff: float | None = option(EMBEDDING_CUTOFF, "cosine of caller-supplied embeddings at or above "
                                            "which two records are duplicates (none: embeddings never merge)",
                                            parse=optional_float)

    def __post_init__(self) -> None:
        check_number("dedup_threshold", self.threshold, low=0.0, low_open=True)
        check_number("embedding_cutoff", self.embedding_cutoff, low=-1.0, high=1.0, optional=True)


Fingerprint = tuple[bytes, frozenset[str], tuple[str, ...], frozenset[str]]
Guards = tuple[tuple[str, ...], frozenset[str]]  # (numbers, negation words): texts must agree on both

_NON_WORD = re.compile(r"[\W_]+")
_SPACE = re.compile(r"\s+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NEGATIONS = frozenset(("no", "not", "never", "none", "nor", "cannot", "without", "neither", "nobody",
                        "nothing", "n't", "dont", "doesnt", "isnt", "arent", "wont", "cant", "shouldnt"))


def normalise(text: str) -> str:
    """Whitespace- and case-insensitive form used for exact-duplicate hashing."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


#: Characters of text whose fingerprints are kept between calls (least recently used first out). A shingle
#: set costs some 90 bytes per character of its text, so this bounds what stays after an assembly at about
#: 25 MB (the 65,536-entry cache it replaces held 800 MB after one 4,000-record assembly) while the chunks of
#: recent requests (a few hundred typical chunks) are still not fingerprinted twice.
FINGERPRINT_CACHE_CHARS = 300_000
_FINGERPRINTS: OrderedDict[str, Fingerprint] = OrderedDict()
_LOCK = threading.Lock()
_cached_chars = 0


def _fingerprint(text: str) -> Fingerprint:
    """(exact hash, shingles, numbers, negation words) for one text, from a cache bounded by the total
    length of the texts it keeps (`FINGERPRINT_CACHE_CHARS`), not by their number."""
    global _cached_chars
    with _LOCK:  # assemblies run in threads (eval, servers): the cache is shared
        found = _FINGERPRINTS.get(text)
        if found is not None:
            _FINGERPRINTS.move_to_end(text)
            return found
    fp = _compute_fingerprint(text)
    if len(text) <= FINGERPRINT_CACHE_CHARS // 8:
        with _LOCK:
            if text not in _FINGERPRINTS:
                _FINGERPRINTS[text] = fp
                _cached_chars += len(text)
            while _cached_chars > FINGERPRINT_CACHE_CHARS:
                _cached_chars -= len(_FINGERPRINTS.popitem(last=False)[0])
    return fp


def clear_fingerprint_cache() -> None:
    """Empty the fingerprint cache (benchmarks measure cold runs)."""
    global _cached_chars
    with _LOCK:
        _FINGERPRINTS.clear()
        _cached_chars = 0


def _compute_fingerprint(text: str) -> Fingerprint:
    norm = normalise(text)
    exact = hashlib.blake2b(norm.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    words = _NON_WORD.sub(" ", norm.replace("n't", "nt")).strip()
    if len(words) <= SHINGLE_SIZE:
        grams = frozenset((words,))
    else:
        # C-speed 5-grams, interned: the same 5-gram recurs across texts, and one shared string per distinct
        # 5-gram (freed with its last set) lowers a many-record assembly's peak by a third
        grams = frozenset(map(sys.intern, map("".join, zip(*(words[i:] for i in range(SHINGLE_SIZE))))))
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
    exact_scan_limit: int = EXACT_SCAN_LIMIT,
) -> Iterator[Candidate | Dropped]:
    """Yield each candidate in rank order, or a `duplicate` drop pointing at the kept copy.

    Candidates must arrive best-first; the first copy seen is the one kept. `threshold` above 1 turns
    near-duplicate detection off (exact duplicates are still collapsed). `exact_scan_limit` is how many kept
    records are compared one by one before LSH takes over (a very large value keeps the exact scan).
    """
    if not threshold > 0.0:
        raise OptionError("dedup threshold must be > 0")
    exact_seen: dict[bytes, str] = {}
    near = _NearDuplicates(threshold, embedding_cutoff, exact_scan_limit)
    for cand in candidates:
        if isinstance(cand, Dropped):  # a drop from an earlier pass travels on in rank order
            yield cand
            continue
        fp = _fingerprint(cand.record.text)
        original = exact_seen.get(fp[0]) or near.original_of(cand, fp)
        if original is not None:
            yield Dropped.of(cand, "duplicate", duplicate_of=original)
            continue
        exact_seen[fp[0]] = cand.id
        near.keep(cand, fp)
        yield cand


class _NearDuplicates:
    """The kept records, and which of them a new one must be compared with.

    Only records with the same numbers and negation words can match (the guards), so kept records are
    grouped by that pair and a new record looks only in its own group: exactly the same result as looking
    everywhere, and a corpus whose records carry distinct numbers costs linear time even without LSH."""

    def __init__(self, threshold: float, embedding_cutoff: float | None, exact_scan_limit: int) -> None:
        self.threshold = threshold
        self.cutoff = embedding_cutoff
        self.limit = exact_scan_limit
        self.text_lsh = _lsh.MIN_LSH_THRESHOLD <= threshold <= 1.0
        self.kept: list[tuple[Candidate, Fingerprint]] = []
        self.groups: dict[Guards, list[int]] = {}
        self.with_embedding: dict[Guards, list[int]] = {}
        self.index: _lsh.Index | None = None
        self.vectors = KeptVectors()  # the kept embeddings, normalised once
        self._signature: tuple[str, list[int]] | None = None  # the last candidate's, reused when it is kept

    def original_of(self, cand: Candidate, fp: Fingerprint) -> str | None:
        embedded = self.cutoff is not None and cand.record.embedding is not None
        if self.threshold > 1.0 and not embedded:
            return None
        guards = fp[2:]
        group = self.groups.get(guards, [])
        if len(group) <= self.limit or (self.threshold <= 1.0 and not self.text_lsh):
            return _first_match(cand, fp, self.kept, group, self.threshold, self.cutoff, self.vectors)
        found: set[int] = set()
        if self.text_lsh:
            found |= self._index().candidates(self._fine(cand, fp), len(fp[1]), salt=guards)
        if embedded:
            window = self.with_embedding.get(guards, [])
            found.update(window[:EMBEDDING_WINDOW])
            found.update(window[-EMBEDDING_WINDOW:])
        return _first_match(cand, fp, self.kept, sorted(found), self.threshold, self.cutoff, self.vectors)

    def keep(self, cand: Candidate, fp: Fingerprint) -> None:
        item = len(self.kept)
        self.kept.append((cand, fp))
        self.groups.setdefault(fp[2:], []).append(item)
        if cand.record.embedding is not None:
            self.with_embedding.setdefault(fp[2:], []).append(item)
            if self.cutoff is not None:
                self.vectors.add(item, cand.record.embedding)
        if self.index is not None:
            self.index.add(item, self._fine(cand, fp), len(fp[1]), salt=fp[2:])

    def _fine(self, cand: Candidate, fp: Fingerprint) -> list[int]:
        if self._signature is None or self._signature[0] != cand.id:
            self._signature = (cand.id, _lsh.fine_minima(fp[1]))
        return self._signature[1]

    def _index(self) -> _lsh.Index:
        if self.index is None:  # built once, when a group first outgrows the exact scan
            self.index = _lsh.Index(self.threshold)
            for item, (_, fp) in enumerate(self.kept):
                self.index.add(item, _lsh.fine_minima(fp[1]), len(fp[1]), salt=fp[2:])
        return self.index


def _first_match(cand: Candidate, fp: Fingerprint, kept: list[tuple[Candidate, Fingerprint]],
                 items: Sequence[int], threshold: float, embedding_cutoff: float | None,
                 vectors: KeptVectors) -> str | None:
    """The first of `items` (kept positions, ascending) that `cand` duplicates: same numbers and negations,
    and embedding cosine >= the cutoff or Jaccard >= the threshold (the test the exact scan always made).
    The cosines with kept embeddings of the same length come from one product (`KeptVectors`, the same
    verdicts); one of another length still reaches `cosine`, which refuses it."""
    size = len(fp[1])
    mine = cand.record.embedding
    close = vectors.at_least(mine, items, embedding_cutoff) if mine is not None and embedding_cutoff is not None \
        else set()
    for item in items:
        other, ofp = kept[item]
        if fp[2] != ofp[2] or fp[3] != ofp[3]:
            continue  # a different number or negation: a different rule, however similar the wording
        theirs = other.record.embedding
        if embedding_cutoff is not None and mine is not None and theirs is not None and (
                item in close if len(theirs) == len(mine) else cosine(mine, theirs) >= embedding_cutoff):
            return other.id
        if threshold > 1.0:
            continue
        other_size = len(ofp[1])
        if min(size, other_size) < threshold * max(size, other_size):
            continue  # Jaccard cannot reach the threshold with sets this different in size
        if _jaccard(fp[1], ofp[1]) >= threshold:
            return other.id
    return None
