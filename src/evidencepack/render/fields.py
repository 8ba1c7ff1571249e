"""Field profiles: which metadata a block header carries.

More fields per block is a longer prompt, and length itself costs attention, so a profile names only the
fields that change the answer for a kind of corpus. `policy` is for corpora where guidance goes stale,
`reference` for static corpora where nothing expires, `minimal` when only attribution matters. A custom
profile is any list of field names, including keys of a record's `metadata`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..records.candidates import Candidate, status_text

PROFILES: dict[str, tuple[str, ...]] = {
    "policy": ("doc", "section", "date", "source_system", "authority", "status", "sensitivity"),
    "reference": ("doc", "section", "date"),
    "minimal": ("doc",),
}
#: How each field is labelled in a header (the text format writes `doc` and `section` its own way).
LABELS = {"source_system": "source", "status": "validity"}


def resolve_profile(profile: str | Sequence[str]) -> tuple[str, ...]:
    if isinstance(profile, str):
        if profile not in PROFILES:
            raise ValueError(f"unknown field profile {profile!r} (one of {', '.join(PROFILES)}, "
                             "or a list of field names)")
        return PROFILES[profile]
    fields = tuple(profile)
    if not all(isinstance(f, str) and f for f in fields):
        raise ValueError(f"a custom profile is a list of field names, got {profile!r}")
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
