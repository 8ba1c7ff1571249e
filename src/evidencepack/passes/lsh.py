"""Banded MinHash (locality-sensitive hashing) over shingle sets: which kept records a new one may be a near
duplicate of, without comparing it with every one of them.

**Signature.** Each shingle is hashed once (CRC-32 of its UTF-8 bytes: deterministic across processes and
platforms, computed in C). The 32-bit hash space is cut into `FINE_BINS` equal bins and a set's signature
holds, per bin, the smallest hash of its shingles that falls there, or EMPTY ("one permutation hashing").
Two sets agree on a bin when it is empty for both or when the smallest hash of their union in that bin
belongs to both; over random hashes that happens with probability at least their Jaccard similarity s.

**Bands and the S-curve.** The bins are grouped into `bands` bands of `rows` bins; two sets become
candidates when they agree on every bin of at least one band. Treating bins as independent, a pair of
similarity s becomes a candidate with probability

    P(s) = 1 - (1 - s ** rows) ** bands

which is small for dissimilar pairs and close to 1 above the threshold. For a threshold t we take the most
rows (the fewest false candidates) for which P(t) >= TARGET_RECALL fits the bins, then as many bands as
fit. At the default t = 0.85 and 256 bins that is 28 bands of 9 rows: P(0.85) = 0.99935, P(0.90) =
0.9999987, while a pair at s = 0.5 becomes a candidate with probability 0.053 and one at s = 0.3 with
0.0006.

**Resolution follows size.** A set of n shingles fills at most n bins, and a band of mostly empty bins
matches far too easily, so short texts use coarser bins: level l merges 2**l neighbouring fine bins (the
minimum of the minima, so every level comes from the one fine signature) and has its own shape, with
fewer rows. At t = 0.85: 256 bins 28x9, 128 bins 18x7, 64 bins 12x5, 32 bins 10x3, 16 bins 8x2, 8 bins
8x1; each reaches P(0.85) >= 0.999. A set is indexed at the level with at most n / 2 bins; since two sets
with Jaccard >= t differ in size by less than a factor of 2, a query looks at its own level and the two
next to it. Bands whose bins are all empty are not indexed.

Every candidate is then confirmed with the exact Jaccard similarity, so LSH can only miss a duplicate (at
most 0.1 % of the pairs right at the threshold, far fewer above it), never invent one. Tests measure the
recall on planted pairs and compare the whole dedup pass with the exact scan.
"""

from __future__ import annotations

import math
import zlib
from bisect import bisect_left
from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache

FINE_BINS = 256
LEVELS = 6  # 256, 128, 64, 32, 16 and 8 bins
TARGET_RECALL = 0.999
EMPTY = 1 << 32  # above every CRC-32, so the minimum of merged bins is a plain `min`

#: One key per band: the band's bin minima, or None for a band whose bins are all empty (not indexed).
BandKeys = tuple[tuple[int, ...] | None, ...]


@dataclass(frozen=True)
class Shape:
    """`bands` bands of `rows` bins each."""

    bands: int
    rows: int

    def recall(self, similarity: float) -> float:
        """Chance that a pair of this Jaccard similarity shares a band (the S-curve)."""
        return 1.0 - (1.0 - similarity ** self.rows) ** self.bands


def shape_for(threshold: float, bins: int = FINE_BINS) -> Shape | None:
    """The shape with the most rows that reaches TARGET_RECALL at `threshold` within `bins` bins (then as
    many bands as fit), or None when none does (low thresholds with few bins)."""
    return _shape_for(float(threshold), bins)


@lru_cache(maxsize=256)
def _shape_for(threshold: float, bins: int) -> Shape | None:
    if not 0.0 < threshold <= 1.0:
        return None
    best: Shape | None = None
    for rows in range(1, bins + 1):
        p = threshold ** rows
        if p >= 1.0:
            bands = 1
        elif p * bins < 1.0 - TARGET_RECALL:
            break  # even `bins` bands of this many rows could not reach the recall
        else:
            bands = math.ceil(math.log(1.0 - TARGET_RECALL) / math.log1p(-p))
        if bands * rows <= bins:
            best = Shape(bins // rows, rows)  # every bin in some band: more bands only raise the recall
    return best


#: The lowest threshold every level has a shape for (8 bins of 1 row reach 0.999 from about 0.578); below
#: it, dedup keeps the exact scan.
MIN_LSH_THRESHOLD = 0.58


def level_for(size: int) -> int:
    """The level a set of `size` shingles is indexed at: the finest with at most size / 2 bins."""
    level = 0
    while level < LEVELS - 1 and (FINE_BINS >> level) * 2 > size:
        level += 1
    return level


_STARTS = tuple(j << 24 for j in range(FINE_BINS + 1))  # 256 equal bins of the 32-bit space


def fine_minima(shingles: Collection[str]) -> list[int]:
    """The smallest shingle hash in each of the FINE_BINS bins (EMPTY where there is none)."""
    try:
        hashes = sorted(map(zlib.crc32, map(str.encode, shingles)))
    except UnicodeEncodeError:  # a lone surrogate: hash its bytes all the same
        hashes = sorted(zlib.crc32(s.encode("utf-8", "surrogatepass")) for s in shingles)
    hashes.append(EMPTY)
    minima: list[int] = []
    i = 0
    for j in range(FINE_BINS):
        i = bisect_left(hashes, _STARTS[j], i)
        minima.append(hashes[i] if hashes[i] < _STARTS[j + 1] else EMPTY)
    return minima


def level_minima(fine: list[int], level: int) -> list[int]:
    """The minima at `level`: 2**level neighbouring fine bins merged."""
    minima = fine
    for _ in range(level):
        minima = list(map(min, minima[0::2], minima[1::2]))
    return minima


def band_keys(minima: list[int], shape: Shape) -> BandKeys:
    rows = shape.rows
    keys = (tuple(minima[b * rows:(b + 1) * rows]) for b in range(shape.bands))
    return tuple(None if min(key) == EMPTY else key for key in keys)


class Index:
    """Band tables per level: (level, band, salt, key) -> items added with that key, in the order added."""

    def __init__(self, threshold: float) -> None:
        self.shapes = tuple(shape_for(threshold, FINE_BINS >> level) for level in range(LEVELS))
        self._tables: dict[tuple[int, int, object, tuple[int, ...]], list[int]] = {}

    def _keys(self, fine: list[int], level: int) -> BandKeys:
        shape = self.shapes[level]
        return () if shape is None else band_keys(level_minima(fine, level), shape)

    def add(self, item: int, fine: list[int], size: int, salt: object = None) -> None:
        """Index `item` (a set of `size` shingles with fine signature `fine`) at its level; `salt` (e.g. a
        group id) keeps groups that must never match apart."""
        level = level_for(size)
        for band, key in enumerate(self._keys(fine, level)):
            if key is not None:
                self._tables.setdefault((level, band, salt, key), []).append(item)

    def candidates(self, fine: list[int], size: int, salt: object = None) -> set[int]:
        """Items that share a band with this set at its level or the two next to it."""
        found: set[int] = set()
        own = level_for(size)
        for level in range(max(own - 1, 0), min(own + 2, LEVELS)):
            for band, key in enumerate(self._keys(fine, level)):
                if key is not None:
                    found.update(self._tables.get((level, band, salt, key), ()))
        return found
