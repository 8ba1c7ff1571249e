"""Link resolution: turn valid handles into links or footnotes from the manifest's own fields.

Only the manifest's `url` (and only an http(s) one), `doc` and `section` are used; text from the answer or
from a record never becomes a link target, and an item that supports nothing is left exactly as written.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from ..errors import CitationInputError
from .model import Citation, Verdict
from .severities import QUIET
from .source import Source, SourceIndex, read_assembly
from .validate import Embed, validate_citations

_SAFE_URL = re.compile(r"https?://[^\s<>()\[\]\"']+")
# Where an attributed source goes: before the sentence's closing punctuation (and quotes or brackets).
_TRAILING = re.compile(r"[.!?\u3002]+[\"'\u201d\u2019)\]]*$")


def resolve(answer: str, assembly: Any, *, style: Literal["links", "footnotes"] = "links",
            attribute: bool = False, embed: Embed | None = None) -> str:
    """The answer with each valid handle as a Markdown link (`[S1](url)`, or `[S1: Doc, §5.2]` without a
    URL) or a numbered footnote with the notes appended. With `attribute=True`, a stating sentence without a
    valid citation gets the sources attributed to it, marked as such: `(attributed: [S2](url))` before its
    full stop, or a footnote whose note ends "(attributed)"."""
    if style not in ("links", "footnotes"):
        raise CitationInputError(f"style must be links or footnotes, got {style!r}")
    index = read_assembly(assembly)
    verdict = validate_citations(answer, index, severities=QUIET, attribute=attribute, embed=embed)
    edits = _edits(verdict, index)
    text, numbers, notes_for = _rewrite(answer, edits, index, style)
    if style == "footnotes" and numbers:
        text = text.rstrip("\n") + "\n\n" + _footnotes(numbers, notes_for, index) + "\n"
    return text


_Edit = tuple[int, int, list[tuple[str, bool]]]  # (start, end, [(handle or spelling, valid)]); start == end: attributed


def _edits(verdict: Verdict, index: SourceIndex) -> list[_Edit]:
    """Each citation group that resolves to something, and an insertion for each attributed sentence, in order."""
    edits: list[_Edit] = []
    groups: dict[tuple[int, int], list[Citation]] = {}
    for c in verdict.citations:
        groups.setdefault((c.start, c.end), []).append(c)
    for (start, end), members in groups.items():
        if any(c.record_id is not None for c in members):  # else nothing to resolve: leave it as written
            edits.append((start, end, [(index.handle_of[c.record_id], True) if c.record_id is not None
                                       else (c.handle, False) for c in members]))
    attributed: dict[int, tuple[str, ...]] = {s.sentence: s.handles for s in verdict.support
                                              if not s.written and s.handles}
    for s in verdict.sentences:
        if s.index in attributed:
            at = s.start + len(_TRAILING.split(s.text.rstrip(), maxsplit=1)[0])
            edits.append((at, at, [(h, True) for h in attributed[s.index]]))
    edits.sort(key=lambda e: (e[0], e[1]))
    return edits


def _rewrite(answer: str, edits: list[_Edit], index: SourceIndex, style: str
             ) -> tuple[str, dict[str, int], dict[str, bool]]:
    """The answer with the edits applied; the footnote number of each handle; whether the model cited it."""
    numbers: dict[str, int] = {}
    notes_for: dict[str, bool] = {}  # handle -> cited by the model somewhere (False: only attributed)
    out, last = [], 0
    for start, end, items in edits:
        guess = start == end
        if start < last:  # never inside text already rewritten
            continue
        parts = []
        for handle, valid in items:
            if not valid:
                parts.append(f"[{handle}]")
                continue
            source = index.sources[handle]
            n = numbers.setdefault(source.handle, len(numbers) + 1)
            notes_for[handle] = notes_for.get(handle, False) or not guess
            parts.append(_link(source, n, style))
        out.append(answer[last:start])
        if guess and style != "footnotes":
            out.append(f" (attributed: {', '.join(parts)})")
        else:
            out.append("".join(parts))
        last = end
    out.append(answer[last:])
    return "".join(out), numbers, notes_for


def _link(source: Source, n: int, style: str) -> str:
    if style == "footnotes":
        return f"[^{n}]"
    url = safe_url(source.url)
    return f"[{source.handle}]({url})" if url else f"[{source.handle}: {label(source)}]"


def _footnotes(numbers: dict[str, int], notes_for: dict[str, bool], index: SourceIndex) -> str:
    notes = []
    for handle, n in numbers.items():
        source = index.sources[handle]
        url = safe_url(source.url)
        notes.append(f"[^{n}]: {label(source)}" + (f" <{url}>" if url else "")
                     + ("" if notes_for[handle] else " (attributed)"))
    return "\n".join(notes)


def label(source: Source) -> str:
    parts = [source.doc or source.id]
    if source.section:
        parts.append(f"\u00a7{source.section}")
    return re.sub(r"[\[\]()<>\n]", " ", ", ".join(parts)).strip()


def safe_url(url: Any) -> str | None:
    return url if isinstance(url, str) and _SAFE_URL.fullmatch(url) else None
