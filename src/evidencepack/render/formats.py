"""Render formats: how one source block looks, and how to read blocks back.

Every delimited format opens and closes a block with a line or tag that carries the assembly's boundary, a
code derived from a keyed hash (see `prompts.boundary_code`), so record text, which cannot know the code,
cannot close its own block (the "delimiting" defence of spotlighting). `flat` is the exception on purpose: it
reproduces the failing pipeline (texts joined by newlines) as a baseline for measurement.

Formats live in one registry. Everything that depends on a format reads it from here: the options check and
CLI choices (`FORMATS`), the neutraliser's list of delimiters a record may not contain (`delimiter_pattern`),
the block reader (`read_blocks`) and whether a format carries metadata at all (`has_blocks`). A format added
with `register_format` therefore cannot skip neutralisation or reading.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..errors import OptionError
from .fields import CLOSED, is_free_text, label

DATAMARK = "\u02c6"  # spotlighting's datamarking character (ˆ), interleaved through a record's spaces
Fields = Sequence[tuple[str, str]]


@dataclass(frozen=True)
class Block:
    """A block read back from a prompt."""

    handle: str
    header: str
    text: str


@dataclass(frozen=True)
class Format:
    """One block format. `render(handle, fields, body, boundary)` returns the block; `block_pattern(b)` is a
    regex (groups: handle, header, body) that reads blocks back given the escaped boundary; `delimiters` is a
    regex of the structural tokens record text must never contain (the neutraliser defuses them)."""

    name: str
    render: Callable[[str, Fields, str, str], str]
    segment: Callable[[str, str], str]
    block_pattern: Callable[[str], str] | None
    delimiters: str
    separator: str = "\n\n"
    #: Characters a delimiter can start with (the neutraliser looks for structure only there); derived from
    #: `delimiters` when every alternative starts with a literal character.
    delimiter_starts: str = ""

    def __post_init__(self) -> None:
        if self.delimiters and not self.delimiter_starts:
            starts = _literal_starts(self.delimiters)
            if starts is None:
                raise OptionError(f"format {self.name!r}: give delimiter_starts, the characters its delimiters "
                                  "can start with")
            object.__setattr__(self, "delimiter_starts", starts)

    @property
    def has_blocks(self) -> bool:
        """False for the flat baseline: no handles, no headers, no metadata."""
        return self.block_pattern is not None


_REGISTRY: dict[str, Format] = {}


def register_format(fmt: Format) -> Format:
    _REGISTRY[fmt.name] = fmt
    _delimiters.cache_clear()
    return fmt


def get_format(name: str) -> Format:
    found = _REGISTRY.get(name) if isinstance(name, str) else None
    if found is None:
        raise OptionError(f"unknown format {name!r} (one of {', '.join(_REGISTRY)})")
    return found


def delimiter_pattern() -> str:
    """Every registered format's delimiters, as one alternation for the neutraliser."""
    return _delimiters(len(_REGISTRY))[0]


def delimiter_starts() -> str:
    """Every character a registered format's delimiter can start with (folded, as the neutraliser sees it)."""
    return _delimiters(len(_REGISTRY))[1]


@lru_cache(maxsize=1)
def _delimiters(registered: int) -> tuple[str, str]:
    """Computed once per registry state (cleared by `register_format`, keyed on its size for removals)."""
    pattern = "|".join(dict.fromkeys(f.delimiters for f in _REGISTRY.values() if f.delimiters))
    return pattern, "".join(sorted({c for f in _REGISTRY.values() for c in f.delimiter_starts.casefold()}))


def _literal_starts(delimiters: str) -> str | None:
    """The first character of each top-level alternative, or None when one does not start with a literal."""
    starts = []
    for alternative in re.split(r"(?<!\\)\|", delimiters):
        first = alternative[:1]
        if first in ("", "\\", "(", "[", ".", "^", "$", "?", "*", "+", "{"):
            return None
        starts.append(first)
    return "".join(starts)


def _quoted(name: str, value: str) -> str:
    """Free text in double quotes (it holds none: `fields.escape_free_text`); closed values and dates bare."""
    return f'"{value}"' if is_free_text(name) else value


def _text_segment(name: str, value: str) -> str:
    """`authority: informal`, `doc: "Handbook"`, `§"5.2 PTO"`, a bare date: every field labelled or signed,
    every free-text value quoted."""
    if name == "section":
        return f'\u00a7"{value}"'
    if name == "date":
        return value
    return f"{label(name)}: {_quoted(name, value)}"


def _text(handle: str, fields: Fields, body: str, boundary: str) -> str:
    segments = [_text_segment(n, v) for n, v in fields]
    header = f"[{handle}] ({' · '.join(segments)})" if segments else f"[{handle}]"
    return f"<<<{boundary} BEGIN {handle}>>>\n{header}\n{body}\n<<<{boundary} END {handle}>>>"


def _xml_segment(name: str, value: str) -> str:
    return f' {_xml_name(label(name))}="{_xml_escape(value)}"'


def _xml(handle: str, fields: Fields, body: str, boundary: str) -> str:
    attrs = "".join(_xml_segment(n, v) for n, v in fields)
    return f'<source_{boundary} id="{handle}"{attrs}>\n{body}\n</source_{boundary}>'


def _markdown(handle: str, fields: Fields, body: str, boundary: str) -> str:
    segments = [_text_segment(n, v) for n, v in fields]
    header = f"**[{handle}]** " + " · ".join(segments) if segments else f"**[{handle}]**"
    return f"<!-- {boundary} begin {handle} -->\n{header}\n{body}\n<!-- {boundary} end {handle} -->"


def _json_segment(name: str, value: str) -> str:
    return f"{json.dumps(label(name))}: {json.dumps(value, ensure_ascii=False)}, "


def _json(handle: str, fields: Fields, body: str, boundary: str) -> str:
    obj = {"handle": handle, **{label(n): v for n, v in fields}, "text": body}
    return f"<<<{boundary} BEGIN {handle}>>>\n{json.dumps(obj, ensure_ascii=False)}\n<<<{boundary} END {handle}>>>"


def _compact_segment(name: str, value: str) -> str:
    """Closed values (`informal`, `EXPIRED since 2025-01-01`, `internal`) and the date go bare: their words
    are a closed set, and no free-text value can take that form, because every free-text value is quoted:
    the document and source bare in quotes, the section after its sign, custom fields after their label."""
    if name in CLOSED or name == "date":
        return value
    if name == "section":
        return f'\u00a7"{value}"'
    if name in ("doc", "source_system"):
        return f'"{value}"'
    return f"{label(name)}: {_quoted(name, value)}"


def _compact(handle: str, fields: Fields, body: str, boundary: str) -> str:
    """The `text` block with the header folded into the BEGIN line and unlabelled where the value speaks for
    itself, and no handle on the END line (the keyed code alone closes a block: record text cannot know it).
    The two lines that must carry the boundary still do; blocks are separated by one line break."""
    header = " · ".join(_compact_segment(n, v) for n, v in fields)
    return f"<<<{boundary} BEGIN {handle}>>>{' ' + header if header else ''}\n{body}\n<<<{boundary} END>>>"


def _flat(handle: str, fields: Fields, body: str, boundary: str) -> str:
    return body


_ANGLE = r"<<<|>>>"
register_format(Format("text", _text, _text_segment,
                       lambda b: rf"<<<{b} BEGIN (\w+)>>>\n([^\n]*)\n(.*?)\n?<<<{b} END \1>>>", _ANGLE))
register_format(Format("xml", _xml, _xml_segment,
                       lambda b: rf'<source_{b} id="(\w+)"([^\n]*)>\n(.*?)\n</source_{b}>',
                       r"<\s*(?:/\s*)?sources?(?=[\s_>-])"))
register_format(Format("markdown", _markdown, _text_segment,
                       lambda b: rf"<!-- {b} begin (\w+) -->\n([^\n]*)\n(.*?)\n?<!-- {b} end \1 -->", r"<!--|-->"))
register_format(Format("json", _json, _json_segment,
                       lambda b: rf"<<<{b} BEGIN (\w+)>>>\n()(.*?)\n<<<{b} END \1>>>", _ANGLE))
register_format(Format("compact", _compact, _compact_segment,
                       lambda b: rf"<<<{b} BEGIN (\w+)>>> ?([^\n]*)\n(.*?)\n?<<<{b} END>>>", _ANGLE,
                       separator="\n"))
register_format(Format("flat", _flat, _text_segment, None, "", separator="\n"))

FORMATS: tuple[str, ...] = tuple(_REGISTRY)


def header_segment(fmt: str, name: str, value: str) -> str:
    """One field as it appears in a header; also what the per-field token accounting counts."""
    return get_format(fmt).segment(name, value)


def render_block(fmt: str, handle: str, fields: Fields, body: str, boundary: str) -> str:
    """One source block. `fields` and `body` must already be neutralised."""
    return get_format(fmt).render(handle, fields, body, boundary)


def read_blocks(prompt: str, boundary: str, fmt: str) -> list[Block]:
    """Parse the blocks of a rendered prompt, knowing its boundary. Used by tests and by callers who
    post-process a prompt; a format without blocks (`flat`) has none to read."""
    spec = get_format(fmt)
    if spec.block_pattern is None:
        raise OptionError(f"format {fmt!r} has no blocks to read")
    blocks = []
    for m in re.finditer(spec.block_pattern(re.escape(boundary)), prompt, re.DOTALL):
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
