"""Markdown structure the validator respects: lines, fenced code, units (paragraph-like blocks) and inline code.

Rules (a CommonMark subset, documented in docs/citations.md):

- A fence is a line whose first non-blank characters are three or more backticks or tildes (an opening
  backtick fence may not contain another backtick). It opens a code block that a line holding only a fence
  of the same character, at least as long, closes; unclosed, the block runs to the end. Fence lines and the
  lines between them are code. A `~~~` or backtick run in the middle of a line opens nothing.
- Units: consecutive non-blank lines outside code. A bullet line or a line starting with `#` starts a new
  unit; a heading-like line (`# Title`, a whole-line `**Bold**`, a line ending with `:`) ends its unit.
- Inline code: in a unit, a run of N backticks opens a code span only if a later run of exactly N backticks
  in the same unit closes it (the first such run does). A run with no closer is literal and hides nothing.

`Scanner` applies these rules incrementally: `push` text in any pieces, `finish` at the end. It reports each
bracket group outside code exactly once, as soon as nothing later can hide it, and it examines every
character a bounded number of times however the text is split, which is what makes batch validation
linear and streaming cost proportional to the new text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .handles import CLOSERS, OPENERS

Fence = tuple[str, int]  # (character, length) of the open fence

_INSIDE = "[^" + re.escape(OPENERS + CLOSERS) + "`\n]"
_TOKEN = re.compile(f"(?P<ticks>`+)|[{re.escape(OPENERS)}]{_INSIDE}*[{re.escape(CLOSERS)}]")
_OPEN_AT_END = re.compile(f"[{re.escape(OPENERS)}]{_INSIDE}*\\Z")
_INSIDE_RUN = re.compile(f"{_INSIDE}*")
_TICK_RUN = re.compile("`*")
_LEADING = re.compile(r"[ \t]*")
_FENCE_OPEN = re.compile(r"[ \t]*(`{3,}|~{3,})(.*)")
#: A list item's marker: a bullet, or a number of up to three digits with `.` or `)`. The one list-marker rule
#: (units, the sentence splitter, value extraction).
BULLET = re.compile(r"\s*(?:[-*+\u2022]|\d{1,3}[.)])\s+")
_HEADING_LINE = re.compile(r"\s*(?:#{1,6}[ \t]|\*\*[^*]+\*\*:?\s*$)|.*:\s*$")


def classify_line(line: str, fence: Fence | None) -> tuple[str, Fence | None]:
    """(kind, fence after this line). Kinds: fence (a fence line or code inside one), blank, bullet, hash,
    text."""
    if fence is not None:
        char, length = fence
        stripped = line.strip(" \t\r")
        if len(stripped) >= length and stripped == char * len(stripped):
            return "fence", None
        return "fence", fence
    m = _FENCE_OPEN.match(line)
    if m and not (m[1][0] == "`" and "`" in m[2]):
        return "fence", (m[1][0], len(m[1]))
    if not line.strip():
        return "blank", None
    if BULLET.match(line):
        return "bullet", None
    if line.lstrip().startswith("#"):
        return "hash", None
    return "text", None


def strip_bullet(text: str, replacement: str = "") -> str:
    """`text` without the list marker it opens with (replaced by `replacement`), if any."""
    m = BULLET.match(text)
    return replacement + text[m.end():] if m else text


def heading_like(line: str) -> bool:
    return _HEADING_LINE.match(line) is not None


class Units:
    """The unit rule, shared by the scanner and the sentence splitter: feed every line with its kind and
    offset; `spans` collects (start, end) of each unit, and `line` says whether this line ended the current
    unit ("end"), started a new one ("new"), continued it ("same") or was outside any ("none")."""

    def __init__(self) -> None:
        self.spans: list[tuple[int, int]] = []
        self._open = False
        self._heading = False

    def line(self, kind: str, line: str, start: int) -> str:
        if kind in ("fence", "blank"):
            was_open, self._open, self._heading = self._open, False, False
            return "end" if was_open else "none"
        end = start + len(line)
        if not self._open or kind in ("bullet", "hash") or self._heading:
            step = "new"
            self.spans.append((start, end))
        else:
            step = "same"
            self.spans[-1] = (self.spans[-1][0], end)
        self._open, self._heading = True, heading_like(line)
        return step


def units(text: str) -> list[tuple[int, int]]:
    """(start, end) of every unit, in order."""
    rule, fence, pos = Units(), None, 0
    for line in text.split("\n"):
        kind, fence = classify_line(line, fence)
        rule.line(kind, line, pos)
        pos += len(line) + 1
    return rule.spans


@dataclass(frozen=True)
class Ticks:
    start: int
    length: int


@dataclass(frozen=True)
class Group:
    """A bracket group on one line, brackets included, outside code."""

    start: int
    text: str


class _Spans:
    """Inline code spans of one unit, decided left to right. While a run of N backticks waits for its closer,
    what follows is held; the first later run of N backticks closes the span and drops what was held; if the
    unit ends first, the run was literal and the held events are decided again, now with the unit complete."""

    def __init__(self, emit: Callable[[Group], None]) -> None:
        self._emit = emit
        self.opener: int | None = None
        self._held: list[Ticks | Group] = []

    def event(self, ev: Ticks | Group) -> None:
        if self.opener is None:
            if isinstance(ev, Ticks):
                self.opener = ev.length
            else:
                self._emit(ev)
        elif isinstance(ev, Ticks) and ev.length == self.opener:
            self.opener, self._held = None, []
        else:
            self._held.append(ev)

    def end(self) -> None:
        held, self.opener, self._held = self._held, None, []
        closer: list[int | None] = [None] * len(held)
        later: dict[int, int] = {}
        for i in range(len(held) - 1, -1, -1):
            ev = held[i]
            if isinstance(ev, Ticks):
                closer[i] = later.get(ev.length)
                later[ev.length] = i
        i = 0
        while i < len(held):
            ev = held[i]
            if isinstance(ev, Group):
                self._emit(ev)
            elif closer[i] is not None:
                i = closer[i]  # type: ignore[assignment]
            i += 1


class Scanner:
    """Incremental bracket-group finder that respects fences, units and inline code (see the module doc)."""

    def __init__(self, emit: Callable[[Group], None]) -> None:
        self._spans = _Spans(emit)
        self._units = Units()
        self._fence: Fence | None = None
        self._length = 0
        self.work = 0  # characters handed to the matcher: the cost test checks it stays linear
        self._new_line(0)

    def _new_line(self, start: int) -> None:
        self._line_start = start
        self._pieces: list[str] = []
        self._mode: str | None = "hold" if self._fence is not None else None  # None: undecided
        self._key = ""  # first non-blank characters, until the mode is decided
        self._direct = self._spans.opener is None  # route events now (no span is waiting for a closer)
        self._events: list[Ticks | Group] = []
        self._pending: Ticks | list[Any] | None = None  # a tick run or an open bracket touching the end

    @property
    def units(self) -> list[tuple[int, int]]:
        """The units of the text so far (the last one may still grow)."""
        return self._units.spans

    def push(self, text: str) -> None:
        at = self._length
        self._length += len(text)
        lines = text.split("\n")
        for i, segment in enumerate(lines):
            if i:
                self._end_line()
                self._new_line(at)
            if i < len(lines) - 1 and not self._pieces:
                self._whole_line(segment, at)  # the common case in batch: a complete line in one piece
            elif segment:
                self._segment(segment, at)
            at += len(segment) + 1

    def finish(self) -> None:
        self._end_line()
        self._spans.end()
        self._new_line(self._length)

    # -- one line -------------------------------------------------------------------------------------

    def _segment(self, segment: str, at: int) -> None:
        self._pieces.append(segment)
        if self._mode is None:
            key = self._key
            if not key:
                skip = _LEADING.match(segment).end()  # type: ignore[union-attr]
                self.work += skip
                key = segment[skip: skip + 3]
            else:
                key = (key + segment[:3])[:3]
            self._key = key
            if key and (key[0] not in "`~" or key != key[0] * len(key)):
                self._mode = "text"  # cannot become a fence line: scan what we have of it
                line = "".join(self._pieces)
                self.work += len(line)
                self._scan(line, self._line_start)
            elif len(key) == 3:
                self._mode = "hold"  # a fence line, or a backtick line decided at its end
            return
        if self._mode == "text":
            self._scan(segment, at)

    def _whole_line(self, line: str, at: int) -> None:
        """A complete line seen at once: the same outcome as `_segment` + `_end_line`, with less book-keeping."""
        self.work += len(line)
        kind, self._fence = classify_line(line, self._fence)
        if self._units.line(kind, line, at) in ("end", "new"):
            self._spans.end()
        self._mode = "done"
        if kind != "fence":
            self._direct = True  # the unit step is settled: events can go out as they come
            self._scan(line, at)
            if isinstance(self._pending, Ticks):
                self._route(self._pending)
            self._pending = None

    def _end_line(self) -> None:
        if self._mode == "done":
            return
        line = "".join(self._pieces)
        self.work += len(line)
        kind, self._fence = classify_line(line, self._fence)
        if self._mode != "text" and kind != "fence":
            self._scan(line, self._line_start)
        if isinstance(self._pending, Ticks):
            self._route(self._pending)
        self._pending = None
        step = self._units.line(kind, line, self._line_start)
        if self._direct:
            return  # no span was waiting when the line began: its events went out as they came
        if step in ("end", "new"):
            self._spans.end()
        for ev in self._events:
            self._spans.event(ev)

    def _route(self, ev: Ticks | Group) -> None:
        if self._direct:
            self._spans.event(ev)
        else:
            self._events.append(ev)

    def _scan(self, segment: str, at: int) -> None:
        """Tokens of one piece of the current line, continuing a run or bracket left open by the last piece."""
        self.work += len(segment)
        i = 0
        pending = self._pending
        if isinstance(pending, Ticks):
            i = _TICK_RUN.match(segment).end()  # type: ignore[union-attr]
            if i == len(segment):
                self._pending = Ticks(pending.start, pending.length + i)
                return
            self._route(Ticks(pending.start, pending.length + i))
        elif pending is not None:
            i = _INSIDE_RUN.match(segment).end()  # type: ignore[union-attr]
            if i == len(segment):
                pending.append(segment)
                return
            if segment[i] in CLOSERS:
                i += 1
                self._route(Group(pending[0], "".join(pending[1:]) + segment[:i]))
        self._pending = None
        last = i
        for m in _TOKEN.finditer(segment, i):
            if m.lastgroup == "ticks":
                if m.end() == len(segment):
                    self._pending = Ticks(at + m.start(), m.end() - m.start())
                    return
                self._route(Ticks(at + m.start(), m.end() - m.start()))
            else:
                self._route(Group(at + m.start(), m.group()))
            last = m.end()
        end = _OPEN_AT_END.search(segment, last)
        if end:
            self._pending = [at + end.start(), end.group()]
