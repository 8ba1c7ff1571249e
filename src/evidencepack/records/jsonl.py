"""JSONL in: one JSON object per line, errors naming the line, a key repeated inside one object refused."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from .. import safejson
from ..errors import RecordError
from .ranking import check_unique_ids, rank_order
from .record import Record, bare_message


def load_jsonl(path: str | Path) -> tuple[Record, ...]:
    """Read one JSON object per line (blank lines skipped); errors name the line number."""
    try:
        return parse_jsonl_bytes(Path(path).read_bytes())
    except RecordError as err:  # name the file too: "corpus.jsonl line 3: …"
        named = RecordError(f"{Path(path).name} {err}")
        named.record_id, named.field, named.line = err.record_id, err.field, err.line
        raise named from None


def parse_jsonl_bytes(raw: bytes) -> tuple[Record, ...]:
    """Parse and validate every line now (strict), in rank order."""
    items = read_jsonl_bytes(raw)
    records = [Record.from_dict(item, line=item.line) for item in items]
    check_unique_ids(records, [item.line or 0 for item in items])
    try:
        return rank_order(tuple(records))
    except RecordError as err:
        line_of = {item.get("id"): item.line for item in items}
        raise RecordError(bare_message(err), record_id=err.record_id, field=err.field,
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
        try:  # the guarded loader: depth-limited, errors without content
            data = safejson.loads(line, name="", error=partial(_line_error, line=number),
                                  object_pairs_hook=_no_repeated_keys)
        except _RepeatedKey as err:
            raise RecordError("key given twice in one object", field=str(err), line=number) from None
        if not isinstance(data, Line):
            raise RecordError(f"a record must be a JSON object, got {type(data).__name__}", line=number)
        data.line = number
        items.append(data)
    return items


def _line_error(message: str, *, line: int) -> RecordError:
    return RecordError(message, line=line)


class _RepeatedKey(Exception):
    pass


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> Line:
    out = Line(pairs)  # built at C speed; a repeated key shows as a shorter dict, then named
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key[:64])
            seen.add(key)
    return out
