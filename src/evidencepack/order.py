"""Order: where each selected record sits. Position is a correctness lever ("lost in the middle")."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, TypeVar

T = TypeVar("T")
Strategy = Literal["edges", "alternate", "ranked", "stable"]
STRATEGIES: tuple[str, ...] = ("edges", "alternate", "ranked", "stable")


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


def order(items: Sequence[T], strategy: Strategy = "edges", *, stable_key: Callable[[T], str] | None = None
          ) -> list[T]:
    """Seat `items` (given best-first) by `strategy`. `stable` sorts by `stable_key` so an unchanged set
    keeps the same prompt prefix across queries (good for provider prompt caching)."""
    if strategy == "ranked":
        return list(items)
    if strategy == "edges":
        return [items[r - 1] for r in edges_layout(len(items))]
    if strategy == "alternate":
        return [items[r - 1] for r in alternate_layout(len(items))]
    if strategy == "stable":
        if stable_key is None:
            raise ValueError("the stable order needs a stable_key")
        return sorted(items, key=stable_key)
    raise ValueError(f"unknown order {strategy!r} (one of {', '.join(STRATEGIES)})")
