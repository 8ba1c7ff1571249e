"""LlamaIndex: a query engine that retrieves, assembles, answers, validates citations and regenerates.

    engine = EvidencePackQueryEngine.from_args(retriever=index.as_retriever(), llm=llm, as_of="2026-06-01")
    response = engine.query("Does unused PTO carry over?")
    response.response, response.source_nodes, response.metadata["verdict"]["valid"]

`source_nodes` are the retrieved nodes that made it into the prompt, in handle order (S1 first);
`metadata` holds the verdict, the handles, the cited (and, with `attribute=True`, attributed) record ids,
the ids withheld from a retry (`repair="withhold"`, the default) with a sentence for the reader naming
them (`withheld_note`), and the report of the assembly the answer was checked
against (every node included or dropped with a reason). `stream_query` yields `Delta` / `Flagged` / `Done` events.
Needs `pip install 'evidencepack[llamaindex]'`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

from . import missing_extra

try:
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.base.response.schema import Response
    from llama_index.core.llms import LLM, MessageRole
    from llama_index.core.llms import ChatMessage as LIMessage
    from llama_index.core.query_engine import CustomQueryEngine
    from llama_index.core.schema import NodeWithScore
    from pydantic import Field
except ModuleNotFoundError as err:  # pragma: no cover - only without the extra
    raise missing_extra("llama-index-core", "llamaindex") from err

from ..assemble import Assembly
from ..citations.severities import Severities, Severity
from .adapters import ScoreKind, llamaindex_dicts
from .common import (
    REGENERATE_ON,
    Answered,
    ChatMessage,
    Event,
    OnInvalid,
    Policy,
    Reassemble,
    Repair,
    answer,
    answer_async,
    answer_stream,
    answer_stream_async,
    assemble_lenient,
    severities_of,
    without,
)

__all__ = ["EvidencePackQueryEngine", "response_of", "to_chat_messages"]

_ROLES = {"system": MessageRole.SYSTEM, "user": MessageRole.USER, "assistant": MessageRole.ASSISTANT}


def to_chat_messages(messages: Sequence[ChatMessage]) -> list[LIMessage]:
    """OpenAI-style dicts as LlamaIndex chat messages, content passed as it is."""
    return [LIMessage(role=_ROLES[m["role"]], content=m["content"]) for m in messages]


class EvidencePackQueryEngine(CustomQueryEngine):
    """Retrieve with `retriever`, assemble (bad or repeated nodes reported, not raised), ask `llm`, and
    validate; regenerate at most `policy.attempts` times on `policy.regenerate_on` findings. The default
    policy withholds (`Policy(repair="withhold")`): the engine reassembles the retrieved nodes itself."""

    retriever: BaseRetriever
    llm: LLM
    as_of: Any
    policy: Policy = Field(default_factory=lambda: Policy(repair="withhold"))
    on_invalid: OnInvalid = "drop"
    score_kind: ScoreKind = "similarity"
    assemble_kwargs: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def from_args(cls, *, retriever: BaseRetriever, llm: LLM, as_of: Any, attempts: int = 2,
                  regenerate_on: Sequence[str] = REGENERATE_ON, uncited: Severity = "warn",
                  stale_only: Severity = "error", unsupported_value: Severity = "warn",
                  severities: Severities | Mapping[str, Severity] | None = None, attribute: bool = False,
                  repair: Repair = "withhold", on_invalid: OnInvalid = "drop", score_kind: ScoreKind = "similarity",
                  **assemble_kwargs: Any) -> EvidencePackQueryEngine:
        """The citation options are `Policy`'s (`attribute=True` checks uncited sentences against the sources
        their content matches; `repair="withhold"`, the default, asks a stale-only answer's question again on
        the retrieved nodes without the weak ones it rested on, `"ask"` sends a repair turn instead); keyword
        arguments beyond these are `assemble`'s (`layout=Layout(order=...)`, `budget=Budget(...)`, …)."""
        policy = Policy(attempts=attempts, regenerate_on=tuple(regenerate_on),
                        severities=severities_of(severities, uncited=uncited, stale_only=stale_only,
                                         unsupported_value=unsupported_value),
                        attribute=attribute, repair=repair)
        return cls(retriever=retriever, llm=llm, as_of=as_of, on_invalid=on_invalid, score_kind=score_kind,
                   policy=policy, assemble_kwargs=assemble_kwargs)

    def assemble(self, nodes: Sequence[NodeWithScore], query_str: str) -> Assembly:
        return self._assemble(llamaindex_dicts(nodes, score_kind=self.score_kind), query_str)

    def _assemble(self, records: Sequence[dict[str, Any]], query_str: str) -> Assembly:
        return assemble_lenient(records, query_str, as_of=self.as_of, on_invalid=self.on_invalid,
                                **self.assemble_kwargs)

    def _prepare(self, nodes: Sequence[NodeWithScore], query_str: str) -> tuple[Assembly, Reassemble]:
        """The assembly, and how to rebuild it without withheld records (used only by `repair="withhold"`)."""
        records = llamaindex_dicts(nodes, score_kind=self.score_kind)
        return (self._assemble(records, query_str),
                lambda withheld: self._assemble(without(records, withheld), query_str))

    def custom_query(self, query_str: str) -> Response:
        nodes = self.retriever.retrieve(query_str)
        assembly, again = self._prepare(nodes, query_str)

        def complete(messages: list[ChatMessage]) -> str:
            return self.llm.chat(to_chat_messages(messages)).message.content or ""

        return _response(answer(assembly, complete, policy=self.policy, reassemble=again), nodes)

    async def acustom_query(self, query_str: str) -> Response:
        nodes = await self.retriever.aretrieve(query_str)
        assembly, again = self._prepare(nodes, query_str)

        async def complete(messages: list[ChatMessage]) -> str:
            return (await self.llm.achat(to_chat_messages(messages))).message.content or ""

        return _response(await answer_async(assembly, complete, policy=self.policy, reassemble=again), nodes)

    def stream_query(self, query_str: str) -> Iterator[Event]:
        """Stream the answer: `Delta` text, `Flagged` findings as soon as a bad handle closes, then `Done`."""
        assembly, again = self._prepare(self.retriever.retrieve(query_str), query_str)

        def chunks(messages: list[ChatMessage]) -> Iterator[str]:
            for part in self.llm.stream_chat(to_chat_messages(messages)):
                yield part.delta or ""

        return answer_stream(assembly, chunks, policy=self.policy, reassemble=again)

    async def astream_query(self, query_str: str) -> AsyncIterator[Event]:
        """`stream_query` with the async retriever and LLM."""
        assembly, again = self._prepare(await self.retriever.aretrieve(query_str), query_str)

        async def chunks(messages: list[ChatMessage]) -> AsyncIterator[str]:
            async for part in await self.llm.astream_chat(to_chat_messages(messages)):
                yield part.delta or ""

        async for event in answer_stream_async(assembly, chunks, policy=self.policy, reassemble=again):
            yield event


def response_of(result: Answered, nodes: Sequence[NodeWithScore]) -> Response:
    """A LlamaIndex `Response` for a result: the included nodes as `source_nodes`, the verdict in metadata."""
    return _response(result, nodes)


def _response(result: Answered, nodes: Sequence[NodeWithScore]) -> Response:
    by_id: dict[str, NodeWithScore] = {}
    for node, data in zip(nodes, llamaindex_dicts(nodes)):
        by_id.setdefault(str(data["id"]), node)
    manifest = result.assembly.manifest
    return Response(
        response=result.answer,
        source_nodes=[by_id[m.id] for m in manifest if m.id in by_id],
        metadata={
            "verdict": result.verdict.to_dict(),
            "valid": result.verdict.valid,
            "attempts": result.attempts,
            "withheld": list(result.withheld),
            "withheld_note": result.withheld_note(),
            "handles": {m.handle: m.id for m in manifest},
            "cited_ids": list(result.verdict.cited_ids),
            "attributed_ids": list(result.verdict.attributed_ids),
            "report": result.assembly.report.to_dict(),
            "answered": result,
        },
    )
