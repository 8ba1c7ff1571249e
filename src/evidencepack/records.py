"""Records: the assembler's input, parsed and validated once at the boundary.

A `Record` is one retrieved chunk with its provenance and policy metadata. Parsing is strict: a bad record
raises `RecordError` naming the line (JSONL) or the record id and the field. Nothing is coerced or dropped.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Literal

from .errors import RecordError

Authority = Literal["authoritative", "informal", "superseded", "unknown"]
Sensitivity = Literal["public", "internal", "confidential", "restricted"]

AUTHORITIES: tuple[str, ...] = ("authoritative", "informal", "superseded", "unknown")
#: Ordered from least to most sensitive; a caller cleared for a level sees that level and below.
SENSITIVITIES: tuple[str, ...] = ("public", "internal", "confidential", "restricted")

_STRING_FIELDS = ("doc", "section", "url", "source_system", "topic")
_DATE_FIELDS = ("date", "valid_from", "valid_until")
KNOWN_FIELDS = frozenset(
    ("id", "text", "score", "rank", "authority", "sensitivity", "metadata", "embedding")
    + _STRING_FIELDS + _DATE_FIELDS
)
_UNPRINTABLE_ID = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")

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
                raise RecordError(_bare_message(err), record_id=err.record_id, field=err.field,
                                  line=line) from None
            raise

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (dates in ISO form); the inverse of `from_dict`."""
        out: dict[str, Any] = {"id": self.id, "text": self.text}
        for name in ("score", "rank", *_STRING_FIELDS):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        out["authority"] = self.authority
        out["sensitivity"] = self.sensitivity
        for name in _DATE_FIELDS:
            value = getattr(self, name)
            if value is not None:
                out[name] = value.isoformat()
        if self.metadata:
            out["metadata"] = dict(self.metadata)
        if self.embedding is not None:
            out["embedding"] = list(self.embedding)
        return out


def _bare_message(err: RecordError) -> str:
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
    for name in ("score", "rank", "authority", "sensitivity", *_STRING_FIELDS):
        if data.get(name) is not None:
            fields[name] = data[name]
    for name in _DATE_FIELDS:
        if data.get(name) is not None:
            fields[name] = parse_when(data[name], record_id=rid, field=name)
    if data.get("embedding") is not None:
        emb = data["embedding"]
        if not isinstance(emb, list | tuple):
            raise RecordError("must be a list of numbers", record_id=rid, field="embedding", line=line)
        fields["embedding"] = tuple(emb)
    return fields


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
    if not isinstance(r.id, str) or not r.id.strip():
        raise RecordError("must be a non-empty string", field="id")
    if _UNPRINTABLE_ID.search(r.id):
        raise RecordError("must not contain control characters or lone surrogates", field="id")
    rid = r.id
    if not isinstance(r.text, str):
        raise RecordError(f"must be a string, got {type(r.text).__name__}", record_id=rid, field="text")
    if not r.text or r.text.isspace():
        raise RecordError("must not be empty", record_id=rid, field="text")
    if r.score is not None and (isinstance(r.score, bool) or not isinstance(r.score, int | float)
                                or not math.isfinite(r.score)):
        raise RecordError(f"must be a finite number, got {type(r.score).__name__}", record_id=rid, field="score")
    if r.rank is not None and (isinstance(r.rank, bool) or not isinstance(r.rank, int) or r.rank < 1):
        raise RecordError(f"must be an integer >= 1 (got {type(r.rank).__name__})", record_id=rid, field="rank")
    for name in _STRING_FIELDS:
        value = getattr(r, name)
        if value is not None and not isinstance(value, str):
            raise RecordError(f"must be a string, got {type(value).__name__}", record_id=rid, field=name)
    if r.authority not in AUTHORITIES:
        raise RecordError(f"unknown value (one of {', '.join(AUTHORITIES)})",
                          record_id=rid, field="authority")
    if r.sensitivity not in SENSITIVITIES:
        raise RecordError(f"unknown value (one of {', '.join(SENSITIVITIES)})",
                          record_id=rid, field="sensitivity")
    for name in _DATE_FIELDS:
        value = getattr(r, name)
        if value is not None and not isinstance(value, date):
            raise RecordError("must be a date or datetime (use parse_records for strings)",
                              record_id=rid, field=name)
    if r.valid_from is not None and r.valid_until is not None and strictly_before(r.valid_until, r.valid_from):
        raise RecordError("is before valid_from", record_id=rid, field="valid_until")
    if not isinstance(r.metadata, Mapping):
        raise RecordError("must be a mapping", record_id=rid, field="metadata")
    if r.embedding is not None and not all(
        isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in r.embedding
    ):
        raise RecordError("must contain finite numbers only", record_id=rid, field="embedding")


def strictly_before(a: When, b: When) -> bool:
    """`a` strictly before `b`, compared by day when either side is a plain date: a date bound covers
    its whole day, so validity windows are inclusive of their first and last day."""
    if isinstance(a, datetime) and isinstance(b, datetime):
        return a < b
    return _day(a) < _day(b)


def _day(value: When) -> date:
    return value.date() if isinstance(value, datetime) else value


def parse_records(items: Iterable[Record | Mapping[str, Any]]) -> tuple[Record, ...]:
    """Validate a retriever's output and return it in rank order (best first).

    Rank comes from `rank` (1 = best), else `score` (higher is better), else input order. When both are
    given they must agree; when only some records carry one, that is an error rather than a guess.
    """
    records = tuple(
        item if isinstance(item, Record) else Record.from_dict(item) for item in items
    )
    _check_unique_ids(records)
    return rank_order(records)


def _check_unique_ids(records: Iterable[Record], lines: list[int] | None = None) -> None:
    seen: dict[str, int] = {}
    for i, r in enumerate(records):
        if r.id in seen:
            line = lines[i] if lines else None
            first = f"line {lines[seen[r.id]]}" if lines else f"record #{seen[r.id] + 1}"
            raise RecordError(f"duplicate id (first used at {first})", record_id=r.id, field="id", line=line)
        seen[r.id] = i


def rank_order(records: tuple[Record, ...]) -> tuple[Record, ...]:
    """Sort records best-first by rank or score, checking that the two never disagree."""
    has_rank = [r.rank is not None for r in records]
    has_score = [r.score is not None for r in records]
    for name, flags in (("rank", has_rank), ("score", has_score)):
        if any(flags) and not all(flags):
            missing = records[flags.index(False)]
            raise RecordError(f"{name} is given on some records but missing here; give it on all or none",
                              record_id=missing.id, field=name)
    if records and all(has_rank):
        by_rank: dict[int, str] = {}
        for r in records:
            if r.rank in by_rank:
                raise RecordError(f"the same rank is also given to record {by_rank[r.rank]!r}",
                                  record_id=r.id, field="rank")
            by_rank[r.rank] = r.id  # type: ignore[index]
        ordered = tuple(sorted(records, key=lambda r: r.rank))  # type: ignore[arg-type, return-value]
        if all(has_score):
            for better, worse in zip(ordered, ordered[1:]):
                if worse.score > better.score:  # type: ignore[operator]
                    raise RecordError(
                        f"score ranks this record above {better.id!r} but rank ranks it below; score and rank "
                        "order the records differently", record_id=worse.id, field="score")
        return ordered
    if records and all(has_score):
        return tuple(sorted(records, key=lambda r: -r.score))  # type: ignore[operator]  # stable for ties
    return records


def load_jsonl(path: str | Path) -> tuple[Record, ...]:
    """Read one JSON object per line (blank lines skipped); errors name the line number."""
    raw = Path(path).read_bytes()
    return parse_jsonl_bytes(raw)


def parse_jsonl_bytes(raw: bytes) -> tuple[Record, ...]:
    records: list[Record] = []
    lines: list[int] = []
    for number, line_bytes in enumerate(raw.split(b"\n"), start=1):
        try:
            line = line_bytes.decode("utf-8")
        except UnicodeDecodeError as err:
            raise RecordError(f"not valid UTF-8 (byte {err.start})", line=number) from None
        if number == 1:
            line = line.removeprefix("\ufeff")
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as err:
            raise RecordError(f"not valid JSON: {err.msg} (column {err.colno})", line=number) from None
        except RecursionError:
            raise RecordError("JSON nested too deeply", line=number) from None
        records.append(Record.from_dict(data, line=number))
        lines.append(number)
    _check_unique_ids(records, lines)
    try:
        return rank_order(tuple(records))
    except RecordError as err:
        line_of = {r.id: n for r, n in zip(records, lines)}
        raise RecordError(_bare_message(err), record_id=err.record_id, field=err.field,
                          line=line_of.get(err.record_id or "")) from None
