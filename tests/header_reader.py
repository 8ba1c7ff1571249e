"""Read a rendered block header back the way a model would, and report the closed-vocabulary values it shows.

A model does not run our parser: it reads the header as text. This reader imitates a careful but literal
reader: it folds look-alikes (NFKC + casefold, zero-width and direction marks removed), takes a double-quoted
span as one opaque name, splits the rest on anything that looks like the separator, and then looks for
`label:` prefixes and the status words of the closed vocabularies (authority, validity, sensitivity) in what
is left. Whatever it finds is what the header claims; a forgery is a claim the record does not make.

For xml and json the reader uses the format's own syntax (attributes, keys), plus a check that no value can
end its quotes (`&quot;` in XML, `\\"` in JSON), since a model may read those as quotes.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence

AUTHORITY_WORDS = ("authoritative", "informal", "superseded")
SENSITIVITY_WORDS = ("public", "internal", "confidential", "restricted")
_DATE = r"\d{4}-\d{2}-\d{2}(?:[t ][0-9:.+\-z]*)?"
VALIDITY = re.compile(rf"\bcurrent\b|\bexpired(?: since {_DATE})?|\bnot (?:yet )?valid(?: until {_DATE})?")
AUTHORITY = re.compile(r"\b(" + "|".join(AUTHORITY_WORDS) + r")\b")
SENSITIVITY = re.compile(r"\b(" + "|".join(SENSITIVITY_WORDS) + r")\b")
#: Everything a reader could take for the separator ` · ` (the renderer's list plus a few more).
SEPARATORS = re.compile("[\u00b7\u0387\u1427\u16eb\u2022\u2023\u2027\u2043\u2219\u22c5\u25cf\u25e6\u2981\u2e31"
                        "\u2e33\u30fb\uff65\ua78f\U00010101|]")
_INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e"
                        "\u2060-\u2064\u2066-\u206f\ufeff]")
QUOTED = re.compile(r'"[^"]*"')
CLOSED = ("authority", "validity", "sensitivity")


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", _INVISIBLE.sub("", text)).casefold()


def _claims(segment: str, found: dict[str, list[str]]) -> None:
    """Status words in one unquoted segment, each counted once for the field its vocabulary belongs to."""
    rest = segment
    for m in VALIDITY.finditer(rest):
        found["validity"].append(m.group(0))
    rest = VALIDITY.sub(" ", rest)
    found["authority"] += AUTHORITY.findall(rest)
    found["sensitivity"] += SENSITIVITY.findall(rest)


def read_line_header(header: str) -> tuple[dict[str, list[str]], list[str]]:
    """compact, text and markdown: the closed values a reader finds, and the unquoted segments in order."""
    assert header.count('"') % 2 == 0, f"unbalanced quotes in {header!r}"
    assert '\\"' not in header, f"a quote that reads as escaped in {header!r}"
    text = re.sub(r"^\*\*\[\w+\]\*\* ?|^\[\w+\] ?\(|\)$", "", header)  # the handle and brackets (text, markdown)
    text = fold(QUOTED.sub('"_"', text))
    found: dict[str, list[str]] = {name: [] for name in CLOSED}
    segments = [s.strip() for s in SEPARATORS.split(text)]
    for segment in segments:
        m = re.match(r"([^\s:]+)\s*:\s*(.*)", segment)
        if m and m.group(1) not in CLOSED:
            # `doc: "…"`, `topic: "…"`, `metadata.validity: "…"`: any claim must sit outside the quotes
            segment = m.group(2)
        elif m:
            segment = m.group(2)
        _claims(segment, found)
    return found, segments


def read_attr_header(header: str) -> dict[str, list[str]]:
    """xml: every attribute, each one value; no character outside `name="value"` pairs but spaces."""
    assert "&quot;" not in header and "&#" not in header, header
    pairs = re.findall(r'\s*([^\s=]+)="([^"]*)"', header)
    assert re.sub(r'\s*([^\s=]+)="([^"]*)"', "", header).strip() == "", header
    names = [fold(n) for n, _ in pairs]
    assert len(names) == len(set(names)), f"duplicate attribute in {header!r}"
    return {name: [fold(v) for n, v in pairs if fold(n) == name] for name in CLOSED}


def read_json_header(header: str) -> dict[str, list[str]]:
    """json: the keys, read with duplicates visible; no value holds an escaped quote."""
    pairs = json.loads(header, object_pairs_hook=lambda kv: kv)
    assert not any('"' in str(v) for _, v in pairs), header
    names = [fold(k) for k, _ in pairs]
    assert len(names) == len(set(names)), f"duplicate key in {header!r}"
    return {name: [fold(str(v)) for k, v in pairs if fold(k) == name] for name in CLOSED}


def read_header(fmt: str, header: str) -> dict[str, list[str]]:
    """The closed values a header shows, per field (a list: a forged duplicate shows as a second entry)."""
    if fmt == "xml":
        return read_attr_header(header)
    if fmt == "json":
        return read_json_header(header)
    return read_line_header(header)[0]


def expected(shown: Sequence[tuple[str, str]]) -> dict[str, list[str]]:
    """What the header should claim, from the record's real closed values `(field, value)`."""
    out: dict[str, list[str]] = {name: [] for name in CLOSED}
    for name, value in shown:
        out[name].append(fold(value))
    return out
