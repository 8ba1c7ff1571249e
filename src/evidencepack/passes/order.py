"""Order: where each selected record sits. Position is a correctness lever ("lost in the middle").

Strategies live in one registry: `register_order("name")` adds one, and the options check, the CLI choices
and the docs all read `STRATEGIES` from here. Every strategy is called with the items, their key and, as a
keyword, the assembly's `conflict_embedding_threshold`, so a strategy that looks at conflict groups finds the
same groups the report and the notice do. One registered with `sees_withheld=True` also gets, as `withheld`, the
weak records the conflict policy left out of the prompt (`conflict_policy="withhold"`): without them a group that
lost its weak members no longer looks like a group, and its current record would lose the seat it holds by
metadata.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from ..errors import OptionError
from ..records.candidates import Candidate

T = TypeVar("T")


class Strategy(Protocol):
    """A strategy seats items given best-first; `key` gives an item's stable identity (its record id);
    `conflict_embedding_threshold` is how close embeddings group records without a topic (None: never)."""

    def __call__(self, items: Sequence[Any], key: Callable[[Any], str], *,
                 conflict_embedding_threshold: float | None) -> list[Any]: ...


_REGISTRY: dict[str, Strategy] = {}
#: The strategies that take the withheld records as a `withheld` keyword.
_SEES_WITHHELD: set[str] = set()


def register_order(name: str, *, sees_withheld: bool = False) -> Callable[[Strategy], Strategy]:
    """Register a seating strategy under `name` (a decorator); `sees_withheld`: it takes a `withheld` keyword
    (the records the conflict policy left out), which the others are never passed."""

    def add(fn: Strategy) -> Strategy:
        _REGISTRY[name] = fn
        (_SEES_WITHHELD.add if sees_withheld else _SEES_WITHHELD.discard)(name)
        return fn

    return add


def edges_layout(n: int) -> list[int]:
    """Ranks (1-based) by seat: rank 1 first, 2 last, then pairs inward: 1..5 -> [1, 4, 5, 3, 2]."""
    front: list[int] = []
    back: list[int] = []  # filled from the right edge inward
    for rank in range(1, n + 1):
        pair = (rank - 2) // 2 if rank > 1 else -1  # rank 1 alone; then (2,3) (4,5) (6,7) ...
        (front if pair % 2 == 1 or rank == 1 else back).append(rank)
    return front + back[::-1]


def alternate_layout(n: int) -> list[int]:
    """Haystack's LostInTheMiddleRanker: odd ranks to the front, even to the back: 1..5 -> [1, 3, 5, 4, 2]."""
    ranks = range(1, n + 1)
    return [r for r in ranks if r % 2 == 1] + [r for r in ranks if r % 2 == 0][::-1]


@register_order("edges")
def _edges(items: Sequence[Any], key: Callable[[Any], str], *,
           conflict_embedding_threshold: float | None = 0.9) -> list[Any]:
    return [items[r - 1] for r in edges_layout(len(items))]


@register_order("alternate")
def _alternate(items: Sequence[Any], key: Callable[[Any], str], *,
               conflict_embedding_threshold: float | None = 0.9) -> list[Any]:
    return [items[r - 1] for r in alternate_layout(len(items))]


@register_order("ranked")
def _ranked(items: Sequence[Any], key: Callable[[Any], str], *,
            conflict_embedding_threshold: float | None = 0.9) -> list[Any]:
    return list(items)


@register_order("stable")
def _stable(items: Sequence[Any], key: Callable[[Any], str], *,
            conflict_embedding_threshold: float | None = 0.9) -> list[Any]:
    """Sorted by record id, so an unchanged set keeps the same prompt prefix (provider prompt caching)."""
    return sorted(items, key=key)


@register_order("edges-authority", sees_withheld=True)
def _edges_authority(items: Sequence[Any], key: Callable[[Any], str], *,
                     conflict_embedding_threshold: float | None = 0.9, withheld: Sequence[Any] = ()) -> list[Any]:
    """`edges`, with metadata deciding who gets the edges inside a conflict group: a group's current
    authoritative records go first (the best edge seat), its expired, superseded or informal records go last
    (the middle seats), and every other record keeps its rank in between. Without a conflict group this is
    exactly `edges`. Groups are found as the conflict notice finds them (topic, or embeddings at the
    assembly's `conflict_embedding_threshold`), with the `withheld` members counted, so the record that holds
    keeps the first seat when the conflict policy has left the others out; items that are not candidates (no
    metadata) are seated as `edges` seats them."""
    from ..records.candidates import Candidate
    from .conflicts import find_conflicts

    if not all(isinstance(c, Candidate) for c in items):
        return _edges(items, key, conflict_embedding_threshold=conflict_embedding_threshold)
    conflicts = find_conflicts([(str(i), c) for i, c in enumerate(items)],
                               embedding_threshold=conflict_embedding_threshold, withheld=withheld)
    first = {int(h) for c in conflicts for h in c.current}
    last = {int(h) for c in conflicts for h, _ in c.others} - first
    tiers = sorted(range(len(items)), key=lambda i: (0 if i in first else 2 if i in last else 1, i))
    return [items[tiers[r - 1]] for r in edges_layout(len(items))]


STRATEGIES: tuple[str, ...] = tuple(_REGISTRY)


def strategies() -> tuple[str, ...]:
    """Every registered strategy, including ones registered after import."""
    return tuple(_REGISTRY)


def order(items: Sequence[T], strategy: str = "edges", *, stable_key: Callable[[T], str] | None = None,
          conflict_embedding_threshold: float | None = 0.9, withheld: Sequence[T] = ()) -> list[T]:
    """Seat `items` (given best-first) by `strategy`; pass the assembly's `conflict_embedding_threshold` and
    the records its conflict policy withheld, so the seating and the reported conflicts agree on the groups."""
    layout = _REGISTRY.get(strategy)
    if layout is None:
        raise OptionError(f"unknown order {strategy!r} (one of {', '.join(_REGISTRY)})")
    if stable_key is None:
        if strategy == "stable":
            raise OptionError("the stable order needs a stable_key")
        stable_key = str
    if strategy in _SEES_WITHHELD:
        return layout(items, stable_key, conflict_embedding_threshold=conflict_embedding_threshold,
                      withheld=withheld)  # type: ignore[call-arg]
    return layout(items, stable_key, conflict_embedding_threshold=conflict_embedding_threshold)


def seat_candidates(candidates: Sequence[Candidate], strategy: str, *, conflict_embedding_threshold: float | None,
                    withheld: Sequence[Candidate] = ()) -> list[Candidate]:
    """The order pass in the pipeline: candidates seated by `strategy`, each known by its record id."""
    return order(candidates, strategy, stable_key=lambda c: c.id,
                 conflict_embedding_threshold=conflict_embedding_threshold, withheld=withheld)
