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

from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from . import missing_extra

try:
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.base.response.schema import AsyncStreamingResponse, Response, StreamingResponse
    from llama_index.core.llms import LLM, MessageRole
    from llama_index.core.llms import ChatMessage as LIMessage
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.prompts import PromptTemplate
    from llama_index.core.prompts.mixin import PromptMixin
    from llama_index.core.query_engine import CustomQueryEngine
    from llama_index.core.schema import NodeWithScore, QueryBundle
    from pydantic import Field, PrivateAttr
except ModuleNotFoundError as err:  # pragma: no cover - only without the extra
    raise missing_extra("llama-index-core", "llamaindex") from err

from ..assemble import Assembly
from ..citations.severities import Severities, Severity
from ..render.layout import Layout
from ..render.prompts import SYSTEM_TEMPLATE
from .adapters import ScoreKind, llamaindex_dicts
from .common import (
    REGENERATE_ON,
    Answered,
    ChatMessage,
    Delta,
    Done,
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

__all__ = ["CheckedAsyncStreamingResponse", "CheckedStreamingResponse", "EvidencePackPostprocessor",
           "EvidencePackQueryEngine", "response_of", "to_chat_messages"]

#: The prompt key both components expose through LlamaIndex's prompt mixin (`get_prompts`/`update_prompts`).
SYSTEM_PROMPT_KEY = "system_prompt"

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
    #: As `index.as_query_engine(streaming=True)`: `query` returns a `CheckedStreamingResponse` (`aquery` a
    #: `CheckedAsyncStreamingResponse`) whose tokens stream as the model writes them.
    streaming: bool = False

    # -- LlamaIndex's prompt mixin: the system prompt template, readable and replaceable ---------------------

    def _get_prompts(self) -> dict[str, Any]:
        return {SYSTEM_PROMPT_KEY: _system_prompt(self.assemble_kwargs)}

    def _update_prompts(self, prompts: dict[str, Any]) -> None:
        if SYSTEM_PROMPT_KEY in prompts:
            self.assemble_kwargs = _with_system_prompt(self.assemble_kwargs, prompts[SYSTEM_PROMPT_KEY])

    @classmethod
    def from_args(cls, *, retriever: BaseRetriever, llm: LLM, as_of: Any, attempts: int = 2,
                  regenerate_on: Sequence[str] = REGENERATE_ON, uncited: Severity = "warn",
                  stale_only: Severity = "error", unsupported_value: Severity = "warn",
                  severities: Severities | Mapping[str, Severity] | None = None, attribute: bool = False,
                  repair: Repair = "withhold", on_invalid: OnInvalid = "drop", score_kind: ScoreKind = "similarity",
                  streaming: bool = False, **assemble_kwargs: Any) -> EvidencePackQueryEngine:
        """The citation options are `Policy`'s (`attribute=True` checks uncited sentences against the sources
        their content matches; `repair="withhold"`, the default, asks a stale-only answer's question again on
        the retrieved nodes without the weak ones it rested on, `"ask"` sends a repair turn instead); keyword
        arguments beyond these are `assemble`'s (`layout=Layout(order=...)`, `budget=Budget(...)`, …)."""
        policy = Policy(attempts=attempts, regenerate_on=tuple(regenerate_on),
                        severities=severities_of(severities, uncited=uncited, stale_only=stale_only,
                                         unsupported_value=unsupported_value),
                        attribute=attribute, repair=repair)
        return cls(retriever=retriever, llm=llm, as_of=as_of, on_invalid=on_invalid, score_kind=score_kind,
                   policy=policy, assemble_kwargs=assemble_kwargs, streaming=streaming)

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

    def custom_query(self, query_str: str) -> Response | StreamingResponse:
        if self.streaming:
            nodes = self.retriever.retrieve(query_str)
            return CheckedStreamingResponse.of(self._events(nodes, query_str), nodes)
        nodes = self.retriever.retrieve(query_str)
        assembly, again = self._prepare(nodes, query_str)

        def complete(messages: list[ChatMessage]) -> str:
            return self.llm.chat(to_chat_messages(messages)).message.content or ""

        return _response(answer(assembly, complete, policy=self.policy, reassemble=again), nodes)

    async def acustom_query(self, query_str: str) -> Response | AsyncStreamingResponse:
        if self.streaming:
            nodes = await self.retriever.aretrieve(query_str)
            return CheckedAsyncStreamingResponse.of(self._aevents(nodes, query_str), nodes)
        nodes = await self.retriever.aretrieve(query_str)
        assembly, again = self._prepare(nodes, query_str)

        async def complete(messages: list[ChatMessage]) -> str:
            return (await self.llm.achat(to_chat_messages(messages))).message.content or ""

        return _response(await answer_async(assembly, complete, policy=self.policy, reassemble=again), nodes)

    def stream_query(self, query_str: str) -> Iterator[Event]:
        """Stream the answer: `Delta` text, `Flagged` findings as soon as a bad handle closes, then `Done`. (For
        LlamaIndex's own `StreamingResponse`, build the engine with `streaming=True` and call `query`.)"""
        return self._events(self.retriever.retrieve(query_str), query_str)

    def _events(self, nodes: Sequence[NodeWithScore], query_str: str) -> Iterator[Event]:
        assembly, again = self._prepare(nodes, query_str)

        def chunks(messages: list[ChatMessage]) -> Iterator[str]:
            for part in self.llm.stream_chat(to_chat_messages(messages)):
                yield part.delta or ""

        return answer_stream(assembly, chunks, policy=self.policy, reassemble=again)

    async def astream_query(self, query_str: str) -> AsyncIterator[Event]:
        """`stream_query` with the async retriever and LLM."""
        async for event in self._aevents(await self.retriever.aretrieve(query_str), query_str):
            yield event

    async def _aevents(self, nodes: Sequence[NodeWithScore], query_str: str) -> AsyncIterator[Event]:
        assembly, again = self._prepare(nodes, query_str)

        async def chunks(messages: list[ChatMessage]) -> AsyncIterator[str]:
            async for part in await self.llm.astream_chat(to_chat_messages(messages)):
                yield part.delta or ""

        async for event in answer_stream_async(assembly, chunks, policy=self.policy, reassemble=again):
            yield event


@dataclass
class CheckedStreamingResponse(StreamingResponse):
    """LlamaIndex's `StreamingResponse`, checked: `response_gen` yields the answer's tokens as the model writes
    them (a regeneration, when a finding asks for one, streams after the flagged answer); once the stream is
    read, `source_nodes` are the included nodes in handle order, `metadata` holds the verdict (as
    `EvidencePackQueryEngine.query` gives it), and `str(response)` / `get_response()` give the final, checked
    answer only."""

    answered: Answered | None = None

    @classmethod
    def of(cls, events: Iterator[Event], nodes: Sequence[NodeWithScore]) -> CheckedStreamingResponse:
        response = cls(response_gen=_nothing(), source_nodes=[], metadata={})

        def tokens() -> Generator[str, None, None]:
            for event in events:
                if isinstance(event, Delta):
                    yield event.text
                elif isinstance(event, Done):
                    response._settle(event.result, nodes)

        response.response_gen = tokens()
        return response

    def _settle(self, result: Answered, nodes: Sequence[NodeWithScore]) -> None:
        done = _response(result, nodes)
        self.answered, self.source_nodes, self.metadata = result, done.source_nodes, done.metadata

    def __str__(self) -> str:
        super().__str__()  # reads the stream to its end
        return self.answered.answer if self.answered is not None else self.response_txt or "None"

    def get_response(self) -> Response:
        super().get_response()
        return Response(str(self), self.source_nodes, self.metadata)


@dataclass
class CheckedAsyncStreamingResponse(AsyncStreamingResponse):
    """`CheckedStreamingResponse` for `aquery`: `async_response_gen()` streams, then `await get_response()`."""

    answered: Answered | None = None

    @classmethod
    def of(cls, events: AsyncIterator[Event], nodes: Sequence[NodeWithScore]) -> CheckedAsyncStreamingResponse:
        response = cls(response_gen=_empty(), source_nodes=[], metadata={})

        async def tokens() -> AsyncGenerator[str, None]:
            async for event in events:
                if isinstance(event, Delta):
                    yield event.text
                elif isinstance(event, Done):
                    done = _response(event.result, nodes)
                    response.answered, response.source_nodes = event.result, done.source_nodes
                    response.metadata = done.metadata

        response.response_gen = tokens()
        return response

    async def get_response(self) -> Response:
        await super().get_response()
        text = self.answered.answer if self.answered is not None else self.response_txt
        return Response(text, self.source_nodes, self.metadata)


def _nothing() -> Generator[str, None, None]:
    yield from ()


async def _empty() -> AsyncGenerator[str, None]:
    return
    yield  # pragma: no cover - makes this an async generator


class EvidencePackPostprocessor(PromptMixin, BaseNodePostprocessor):
    """evidencepack as a LlamaIndex node postprocessor, for any query engine and its own synthesizer:
    `index.as_query_engine(node_postprocessors=[EvidencePackPostprocessor(as_of="2026-06-01")])`. The nodes go
    through admission (clearance, validity, injection screen), dedup, the budget and the order pass; what
    comes back is the included nodes, in seat order (the same node objects, text untouched). The assembly is
    kept for citation checks: `last_assembly` (the latest call's; one postprocessor per concurrent request
    if you need each one's), `validate_citations(answer, p.last_assembly)`. The prompt the synthesizer
    writes is its own, so the model sees no handles unless your prompt template shows them: for cited
    answers use `EvidencePackQueryEngine`. The system prompt template is exposed through LlamaIndex's prompt
    mixin (`get_prompts()["system_prompt"]`, `update_prompts`), which llama-index-core 0.14's postprocessor
    base no longer carries. Keyword arguments beyond these fields are `assemble`'s."""

    as_of: Any
    on_invalid: OnInvalid = "drop"
    score_kind: ScoreKind = "similarity"
    assemble_kwargs: dict[str, Any] = Field(default_factory=dict)
    _last: Assembly | None = PrivateAttr(default=None)

    def __init__(self, *, as_of: Any, on_invalid: OnInvalid = "drop", score_kind: ScoreKind = "similarity",
                 **assemble_kwargs: Any) -> None:
        from ..options import Options

        Options.build(as_of=as_of, **assemble_kwargs)  # a bad option fails here, not at the first query
        fields: dict[str, Any] = {"as_of": as_of, "on_invalid": on_invalid, "score_kind": score_kind,
                                  "assemble_kwargs": assemble_kwargs}
        super().__init__(**fields)

    @classmethod
    def class_name(cls) -> str:
        return "EvidencePackPostprocessor"

    @property
    def last_assembly(self) -> Assembly | None:
        return self._last

    def _get_prompts(self) -> dict[str, Any]:
        return {SYSTEM_PROMPT_KEY: _system_prompt(self.assemble_kwargs)}

    def _update_prompts(self, prompts: dict[str, Any]) -> None:
        if SYSTEM_PROMPT_KEY in prompts:
            self.assemble_kwargs = _with_system_prompt(self.assemble_kwargs, prompts[SYSTEM_PROMPT_KEY])

    def _get_prompt_modules(self) -> dict[str, Any]:
        return {}

    def _postprocess_nodes(self, nodes: list[NodeWithScore],
                           query_bundle: QueryBundle | None = None) -> list[NodeWithScore]:
        records = llamaindex_dicts(nodes, score_kind=self.score_kind)
        question = query_bundle.query_str if query_bundle is not None else ""
        assembly = assemble_lenient(records, question, as_of=self.as_of, on_invalid=self.on_invalid,
                                    **self.assemble_kwargs)
        self._last = assembly
        by_id: dict[str, NodeWithScore] = {}
        for node, data in zip(nodes, records):
            by_id.setdefault(str(data["id"]), node)
        return [by_id[m.id] for m in assembly.manifest if m.id in by_id]


def _system_prompt(assemble_kwargs: Mapping[str, Any]) -> PromptTemplate:
    """The system prompt template in force, as a LlamaIndex prompt. It is a `string.Template` (`$boundary`,
    `$as_of`, `$prefix`, `$conflict_rule`, `$abstain_rule`), filled by evidencepack, never by LlamaIndex."""
    layout = assemble_kwargs.get("layout")
    custom = layout.system_template if isinstance(layout, Layout) else None
    return PromptTemplate(custom if custom is not None else SYSTEM_TEMPLATE.template)


def _with_system_prompt(assemble_kwargs: Mapping[str, Any], prompt: Any) -> dict[str, Any]:
    """`assemble_kwargs` with the layout's system template replaced by `prompt` (a LlamaIndex prompt or str)."""
    text = prompt.get_template() if hasattr(prompt, "get_template") else prompt
    layout = assemble_kwargs.get("layout")
    base = layout if isinstance(layout, Layout) else Layout()
    return {**assemble_kwargs, "layout": replace(base, system_template=text)}


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
            "conflict_notes": [n.to_dict() for n in result.notes()],
            "delivered": result.with_notes(),  # the answer, then the assembler's notes for the reader
            "handles": {m.handle: m.id for m in manifest},
            "cited_ids": list(result.verdict.cited_ids),
            "attributed_ids": list(result.verdict.attributed_ids),
            "report": result.assembly.report.to_dict(),
            "answered": result,
        },
    )
