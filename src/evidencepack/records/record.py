"""A record: one retrieved chunk with its provenance and policy metadata, validated once at the boundary.

`Record` checks every field when it is built (`Record.from_dict` builds one from a plain dict, keeping unknown
keys in `metadata`). Parsing is strict: a bad record raises `RecordError` naming the line (JSONL) or the record
id and the field, never the value. Nothing is coerced silently. The field vocabularies (`AUTHORITIES`,
`SENSITIVITIES`, `KNOWN_FIELDS`) and the small readers the ranking and the passes share (`read_sensitivity`,
`parse_when`, `finite_number`, `strictly_before`, `bare_message`) live here too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any, Literal

from ..errors import RecordError

Authority = Literal["authoritative", "informal", "superseded", "unknown"]


Sensitivity = Literal["public", "internal", "confidential", "restricted"]


AUTHORITIES: tuple[str, ...] = ("authoritative", "informal", "superseded", "unknown")


#: Ordered from least to most sensitive; a caller cleared for a level sees that level and below.
SENSITIVITIES: tuple[str, ...] = ("public", "internal", "confidential", "restricted")


STRING_FIELDS = ("doc", "section", "url", "source_system", "topic")


DATE_FIELDS = ("date", "valid_from", "valid_until")


KNOWN_FIELDS = frozenset(
    ("id", "text", "score", "rank", "authority", "sensitivity", "metadata", "embedding")
    + STRING_FIELDS + DATE_FIELDS
)


UNPRINTABLE_ID = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


When = date | datetime


@dataclass(frozen=True)
class Record:
    """One retrieved chunk. Construct directly, or parse dicts with `parse_records` / `load_jsonl`."""

    id: str
    text: str
    score: float | None = None
    rank: int | None = None
    doc: str | None = None
    section: str | None = None
    date: When | None = None
    url: str | None = None
    source_system: str | None = None
    authority: Authority = "unknown"
    sensitivity: Sensitivity = "internal"
    valid_from: When | None = None
    valid_until: When | None = None
    topic: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    embedding: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        _check_record(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, line: int | None = None) -> Record:
        """Build a record from a plain dict; unknown top-level keys are kept in `metadata`."""
        if not isinstance(data, Mapping):
            raise RecordError(f"a record must be a JSON object, got {type(data).__name__}", line=line)
        record_id = data.get("id")
        shown_id = record_id if isinstance(record_id, str) else None
        try:
            return cls(**_fields_from_dict(data, shown_id, line))
        except RecordError as err:
            if err.line is None and line is not None:
                raise RecordError(bare_message(err), record_id=err.record_id, field=err.field,
                                  line=line) from None
            raise

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (dates in ISO form); the inverse of `from_dict`."""
        out: dict[str, Any] = {"id": self.id, "text": self.text}
        for name in ("score", "rank", *STRING_FIELDS):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        out["authority"] = self.authority
        out["sensitivity"] = self.sensitivity
        for name in DATE_FIELDS:
            value = getattr(self, name)
            if value is not None:
                out[name] = value.isoformat()
        if self.metadata:
            out["metadata"] = dict(self.metadata)
        if self.embedding is not None:
            out["embedding"] = list(self.embedding)
        return out


def bare_message(err: RecordError) -> str:
    """The message without its "line …, record …, field …: " prefix, to re-raise or report it elsewhere."""
    text = str(err)
    return text.split(": ", 1)[1] if ": " in text and (err.record_id or err.field) else text


def _fields_from_dict(data: Mapping[str, Any], rid: str | None, line: int | None) -> dict[str, Any]:
    if "id" not in data:
        raise RecordError("missing required field", field="id", line=line)
    if "text" not in data:
        raise RecordError("missing required field", record_id=rid, field="text", line=line)
    metadata = data.get("metadata", {})
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, Mapping):
        raise RecordError("must be an object", record_id=rid, field="metadata", line=line)
    metadata = dict(metadata)
    for key, value in data.items():
        if key in KNOWN_FIELDS:
            continue
        if key in metadata:
            raise RecordError("given both at top level and inside metadata", record_id=rid, field=key,
                              line=line)
        metadata[key] = value
    fields: dict[str, Any] = {"id": data["id"], "text": data["text"], "metadata": metadata}
    sensitivity = read_sensitivity(data)
    if sensitivity is None:
        raise RecordError("unknown value, or given twice with different values (one of "
                          f"{', '.join(SENSITIVITIES)})", record_id=None, field="sensitivity", line=line)
    metadata.pop("sensitivity", None)
    fields["sensitivity"] = sensitivity
    for name in ("score", "rank", "authority", *STRING_FIELDS):
        if data.get(name) is not None:
            fields[name] = data[name]
    for name in DATE_FIELDS:
        if data.get(name) is not None:
            fields[name] = parse_when(data[name], record_id=rid, field=name)
    if data.get("embedding") is not None:
        emb = data["embedding"]
        if not isinstance(emb, list | tuple):
            raise RecordError("must be a list of numbers", record_id=rid, field="embedding", line=line)
        fields["embedding"] = tuple(emb)
    return fields


def read_sensitivity(data: Mapping[str, Any]) -> str | None:
    """A dict record's sensitivity: the top-level field, or `metadata["sensitivity"]` (where framework
    loaders put it); "internal" when neither key is present. None when it cannot be read for certain: an
    unknown value, a wrong type (a key present with a null value included: a loader that could not read a
    classification must not make the record internal), or two places that disagree. Callers treat None as
    above every clearance (fail closed)."""
    metadata = data.get("metadata")
    places = [data, metadata] if isinstance(metadata, Mapping) else [data]
    values = [place["sensitivity"] for place in places if "sensitivity" in place]
    if not values:
        return "internal"
    if not all(isinstance(v, str) and v in SENSITIVITIES for v in values) or len(set(values)) > 1:
        return None
    return str(values[0])


def parse_when(value: Any, *, record_id: str | None = None, field: str | None = None) -> When:
    """Parse an ISO date or datetime. Datetimes become timezone-aware (naive means UTC)."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, date):
        return value
    if not isinstance(value, str):
        raise RecordError(f"expected an ISO date string, got {type(value).__name__}",
                          record_id=record_id, field=field)
    text = value.strip()
    try:
        if len(text) == 10:
            return date.fromisoformat(text)
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise RecordError("unparsable date (want YYYY-MM-DD or an ISO datetime)",
                          record_id=record_id, field=field) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def _check_record(r: Record) -> None:
    """Every field of a record, in field order: the first bad field is the one the error names."""
    _check_id_and_text(r)
    _check_score_and_rank(r)
    _check_labels(r)
    _check_dates(r)
    _check_metadata_and_embedding(r)


def _check_id_and_text(r: Record) -> None:
    if not isinstance(r.id, str) or not r.id.strip():
        raise RecordError("must be a non-empty string", field="id")
    if UNPRINTABLE_ID.search(r.id):
        raise RecordError("must not contain control characters or lone surrogates", field="id")
    if not isinstance(r.text, str):
        raise RecordError(f"must be a string, got {type(r.text).__name__}", record_id=r.id, field="text")
    if not r.text or r.text.isspace():
        raise RecordError("must not be empty", record_id=r.id, field="text")


def _check_score_and_rank(r: Record) -> None:
    if r.score is not None and not finite_number(r.score):
        raise RecordError(f"must be a finite number, got {type(r.score).__name__}", record_id=r.id, field="score")
    if r.rank is not None and (isinstance(r.rank, bool) or not isinstance(r.rank, int) or r.rank < 1):
        raise RecordError(f"must be an integer >= 1 (got {type(r.rank).__name__})", record_id=r.id, field="rank")


def _check_labels(r: Record) -> None:
    """The free-text provenance fields, then the two closed vocabularies."""
    for name in STRING_FIELDS:
        value = getattr(r, name)
        if value is not None and not isinstance(value, str):
            raise RecordError(f"must be a string, got {type(value).__name__}", record_id=r.id, field=name)
    if r.authority not in AUTHORITIES:
        raise RecordError(f"unknown value (one of {', '.join(AUTHORITIES)})",
                          record_id=r.id, field="authority")
    if r.sensitivity not in SENSITIVITIES:
        raise RecordError(f"unknown value (one of {', '.join(SENSITIVITIES)})",
                          record_id=r.id, field="sensitivity")


def _check_dates(r: Record) -> None:
    for name in DATE_FIELDS:
        value = getattr(r, name)
        if value is not None and not isinstance(value, date):
            raise RecordError("must be a date or datetime (use parse_records for strings)",
                              record_id=r.id, field=name)
    if r.valid_from is not None and r.valid_until is not None and strictly_before(r.valid_until, r.valid_from):
        raise RecordError("is before valid_from", record_id=r.id, field="valid_until")


def _check_metadata_and_embedding(r: Record) -> None:
    if not isinstance(r.metadata, Mapping):
        raise RecordError("must be a mapping", record_id=r.id, field="metadata")
    if r.embedding is not None and not all(
        isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in r.embedding
    ):
        raise RecordError("must contain finite numbers only", record_id=r.id, field="embedding")


def finite_number(value: Any) -> bool:
    """An int or float (not a bool) that is neither NaN nor infinite."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer too large for a float
        return False


def strictly_before(a: When, b: When) -> bool:
    """`a` strictly before `b`, compared by day when either side is a plain date: a date bound covers
    its whole day, so validity windows are inclusive of their first and last day."""
    if isinstance(a, datetime) and isinstance(b, datetime):
        return a < b
    return _day(a) < _day(b)


def _day(value: When) -> date:
    return value.date() if isinstance(value, datetime) else value



