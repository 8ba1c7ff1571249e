"""Link resolution: turn valid handles into links or footnotes from the manifest's own fields.

Only the manifest's `url` (and only an http(s) one), `doc` and `section` are used; text from the answer or
from a record never becomes a link target, and an item that supports nothing is left exactly as written.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from ..errors import CitationInputError
from .model import Citation
from .source import Source, read_assembly
from .validate import validate_citations

_SAFE_URL = re.compile(r"https?://[^\s<>()\[\]\"']+")


def resolve(answer: str, assembly: Any, *, style: Literal["links", "footnotes"] = "links") -> str:
    """The answer with each valid handle as a Markdown link (`[S1](url)`, or `[S1: Doc, §5.2]` without a
    URL) or a numbered footnote with the notes appended."""
    if style not in ("links", "footnotes"):
        raise CitationInputError(f"style must be links or footnotes, got {style!r}")
    index = read_assembly(assembly)
    verdict = validate_citations(answer, index, uncited="off", stale_only="off")
    groups: dict[tuple[int, int], list[Citation]] = {}
    for c in verdict.citations:
        groups.setdefault((c.start, c.end), []).append(c)
    numbers: dict[str, int] = {}
    out, last = [], 0
    for (start, end), members in groups.items():
        if all(c.record_id is None for c in members):
            continue  # nothing to resolve: leave the group exactly as written
        parts = []
        for c in members:
            if c.record_id is None:
                parts.append(f"[{c.handle}]")
                continue
            source = index.sources[index.handle_of[c.record_id]]
            n = numbers.setdefault(source.handle, len(numbers) + 1)
            url = safe_url(source.url)
            if style == "footnotes":
                parts.append(f"[^{n}]")
            else:
                parts.append(f"[{source.handle}]({url})" if url else f"[{source.handle}: {label(source)}]")
        out.append(answer[last:start])
        out.append("".join(parts))
        last = end
    out.append(answer[last:])
    text = "".join(out)
    if style == "footnotes" and numbers:
        notes = []
        for handle, n in numbers.items():
            source = index.sources[handle]
            url = safe_url(source.url)
            notes.append(f"[^{n}]: {label(source)}" + (f" <{url}>" if url else ""))
        text = text.rstrip("\n") + "\n\n" + "\n".join(notes) + "\n"
    return text


def label(source: Source) -> str:
    parts = [source.doc or source.id]
    if source.section:
        parts.append(f"\u00a7{source.section}")
    return re.sub(r"[\[\]()<>\n]", " ", ", ".join(parts)).strip()


def safe_url(url: Any) -> str | None:
    return url if isinstance(url, str) and _SAFE_URL.fullmatch(url) else None
