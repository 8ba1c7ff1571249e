"""`passes.order`: the edges and alternate layouts, stable and ranked order."""

import pytest

from evidencepack.passes.order import alternate_layout, edges_layout, order

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
