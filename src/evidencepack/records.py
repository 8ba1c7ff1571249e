"""Records: the assembler's input, parsed and validated once at the boundary.

A `Record` is one retrieved chunk with its provenance and policy metadata. Parsing is strict: a bad record
raises `RecordError` naming the line (JSONL) or the record id and the field. Nothing is coerced silently.

`assemble` parses lazily: `rank` reads only what ordering needs (id, rank, score, sensitivity) from every
input, and `parse_ranked` validates the rest of a record only when the budget pass reaches it, so the cost
follows what is selected. `on_invalid="drop"` turns a bad record into a reported drop instead of an error.
"""

from __future__ import annotations

import heapq
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from itertools import repeat
from operator import attrgetter, contains, itemgetter, neg
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
    sensitivity = read_sensitivity(data)
    if sensitivity is None:
        raise RecordError("unknown value, or given twice with different values (one of "
                          f"{', '.join(SENSITIVITIES)})", record_id=None, field="sensitivity", line=line)
    metadata.pop("sensitivity", None)
    fields["sensitivity"] = sensitivity
    for name in ("score", "rank", "authority", *_STRING_FIELDS):
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


def read_sensitivity(data: Mapping[str, Any]) -> str | None:
    """A dict record's sensitivity: the top-level field, or `metadata["sensitivity"]` (where framework
    loaders put it); "internal" when neither is given. None when it cannot be read for certain: an unknown
    value, or two places that disagree. Callers treat None as above every clearance (fail closed)."""
    given = [data.get("sensitivity")]
    metadata = data.get("metadata")
    if isinstance(metadata, Mapping):
        given.append(metadata.get("sensitivity"))
    values = [v for v in given if v is not None]
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
    if not isinstance(r.id, str) or not r.id.strip():
        raise RecordError("must be a non-empty string", field="id")
    if _UNPRINTABLE_ID.search(r.id):
        raise RecordError("must not contain control characters or lone surrogates", field="id")
    rid = r.id
    if not isinstance(r.text, str):
        raise RecordError(f"must be a string, got {type(r.text).__name__}", record_id=rid, field="text")
    if not r.text or r.text.isspace():
        raise RecordError("must not be empty", record_id=rid, field="text")
    if r.score is not None and not _finite_number(r.score):
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


def _finite_number(value: Any) -> bool:
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
    return parse_jsonl_bytes(Path(path).read_bytes())


def parse_jsonl_bytes(raw: bytes) -> tuple[Record, ...]:
    """Parse and validate every line now (strict), in rank order."""
    items = read_jsonl_bytes(raw)
    records = [Record.from_dict(item, line=item.line) for item in items]
    _check_unique_ids(records, [item.line or 0 for item in items])
    try:
        return rank_order(tuple(records))
    except RecordError as err:
        line_of = {item.get("id"): item.line for item in items}
        raise RecordError(_bare_message(err), record_id=err.record_id, field=err.field,
                          line=line_of.get(err.record_id or "")) from None


class Line(dict):  # type: ignore[type-arg]
    """A JSONL object that remembers its line number, so lazy validation can still name the line."""

    line: int | None = None


def read_jsonl_bytes(raw: bytes) -> list[Line]:
    """Decode one JSON object per line without validating the records (that happens when they are
    reached, or up front with `strict`). A repeated key in one object is an error, never last-wins."""
    items: list[Line] = []
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
            data = json.loads(line, object_pairs_hook=_no_repeated_keys)
        except _RepeatedKey as err:
            raise RecordError("key given twice in one object", field=str(err), line=number) from None
        except json.JSONDecodeError as err:
            raise RecordError(f"not valid JSON: {err.msg} (column {err.colno})", line=number) from None
        except RecursionError:
            raise RecordError("JSON nested too deeply", line=number) from None
        except ValueError:  # e.g. an integer longer than Python's digit limit
            raise RecordError("not valid JSON: a number is too long", line=number) from None
        if not isinstance(data, Line):
            raise RecordError(f"a record must be a JSON object, got {type(data).__name__}", line=number)
        data.line = number
        items.append(data)
    return items


class _RepeatedKey(Exception):
    pass


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> Line:
    out = Line()
    for key, value in pairs:
        if key in out:
            raise _RepeatedKey(key[:64])
        out[key] = value
    return out


# -- lazy ranking: what `assemble` uses ---------------------------------------------------------------

@dataclass(frozen=True)
class Pending:
    """An input ranked but not yet validated: only what ordering and clearance need was read."""

    rank: int  # 1 = best; unique per input
    id: str
    item: Record | Mapping[str, Any]
    sensitivity: str | None  # None: unreadable or ambiguous, treated as above every clearance
    line: int | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Unusable:
    """An input that cannot take part (no usable id, or a repeated id), with why. `rank` is unique too."""

    rank: int
    id: str
    reason: str  # "invalid_record" | "duplicate"
    detail: str
    duplicate_of: str | None = None
    sensitivity: str | None = None


class Ranking:
    """Inputs in rank order, handed out one at a time as a pass asks for them; `rest()` lists, in order,
    the ones never asked for. `unusable` are inputs that cannot take part at all (with `on_invalid="drop"`)."""

    def __init__(self, count: int, unusable: tuple[Unusable, ...], ordered: list[Pending] | None = None,
                 heap: list[tuple[Any, int]] | None = None, items: list[Any] | None = None) -> None:
        self.count = count  # every input, usable or not
        self.unusable = unusable
        self._ordered, self._heap, self._items = ordered, heap, items
        self._next = 0

    def __iter__(self) -> Ranking:
        return self

    def __next__(self) -> Pending:
        if self._ordered is not None:
            if self._next >= len(self._ordered):
                raise StopIteration
            self._next += 1
            return self._ordered[self._next - 1]
        if self._heap is None:  # no rank or score: input order
            if self._next >= self.count:
                raise StopIteration
            self._next += 1
            return self._pending(self._next - 1, self._next)
        if not self._heap:
            raise StopIteration
        self._next += 1
        return self._pending(heapq.heappop(self._heap)[1], self._next)

    def rewind(self) -> None:
        """Start again from rank 1 (the checked path only: `strict` validates everything, then assembles)."""
        if self._ordered is None:
            raise RuntimeError("only a checked ranking can be rewound")
        self._next = 0

    def rest(self) -> list[Pending]:
        """The inputs not yet handed out, in rank order (this consumes them)."""
        if self._ordered is not None:
            out, self._next = self._ordered[self._next:], len(self._ordered)
            return out
        start = self._next
        heap = sorted(self._heap) if self._heap is not None else [(i, i) for i in range(start, self.count)]
        self._heap, self._next = [], start + len(heap)
        return [self._pending(index, start + offset) for offset, (_, index) in enumerate(heap, start=1)]

    def _pending(self, index: int, position: int) -> Pending:
        item = self._items[index]  # type: ignore[index]
        if isinstance(item, Record):
            return Pending(position, item.id, item, item.sensitivity)
        return Pending(position, item["id"], item, read_sensitivity(item), getattr(item, "line", None))


def rank(items: Iterable[Record | Mapping[str, Any]], *, on_invalid: str = "raise",
         visible: Callable[[str | None], bool] = lambda s: True, strict: bool = False) -> Ranking:
    """Order every input best-first from its id, rank and score alone (cheap), and catch repeated ids.

    With `on_invalid="raise"` the rules of `parse_records` apply (a repeated id or a rank given on only
    some records is an error); with `"drop"` a repeated id collapses onto the higher-ranked copy, an input
    without a usable id is reported as `invalid_record`, and an unusable rank or score is left out with a
    note (such records rank after the ones that carry it). `visible(sensitivity)` says whether the caller
    may see a record: an error never names the id of one it may not.
    """
    if items is None or isinstance(items, str | bytes | Mapping) or not isinstance(items, Iterable):
        raise RecordError("records must be an iterable of records or dicts")
    items = list(items)
    if not strict:
        fast = _fast_ranking(items)
        if fast is not None:
            return fast
    lenient = on_invalid == "drop"
    keys: list[tuple[str, int | None, float | None, str | None, int | None, Record | Mapping[str, Any], list[str]]] = []
    bad: list[tuple[int, str, str | None]] = []
    for index, item in enumerate(items):
        line = getattr(item, "line", None)
        head = _head(item, line, index, lenient, visible)
        if isinstance(head, str):
            bad.append((index, head, None))
            continue
        keys.append((*head, line, item, []))
    ordered = _order_keys(keys, lenient, visible)
    pending: list[Pending] = []
    unusable: list[Unusable] = []
    first: dict[str, int] = {}
    for position, (rid, _rank, _score, sens, line, item, notes) in enumerate(ordered, start=1):
        if rid in first:
            kept = ordered[first[rid]]
            if not lenient:
                shown = rid if visible(sens) and visible(kept[3]) else None
                where = f"line {kept[4]}" if kept[4] is not None else f"record #{first[rid] + 1} by rank"
                raise RecordError(f"duplicate id (first used at {where})", record_id=shown, field="id", line=line)
            unusable.append(Unusable(position, rid, "duplicate", "the same id came twice; the higher-ranked "
                                     "copy is kept", duplicate_of=rid, sensitivity=sens))
            continue
        first[rid] = position - 1
        pending.append(Pending(position, rid, item, sens, line, tuple(notes)))
    n = len(ordered)
    for offset, (index, detail, _) in enumerate(bad, start=1):
        unusable.append(Unusable(n + offset, f"#{index + 1}", "invalid_record", detail))
    return Ranking(len(items), tuple(unusable), ordered=pending)


def _fast_ranking(items: list[Any]) -> Ranking | None:
    """The common case, checked at C speed over whole columns: mappings (or all `Record`s) with unique,
    non-empty string ids, and a rank on all or none and a finite score on all or none (not both). Records
    then come off a heap in rank order as they are asked for; anything else takes the checked path."""
    if not items:
        return Ranking(0, (), ordered=[])
    try:
        if isinstance(items[0], Record):
            ids = list(map(attrgetter("id"), items))
            ranks, scores = list(map(attrgetter("rank"), items)), list(map(attrgetter("score"), items))
            has_rank, has_score = ranks.count(None) < len(ranks), scores.count(None) < len(scores)
        else:
            ids = list(map(itemgetter("id"), items))
            has_rank = any(map(contains, items, repeat("rank")))
            has_score = any(map(contains, items, repeat("score")))
            ranks = list(map(itemgetter("rank"), items)) if has_rank else []
            scores = list(map(itemgetter("score"), items)) if has_score else []
        "".join(ids)  # every id a string, else TypeError
    except (KeyError, TypeError, AttributeError):
        return None
    unique = set(ids)
    if "" in unique or len(unique) != len(ids) or (has_rank and has_score):
        return None  # repeated or empty ids, or rank and score both given: the checked path says what is wrong
    if has_rank:
        if set(map(type, ranks)) != {int} or min(ranks) < 1 or len(set(ranks)) != len(ranks):
            return None
        keys: list[Any] = ranks
    elif has_score:
        # int and float only (a bool is neither here); a NaN or an infinity, or a sum that overflows, takes
        # the checked path, which names the record
        if not set(map(type, scores)) <= {int, float} or not _finite_number(sum(scores)):
            return None
        keys = list(map(neg, scores))
    else:
        return Ranking(len(items), (), heap=None, items=items)
    if keys == sorted(keys):  # already best-first, as retrievers return them: input order is rank order
        return Ranking(len(items), (), heap=None, items=items)
    heap = list(zip(keys, range(len(items))))  # ties keep input order
    heapq.heapify(heap)
    return Ranking(len(items), (), heap=heap, items=items)


def _head(item: Any, line: int | None, index: int, lenient: bool, visible: Callable[[str | None], bool]
          ) -> tuple[str, int | None, float | None, str | None] | str:
    """(id, rank, score, sensitivity) read without validating the rest; a string says why it is unusable."""
    if isinstance(item, Record):
        return item.id, item.rank, item.score, item.sensitivity
    if not isinstance(item, Mapping):
        return _unusable(f"input #{index + 1} is not a record or a mapping", None, lenient, line)
    sens = read_sensitivity(item)
    rid = item.get("id")
    if not isinstance(rid, str) or not rid.strip() or _UNPRINTABLE_ID.search(rid):
        return _unusable("must be a non-empty string without control characters", "id", lenient, line)
    shown = rid if visible(sens) else None
    rank_value, score = item.get("rank"), item.get("score")
    if rank_value is not None and (isinstance(rank_value, bool) or not isinstance(rank_value, int) or rank_value < 1):
        if not lenient:
            raise RecordError("must be an integer >= 1", record_id=shown, field="rank", line=line)
        rank_value = None
    if score is not None and not _finite_number(score):
        if not lenient:
            raise RecordError("must be a finite number", record_id=shown, field="score", line=line)
        score = None
    return rid, rank_value, score, sens


def _unusable(detail: str, field: str | None, lenient: bool, line: int | None) -> str:
    if not lenient:
        raise RecordError(detail, field=field, line=line)
    return f"field {field!r}: {detail}" if field else detail


def _order_keys(keys: list[Any], lenient: bool, visible: Callable[[str | None], bool]) -> list[Any]:
    """Best-first by rank, else score, else input order; the same rules as `rank_order`, on cheap keys."""
    for slot, name in ((1, "rank"), (2, "score")):
        given = [k[slot] is not None for k in keys]
        if any(given) and not all(given):
            if lenient:
                return (sorted([k for k in keys if k[slot] is not None], key=_sort_key(slot))
                        + [_note(k, f"no usable {name}: ranked after the records that have one")
                           for k in keys if k[slot] is None])
            missing = keys[given.index(False)]
            raise RecordError(f"{name} is given on some records but missing here; give it on all or none",
                              record_id=missing[0] if visible(missing[3]) else None, field=name, line=missing[4])
        if keys and all(given):
            ordered = sorted(keys, key=_sort_key(slot))
            if slot == 1 and not lenient:
                _check_rank_keys(ordered, visible)
            return ordered
    return keys


def _sort_key(slot: int) -> Callable[[Any], float]:
    return (lambda k: k[1]) if slot == 1 else (lambda k: -k[2])


def _note(key: Any, note: str) -> Any:
    key[6].append(note)
    return key


def _check_rank_keys(ordered: list[Any], visible: Callable[[str | None], bool]) -> None:
    scored = all(k[2] is not None for k in ordered)
    for better, worse in zip(ordered, ordered[1:]):
        shown = worse[0] if visible(worse[3]) and visible(better[3]) else None
        if worse[1] == better[1]:
            raise RecordError("the same rank is given to two records", record_id=shown, field="rank", line=worse[4])
        if scored and worse[2] > better[2]:
            raise RecordError("score and rank order the records differently", record_id=shown, field="score",
                              line=worse[4])


@dataclass(frozen=True)
class Parsed:
    """One input after validation: the record, or why there is none; `notes` lists field values left out."""

    record: Record | None
    reason: str | None = None  # "invalid_record" | "empty_text" when record is None
    detail: str | None = None
    notes: tuple[str, ...] = ()


def parse_pending(p: Pending, *, on_invalid: str = "raise") -> Parsed:
    """Validate one ranked input into a `Record`. With `on_invalid="drop"`, an unusable optional field is
    left out with a note, and a record that still cannot be built is reported with its reason."""
    if isinstance(p.item, Record):
        return Parsed(p.item, notes=p.notes)
    data = dict(p.item)
    notes = list(p.notes)
    while True:
        try:
            return Parsed(Record.from_dict(data, line=p.line), notes=tuple(notes))
        except RecordError as err:
            if on_invalid != "drop":
                raise
            name, why = err.field, _bare_message(err)
            if name in (None, "id", "text", "sensitivity", "metadata") or name not in data:
                reason = "empty_text" if name == "text" and _blank(data.get("text")) else "invalid_record"
                return Parsed(None, reason, f"field {name!r}: {why}" if name else why, tuple(notes))
            data.pop(name)
            notes.append(f"field {name!r} left out: {why}")


def _blank(text: Any) -> bool:
    return text is None or (isinstance(text, str) and not text.strip())
