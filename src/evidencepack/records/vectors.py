"""Vector helpers shared by the passes that compare caller-supplied embeddings.

`cosine` is the one definition of similarity: dedup, citation attribution and the conflict grouping all
decide with it. `components` finds the single-link groups of many vectors at once (every pair at cosine >=
a threshold is linked) with NumPy, and returns exactly what comparing every pair with `cosine` would: a pair
whose NumPy similarity lies within a proven error bound of the threshold is decided by `cosine` itself
(see `_margin`), and vectors NumPy cannot normalise safely (tiny, huge or non-finite values) are compared
with `cosine` one pair at a time. NumPy is imported on the first call only, so `import evidencepack` does
not pay for it and a prompt without embeddings never loads it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import chain
from operator import mul
from typing import TYPE_CHECKING

from ..errors import RecordError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import numpy.typing as npt

#: Rows whose largest absolute value lies in this range are normalised by NumPy: no square, product or norm
#: can overflow, and underflowed products are negligible beside the norms (< 1e-100 relative).
_SAFE_LOW, _SAFE_HIGH = 1e-100, 1e100
#: Similarities computed per block (8 bytes each): bounds the memory of the matrix product.
_BLOCK_CELLS = 1 << 21


def cosine(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """Cosine similarity; embeddings of different lengths are a caller error."""
    if len(a) != len(b):
        raise RecordError(f"embeddings of different lengths ({len(a)} and {len(b)}) cannot be compared",
                          field="embedding")
    # map(mul) yields the same products in the same order as a generator of x * y: the same sum, faster.
    dot = sum(map(mul, a, b))
    norm = math.sqrt(sum(map(mul, a, a))) * math.sqrt(sum(map(mul, b, b)))
    return dot / norm if norm else 0.0


def components(vectors: Sequence[tuple[float, ...]], threshold: float) -> list[int]:
    """Single-link components of the graph linking every pair with `cosine(a, b) >= threshold`; vectors of
    different lengths are never linked. Returns, per vector, its component's label: the smallest index in
    the component (so a vector linked to nothing is labelled with its own index)."""
    labels = list(range(len(vectors)))
    by_length: dict[int, list[int]] = {}
    for i, vec in enumerate(vectors):
        by_length.setdefault(len(vec), []).append(i)
    for members in by_length.values():
        if len(members) > 1:
            local = _components_same_length([vectors[i] for i in members], threshold)
            for i, label in zip(members, local):
                labels[i] = members[label]  # members ascend: the smallest local index is the smallest index
    return labels


def _margin(dim: int) -> float:
    """How far a NumPy cosine of `dim`-long vectors can lie from `cosine`'s. Both are within (2*dim + 5)
    units of 2**-52 of the exact value, whatever the summation order (the dot products' error is bounded by
    dim * u * sum|x_i * y_i| <= dim * u * |x| * |y|, u = 2**-53; norms, normalisation and division add a few
    u): 4x that bound, for slack."""
    return (8 * dim + 64) * 2.0 ** -52


def _components_same_length(vectors: list[tuple[float, ...]], threshold: float) -> list[int]:
    """`components` for vectors of one length (at least two of them)."""
    import numpy as np

    n, dim = len(vectors), len(vectors[0])
    labels = np.arange(n)
    unit = _unit_rows(vectors, dim)
    if unit is None:  # an integer beyond float range: `cosine` decides (and raises) as it always did
        _link_one_by_one(vectors, threshold, labels, np.ones(n, dtype=bool))
        return [int(label) for label in labels]
    y, unsafe = unit
    margin = _margin(dim)
    rows = max(1, _BLOCK_CELLS // n)
    for start in range(0, n, rows):
        # Pairs (i, j) with j >= start: the upper triangle. One block is `y @ y.T`, which NumPy computes as a
        # symmetric product (half the work).
        sims = y @ y.T if rows >= n else y[start : start + rows] @ y[start:].T
        k, c = np.nonzero(np.triu(sims >= threshold - margin, 1))
        sims, i, j = sims[k, c], k + start, c + start
        keep = ~unsafe[i] & ~unsafe[j]  # pairs with an unsafe vector are compared one by one below
        sims, i, j = sims[keep], i[keep], j[keep]
        near = np.flatnonzero(sims <= threshold + margin)
        if near.size:  # too close to call: `cosine` decides
            linked = np.ones(i.size, dtype=bool)
            linked[near] = [cosine(vectors[a], vectors[b]) >= threshold
                            for a, b in zip(i[near].tolist(), j[near].tolist())]
            i, j = i[linked], j[linked]
        _union(labels, i, j)
    if unsafe.any():
        _link_one_by_one(vectors, threshold, labels, unsafe)
    return [int(label) for label in labels]


def _link_one_by_one(vectors: list[tuple[float, ...]], threshold: float, labels: npt.NDArray[np.intp],
                     rows: npt.NDArray[np.bool_]) -> None:
    """Link each vector of `rows` with every other where `cosine` says so, one pair at a time."""
    import numpy as np

    pairs = [(a, b) for a in np.flatnonzero(rows).tolist() for b in range(len(vectors))
             if b != a and (b > a or not rows[b]) and cosine(vectors[a], vectors[b]) >= threshold]
    if pairs:
        ends = np.array(pairs, dtype=np.intp)
        _union(labels, ends[:, 0], ends[:, 1])


def _union(labels: npt.NDArray[np.intp], i: npt.NDArray[np.intp], j: npt.NDArray[np.intp]) -> None:
    """Join the components at both ends of every edge (i[e], j[e]). `labels` maps each vector to its
    component's smallest index, before and after: each round hooks every root that an edge joins to a
    smaller root under the smallest such root, then follows the pointers until each points at a root. Every
    round removes a root per component still split, usually half of them, and everything stays in NumPy."""
    import numpy as np

    while i.size:
        low, high = labels[i], labels[j]
        split = low != high
        if not split.any():
            return
        low, high, i, j = low[split], high[split], i[split], j[split]
        np.minimum.at(labels, np.maximum(low, high), np.minimum(low, high))
        while True:
            jumped = labels[labels]
            if np.array_equal(jumped, labels):
                break
            labels[:] = jumped



def _unit_rows(vectors: Sequence[tuple[float, ...]], dim: int
               ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]] | None:
    """The vectors as unit rows, and which are unsafe (left to `cosine`: their rows are zero); zero vectors
    stay zero rows, whose cosine with anything is 0.0 as `cosine` says. None: a value beyond float range."""
    import numpy as np

    try:
        x = np.fromiter(chain.from_iterable(vectors), dtype=np.float64, count=len(vectors) * dim)
    except OverflowError:
        return None
    x = x.reshape(len(vectors), dim)
    biggest = np.max(np.abs(x), axis=1, initial=0.0)
    unsafe = ~((biggest >= _SAFE_LOW) & (biggest <= _SAFE_HIGH)) & (biggest != 0.0)  # NaN is unsafe too
    x[unsafe] = 0.0
    norms = np.sqrt(np.einsum("ij,ij->i", x, x))
    norms[norms == 0.0] = 1.0
    return x / norms[:, None], unsafe


class KeptVectors:
    """Embeddings kept so far, so that a new embedding is compared with many of them in one product (dedup
    compares a record with up to 128 kept ones). Each is normalised once, when first compared (a record that
    is never compared costs nothing). A verdict is exactly `cosine(new, kept) >= cutoff`, decided as
    `components` decides it; embeddings of other lengths are left to the caller."""

    def __init__(self) -> None:
        self._where: dict[int, tuple[int, int]] = {}  # the caller's key -> (length, row in that shelf)
        self._shelves: dict[int, _Shelf] = {}  # by length
        # the last embedding compared, with its unit row and whether it is unsafe: kept when it is added next, as a
        # growing selection does (compare, then keep), it is not converted a second time
        self._compared: tuple[tuple[float, ...], npt.NDArray[np.float64], bool] | None = None

    def add(self, key: int, vector: tuple[float, ...]) -> None:
        shelf = self._shelves.get(len(vector))
        if shelf is None:
            shelf = self._shelves[len(vector)] = _Shelf()
        self._where[key] = (len(vector), len(shelf.keys))
        shelf.keys.append(key)
        shelf.vectors.append(vector)
        if self._compared is not None and self._compared[0] is vector:
            shelf.place(len(shelf.keys) - 1, self._compared[1], self._compared[2])

    def at_least(self, vector: tuple[float, ...], keys: Sequence[int], cutoff: float) -> set[int]:
        """The keys among `keys` whose embedding has `vector`'s length and `cosine(vector, it) >= cutoff`."""
        import numpy as np

        shelf = self._shelves.get(len(vector))
        if shelf is None:
            return set()
        dim = len(vector)
        rows = np.array([w[1] for w in map(self._where.get, keys) if w is not None and w[0] == dim], dtype=np.intp)
        if not rows.size:
            return set()
        return _matches(shelf, rows, vector, cutoff, every=False)[0]

    def at_least_all(self, vector: tuple[float, ...], cutoff: float) -> set[int]:
        """`at_least` against every kept embedding of `vector`'s length, compared in place (no copy of the rows):
        the conflict grouping of a growing selection compares each new record with all the earlier ones."""
        import numpy as np

        shelf = self._shelves.get(len(vector))
        if shelf is None:
            return set()
        found, own, own_unsafe = _matches(shelf, np.arange(len(shelf.keys), dtype=np.intp), vector, cutoff,
                                          every=True)
        self._compared = (vector, own, own_unsafe)
        return found


def _matches(shelf: _Shelf, rows: npt.NDArray[np.intp], vector: tuple[float, ...], cutoff: float, *,
             every: bool) -> tuple[set[int], npt.NDArray[np.float64], bool]:
    """The keys of `rows` (every row of the shelf, in order, when `every`) at `cosine >= cutoff` with `vector`;
    and `vector` as a unit row and whether it is unsafe (its row is zero then), as `_Shelf.ready` would make them."""
    import numpy as np

    dim = len(vector)
    computed = _unit_rows([vector], dim)
    own_unsafe = computed is None or bool(computed[1][0])
    own = computed[0][0] if computed is not None else np.zeros(dim)
    if not rows.size:
        return set(), own, own_unsafe
    unit, unsafe = shelf.ready(rows, dim)
    kept, kept_unsafe = (unit[: rows.size], unsafe[: rows.size]) if every else (unit[rows], unsafe[rows])
    sims = kept @ own
    margin = _margin(dim)
    check = (np.abs(sims - cutoff) <= margin) | kept_unsafe | own_unsafe  # `cosine` decides these
    sure = (sims >= cutoff + margin) & ~check
    found = {shelf.keys[r] for r in rows[sure].tolist()}
    found.update(shelf.keys[r] for r in rows[check].tolist() if cosine(vector, shelf.vectors[r]) >= cutoff)
    return found, own, own_unsafe


class _Shelf:
    """The kept embeddings of one length, and the unit rows of those compared so far."""

    def __init__(self) -> None:
        self.keys: list[int] = []
        self.vectors: list[tuple[float, ...]] = []
        self.unit: npt.NDArray[np.float64] | None = None  # grows by doubling
        self.unsafe: npt.NDArray[np.bool_] | None = None
        self.done: npt.NDArray[np.bool_] | None = None

    def _room(self, dim: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
        """The unit rows, their unsafe flags and which are computed, with room for every kept embedding."""
        import numpy as np

        if self.unit is None or self.unsafe is None or self.done is None or self.unit.shape[0] < len(self.keys):
            size = max(8, 2 * len(self.keys))
            unit, unsafe, done = np.zeros((size, dim)), np.zeros(size, dtype=bool), np.zeros(size, dtype=bool)
            if self.unit is not None and self.unsafe is not None and self.done is not None:
                old = self.unit.shape[0]
                unit[:old], unsafe[:old], done[:old] = self.unit, self.unsafe, self.done
            self.unit, self.unsafe, self.done = unit, unsafe, done
        return self.unit, self.unsafe, self.done

    def place(self, row: int, unit_row: npt.NDArray[np.float64], unsafe: bool) -> None:
        """Row `row`'s unit row, computed already (`KeptVectors.add` after a comparison)."""
        units, unsafes, done = self._room(unit_row.shape[0])
        units[row], unsafes[row], done[row] = unit_row, unsafe, True

    def ready(self, rows: npt.NDArray[np.intp], dim: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
        """The unit rows, with `rows` among those computed."""
        unit, unsafe, done = self._room(dim)
        todo = rows[~done[rows]]
        if todo.size:
            vectors = [self.vectors[r] for r in todo.tolist()]
            computed = _unit_rows(vectors, dim)
            if computed is None:  # a value beyond float range: `cosine` decides each pair with these
                unit[todo], unsafe[todo] = 0.0, True
            else:
                unit[todo], unsafe[todo] = computed
            done[todo] = True
        return unit, unsafe
