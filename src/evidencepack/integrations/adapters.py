"""Framework documents in, records out: LangChain, LlamaIndex and Haystack, by duck typing.

No framework is imported: each function reads the attributes those libraries' document types expose, so
evidencepack stays light and works with whichever version a caller has. What the frameworks' own loaders
already know (file, page, title, dates, the source document's id, embeddings, scores) is mapped onto record
fields; the table per framework is in docs/integrations.md. Two layers:

- `*_dicts` map documents to plain record dicts, coercing only what is unambiguous (an int section, a PDF or
  RFC 2822 date); a value that cannot be read is passed on unchanged so that the core decides: strict by
  default, or left out with a note under `on_invalid="drop"`.
- `from_*` build `Record`s from those dicts, strictly (a bad value raises `RecordError`), as before.

An id is never invented from a position: a document without one gets a content hash of its text and source
(`lc-…`, `li-…`, `hs-…`), so two different chunks cannot share it and the same chunk retrieved twice does.

Provenance leaks nothing and misleads no one (issue 25, item 7):

- a file path reaches the prompt as its file name only (`handbook-2024.md`, never `/srv/hr/…`); the full
  path (or URL) is kept server-side in the manifest's `url`, which no built-in profile renders, so the model
  provider never sees the server's layout. A URL shown as a name loses its query, fragment and credentials
  (a signed link's token stays server-side);
- a filesystem time (LlamaIndex's `creation_date`, `last_modified_date`) is never the document's `date`: a
  copy made today would look newest. A date the document itself carries (a PDF's `creationdate`) is used;
  a caller who wants a file time maps it (`metadata["date"] = …`);
- a page is given only for formats that have pages: Haystack numbers every chunk of a `.txt`, `.md` or
  `.html` file "page 1", which would cite a page that does not exist.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Mapping
from datetime import date, datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from typing import Any, Literal

from ..errors import IntegrationInputError
from ..records.record import DATE_FIELDS, KNOWN_FIELDS, STRING_FIELDS, Record

ScoreKind = Literal["similarity", "distance"]
#: Metadata keys that name a record field become that field (an explicit key wins over a derived one).
FIELD_KEYS = KNOWN_FIELDS - {"id", "text", "metadata", "score", "rank", "embedding"}
_URL = re.compile(r"^https?://\S+$", re.IGNORECASE)


# -- per framework --------------------------------------------------------------------------------------


def langchain_dicts(documents: Iterable[Any], *, score_kind: ScoreKind = "similarity") -> list[dict[str, Any]]:
    """`langchain_core.documents.Document`s, or `(document, score)` pairs from
    `similarity_search_with_score`, best first. A reranker's `relevance_score` in metadata is the score."""
    _check_kind(score_kind)
    out = []
    for item in documents:
        doc, score = _split_pair(item)
        meta = dict(getattr(doc, "metadata", None) or {})
        text = getattr(doc, "page_content", None)
        if score is None:
            score = meta.get("relevance_score")
        source = meta.get("source")
        derived: dict[str, Any] = {
            "doc": _first_text(meta.get("title"), display_name(source)),
            "url": _first_text(source),
            "section": _page(meta.get("page_label"), meta.get("page"), zero_based=True, path=source),
            "date": _first(meta, "creationdate"),  # the PDF's own metadata, not a filesystem time
        }
        rid = getattr(doc, "id", None) or meta.pop("id", None) or _hash_id("lc", text, source)
        out.append(_dict(rid, text, meta, derived, score, score_kind, None))
    return out


def llamaindex_dicts(nodes: Iterable[Any], *, score_kind: ScoreKind = "similarity") -> list[dict[str, Any]]:
    """`NodeWithScore`s (a retriever's output), bare nodes or `Document`s. The source document's id
    (`ref_doc_id`) is kept in metadata; the node's embedding is carried."""
    _check_kind(score_kind)
    out = []
    for item in nodes:
        node = getattr(item, "node", item)
        score = getattr(item, "score", None) if node is not item else None
        meta = dict(getattr(node, "metadata", None) or {})
        text = _node_text(node)
        ref = getattr(node, "ref_doc_id", None)
        if ref is not None:
            meta.setdefault("ref_doc_id", ref)
        path = meta.get("file_path")
        derived = {  # no `date`: creation_date and last_modified_date are the file's, not the document's
            "doc": _first_text(meta.get("file_name"), display_name(path), meta.get("title")),
            "url": _first_text(path),
            "section": _page(meta.get("page_label"), None, zero_based=False, path=path),
        }
        rid = getattr(node, "node_id", None) or _hash_id("li", text, meta.get("file_path"))
        out.append(_dict(rid, text, meta, derived, score, score_kind, getattr(node, "embedding", None)))
    return out


def haystack_dicts(documents: Iterable[Any], *, score_kind: ScoreKind = "similarity") -> list[dict[str, Any]]:
    """`haystack.Document`s (id, content, meta, score, embedding). `content=None` stays None: the core
    reports such a document as `empty_text` rather than inventing text."""
    _check_kind(score_kind)
    out = []
    for d in documents:
        meta = dict(getattr(d, "meta", None) or {})
        text = getattr(d, "content", None)
        path = meta.get("file_path")
        derived = {
            "doc": _first_text(meta.get("title"), display_name(path)),
            "url": _first_text(path),
            "section": _page(None, meta.get("page_number"), zero_based=False, path=path,
                             mime=meta.get("mime_type")),
        }
        rid = getattr(d, "id", None) or _hash_id("hs", text, meta.get("file_path"))
        out.append(_dict(rid, text, meta, derived, getattr(d, "score", None), score_kind,
                         getattr(d, "embedding", None)))
    return out


def from_langchain(documents: Iterable[Any], *, score_kind: ScoreKind = "similarity") -> list[Record]:
    """LangChain documents (or `(document, score)` pairs) as records; strict: a bad value raises."""
    return [Record.from_dict(d) for d in langchain_dicts(documents, score_kind=score_kind)]


def from_llamaindex(nodes: Iterable[Any], *, score_kind: ScoreKind = "similarity") -> list[Record]:
    """LlamaIndex `NodeWithScore`s or nodes as records; strict: a bad value raises."""
    return [Record.from_dict(d) for d in llamaindex_dicts(nodes, score_kind=score_kind)]


def from_haystack(documents: Iterable[Any], *, score_kind: ScoreKind = "similarity") -> list[Record]:
    """Haystack `Document`s as records; strict: a bad value raises."""
    return [Record.from_dict(d) for d in haystack_dicts(documents, score_kind=score_kind)]


# -- shared mapping -------------------------------------------------------------------------------------


def _dict(rid: Any, text: Any, meta: dict[str, Any], derived: Mapping[str, Any], score: Any,
          score_kind: ScoreKind, embedding: Any) -> dict[str, Any]:
    """One record dict: explicit field keys from metadata, then derived ones, coerced where unambiguous."""
    fields = {k: meta.pop(k) for k in list(meta) if k in FIELD_KEYS}
    for name, value in derived.items():
        if value is not None and fields.get(name) is None:
            fields[name] = value
    data: dict[str, Any] = {"id": rid if isinstance(rid, str) else _plain_id(rid), "text": text}
    for name, value in fields.items():
        if value is None:
            if name == "sensitivity":  # present but null: kept, so the core fails closed (one rule, every path)
                data[name] = None
            continue
        if name in STRING_FIELDS:
            value = _as_text(value)
        elif name in DATE_FIELDS:
            value = coerce_date(value)
        data[name] = value
    if "embedding" in meta and embedding is None:
        embedding = meta.pop("embedding")
    if embedding is not None:
        data["embedding"] = _as_vector(embedding)
    score = _as_number(score)
    if score is not None:
        if score_kind == "distance" and isinstance(score, float):
            meta.setdefault("distance", score)
            score = -score  # lower distance is better; a record's score is higher-is-better
        data["score"] = score
    data["metadata"] = meta
    return data


def _check_kind(kind: str) -> None:
    if kind not in ("similarity", "distance"):
        raise IntegrationInputError(f"score_kind must be similarity or distance, got {kind!r}")


def _split_pair(item: Any) -> tuple[Any, Any]:
    if isinstance(item, tuple) and len(item) == 2 and not hasattr(item, "page_content"):
        return item[0], item[1]
    return item, None


def _node_text(node: Any) -> Any:
    get_content = getattr(node, "get_content", None)
    if callable(get_content):
        return get_content()
    return getattr(node, "text", None)


def _hash_id(prefix: str, text: Any, source: Any) -> str:
    """A stable id from what the document is: equal for the same chunk of the same source, never a position."""
    material = f"{text if isinstance(text, str) else ''}\x00{source if source is not None else ''}"
    digest = hashlib.blake2b(material.encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()
    return f"{prefix}-{digest}"


def _plain_id(rid: Any) -> Any:
    """An int id reads as itself; anything else is passed on for the core to judge."""
    return str(rid) if isinstance(rid, int) and not isinstance(rid, bool) else rid


def _first(meta: Mapping[str, Any], *keys: str) -> Any:
    return next((meta[k] for k in keys if meta.get(k) not in (None, "")), None)


def _first_text(*values: Any) -> str | None:
    return next((str(v) for v in values if isinstance(v, str) and v.strip()), None)


#: File types without pages: a page number on one of their chunks is a splitter's default, not a page.
UNPAGED_SUFFIXES = frozenset((".txt", ".md", ".markdown", ".html", ".htm", ".xhtml", ".csv", ".tsv", ".json",
                              ".jsonl", ".xml", ".rst", ".log", ".yaml", ".yml", ".py", ".eml", ".rtf"))
_SUFFIX = re.compile(r"(\.[A-Za-z0-9]{1,10})$")
_CREDENTIALS = re.compile(r"^[^@/]*@")


def display_name(source: Any) -> str | None:
    """What of a path or URL may reach the prompt: a path's file name (`handbook-2024.md`), a URL without its
    query, fragment or credentials (`https://hr.example/pto`). None for anything that is not a string."""
    if not isinstance(source, str) or not source.strip():
        return None
    text = source.strip()
    if _URL.match(text):
        scheme, rest = text.split("://", 1)
        rest = _CREDENTIALS.sub("", rest.split("#", 1)[0].split("?", 1)[0])
        return f"{scheme}://{rest}"
    if text.lower().startswith("file://"):
        text = text[7:]
    name = re.split(r"[\\/]", text.rstrip("/\\"))[-1]
    return name or None


def _unpaged(path: Any, mime: Any) -> bool:
    """Whether the document is of a type without pages (by file suffix, or a text/* MIME type)."""
    if isinstance(mime, str) and mime.lower().startswith("text/"):
        return True
    name = display_name(path) if isinstance(path, str) else None
    m = _SUFFIX.search(name.split("?", 1)[0]) if name else None
    return bool(m) and m.group(1).lower() in UNPAGED_SUFFIXES  # type: ignore[union-attr]


def _page(label: Any, page: Any, *, zero_based: bool, path: Any = None, mime: Any = None) -> str | None:
    """`p. 4` from a printed page label, else from a page number (LangChain's PDF loaders count from 0);
    None for a file type without pages (`UNPAGED_SUFFIXES`)."""
    if _unpaged(path, mime):
        return None
    if isinstance(label, str | int) and not isinstance(label, bool) and str(label).strip():
        return f"p. {str(label).strip()}"
    if isinstance(page, int) and not isinstance(page, bool) and page >= 0:
        return f"p. {page + 1 if zero_based else page}"
    return None


def _as_text(value: Any) -> Any:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _as_number(value: Any) -> Any:
    """A finite float, or None when there is no score; anything else is passed on for the core to judge."""
    if value is None or isinstance(value, bool):
        return value
    try:
        number = float(value)
    except (TypeError, ValueError):
        return value
    return number if math.isfinite(number) else value


def _as_vector(value: Any) -> Any:
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, list | tuple):
        try:
            return [float(x) for x in value]
        except (TypeError, ValueError):
            return value
    return value


_PDF_DATE = re.compile(r"^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-]\d{2}'?\d{2}'?)?$")
_YEAR_FIRST = re.compile(r"^(\d{4})[/.](\d{1,2})[/.](\d{1,2})$")
_NAMED_MONTH = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%d %b %Y", "%B %d %Y", "%b %d %Y")


def coerce_date(value: Any) -> Any:
    """An ISO string for a date that reads only one way, else the value unchanged (the core then rejects
    it, or leaves it out with a note). `03/04/2024` reads two ways and is never guessed."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if not isinstance(value, str):
        return value
    text = value.strip()
    try:
        return date.fromisoformat(text).isoformat() if len(text) == 10 else \
            datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00")).isoformat()
    except ValueError:
        pass
    if m := _PDF_DATE.match(text):  # PDF metadata: D:YYYYMMDDHHmmSS+HH'mm'
        year, month, day, hour, minute, second, zone = m.groups()
        try:
            when = datetime(int(year), int(month or 1), int(day or 1), int(hour or 0), int(minute or 0),
                            int(second or 0), tzinfo=_pdf_zone(zone))
        except ValueError:
            return value
        return when.date().isoformat() if hour is None else when.isoformat()
    if m := _YEAR_FIRST.match(text):
        try:
            return date(int(m[1]), int(m[2]), int(m[3])).isoformat()
        except ValueError:
            return value
    for fmt in _NAMED_MONTH:
        try:
            return datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            continue
    try:  # RFC 2822, as web and feed loaders give it
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return value
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).isoformat()


def _pdf_zone(zone: str | None) -> timezone:
    if not zone or zone == "Z":
        return timezone.utc
    digits = zone.replace("'", "")
    sign = -1 if digits[0] == "-" else 1
    return timezone(sign * timedelta(hours=int(digits[1:3]), minutes=int(digits[3:5] or 0)))
