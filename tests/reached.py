"""Counting the examples of a property test that reach its assertions.

A property that rejects some draws (`assume`) could pass having checked nothing, if every draw were rejected.
The property calls `reached(name)` once its assertions have passed; a separate plain test runs the property
again through `count_reached` and asserts a minimum, so the suite fails when the property stops testing.
`hypothesis.event` also records each one: `pytest --hypothesis-show-statistics` lists them beside the
rejected draws.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from hypothesis import event

_REACHED: Counter[str] = Counter()


def reached(name: str) -> None:
    """Called by a property after its assertions passed on one example."""
    _REACHED[name] += 1
    event("reached the assertions")


def count_reached(prop: Callable[[], None], *names: str) -> Counter[str]:
    """Run the (hypothesis-wrapped) property `prop` once more and return, by name, how many of its examples
    reached the `reached(name)` calls during that run."""
    for name in names:
        _REACHED[name] = 0
    prop()
    return Counter({name: _REACHED[name] for name in names})
