"""Screen: the injection tripwire as a pass. When the caller sets `injection_threshold`, it scores every
record the budget pass reaches (for the report) and drops those above the threshold, with the score as the
reason's detail. Records never reached are never scored: their text never reaches a prompt either."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace

from ..records.candidates import Candidate, Dropped
from .scan import injection_score


def screen(stream: Iterable[Candidate | Dropped], *, threshold: float | None) -> Iterator[Candidate | Dropped]:
    """Pass drops through; score candidates when a threshold is set, and drop those above it."""
    for item in stream:
        if threshold is None or isinstance(item, Dropped):
            yield item
            continue
        score = injection_score(item.record)
        if score > threshold:
            yield Dropped.of(replace(item, injection_score=score), "injection_suspected", detail=f"score {score:.2f}")
        else:
            yield replace(item, injection_score=score)
