"""Render formats: how one source block looks, and how to read blocks back.

Every format opens and closes a block with a line or tag that carries the assembly's boundary, a code
derived from a keyed hash (see `boundary`), so record text, which cannot know the code, cannot close its
own block (the "delimiting" defence of spotlighting). `flat` is the exception on purpose: it reproduces the
failing pipeline (texts joined by newlines) as a baseline for measurement.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .fields import LABELS

FORMATS: tuple[str, ...] = ("text", "xml", "markdown", "json", "flat")
DATAMARK = "\u02c6"  # spotlighting's datamarking character (ˆ), interleaved through a record's spaces


@dataclass(frozen=True)
class Block:
    """A block read back from a prompt."""

    handle: str
    header: str
    text: str


def header_segment(fmt: str, name: str, value: str) -> str:
    """One field as it appears in a header; also what the per-field token accounting counts."""
    label = LABELS.get(name, name)
    if fmt == "xml":
        return f' {_xml_name(label)}="{_xml_escape(value)}"'
    if fmt == "json":
        return f"{json.dumps(label)}: {json.dumps(value, ensure_ascii=False)}, "
    if name == "doc":
        return f"doc: {value}"
    if name == "section":
        return f"\u00a7{value}"
    if name == "date":
        return value
    return f"{label}: {value}"


def render_block(fmt: str, handle: str, fields: Sequence[tuple[str, str]], body: str, boundary: str) -> str:
    """One source block. `fields` and `body` must already be neutralised."""
    if fmt == "flat":
        return body
    segments = [header_segment(fmt, name, value) for name, value in fields]
    if fmt == "text":
        header = f"[{handle}] ({' · '.join(segments)})" if segments else f"[{handle}]"
        return f"<<<{boundary} BEGIN {handle}>>>\n{header}\n{body}\n<<<{boundary} END {handle}>>>"
    if fmt == "xml":
        return f'<source_{boundary} id="{handle}"{"".join(segments)}>\n{body}\n</source_{boundary}>'
    if fmt == "markdown":
        header = f"**[{handle}]** " + " · ".join(segments) if segments else f"**[{handle}]**"
        return f"<!-- {boundary} begin {handle} -->\n{header}\n{body}\n<!-- {boundary} end {handle} -->"
    if fmt == "json":
        obj = {"handle": handle, **{LABELS.get(n, n): v for n, v in fields}, "text": body}
        return (f"<<<{boundary} BEGIN {handle}>>>\n{json.dumps(obj, ensure_ascii=False)}\n"
                f"<<<{boundary} END {handle}>>>")
    raise ValueError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")


def read_blocks(prompt: str, boundary: str, fmt: str) -> list[Block]:
    """Parse the blocks of a rendered prompt, knowing its boundary. Used by tests and by callers who
    post-process a prompt; `flat` has no blocks to read."""
    b = re.escape(boundary)
    if fmt in ("text", "json"):
        pattern = rf"<<<{b} BEGIN (\w+)>>>\n([^\n]*)\n(.*?)\n?<<<{b} END \1>>>"
        if fmt == "json":
            pattern = rf"<<<{b} BEGIN (\w+)>>>\n()(.*?)\n<<<{b} END \1>>>"
    elif fmt == "xml":
        pattern = rf'<source_{b} id="(\w+)"([^\n]*)>\n(.*?)\n</source_{b}>'
    elif fmt == "markdown":
        pattern = rf"<!-- {b} begin (\w+) -->\n([^\n]*)\n(.*?)\n?<!-- {b} end \1 -->"
    else:
        raise ValueError(f"format {fmt!r} has no blocks to read")
    blocks = []
    for m in re.finditer(pattern, prompt, re.DOTALL):
        handle, header, body = m.group(1), m.group(2), m.group(3)
        if fmt == "json":
            obj = json.loads(body)
            header, body = json.dumps({k: v for k, v in obj.items() if k != "text"}), obj["text"]
        blocks.append(Block(handle, header, body))
    return blocks


def datamark(text: str, marker: str = DATAMARK) -> str:
    """Spotlighting's datamarking: interleave a marker through the text's spaces, so the model can tell
    record text from instructions at every word (costs roughly one extra token per space)."""
    return re.sub(r"[ ]+", marker, text)


def _xml_escape(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _xml_name(label: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", label)
    return name if name[:1].isalpha() or name[:1] == "_" else f"_{name}"
