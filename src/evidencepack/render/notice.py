"""The user message around the blocks: the conflict notice (or the conflict answer form) and where it goes,
and the blocks themselves, rendered with a request's boundary."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..passes.conflicts import Conflict, form_text, notice_text
from . import Prepared
from .layout import Layout
from .neutralise import safe_label

Pieces = Callable[[list[str], str], list[str]]  # `Frame.pieces`: sources and separator -> the message in pieces


def notice_for(conflicts: Sequence[Conflict], layout: Layout) -> str:
    """The notice the layout asks for ("" when it asks for none, or there is no conflict)."""
    if not layout.conflict_notice:
        return ""
    # The notice sits outside every block, so a topic appears there only if it is a plain slug.
    labels: dict[str | None, str] = {c.topic: c.topic for c in conflicts if c.topic is not None and safe_label(c.topic)}
    if layout.form == "conflict_form":
        return form_text(conflicts, labels)
    return notice_text(conflicts, labels, style=layout.notice_style, mention_withheld=layout.mention_withheld)


def render_blocks(handles: Sequence[str], prepared: Sequence[Prepared], boundary: str, layout: Layout) -> list[str]:
    fmt = layout.fmt
    return [fmt.render(h, p.fields, p.body, boundary) for h, p in zip(handles, prepared)]


def user_pieces(pieces: Pieces, notice: str, blocks: list[str], layout: Layout, shown: str = "") -> list[str]:
    """The user message in pieces: the notice above the first block, after the last one (next to the
    question), or, as an answer form (`conflict_form`), after the question, the last thing the model reads;
    the shown rule (`shown_rule`) right after the question, before any answer form."""
    separator = layout.fmt.separator
    placed = blocks
    if notice and layout.form != "conflict_form":
        placed = [*blocks, notice] if layout.notice_placement == "question" else [notice, *blocks]
    parts = pieces(placed, separator)
    if shown:
        cut = len(parts[-1]) - len(layout.after_question())
        parts[-1] = parts[-1][:cut] + shown + parts[-1][cut:]
    if notice and layout.form == "conflict_form":
        parts[-1] += notice
    return parts
