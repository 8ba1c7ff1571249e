"""Framework documents in, records out: LangChain, LlamaIndex and Haystack, by duck typing.

No framework is imported: each function reads the attributes those libraries' document types expose, so
evidencepack stays light and works with whichever version a caller has. Metadata keys that name a record
field (`doc`, `section`, `authority`, `valid_until`, …) become that field; the rest stay in `metadata`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .records import KNOWN_FIELDS, Record

_FROM_METADATA = KNOWN_FIELDS - {"id", "text", "metadata", "score", "rank"}


def _record(id: Any, text: Any, metadata: Mapping[str, Any] | None, score: Any) -> Record:
    meta = dict(metadata or {})
    fields = {k: meta.pop(k) for k in list(meta) if k in _FROM_METADATA}
    data: dict[str, Any] = {"id": str(id), "text": text, **fields, "metadata": meta}
    if score is not None:
        data["score"] = float(score)
    return Record.from_dict(data)


def from_langchain(documents: Iterable[Any]) -> list[Record]:
    """`langchain_core.documents.Document` (page_content, metadata, id). Without an id, the metadata's
    `id` or the position is used; LangChain retrievers return documents best-first."""
    return [_record(getattr(d, "id", None) or d.metadata.get("id") or f"doc-{i}", d.page_content,
                    {k: v for k, v in d.metadata.items() if k != "id"}, None)
            for i, d in enumerate(documents, start=1)]


def from_llamaindex(nodes: Iterable[Any]) -> list[Record]:
    """`llama_index.core.schema.NodeWithScore` (node.node_id, node.get_content(), node.metadata, score)."""
    return [_record(n.node.node_id, n.node.get_content(), n.node.metadata, n.score) for n in nodes]


def from_haystack(documents: Iterable[Any]) -> list[Record]:
    """`haystack.Document` (id, content, meta, score)."""
    return [_record(d.id, d.content, d.meta, d.score) for d in documents]
