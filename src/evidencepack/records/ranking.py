"""Ranking: the order the assembler reads records in, and the eager path for callers who want them all.

Lazily (what `assemble` uses): `rank` reads only what ordering and clearance need (id, rank, score,
sensitivity) from every input and returns a `Ranking` that hands out `Pending` inputs best-first as a pass asks
for them; `parse_pending` validates the rest of one input into a `Record` only when the admit pass reaches it,
so the cost follows what is selected. `on_invalid="drop"` turns a bad record into a reported drop (`Unusable`,
or a `Parsed` without a record) instead of a `RecordError`.

Eagerly: `parse_records` validates every input and orders it with `rank_order` (rank, else score, else input
order; the two must agree); `check_unique_ids` is shared with the JSONL reader.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from itertools import repeat
from operator import attrgetter, contains, itemgetter, neg
from typing import Any

from ..errors import RecordError
from .record import UNPRINTABLE_ID, Record, bare_message, finite_number, read_sensitivity


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
            unique = set(map(attrgetter("id"), items))
            ranks, scores = list(map(attrgetter("rank"), items)), list(map(attrgetter("score"), items))
            has_rank, has_score = ranks.count(None) < len(ranks), scores.count(None) < len(scores)
        else:
            # one pass over the mappings per column, each at C speed: at 10,000 candidates these passes are the
            # whole cost of ranking, so none is repeated (the ids go straight into a set, no list first)
            unique = set(map(itemgetter("id"), items))
            has_rank = any(map(contains, items, repeat("rank")))
            has_score = "score" in items[0] or any(map(contains, items, repeat("score")))
            ranks = list(map(itemgetter("rank"), items)) if has_rank else []
            scores = list(map(itemgetter("score"), items)) if has_score else []
        "".join(unique)  # every id a string, else TypeError
    except (KeyError, TypeError, AttributeError):
        return None
    if "" in unique or len(unique) != len(items) or (has_rank and has_score):
        return None  # repeated or empty ids, or rank and score both given: the checked path says what is wrong
    if has_rank:
        if set(map(type, ranks)) != {int} or min(ranks) < 1 or len(set(ranks)) != len(ranks):
            return None
        if ranks == sorted(ranks):  # already best-first: input order is rank order (a sorted run costs O(n))
            return Ranking(len(items), (), heap=None, items=items)
        keys: list[Any] = ranks
    elif has_score:
        # int and float only (a bool is neither here); a NaN or an infinity, or a sum that overflows, takes
        # the checked path, which names the record
        if not set(map(type, scores)) <= {int, float} or not finite_number(sum(scores)):
            return None
        # best-first, as retrievers return them: timsort finds one descending run, in C, with no negated copy
        if scores == sorted(scores, reverse=True):
            return Ranking(len(items), (), heap=None, items=items)
        keys = list(map(neg, scores))
    else:
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
    if not isinstance(rid, str) or not rid.strip() or UNPRINTABLE_ID.search(rid):
        return _unusable("must be a non-empty string without control characters", "id", lenient, line)
    shown = rid if visible(sens) else None
    rank_value, score = item.get("rank"), item.get("score")
    if rank_value is not None and (isinstance(rank_value, bool) or not isinstance(rank_value, int) or rank_value < 1):
        if not lenient:
            raise RecordError("must be an integer >= 1", record_id=shown, field="rank", line=line)
        rank_value = None
    if score is not None and not finite_number(score):
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
            name, why = err.field, bare_message(err)
            if name in (None, "id", "text", "sensitivity", "metadata") or name not in data:
                reason = "empty_text" if name == "text" and _blank(data.get("text")) else "invalid_record"
                return Parsed(None, reason, f"field {name!r}: {why}" if name else why, tuple(notes))
            data.pop(name)
            notes.append(f"field {name!r} left out: {why}")


def _blank(text: Any) -> bool:
    return text is None or (isinstance(text, str) and not text.strip())


def parse_records(items: Iterable[Record | Mapping[str, Any]]) -> tuple[Record, ...]:
    """Validate a retriever's output and return it in rank order (best first).

    Rank comes from `rank` (1 = best), else `score` (higher is better), else input order. When both are
    given they must agree; when only some records carry one, that is an error rather than a guess.
    """
    records = tuple(
        item if isinstance(item, Record) else Record.from_dict(item) for item in items
    )
    check_unique_ids(records)
    return rank_order(records)


def check_unique_ids(records: Iterable[Record], lines: list[int] | None = None) -> None:
    """A repeated id is an error naming where the id was first used (its JSONL line, given `lines`)."""
    seen: dict[str, int] = {}
    for i, r in enumerate(records):
        if r.id in seen:
            line = lines[i] if lines else None
            first = f"line {lines[seen[r.id]]}" if lines else f"record #{seen[r.id] + 1}"
            raise RecordError(f"duplicate id (first used at {first})", record_id=r.id, field="id", line=line)
        seen[r.id] = i

