"""Frame and fit: the words around the sources, the cost of one block, and the final prompt.

`frame_request` reserves what is not retrieval (system prompt, question and its frame) and derives two bounds
for the budget pass: the widest handle any block can get, and the longest text that could still fit.
`Blocks` prepares and costs candidates for the budget pass. `fit` seats the selection, adds the conflict
notice, renders it and counts the result; should the real count overshoot, the lowest-ranked record leaves
and it renders again, so the prompt always fits.

Blocks are costed with a fixed-width stand-in for the boundary (`BOUNDARY_PLACEHOLDER`) and the widest handle,
so a cost depends on the record and the options only: the selection never depends on the secret key, and
costs are cached across requests whose questions (and so boundaries) differ. For the bundled encodings the
final count is exact from those same cached pieces (see `tokenizers.count_joined`); for any other tokenizer
the real prompt is counted whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from string import Template

from ..errors import BudgetError
from ..options import Options
from ..records.candidates import Candidate, Dropped
from ..render import Prepared, mentions, prepare
from ..render.guidance import after_question, example
from ..render.neutralise import safe_label
from ..render.prompts import (
    BOUNDARY_PLACEHOLDER,
    FLAT_USER_TEMPLATE,
    NO_SOURCES,
    USER_TEMPLATE,
    boundary_code,
    system_prompt,
)
from ..tokens.tokenizers import TiktokenTokenizer, count_joined
from .conflicts import Conflict, find_conflicts, form_text, notice_text
from .order import order as seat


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


def frame_request(question: str, opts: Options, n_inputs: int) -> Frame:
    layout = opts.layout
    template = USER_TEMPLATE if layout.has_blocks else FLAT_USER_TEMPLATE
    head, tail = template.template.split("$sources")
    tail = tail.replace("$question", question)
    if layout.has_blocks:
        tail += after_question(opts.handle_prefix, reminder=opts.reminder, scaffold=opts.scaffold)
    system = _system(opts, BOUNDARY_PLACEHOLDER)
    system_tokens = opts.count(system)
    # The question's frame without sources; a separator before the tail is counted with each block instead.
    frame_text = head + tail[len(layout.separator):] if tail.startswith(layout.separator) else head + tail
    question_tokens = count_joined(opts.tokenizer, opts.count_cache, [head, tail[len(layout.separator):]]) \
        if tail.startswith(layout.separator) else opts.count(head + tail)
    # A named model: the request is counted as the model receives it, and its framing is reserved too.
    framing = opts.model.request_tokens(_chat(system, frame_text)) - system_tokens - question_tokens \
        if opts.model is not None else 0
    available = opts.budget.retrieval_budget(system_tokens, question_tokens, framing=framing)
    # No block is cheaper than an empty one, so no more blocks than this can fit; handles never get wider.
    smallest = opts.count(layout.render(opts.handle_prefix + "1", (), "x", BOUNDARY_PLACEHOLDER) + layout.separator)
    most_blocks = max(1, min(n_inputs, available // max(1, smallest)))
    per_token = getattr(opts.tokenizer, "max_token_chars", None)
    return Frame(question, head, tail, system_tokens, question_tokens, available,
                 opts.handle_prefix + "9" * len(str(most_blocks)),
                 available * per_token if isinstance(per_token, int) else None, framing)


def _chat(system: str, user: str) -> list[dict[str, str]]:
    """The messages as `Assembly.messages` sends them."""
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _system(opts: Options, boundary: str) -> str:
    template = Template(opts.system_template) if opts.system_template is not None else None
    text = system_prompt(template, boundary=boundary, as_of=opts.as_of.isoformat(), prefix=opts.handle_prefix,
                         conflict_policy=opts.conflict_policy, flat=not opts.layout.has_blocks, abstain=opts.abstain)
    return text + example(opts.handle_prefix, scaffold=opts.scaffold) if opts.example else text


class Blocks:
    """Per request: each candidate prepared once (neutralised header values and body) and costed as the
    block it becomes, with its separator, the widest handle and the boundary stand-in."""

    def __init__(self, opts: Options, frame: Frame) -> None:
        self._opts, self._frame = opts, frame
        self._prepared: dict[int, Prepared] = {}

    def prepared(self, cand: Candidate) -> Prepared:
        found = self._prepared.get(cand.rank)
        if found is None:
            found = self._prepared[cand.rank] = prepare(cand, self._opts.fields, prefix=self._opts.handle_prefix,
                                                        marking=self._opts.marking,
                                                        frame_labels=self._opts.frame_labels)
        return found

    def costing_form(self, cand: Candidate) -> str:
        p, layout = self.prepared(cand), self._opts.layout
        return layout.render(self._frame.widest, p.fields, p.body, BOUNDARY_PLACEHOLDER) + layout.separator

    def cost(self, cand: Candidate) -> int:
        return self._opts.count(self.costing_form(cand))


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


def fit(selected: list[Candidate], frame: Frame, opts: Options, blocks: Blocks) -> Fitted:
    """Order, notice, render, recount; drop the lowest-ranked record while the real count overshoots."""
    layout, count = opts.layout, opts.count
    material = [frame.question, opts.format, *(part for c in selected for part in (c.id, c.record.text))]
    boundary = boundary_code((m.encode("utf-8", "surrogatepass") for m in material), opts.boundary_key)
    system = _system(opts, boundary)
    digits_only = isinstance(opts.tokenizer, TiktokenTokenizer) and opts.tokenizer.digit_invariant \
        and len(frame.widest) - len(opts.handle_prefix) <= 3
    system_tokens = frame.system_tokens if digits_only else count(system)
    extra_system = max(0, system_tokens - frame.system_tokens)  # the real code may cost more than the stand-in
    selected, late = list(selected), []
    while True:
        seated = seat(selected, opts.order, stable_key=lambda c: c.id,
                      conflict_embedding_threshold=opts.conflict_embedding_threshold)
        handles = [f"{opts.handle_prefix}{i}" for i in range(1, len(seated) + 1)]
        conflicts = find_conflicts(list(zip(handles, seated)), embedding_threshold=opts.conflict_embedding_threshold
                                   ) if layout.has_blocks else ()
        notice = _notice(conflicts, opts) if opts.conflict_notice else ""
        prepared = [_guarded(blocks, c, boundary, opts) for c in seated]
        real = [layout.render(h, p.fields, p.body, boundary) for h, p in zip(handles, prepared)]
        user = "".join(_user_pieces(frame, notice, real, opts))
        # Exact from cached costing pieces when digits-for-digits cannot change the count; else count the
        # real prompt whole.
        invariant = digits_only and all(p is blocks.prepared(c) for p, c in zip(prepared, seated))
        costed = [blocks.costing_form(c) for c in seated] if invariant else [b + layout.separator for b in real]
        pieces = _user_pieces(frame, notice, [c[: -len(layout.separator)] for c in costed], opts)
        if opts.model is not None and not opts.model.additive_framing:  # a template: the whole request, rendered
            used = (opts.model.request_tokens(_chat(system, user)) - system_tokens - frame.question_tokens
                    - frame.framing)
        else:  # no framing, or one that does not depend on the text (OpenAI's): the content counts suffice
            total = count_joined(opts.tokenizer, opts.count_cache, pieces) if invariant else count(user)
            used = total - frame.question_tokens
        if used + extra_system <= frame.available:
            break
        if not selected:  # not even the "no sources" line fits: the reserves leave no room at all
            raise BudgetError(f"the reserves leave {frame.available} tokens for sources, fewer than the "
                              f"{used + extra_system} the prompt needs with no sources at all")
        worst = max(selected, key=lambda c: c.rank)
        selected.remove(worst)
        late.append(Dropped.of(worst, "over_budget",
                               detail="dropped after rendering: the full prompt overshot the budget"))
    seats = tuple(Seat(h, c, p, count(piece)) for h, c, p, piece in zip(handles, seated, prepared, costed))
    return Fitted(seats, conflicts, notice, system, user, boundary, system_tokens, frame.question_tokens,
                  frame.available, used, tuple(late), frame.framing)


def _guarded(blocks: Blocks, cand: Candidate, boundary: str, opts: Options) -> Prepared:
    """The prepared block; re-neutralised with the boundary in the rare case its text contains the code."""
    p = blocks.prepared(cand)
    if not mentions(p, boundary):
        return p
    return prepare(cand, opts.fields, prefix=opts.handle_prefix, marking=opts.marking, boundary=boundary,
                   frame_labels=opts.frame_labels)


def _notice(conflicts: tuple[Conflict, ...], opts: Options) -> str:
    # The notice sits outside every block, so a topic appears there only if it is a plain slug.
    labels: dict[str | None, str] = {c.topic: c.topic for c in conflicts if c.topic is not None and safe_label(c.topic)}
    return form_text(conflicts, labels) if opts.conflict_form else notice_text(conflicts, labels,
                                                                               style=opts.notice_style)


def _user_pieces(frame: Frame, notice: str, blocks: list[str], opts: Options) -> list[str]:
    """The user message in pieces: the notice above the first block, after the last one (next to the
    question), or, as an answer form (`conflict_form`), after the question, the last thing the model reads."""
    separator = opts.layout.separator
    if not notice:
        return frame.pieces(blocks, separator)
    if opts.conflict_form:
        pieces = frame.pieces(blocks, separator)
        return [*pieces[:-1], pieces[-1] + notice]
    placed = [*blocks, notice] if opts.notice_placement == "question" else [notice, *blocks]
    return frame.pieces(placed, separator)
