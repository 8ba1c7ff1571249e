"""Order: where each selected record sits. Position is a correctness lever ("lost in the middle").

Strategies live in one registry: `register_order("name")` adds one, and the options check, the CLI choices
and the docs all read `STRATEGIES` from here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from .errors import OptionError

T = TypeVar("T")
#: A strategy seats items given best-first; `key` gives an item's stable identity (its record id).
Layout = Callable[[Sequence[Any], Callable[[Any], str]], list[Any]]
_REGISTRY: dict[str, Layout] = {}


def register_order(name: str) -> Callable[[Layout], Layout]:
    """Register a seating strategy under `name` (a decorator)."""

    def add(fn: Layout) -> Layout:
        _REGISTRY[name] = fn
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
def _edges(items: Sequence[Any], key: Callable[[Any], str]) -> list[Any]:
    return [items[r - 1] for r in edges_layout(len(items))]


@register_order("alternate")
def _alternate(items: Sequence[Any], key: Callable[[Any], str]) -> list[Any]:
    return [items[r - 1] for r in alternate_layout(len(items))]


@register_order("ranked")
def _ranked(items: Sequence[Any], key: Callable[[Any], str]) -> list[Any]:
    return list(items)


@register_order("stable")
def _stable(items: Sequence[Any], key: Callable[[Any], str]) -> list[Any]:
    """Sorted by record id, so an unchanged set keeps the same prompt prefix (provider prompt caching)."""
    return sorted(items, key=key)


STRATEGIES: tuple[str, ...] = tuple(_REGISTRY)


def strategies() -> tuple[str, ...]:
    """Every registered strategy, including ones registered after import."""
    return tuple(_REGISTRY)


def order(items: Sequence[T], strategy: str = "edges", *, stable_key: Callable[[T], str] | None = None
          ) -> list[T]:
    """Seat `items` (given best-first) by `strategy`."""
    layout = _REGISTRY.get(strategy)
    if layout is None:
        raise OptionError(f"unknown order {strategy!r} (one of {', '.join(_REGISTRY)})")
    if stable_key is None:
        if strategy == "stable":
            raise OptionError("the stable order needs a stable_key")
        stable_key = str
    return layout(items, stable_key)
