"""One request line of `evidencepack batch`: an id, the question, its `as_of`, its records (inline objects, or
ids into a corpus) and optional option overrides, checked before any assembly work.

    {"id": "q1", "question": "Does unused PTO carry over?", "as_of": "2026-06-01",
     "records": [{"id": "pto-2026", "text": "..."}, "pto-2024"], "options": {"order": "edges"}}

A malformed line is a `RequestError` naming the line, the request id (when one was readable) and the field,
never a value: the run writes it as an error line and goes on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import safejson
from ..errors import EvidencepackError, RecordError
from ..records.jsonl import Line, _no_repeated_keys, _RepeatedKey, read_jsonl_bytes

#: The keys a request line may carry; anything else is refused, so a typo (`"option"`) is not silently ignored.
KEYS = frozenset({"id", "question", "as_of", "records", "options"})
MAX_ID = 512


class RequestError(EvidencepackError, ValueError):
    """A request line cannot be assembled: where (line, request id) and which field, never the value."""

    def __init__(self, message: str, *, line: int, request_id: str | None = None, field: str | None = None,
                 record_id: str | None = None) -> None:
        super().__init__(message)
        self.message, self.line, self.request_id, self.field, self.record_id = (message, line, request_id, field,
                                                                                 record_id)

    def to_dict(self) -> dict[str, Any]:
        """The error line's `error` object."""
        out: dict[str, Any] = {"field": self.field, "message": self.message}
        if self.record_id is not None:
            out["record"] = self.record_id
        return out


@dataclass(frozen=True)
class Request:
    id: str
    line: int
    question: str
    as_of: Any  # None: the run's --as-of
    records: tuple[Mapping[str, Any], ...]
    options: Mapping[str, Any] = field(default_factory=dict)


def _loads(raw: bytes | str, line: int) -> Any:
    """The line's JSON: a key repeated in one object is refused (as the records reader does), and nesting
    deeper than `safejson.MAX_DEPTH` too. The depth is checked on the parsed value, not by scanning the text:
    a request line carries its records inline, and a regex pass over 150 kB per request would cost more
    than assembling it."""
    try:
        data = json.loads(raw, object_pairs_hook=_no_repeated_keys)
    except _RepeatedKey as err:
        raise RequestError("key given twice in one object", line=line, field=str(err)) from None
    except UnicodeDecodeError as err:
        raise RequestError(f"not valid UTF-8 (byte {err.start})", line=line) from None
    except json.JSONDecodeError as err:
        raise RequestError(f"not valid JSON: {err.msg} (column {err.colno})", line=line) from None
    except (RecursionError, ValueError):  # nested beyond the parser's limit; an integer too long
        raise RequestError("not valid JSON (nested too deeply, or a number too long)", line=line) from None
    text = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")
    opening = text.count(b"{") + text.count(b"[")
    if opening > safejson.MAX_DEPTH and _deeper_than(data, safejson.MAX_DEPTH):  # fewer brackets: cannot be
        raise RequestError(f"JSON nested too deeply (more than {safejson.MAX_DEPTH} levels)", line=line)
    return data


#: The container types a parsed request holds (objects arrive as `Line`, a dict that remembers its line).
_CONTAINERS = frozenset({dict, list, Line})


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest more than `limit` levels (iterative: no recursion to exhaust)."""
    stack = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        node, level = stack.pop()
        if level > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        if _CONTAINERS.isdisjoint(map(type, children)):  # one C-speed pass: a record of plain values ends here
            continue
        stack.extend((c, level + 1) for c in children if isinstance(c, dict | list))
    return False


def parse_request(raw: bytes | str, line: int, corpus: Mapping[str, Mapping[str, Any]] | None = None) -> Request:
    """The request on one line (`line` counts from 1). Record ids are looked up in `corpus` now, so an unknown
    id is this request's error; the records themselves are validated by `assemble`."""
    data = _loads(raw, line)
    if not isinstance(data, dict):
        raise RequestError(f"a request must be a JSON object, got {type(data).__name__}", line=line)
    rid = data.get("id")
    if not isinstance(rid, str) or not rid.strip() or len(rid) > MAX_ID or not rid.isprintable():
        raise RequestError(f"must be a non-empty printable string of at most {MAX_ID} characters", line=line,
                           field="id")

    def fail(message: str, name: str) -> RequestError:
        return RequestError(message, line=line, request_id=rid, field=name)

    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise fail(f"unknown key (one of {', '.join(sorted(KEYS))})", str(unknown[0])[:64])
    question = data.get("question")
    if not isinstance(question, str) or not question.strip():
        raise fail("must be a non-empty string", "question")
    as_of = data.get("as_of")
    if as_of is not None and not isinstance(as_of, str):
        raise fail("must be an ISO date string (YYYY-MM-DD)", "as_of")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise fail("must be an object of option settings keys (see docs/options.md)", "options")
    return Request(rid, line, question, as_of, _records(data.get("records"), corpus, fail), options)


def _records(value: Any, corpus: Mapping[str, Mapping[str, Any]] | None, fail: Any) -> tuple[Mapping[str, Any], ...]:
    if not isinstance(value, list):
        raise fail("must be a list of record objects or record ids", "records")
    out: list[Mapping[str, Any]] = []
    for i, item in enumerate(value):
        if isinstance(item, dict):
            out.append(item)
        elif isinstance(item, str):
            if corpus is None:
                raise fail("a record id needs --corpus (or give the record inline)", f"records[{i}]")
            found = corpus.get(item)
            if found is None:
                raise fail("record id not in the corpus", f"records[{i}]")
            out.append(found)
        else:
            raise fail(f"must be a record object or a record id, got {type(item).__name__}", f"records[{i}]")
    return tuple(out)


def load_corpus(path: str | Path) -> dict[str, Line]:
    """Record id -> the record's JSON object, for requests that name records by id (validated when used). A
    repeated id is an error: a request naming it would be ambiguous."""
    items = read_jsonl_bytes(Path(path).read_bytes())
    corpus: dict[str, Line] = {}
    for item in items:
        rid = item.get("id")
        if not isinstance(rid, str) or not rid:
            raise RecordError("a corpus record needs a non-empty string id", field="id", line=item.line)
        if rid in corpus:
            raise RecordError(f"duplicate id in the corpus (first at line {corpus[rid].line})", record_id=rid,
                              field="id", line=item.line)
        corpus[rid] = item
    return corpus
