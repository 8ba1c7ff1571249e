"""Frame and fit: the words around the sources, the cost of one block, and the final prompt.

`frame_request` reserves what is not retrieval (system prompt, question and its frame) and derives two bounds
for the budget pass: the widest handle any block can get, and the longest text that could still fit.
`Blocks` prepares and costs candidates for the budget pass. `fit` is the recount loop: each attempt seats the
selection (the order pass), finds its conflicts (the conflicts pass), adds the notice and renders (the
renderer), then counts; should the real count overshoot, the lowest-ranked record leaves and it renders
again, so the prompt always fits. What fit needs of the options it is given (`Request`), so it never imports
`Options`.

Blocks are costed with a fixed-width stand-in for the boundary (`BOUNDARY_PLACEHOLDER`) and the widest handle,
so a cost depends on the record and the options only: the selection never depends on the secret key, and
costs are cached across requests whose boundaries differ. For the bundled encodings the final count is exact
from those same cached pieces (see `tokenizers.count_joined`); for any other tokenizer the real prompt is
counted whole.

Prompt caching (issue 26): the boundary is derived from the key, the format and the selected records, never
the question, so everything before the question's line (system prompt, notice, blocks) is byte-identical for
two questions over the same selection; `Fitted.cache_split` marks where the question-dependent part of the
user message starts. A question that contains the boundary code is defused with it (`_defuse_question`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from ..errors import BudgetError
from ..records.candidates import Candidate, Dropped
from ..records.record import When
from ..render import Prepared, mentions, prepare
from ..render.layout import Layout
from ..render.neutralise import contains_boundary, neutralise_question
from ..render.notice import notice_for, render_blocks, user_pieces
from ..render.prompts import BOUNDARY_PLACEHOLDER, FLAT_USER_TEMPLATE, NO_SOURCES, USER_TEMPLATE, boundary_code
from ..render.shown_rule import shown_rule
from ..tokens.target import TargetModel
from ..tokens.tokenizers import CountCache, TiktokenTokenizer, Tokenizer, count_joined
from .budget import Budget
from .conflicts import Conflict, find_conflicts, weak_reasons, withhold_weak
from .order import seat_candidates


class Request(Protocol):
    """What fitting reads of an assembly request (`Options` is one)."""

    @property
    def as_of(self) -> When: ...
    @property
    def budget(self) -> Budget: ...
    @property
    def layout(self) -> Layout: ...
    @property
    def tokenizer(self) -> Tokenizer: ...
    @property
    def count_cache(self) -> CountCache: ...
    @property
    def model(self) -> TargetModel | None: ...
    @property
    def boundary_key(self) -> bytes | None: ...
    def count(self, text: str) -> int: ...


@dataclass(frozen=True)
class Frame:
    """The request around the sources, and the budget left for them."""

    question: str
    head: str  # the user message before the sources
    tail: str  # the user message after the sources (carries the question)
    system_tokens: int
    question_tokens: int  # head + tail
    available: int  # the retrieval budget
    widest: str  # the widest handle a block can get: costs reserve it
    max_chars: int | None  # a text longer than this cannot fit (None: the tokenizer gives no bound)
    framing: int = 0  # what the target model's chat framing adds (0: no model named, or framing unknown)
    question_part: str = ""  # the tail from the start of the question's line: all that depends on the question

    def pieces(self, sources: list[str], separator: str) -> list[str]:
        """The user message as pieces whose concatenation is the message: the head, each source with the
        separator after it, then the question."""
        items = sources or [NO_SOURCES]
        if self.tail.startswith(separator):
            # Newlines the question keeps beyond the separator go with the last source, so the pieces meet
            # at clean pre-token cuts (`tokenizers.joins_cleanly`) and a warm call sums cached counts.
            rest = self.tail[len(separator):]
            lead = rest[: len(rest) - len(rest.lstrip("\n"))]
            return [self.head, *(s + separator for s in items[:-1]), items[-1] + separator + lead,
                    rest[len(lead):]]
        return [self.head, separator.join(items) + self.tail]


def frame_request(question: str, req: Request, n_inputs: int) -> Frame:
    layout, fmt = req.layout, req.layout.fmt
    template = USER_TEMPLATE if fmt.has_blocks else FLAT_USER_TEMPLATE
    head, tail = template.template.split("$sources")
    line = tail.rfind("\n", 0, tail.index("$question")) + 1  # the question's line starts the uncached part
    tail = tail.replace("$question", question) + layout.after_question()
    system = layout.system(BOUNDARY_PLACEHOLDER, req.as_of.isoformat())
    system_tokens = req.count(system)
    # The question's frame without sources; a separator before the tail is counted with each block instead.
    cut = tail.startswith(fmt.separator)
    frame_text = head + tail[len(fmt.separator):] if cut else head + tail
    question_tokens = count_joined(req.tokenizer, req.count_cache, [head, tail[len(fmt.separator):]]) \
        if cut else req.count(head + tail)
    # A named model: the request is counted as the model receives it, and its framing is reserved too.
    framing = req.model.request_tokens(_chat(system, frame_text)) - system_tokens - question_tokens \
        if req.model is not None else 0
    available = req.budget.retrieval_budget(system_tokens, question_tokens, framing=framing)
    # No block is cheaper than an empty one, so no more blocks than this can fit; handles never get wider.
    prefix = layout.handle_prefix
    smallest = req.count(fmt.render(prefix + "1", (), "x", BOUNDARY_PLACEHOLDER) + fmt.separator)
    most_blocks = max(1, min(n_inputs, available // max(1, smallest)))
    per_token = getattr(req.tokenizer, "max_token_chars", None)
    return Frame(question, head, tail, system_tokens, question_tokens, available,
                 prefix + "9" * len(str(most_blocks)),
                 available * per_token if isinstance(per_token, int) else None, framing, tail[line:])


def _chat(system: str, user: str) -> list[dict[str, str]]:
    """The messages as `Assembly.messages` sends them."""
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


class Blocks:
    """Per request: each candidate prepared once (neutralised header values and body) and costed as the
    block it becomes, with its separator, the widest handle and the boundary stand-in."""

    def __init__(self, req: Request, frame: Frame) -> None:
        self._req, self._frame, self._layout = req, frame, req.layout
        self._prepared: dict[int, Prepared] = {}

    def prepared(self, cand: Candidate, boundary: str = "") -> Prepared:
        """The prepared block; with `boundary`, re-neutralised with it in the rare case its text contains the
        code."""
        found = self._prepared.get(cand.rank)
        if found is None:
            found = self._prepared[cand.rank] = self._prepare(cand, "")
        if boundary and mentions(found, boundary):
            return self._prepare(cand, boundary)
        return found

    def _prepare(self, cand: Candidate, boundary: str) -> Prepared:
        layout = self._layout
        return prepare(cand, layout.fields, prefix=layout.handle_prefix, marking=layout.marking,
                       on_flagged=layout.on_flagged, boundary=boundary, frame_labels=layout.frame_labels)

    def costing_form(self, cand: Candidate) -> str:
        p, fmt = self.prepared(cand), self._layout.fmt
        return fmt.render(self._frame.widest, p.fields, p.body, BOUNDARY_PLACEHOLDER) + fmt.separator

    def cost(self, cand: Candidate) -> int:
        return self._req.count(self.costing_form(cand))


@dataclass(frozen=True)
class Seat:
    handle: str
    candidate: Candidate
    prepared: Prepared
    tokens: int  # the block and the separator after it, as counted in the prompt


@dataclass(frozen=True)
class Fitted:
    """The rendered request and its exact counts."""

    seats: tuple[Seat, ...]
    conflicts: tuple[Conflict, ...]
    notice: str
    system: str
    user: str
    boundary: str
    system_tokens: int
    question_tokens: int
    available: int
    used: int
    late_drops: tuple[Dropped, ...]
    framing: int = 0
    cache_split: int = 0  # `user[:cache_split]` does not depend on the question (a provider may cache it)
    shown: str = ""  # the shown rule after the question (`Layout.show_rule`), with its leading break


@dataclass(frozen=True)
class _Attempt:
    """One rendering of a selection, and what it costs."""

    seated: list[Candidate]
    withheld: list[Candidate]  # left out by `conflict_policy="withhold"`
    handles: list[str]
    conflicts: tuple[Conflict, ...]
    notice: str
    prepared: list[Prepared]
    user: str
    costed: list[str]  # each block with its separator, as counted
    used: int
    cache_split: int = 0
    shown: str = ""


@dataclass(frozen=True)
class _Fixed:
    """What stays the same across attempts: the boundary, the system prompt and its count."""

    boundary: str
    system: str
    system_tokens: int
    extra_system: int  # the real code may cost more than its stand-in
    digits_only: bool  # digits for digits cannot change a count: cached costing pieces give the exact count


def fit(selected: list[Candidate], frame: Frame, req: Request, blocks: Blocks) -> Fitted:
    """The recount loop: render, count, and drop the lowest-ranked record while the real count overshoots."""
    fixed = _fixed(selected, frame, req)
    frame = _defuse_question(frame, fixed.boundary, req)
    selected, late = list(selected), []
    while True:
        attempt = _attempt(selected, frame, req, blocks, fixed)
        if attempt.used + fixed.extra_system <= frame.available:
            break
        if not attempt.seated:  # not even the "no sources" line fits: the reserves leave no room at all
            raise BudgetError(f"the reserves leave {frame.available} tokens for sources, fewer than the "
                              f"{attempt.used + fixed.extra_system} the prompt needs with no sources at all")
        worst = max(attempt.seated, key=lambda c: c.rank)
        selected.remove(worst)
        late.append(Dropped.of(worst, "over_budget",
                               detail="dropped after rendering: the full prompt overshot the budget"))
    late += _withheld_drops(attempt)
    seats = tuple(Seat(h, c, p, req.count(piece)) for h, c, p, piece in
                  zip(attempt.handles, attempt.seated, attempt.prepared, attempt.costed))
    return Fitted(seats, attempt.conflicts, attempt.notice, fixed.system, attempt.user, fixed.boundary,
                  fixed.system_tokens, frame.question_tokens, frame.available, attempt.used, tuple(late),
                  frame.framing, attempt.cache_split, attempt.shown)


def _withheld_drops(attempt: _Attempt) -> list[Dropped]:
    """Each record `withhold` left out, accounted with its own reasons and the handle that holds instead."""
    holds = {w.id: c.current for c in attempt.conflicts for w in c.withheld}
    return [Dropped.of(c, "conflict_withheld",
                       detail=f"withheld: {', '.join(weak_reasons(c))}; the current authoritative source on the "
                              f"same question is {', '.join(holds.get(c.id, ()))}")
            for c in attempt.withheld]


def _fixed(selected: Sequence[Candidate], frame: Frame, req: Request) -> _Fixed:
    layout = req.layout
    # Never the question (provider prompt caching); the selection unless the caller scoped the code to the key.
    material = [layout.format, *(part for c in selected for part in (c.id, c.record.text))] \
        if layout.boundary_scope == "selection" else ["scope:key", layout.format, req.as_of.isoformat()]
    boundary = boundary_code((m.encode("utf-8", "surrogatepass") for m in material), req.boundary_key)
    system = layout.system(boundary, req.as_of.isoformat())
    digits_only = isinstance(req.tokenizer, TiktokenTokenizer) and req.tokenizer.digit_invariant \
        and len(frame.widest) - len(layout.handle_prefix) <= 3
    system_tokens = frame.system_tokens if digits_only else req.count(system)
    return _Fixed(boundary, system, system_tokens, max(0, system_tokens - frame.system_tokens), digits_only)


def _attempt(selected: list[Candidate], frame: Frame, req: Request, blocks: Blocks, fixed: _Fixed) -> _Attempt:
    """Seat, find conflicts, write the notice, render and count one selection."""
    layout, separator = req.layout, req.layout.fmt.separator
    threshold = layout.conflict_embedding_threshold
    kept, withheld = withhold_weak(selected, embedding_threshold=threshold) \
        if layout.conflict_policy == "withhold" else (selected, [])
    seated = seat_candidates(kept, layout.order, conflict_embedding_threshold=threshold, withheld=withheld)
    handles = [f"{layout.handle_prefix}{i}" for i in range(1, len(seated) + 1)]
    # The flat baseline has no handles to name in a notice; under `withhold` its conflicts are still reported,
    # for the note the reader gets.
    conflicts = find_conflicts(list(zip(handles, seated)), embedding_threshold=threshold, withheld=withheld
                               ) if layout.has_blocks or withheld else ()
    notice = notice_for(conflicts, layout)
    prepared = [blocks.prepared(c, fixed.boundary) for c in seated]
    shown = shown_rule(frame.question, conflicts, handles, seated, prepared, blocks=layout.has_blocks) \
        if layout.show_rule else ""
    real = render_blocks(handles, prepared, fixed.boundary, layout)
    user = "".join(user_pieces(frame.pieces, notice, real, layout, shown))
    # Exact from cached costing pieces when digits-for-digits cannot change the count; else count the real
    # prompt whole.
    invariant = fixed.digits_only and all(p is blocks.prepared(c) for p, c in zip(prepared, seated))
    costed = [blocks.costing_form(c) for c in seated] if invariant else [b + separator for b in real]
    if req.model is not None and not req.model.additive_framing:  # a template: the whole request, rendered
        used = (req.model.request_tokens(_chat(fixed.system, user)) - fixed.system_tokens - frame.question_tokens
                - frame.framing)
    elif invariant:  # no framing, or one that does not depend on the text (OpenAI's): the content counts suffice
        pieces = user_pieces(frame.pieces, notice, [c[: -len(separator)] for c in costed], layout, shown)
        used = count_joined(req.tokenizer, req.count_cache, pieces) - frame.question_tokens
    else:
        used = req.count(user) - frame.question_tokens
    # Where the question-dependent part starts: its line, then the shown rule and (as an answer form) the
    # conflict form.
    form = len(notice) if notice and layout.form == "conflict_form" else 0
    return _Attempt(seated, withheld, handles, conflicts, notice, prepared, user, costed, used,
                    len(user) - len(frame.question_part) - len(shown) - form, shown)


def _defuse_question(frame: Frame, boundary: str, req: Request) -> Frame:
    """The code no longer depends on the question, so a question could carry it (an end user who once saw
    a prompt over the same records): it is defused like record text, and the frame recounted. Rare: an
    ordinary question comes back as the same frame."""
    if not contains_boundary(frame.question, boundary):
        return frame
    layout = req.layout
    question = neutralise_question(frame.question, boundary=boundary, handle_prefix=layout.handle_prefix,
                                   frame_labels=layout.frame_labels)
    tail = frame.tail.replace(frame.question, question, 1)
    part = frame.question_part.replace(frame.question, question, 1)
    sep = layout.fmt.separator
    cut = tail.startswith(sep)
    question_tokens = count_joined(req.tokenizer, req.count_cache, [frame.head, tail[len(sep):]]) if cut \
        else req.count(frame.head + tail)
    available = req.budget.retrieval_budget(frame.system_tokens, question_tokens, framing=frame.framing)
    return replace(frame, question=question, tail=tail, question_part=part, question_tokens=question_tokens,
                   available=available)
