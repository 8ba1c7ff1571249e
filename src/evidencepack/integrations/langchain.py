"""LangChain: a Runnable that assembles retrieved documents into the prompt, and a chain that answers,
validates citations and regenerates, streaming included.

    prompt = EvidencePrompt(as_of="2026-06-01")                  # {"documents", "question"} -> prompt
    chain = {"documents": retriever, "question": RunnablePassthrough()} | prompt | llm
    cited = cited_chain(llm, retriever=retriever, as_of="2026-06-01")
    cited.invoke("Does unused PTO carry over?")                  # -> Answered (answer, verdict, sources)
    for event in cited.stream("…"): ...                          # Delta / Flagged / Done

The prompt is a `ChatPromptValue` of `SystemMessage` + `HumanMessage` built from the assembly's strings:
record text never passes through a prompt template, so braces in a record stay braces. Bad or repeated
documents are reported in `prompt.assembly.report`, not raised. Needs `pip install 'evidencepack[langchain]'`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from typing import Any

from . import IntegrationInputError, missing_extra

try:
    # typing_extensions' TypedDict: pydantic (LangChain's schemas, graphs) refuses typing's before Python 3.12.
    from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
    from langchain_core.prompt_values import ChatPromptValue
    from langchain_core.runnables import Runnable, RunnableConfig, RunnableSerializable
    from pydantic import ConfigDict, Field
    from typing_extensions import TypedDict
except ModuleNotFoundError as err:  # pragma: no cover - only without the extra
    raise missing_extra("langchain-core", "langchain") from err

from ..assemble import Assembly
from ..citations.severities import Severities, Severity
from ..records.record import Record
from .adapters import ScoreKind, langchain_dicts
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

__all__ = ["AssembledPrompt", "CitedChain", "EvidencePrompt", "cited_chain", "records_from", "to_messages"]


class ChainInput(TypedDict):
    documents: Sequence[Any]
    question: str


class AssembledPrompt(ChatPromptValue):
    """What a chat model takes (`to_messages()`), carrying the assembly it was built from."""

    assembly: Any = None


def to_messages(assembly: Assembly) -> list[BaseMessage]:
    """The assembly as LangChain messages, strings passed as they are (no template, no brace parsing)."""
    return [SystemMessage(content=assembly.system), HumanMessage(content=assembly.user)]


def records_from(documents: Iterable[Any], *, score_kind: ScoreKind = "similarity") -> list[Any]:
    """LangChain documents or `(document, score)` pairs as record dicts; dicts and `Record`s pass through."""
    items = list(documents)
    native = [d for d in items if not isinstance(d, Record | Mapping)]
    converted = iter(langchain_dicts(native, score_kind=score_kind))
    return [d if isinstance(d, Record | Mapping) else next(converted) for d in items]


class EvidencePrompt(RunnableSerializable[ChainInput, AssembledPrompt]):
    """`{"documents": [...], "question": "..."}` -> `AssembledPrompt`. Keyword arguments are `assemble`'s
    (`as_of` is required; the option groups `budget=`, `admission=`, `dedup=`, `layout=`); `on_invalid="drop"`
    (default) reports bad documents instead of raising. `options=` takes the flat `report.settings` keys
    instead (docs/options.md), as a serialised prompt carries them.

    Serialisable as LangChain's prompt templates are (`langchain_core.load.dumps` / `loads(...,
    valid_namespaces=["evidencepack"], allowed_objects=[EvidencePrompt])`): the options travel as their flat
    settings; the boundary key never does (give it again, or set $EVIDENCEPACK_BOUNDARY_KEY), nor does a
    tokenizer or model object (a named model or encoding does)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    as_of: Any
    on_invalid: OnInvalid = "drop"
    score_kind: ScoreKind = "similarity"
    assemble_kwargs: dict[str, Any] = Field(default_factory=dict, exclude=True)

    def __init__(self, *, as_of: Any, on_invalid: OnInvalid = "drop", score_kind: ScoreKind = "similarity",
                 options: Mapping[str, Any] | None = None, **assemble_kwargs: Any) -> None:
        if options is not None:
            from ..options import Options

            assemble_kwargs = {**Options.kwargs_from_settings({k: v for k, v in options.items() if k != "as_of"}),
                               **assemble_kwargs}
        fields: dict[str, Any] = {"as_of": as_of, "on_invalid": on_invalid, "score_kind": score_kind,
                                  "assemble_kwargs": assemble_kwargs}
        super().__init__(**fields)

    @classmethod
    def is_lc_serializable(cls) -> bool:
        return True

    @classmethod
    def get_lc_namespace(cls) -> list[str]:
        return ["evidencepack", "integrations", "langchain"]

    @property
    def lc_attributes(self) -> dict[str, Any]:
        """What the serialised form carries besides the fields: `as_of` as ISO text and the options as
        their flat settings (what `report.settings` records, minus `as_of`)."""
        from ..options import Options

        settings = Options.build(as_of=self.as_of, **self.assemble_kwargs).settings()
        as_of = settings.pop("as_of")
        settings.pop("boundary_key_given", None)
        return {"as_of": as_of, "options": settings}

    def assemble(self, documents: Iterable[Any], question: str) -> Assembly:
        return assemble_lenient(records_from(documents, score_kind=self.score_kind), question, as_of=self.as_of,
                                on_invalid=self.on_invalid, **self.assemble_kwargs)

    def invoke(self, input: ChainInput, config: RunnableConfig | None = None, **kwargs: Any) -> AssembledPrompt:
        """Run as LangChain's own prompt templates run: inside `_call_with_config`, so callbacks and tracers
        (LangSmith, `astream_events`) see a "prompt" run start and end, with its config (tags, name)."""
        return self._call_with_config(self._prompt, input, config, run_type="prompt")

    async def ainvoke(self, input: ChainInput, config: RunnableConfig | None = None,
                      **kwargs: Any) -> AssembledPrompt:
        return await self._acall_with_config(self._aprompt, input, config, run_type="prompt")

    def _prompt(self, input: ChainInput) -> AssembledPrompt:
        documents, question = _unpack(input)
        assembly = self.assemble(documents, question)
        return AssembledPrompt(messages=to_messages(assembly), assembly=assembly)

    async def _aprompt(self, input: ChainInput) -> AssembledPrompt:
        return self._prompt(input)  # CPU-bound and quick: no executor hop


class CitedChain(Runnable[Any, Answered]):
    """Assemble, ask `llm`, validate the citations, regenerate on chosen findings. Input: a question (with a
    retriever) or `{"documents", "question"}`. `invoke` returns `Answered`; `stream` yields `Delta`, `Flagged`
    and a final `Done` (a regeneration streams as the next `attempt`). With `Policy(repair="withhold")` (what
    `cited_chain` builds by default) the chain reassembles the same documents, question and options without
    the withheld records itself."""

    def __init__(self, llm: Runnable[Any, Any], prompt: EvidencePrompt, policy: Policy,
                 retriever: Runnable[str, Sequence[Any]] | None = None) -> None:
        self.llm = llm
        self.prompt = prompt
        self.policy = policy
        self.retriever = retriever

    def _records(self, input: Any, config: RunnableConfig | None) -> tuple[list[Any], str]:
        if isinstance(input, str):
            if self.retriever is None:
                raise IntegrationInputError("a bare question needs a retriever; else pass "
                                            "{'documents': ..., 'question': ...}")
            return self._convert(self.retriever.invoke(input, config)), input
        documents, question = _unpack(input)
        return self._convert(documents), question

    async def _arecords(self, input: Any, config: RunnableConfig | None) -> tuple[list[Any], str]:
        if isinstance(input, str) and self.retriever is not None:
            return self._convert(await self.retriever.ainvoke(input, config)), input
        return self._records(input, config)

    def _convert(self, documents: Iterable[Any]) -> list[Any]:
        return records_from(documents, score_kind=self.prompt.score_kind)

    def _assembly(self, input: Any, config: RunnableConfig | None) -> tuple[Assembly, Reassemble]:
        return self._prepare(*self._records(input, config))

    async def _aassembly(self, input: Any, config: RunnableConfig | None) -> tuple[Assembly, Reassemble]:
        return self._prepare(*(await self._arecords(input, config)))

    def _prepare(self, records: list[Any], question: str) -> tuple[Assembly, Reassemble]:
        """The assembly, and how to rebuild it without withheld records (used only by `repair="withhold"`)."""
        return (self.prompt.assemble(records, question),
                lambda withheld: self.prompt.assemble(without(records, withheld), question))

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Answered:
        """Inside `_call_with_config`: one "chain" run whose children are the retriever and model calls."""
        return self._call_with_config(self._invoke, input, config, run_type="chain")

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Answered:
        return await self._acall_with_config(self._ainvoke, input, config, run_type="chain")

    def _invoke(self, input: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig) -> Answered:
        del run_manager  # the children see the run through `config` (its callbacks are the run's child manager)
        assembly, again = self._assembly(input, config)
        return answer(assembly, lambda m: _text(self.llm.invoke(_lc(m), config)), policy=self.policy,
                      reassemble=again)

    async def _ainvoke(self, input: Any, run_manager: AsyncCallbackManagerForChainRun,
                       config: RunnableConfig) -> Answered:
        del run_manager
        assembly, again = await self._aassembly(input, config)

        async def complete(messages: list[ChatMessage]) -> str:
            return _text(await self.llm.ainvoke(_lc(messages), config))

        return await answer_async(assembly, complete, policy=self.policy, reassemble=again)

    def stream(self, input: Any, config: RunnableConfig | None = None,  # type: ignore[override]
               **kwargs: Any) -> Iterator[Event]:
        """`Delta`, `Flagged`, then `Done`, inside one traced "chain" run (its output: the `Done`)."""
        runnable: Any = self  # typed Runnable[Any, Answered]; its stream yields events (as before)
        yield from runnable._transform_stream_with_config(iter([input]), self._events, config, run_type="chain")

    async def astream(self, input: Any, config: RunnableConfig | None = None,  # type: ignore[override]
                      **kwargs: Any) -> AsyncIterator[Event]:
        async def one() -> AsyncIterator[Any]:
            yield input

        runnable: Any = self
        async for event in runnable._atransform_stream_with_config(one(), self._aevents, config, run_type="chain"):
            yield event

    def _events(self, inputs: Iterator[Any], run_manager: CallbackManagerForChainRun,
                config: RunnableConfig) -> Iterator[Event]:
        del run_manager
        for input in inputs:  # exactly one: `stream` passes its input alone
            assembly, again = self._assembly(input, config)

            def chunks(messages: list[ChatMessage]) -> Iterator[str]:
                for chunk in self.llm.stream(_lc(messages), config):
                    yield _text(chunk)

            yield from answer_stream(assembly, chunks, policy=self.policy, reassemble=again)

    async def _aevents(self, inputs: AsyncIterator[Any], run_manager: AsyncCallbackManagerForChainRun,
                       config: RunnableConfig) -> AsyncIterator[Event]:
        del run_manager
        async for input in inputs:
            assembly, again = await self._aassembly(input, config)

            async def chunks(messages: list[ChatMessage]) -> AsyncIterator[str]:
                async for chunk in self.llm.astream(_lc(messages), config):
                    yield _text(chunk)

            async for event in answer_stream_async(assembly, chunks, policy=self.policy, reassemble=again):
                yield event


def cited_chain(llm: Runnable[Any, Any], *, as_of: Any, retriever: Runnable[str, Sequence[Any]] | None = None,
                attempts: int = 2, regenerate_on: Iterable[str] = REGENERATE_ON, uncited: Severity = "warn",
                stale_only: Severity = "error", unsupported_value: Severity = "warn",
                severities: Severities | Mapping[str, Severity] | None = None, attribute: bool = False,
                repair: Repair = "withhold", on_invalid: OnInvalid = "drop", score_kind: ScoreKind = "similarity",
                **assemble_kwargs: Any) -> CitedChain:
    """A `CitedChain` around a chat model (any Runnable from messages to a message or a string). With
    `attribute=True`, uncited sentences are checked against the sources their content matches, for a model
    that rarely writes handles. An answer resting only on weak sources is asked again on the same documents
    without them (`repair="withhold"`, the default here: a fresh question, not a repair turn); other findings,
    and every finding with `repair="ask"`, get a repair turn. The citation options are `Policy`'s."""
    prompt = EvidencePrompt(as_of=as_of, on_invalid=on_invalid, score_kind=score_kind, **assemble_kwargs)
    policy = Policy(attempts=attempts, regenerate_on=tuple(regenerate_on),
                    severities=severities_of(severities, uncited=uncited, stale_only=stale_only,
                                         unsupported_value=unsupported_value),
                    attribute=attribute, repair=repair)
    return CitedChain(llm, prompt, policy, retriever)


def _unpack(input: Any) -> tuple[Sequence[Any], str]:
    if not isinstance(input, Mapping) or "documents" not in input or not isinstance(input.get("question"), str):
        raise IntegrationInputError("expected {'documents': [...], 'question': '...'}")
    return input["documents"], input["question"]


def _lc(messages: Sequence[ChatMessage]) -> list[BaseMessage]:
    kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
    return [kinds[m["role"]](content=m["content"]) for m in messages]


def _text(output: Any) -> str:
    """A chat model's message or chunk as text (text blocks only), or a plain string model's output."""
    if isinstance(output, BaseMessage):
        content = output.content
        if isinstance(content, str):
            return content
        return "".join(part if isinstance(part, str) else str(part.get("text", ""))
                       for part in content if isinstance(part, str) or part.get("type") == "text")
    return str(output)
