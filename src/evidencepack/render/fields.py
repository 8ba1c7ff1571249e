"""Field profiles: which metadata a block header carries, and in what form.

More fields per block is a longer prompt, and length itself costs attention, so a profile names only the
fields that change the answer for a kind of corpus. `policy` is for corpora where guidance goes stale,
`reference` for static corpora where nothing expires, `minimal` when only attribution matters. A custom
profile is any list of field names, including keys of a record's `metadata`.

The model is told to trust authority and validity, so no record author may be able to write them. The fields
that decide (`CLOSED`: authority, validity, sensitivity) come from closed vocabularies and the assembler's own
clock; they are rendered first, in a fixed order, unquoted. Every free-text value (doc, section, source, url,
topic, any metadata key) is rendered quoted, and `escape_free_text` makes sure it cannot end its quotes or
imitate a header: NFKC first (so full-width and other compatibility look-alikes become plain characters),
then every double-quote look-alike becomes `'` (a trailing backslash `/`), every separator look-alike
(`·`, `•`, `・`, `∙`, …) becomes `-`, and a field label followed by a colon (`authority:`, `validity：`)
loses the colon. A status word inside quotes is a name, not a status.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence

from ..errors import OptionError
from ..records.candidates import Candidate, status_text

PROFILES: dict[str, tuple[str, ...]] = {
    "policy": ("doc", "section", "date", "source_system", "authority", "status", "sensitivity"),
    "reference": ("doc", "section", "date"),
    "minimal": ("doc",),
}
#: How each field is labelled in a header (the text format writes `doc` and `section` its own way).
LABELS = {"source_system": "source", "status": "validity"}
#: The fields a record author cannot write: closed vocabularies, or computed at `as_of`. First, in this order.
CLOSED: tuple[str, ...] = ("authority", "status", "sensitivity")
#: Parsed dates: the assembler writes them in ISO form, so no record text reaches them; rendered unquoted.
DATES: tuple[str, ...] = ("date", "valid_from", "valid_until")
BUILT_IN: tuple[str, ...] = ("doc", "section", "url", "source_system", "topic", *CLOSED, *DATES)
#: Labels a custom field may not take (it would pass for a built-in field, or the JSON format's own keys).
_RESERVED = frozenset({*(LABELS.get(n, n) for n in BUILT_IN), "handle", "text", "id", "source_system"})
#: Display width cap of a free-text value (as `neutralise_value`), re-applied because NFKC can lengthen it.
MAX_VALUE_CHARS = 160
#: What reads as a double quote (after NFKC): it would end the quotes around a free-text value.
QUOTE_LOOKALIKES = '"\u201c\u201d\u201e\u201f\u2032\u2035\u02ba\u02dd\u05f4\u275d\u275e\u2760\u2e42\u3003\u301d\u301e' \
    "\u301f\U0001f676\U0001f677\U0001f678"
#: What reads as the header separator ` · ` (after NFKC, which already maps U+0387 and U+FF65 here).
SEPARATOR_LOOKALIKES = ("\u00b7\u1427\u16eb\u2022\u2023\u2027\u2043\u2219\u22c5\u25cf\u25e6\u2981\u2e31"
                        "\u2e33\u30fb\ua78f\U00010101")
_ESCAPES = str.maketrans({**dict.fromkeys(map(ord, QUOTE_LOOKALIKES), "'"),
                          **dict.fromkeys(map(ord, SEPARATOR_LOOKALIKES), "-")})
#: A header label (any built-in one) followed by a colon or a colon look-alike.
_COLONS = ":\u02d0\u02f8\u0703\u0704\u1365\u1804\u2236\u2982\u2af6\ua789"
_LABEL_COLON = re.compile(r"\b(" + "|".join(sorted(_RESERVED | {"status", "validity"}, key=len, reverse=True))
                          + rf")(\s*)[{_COLONS}]", re.IGNORECASE)


def is_free_text(name: str) -> bool:
    """Whether a field's value is free text a record author wrote (rendered quoted and escaped)."""
    return name not in CLOSED and name not in DATES


def header_order(profile: Sequence[str]) -> tuple[str, ...]:
    """The closed-vocabulary fields first, in `CLOSED` order, then the rest in the profile's order: the
    fields that decide are where a reader looks first, and no free-text value precedes them."""
    return (*(n for n in CLOSED if n in profile), *(n for n in profile if n not in CLOSED))


def label(name: str) -> str:
    """A field's label. A custom field whose label would pass for a built-in one (`source`, `validity`,
    `handle`) is labelled `metadata.<key>`, so a metadata value can never render as a built-in field."""
    if name in BUILT_IN:
        return LABELS.get(name, name)
    key = name.removeprefix("metadata.")
    folded = unicodedata.normalize("NFKC", key).casefold().strip()
    return f"metadata.{key}" if folded in _RESERVED or name.startswith("metadata.") else key


def escape_free_text(value: str) -> str:
    """A neutralised free-text value made unable to end its quotes or imitate a header (see module doc)."""
    if not value.isascii():
        value = unicodedata.normalize("NFKC", value)
        if len(value) > MAX_VALUE_CHARS:
            value = value[: MAX_VALUE_CHARS - 1].rstrip() + "\u2026"
    value = _LABEL_COLON.sub(r"\1", value.translate(_ESCAPES))
    if value.endswith("\\"):  # `"C:\\dir\\"` would read as an escaped quote that does not close the value
        value = value.rstrip("\\") + "/"
    return value


def resolve_profile(profile: str | Sequence[str]) -> tuple[str, ...]:
    if isinstance(profile, str):
        if profile not in PROFILES:
            raise OptionError(f"unknown field profile {profile!r} (one of {', '.join(PROFILES)}, "
                              "or a list of field names)")
        return PROFILES[profile]
    fields = tuple(profile)
    if not all(isinstance(f, str) and f for f in fields):
        raise OptionError(f"a custom profile is a list of field names, got {profile!r}")
    return fields


def field_value(cand: Candidate, name: str) -> str | None:
    """The raw (not yet neutralised) value of one header field, or None when the record has none."""
    record = cand.record
    if name == "status":
        return status_text(cand)
    if name == "authority":
        return None if record.authority == "unknown" else record.authority
    if name in ("date", "valid_from", "valid_until"):
        value = getattr(record, name)
        return value.isoformat() if value is not None else None
    if name in ("doc", "section", "url", "source_system", "topic", "sensitivity"):
        found: str | None = getattr(record, name)
        return found
    key = name.removeprefix("metadata.")
    if key not in record.metadata:
        return None
    value = record.metadata[key]
    if value is None:
        return None
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except TypeError:  # keys of mixed types cannot be sorted
        return json.dumps(value, ensure_ascii=False, default=str)
    except (RecursionError, ValueError):  # too deeply nested, or circular
        return f"[{type(value).__name__} value not shown: too deeply nested or circular]"
