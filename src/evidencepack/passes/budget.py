"""Budget: spend the retrieval budget on whole records, from rank 1 down.

The window is not the budget: the system prompt, the question (with its framing) and the answer need room
too, plus a safety margin for tokenizer drift and chat-template overhead. Records are never cut: a record
that does not fit whole does not go in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ..errors import BudgetError
from ..optspec import option
from ..records.candidates import Candidate, Dropped

#: The window when none is given and the model's is not known (or no model is named).
DEFAULT_WINDOW = 8192


@dataclass(frozen=True)
class Budget:
    """How the context window is shared (the budget pass's option group). All figures are tokens of the target
    model's tokenizer. A figure out of range raises `BudgetError` naming it."""

    context_window: int | None = option(None, "the context window in tokens (default: the named model's window "
                                        f"when known, else {DEFAULT_WINDOW})", flag="--window", parse=int)
    output_reserve: int = option(1024, "tokens kept for the answer", parse=int)
    safety_margin: int = option(128, "tokens kept for tokenizer drift and chat-template overhead", parse=int)
    max_records: int | None = option(None, "include at most this many records (default: no limit)", parse=int)
    #: False (the default) stops at the first record that does not fit, so lower ranks never jump
    #: ahead of a higher-ranked record; True lets smaller lower-ranked records use the room left.
    fill_gaps: bool = option(False, "let smaller lower-ranked records use the room a larger one left (default: "
                             "stop at the first record that does not fit, so no lower rank jumps ahead)",
                             cli="switch")
    #: The window in force when none was given (set by `for_model`: the model's, else the default); the option
    #: itself stays None, so `report.settings` records "not given" and a replay resolves it the same way.
    resolved_window: int | None = field(default=None, init=False, compare=False, repr=False)
    #: Where the window in force comes from: "given", or (set by `for_model`) the model's metadata or the default.
    window_source: str = field(default="given", init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        for name in ("context_window", "output_reserve", "safety_margin"):
            value = getattr(self, name)
            if name == "context_window" and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise BudgetError(f"{name} must be a non-negative integer, got {value!r}")
        if self.context_window == 0:
            raise BudgetError("context_window must be positive")
        object.__setattr__(self, "window_source", "unset" if self.context_window is None else "given")
        if self.max_records is not None and (isinstance(self.max_records, bool) or not isinstance(
                self.max_records, int) or self.max_records < 0):
            raise BudgetError(f"max_records must be a non-negative integer, got {self.max_records!r}")
        if not isinstance(self.fill_gaps, bool):
            raise BudgetError(f"fill_gaps must be True or False, got {type(self.fill_gaps).__name__}")

    @property
    def window(self) -> int:
        """The window in force: the one given, else the one `for_model` settled, else the default."""
        if self.context_window is not None:
            return self.context_window
        return DEFAULT_WINDOW if self.resolved_window is None else self.resolved_window

    def for_model(self, model: Any) -> Budget:
        """This budget with its window settled (issue 26): the one given stays; without one, the named model's
        window (`TargetModel.context_window`) when known, else `DEFAULT_WINDOW`; `window_source` says which."""
        if self.context_window is not None:
            return self
        size = getattr(model, "context_window", None)
        if isinstance(size, int) and size > 0:
            window, source = size, f"model: {model.window_source}"
        else:
            why = "no model named" if model is None else f"the window of {model.name} is not known"
            window, source = DEFAULT_WINDOW, f"default: {why}"
        out = replace(self)
        object.__setattr__(out, "resolved_window", window)
        object.__setattr__(out, "window_source", source)
        return out

    def retrieval_budget(self, system_tokens: int, question_tokens: int, *, framing: int = 0) -> int:
        """What is left for sources once every reserve is taken; an error, never a negative number.
        `framing` is what the target model's chat template adds around the messages (0 when unknown)."""
        reserved = system_tokens + question_tokens + framing + self.output_reserve + self.safety_margin
        if reserved > self.window:
            chat = f"{framing} chat framing + " if framing else ""
            raise BudgetError(
                f"reserves ({system_tokens} system prompt + {question_tokens} question + {chat}"
                f"{self.output_reserve} output + {self.safety_margin} safety margin = {reserved} tokens) "
                f"exceed the context window of {self.window} tokens")
        return self.window - reserved


@dataclass(frozen=True)
class Fill:
    """The budget pass's result. `stopped_by` says why unconsumed candidates were not reached."""

    selected: tuple[tuple[Candidate, int], ...]  # (candidate, block tokens), best-first
    dropped: tuple[Dropped, ...]
    used: int
    stopped_by: str | None  # "over_budget" | "max_records" | None when every candidate was consumed


class Withheld(Protocol):
    """What the fit pass will leave out of the selection whatever else joins it (`conflicts.Withholding`, for
    `conflict_policy="withhold"`): `propose` names the ranks a candidate would make withheld, itself included."""

    def propose(self, cand: Candidate) -> set[int]: ...
    def accept(self, cand: Candidate, withheld: set[int]) -> None: ...


def fill(
    stream: Iterable[Candidate | Dropped],
    *,
    cost: Callable[[Candidate], int],
    available: int,
    max_records: int | None = None,
    fill_gaps: bool = False,
    withheld: Withheld | None = None,
) -> Fill:
    """Consume candidates best-first, pulling no more than needed. Drops from earlier passes found in
    the stream (duplicates) are passed through, so the caller sees one ordered account. With `withheld`, a
    candidate that will be withheld costs nothing and counts toward no limit, so the room it would have taken
    goes to the next ranks (withholding only grows as the selection grows, so what was freed stays free)."""
    selected: list[tuple[Candidate, int]] = []
    dropped: list[Dropped] = []
    tokens_of: dict[int, int] = {}
    used = count = 0  # tokens and records that will reach the prompt
    for item in stream:
        if isinstance(item, Dropped):
            dropped.append(item)
            continue
        newly = withheld.propose(item) if withheld is not None else set()
        free = item.rank in newly
        freed = [tokens_of[r] for r in newly if r != item.rank]  # selected before, withheld if this one joins
        if max_records is not None and count - len(freed) >= max_records and not free:
            dropped.append(Dropped.of(item, "max_records"))
            return Fill(tuple(selected), tuple(dropped), used, "max_records")
        tokens = cost(item)
        if tokens > available and not free:
            dropped.append(Dropped.of(item, "larger_than_budget", tokens=tokens,
                                   detail=f"{tokens} tokens > retrieval budget {available}"))
            continue
        after = used - sum(freed) + (0 if free else tokens)
        if after > available:
            dropped.append(Dropped.of(item, "over_budget", tokens=tokens,
                                   detail=f"{tokens} tokens, {available - used} left"))
            if not fill_gaps:
                return Fill(tuple(selected), tuple(dropped), used, "over_budget")
            continue
        selected.append((item, tokens))
        tokens_of[item.rank] = tokens
        if withheld is not None:
            withheld.accept(item, newly)
        used, count = after, count - len(freed) + (0 if free else 1)
    return Fill(tuple(selected), tuple(dropped), used, None)


def screen_size(stream: Iterable[Candidate | Dropped], *, max_chars: int | None) -> Iterator[Candidate | Dropped]:
    """Drop a record that cannot fit before any costly work on it (neutralising, fingerprinting,
    tokenizing): a text longer than `max_chars` (the budget times the most characters one token can
    cover) needs more tokens than the whole budget, whatever it says. None: no bound is known."""
    if max_chars is None:
        yield from stream
        return
    for item in stream:
        if isinstance(item, Candidate) and len(item.record.text) > max_chars:
            yield Dropped.of(item, "larger_than_budget",
                          detail=f"{len(item.record.text)} characters cannot fit a budget of at most "
                                 f"{max_chars} characters")
        else:
            yield item
