"""Haystack (2.x and later): an assembly component and a citation-validation component, both serialisable.

    pipe = Pipeline()
    pipe.add_component("retriever", retriever)
    pipe.add_component("pack", EvidencePackAssembler(as_of="2026-06-01"))
    pipe.add_component("llm", OpenAIChatGenerator())
    pipe.add_component("check", CitationValidator())
    pipe.connect("retriever.documents", "pack.documents")
    pipe.connect("pack.messages", "llm.messages")
    pipe.connect("llm.replies", "check.replies")
    pipe.connect("pack.assembly", "check.assembly")

`EvidencePackAssembler` turns documents and a question into chat messages plus the assembly (as JSON-ready
data, so it travels between components); bad or repeated documents are reported in its report, not raised.
`cited_pipeline(retriever, chat_generator, as_of=…)` wires the four above in one call.
`CitationValidator` checks the reply, and, given a `chat_generator`, asks it again on the findings you
choose. Given also the retrieved `documents` and the `question` (optional inputs; `cited_pipeline` connects
them), a reply resting only on stale sources is asked afresh on the same documents without them:

    pipe.connect("retriever.documents", "check.documents")
    pipe.connect("pack.question", "check.question")

A pipeline with both survives `dumps()` / `loads(..., allowed_modules=["evidencepack"])`.
Needs `pip install 'evidencepack[haystack]'`.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import asdict, replace
from typing import Any

from . import IntegrationInputError, missing_extra

try:
    from haystack import Document, Pipeline, component, default_from_dict, default_to_dict
    from haystack.core.serialization import component_to_dict
    from haystack.dataclasses import ChatMessage as HSMessage
    from haystack.utils import deserialize_chatgenerator_inplace
except ModuleNotFoundError as err:  # pragma: no cover - only without the extra
    raise missing_extra("haystack-ai", "haystack") from err

from ..assemble import Assembly
from ..citations import SourceIndex, conflict_notes, with_notes, withheld_note
from ..citations.severities import Severity
from ..errors import OptionError
from ..options import Options
from ..passes.budget import Budget
from ..seal import verify_env
from .adapters import ScoreKind, haystack_dicts
from .common import (
    REGENERATE_ON,
    ChatMessage,
    OnInvalid,
    Policy,
    Reassemble,
    Repair,
    assemble_lenient,
    chat_messages,
    default_repair,
    reassembler,
    repair,
    severities_of,
    withheld_retry,
)

__all__ = ["CitationValidator", "EvidencePackAssembler", "cited_pipeline", "to_chat_messages"]


def to_chat_messages(messages: list[ChatMessage]) -> list[HSMessage]:
    """OpenAI-style dicts as Haystack chat messages, text passed as it is (no template)."""
    make = {"system": HSMessage.from_system, "user": HSMessage.from_user, "assistant": HSMessage.from_assistant}
    return [make[m["role"]](m["content"]) for m in messages]


@component
class EvidencePackAssembler:
    """Documents + question -> `messages` (for a chat generator), `prompt`, `assembly` (JSON-ready dict), the
    included `documents` in handle order, and the `question` as given (for `CitationValidator.question`).
    `options` are flat `report.settings` keys with JSON-simple values (`{"order": "ranked", "format": "text"}`,
    docs/options.md; read by `Options.kwargs_from_settings`) plus, optionally, `boundary_key`; `budget` is a dict
    of `Budget` fields."""

    def __init__(self, as_of: str, *, budget: dict[str, Any] | None = None, on_invalid: OnInvalid = "drop",
                 score_kind: ScoreKind = "similarity", options: dict[str, Any] | None = None) -> None:
        self.as_of = as_of
        self.budget = budget
        self.on_invalid = on_invalid
        self.score_kind = score_kind
        self.options = options or {}
        # A bad budget, option, order or as_of fails when the pipeline is built, not at the first query.
        Options.build(**self._assemble_kwargs())

    @component.output_types(messages=list[HSMessage], prompt=str, assembly=dict[str, Any],
                            documents=list[Document], question=str)
    def run(self, documents: list[Document], question: str) -> dict[str, Any]:
        dicts = haystack_dicts(documents, score_kind=self.score_kind)
        assembly = assemble_lenient(dicts, question, on_invalid=self.on_invalid, **self._assemble_kwargs())
        by_id: dict[str, Document] = {}
        for doc, data in zip(documents, dicts):
            by_id.setdefault(str(data["id"]), doc)
        return {
            "messages": [HSMessage.from_system(assembly.system), HSMessage.from_user(assembly.user)],
            "prompt": assembly.prompt,
            "assembly": assembly.to_dict(),
            "documents": [by_id[m.id] for m in assembly.manifest if m.id in by_id],
            "question": question,
        }

    @component.output_types(messages=list[HSMessage], prompt=str, assembly=dict[str, Any],
                            documents=list[Document], question=str)
    async def run_async(self, documents: list[Document], question: str) -> dict[str, Any]:
        """`run` for an `AsyncPipeline`: assembly is CPU-bound and takes milliseconds, so it runs inline."""
        return self.run(documents, question)

    def _assemble_kwargs(self) -> dict[str, Any]:
        """The option groups the flat JSON options stand for (no deprecated keywords reach `assemble`)."""
        flat = dict(self.options)
        key = flat.pop("boundary_key", None)
        kwargs = Options.kwargs_from_settings(flat)
        kwargs.update(as_of=self.as_of, budget=Budget(**(self.budget or {})))
        return {**kwargs, "boundary_key": key} if key is not None else kwargs

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(self, as_of=self.as_of, budget=self.budget, on_invalid=self.on_invalid,
                               score_kind=self.score_kind, options=self.options)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvidencePackAssembler:
        return default_from_dict(cls, data)


@component
class CitationValidator:
    """Check a reply's citations against the assembly it answers. Outputs the `answer`, `valid`, the
    `verdict` (dict), the answer with citations `resolved` to links or footnotes, the cited manifest
    entries as `sources`, `attempts`, the record ids `withheld` from a retry and a `withheld_note` for the
    reader ("" when none). `attribute=True` also checks uncited sentences against the sources their content
    matches (the verdict's `support` and `attributed_ids` say which). With a `chat_generator`, a reply with
    a finding listed in `regenerate_on` is asked again, at most `attempts` times.

    How it is asked again (`repair`): the validator receives the assembly, not what it was built from. Given
    the optional inputs `documents` (the ones the assembler got) and `question`, it can rebuild it, and
    then a reply resting only on weak sources is asked afresh on the same documents without them, with the
    options the assembly's report recorded ("withhold", the default when both inputs arrive); every other
    finding, and every finding without those inputs, is sent back with exactly what was wrong ("ask").
    `score_kind` must be the assembler's (`cited_pipeline` passes it on); a rebuild that ranks the sources
    differently from the assembly it received raises `OptionError`. `clearance` is the most a rebuild may see:
    received settings with a wider clearance, or a system template, are refused (`cited_pipeline` passes the
    assembler's clearance on). `severities` sets the level of any finding kind (kind -> off/warn/error) over
    `uncited`, `stale_only` and `unsupported_value`."""

    def __init__(self, *, uncited: Severity = "warn", stale_only: Severity = "error", resolve: str = "links",
                 chat_generator: Any = None, attempts: int = 2, regenerate_on: list[str] | None = None,
                 unsupported_value: Severity = "warn", attribute: bool = False, repair: Repair | None = None,
                 score_kind: ScoreKind = "similarity", clearance: str = "internal",
                 severities: dict[str, Severity] | None = None) -> None:
        if resolve not in ("links", "footnotes"):
            raise IntegrationInputError(f"resolve must be links or footnotes, got {resolve!r}")
        if score_kind not in ("similarity", "distance"):
            raise IntegrationInputError(f"score_kind must be similarity or distance, got {score_kind!r}")
        self.uncited: Severity = uncited
        self.stale_only: Severity = stale_only
        self.unsupported_value: Severity = unsupported_value
        self.attribute = attribute
        self.resolve = resolve
        self.chat_generator = chat_generator
        self.attempts = attempts
        self.regenerate_on = list(regenerate_on if regenerate_on is not None else REGENERATE_ON)
        self.repair: Repair | None = repair
        self.score_kind: ScoreKind = score_kind
        self.clearance = clearance  # the most a rebuild from the received settings may see
        self.severities = dict(severities) if severities is not None else None  # any finding kind -> level
        # "ask" stands in for "not chosen" until run() knows whether it can reassemble (a bad value fails here)
        self.policy = Policy(attempts=attempts, regenerate_on=tuple(self.regenerate_on),
                             severities=severities_of(severities, uncited=uncited, stale_only=stale_only,
                                                      unsupported_value=unsupported_value),
                             attribute=attribute, repair=repair or "ask")

    def warm_up(self) -> None:
        if self.chat_generator is not None and hasattr(self.chat_generator, "warm_up"):
            self.chat_generator.warm_up()

    @component.output_types(answer=str, valid=bool, verdict=dict[str, Any], resolved=str,
                            sources=list[dict[str, Any]], attempts=int, withheld=list[str], withheld_note=str,
                            conflict_notes=list[dict[str, Any]], delivered=str)
    def run(self, replies: list[HSMessage], assembly: dict[str, Any], documents: list[Document] | None = None,
            question: str | None = None) -> dict[str, Any]:
        steps = self._check(replies, assembly, documents, question)
        try:
            asked = next(steps)
            while True:
                out = self.chat_generator.run(messages=asked)
                asked = steps.send(out["replies"][0].text or "")
        except StopIteration as done:
            result: dict[str, Any] = done.value
            return result

    @component.output_types(answer=str, valid=bool, verdict=dict[str, Any], resolved=str,
                            sources=list[dict[str, Any]], attempts=int, withheld=list[str], withheld_note=str,
                            conflict_notes=list[dict[str, Any]], delivered=str)
    async def run_async(self, replies: list[HSMessage], assembly: dict[str, Any],
                        documents: list[Document] | None = None, question: str | None = None) -> dict[str, Any]:
        """`run` for an `AsyncPipeline`: a regeneration awaits the chat generator's own `run_async` (or runs
        its `run` in a worker thread when it has none)."""
        import asyncio

        steps = self._check(replies, assembly, documents, question)
        try:
            asked = next(steps)
            while True:
                generator = self.chat_generator
                if hasattr(generator, "run_async"):
                    out = await generator.run_async(messages=asked)
                else:
                    out = await asyncio.to_thread(generator.run, messages=asked)
                asked = steps.send(out["replies"][0].text or "")
        except StopIteration as done:
            result: dict[str, Any] = done.value
            return result

    def _check(self, replies: list[HSMessage], assembly: dict[str, Any], documents: list[Document] | None,
               question: str | None) -> Generator[list[HSMessage], str, dict[str, Any]]:
        """The check and its regeneration loop, shared by `run` and `run_async`: it yields the messages to
        send to the chat generator and receives the reply text; its return value is the component's output."""
        from ..citations import resolve

        if not replies:
            raise IntegrationInputError("CitationValidator got no replies to check")
        index = SourceIndex.of(verify_env(assembly))  # a sealed JSON from upstream: checked with the env key
        again = self._reassemble(assembly, documents, question)
        policy = replace(self.policy, repair=self.repair or default_repair(again))
        if policy.repair == "withhold" and again is None:
            raise OptionError("CitationValidator(repair='withhold') needs the documents and question inputs: "
                              "connect the retriever's documents to check.documents and pack.question to "
                              "check.question")
        text = replies[0].text or ""
        verdict = policy.validate(text, index)
        messages: list[ChatMessage] = [{"role": m["role"], "content": m["content"]}
                                       for m in assembly.get("messages", [])]
        checked: list[Assembly | dict[str, Any]] = [assembly]  # every assembly answered, the last one current
        withheld: tuple[str, ...] = ()
        used = 0
        while self.chat_generator is not None and policy.retry(verdict) and used < self.attempts:
            fresh = withheld_retry(index, withheld, verdict, policy, again)
            if fresh is None:
                messages = repair(messages, text, verdict, index.prefix)
            else:
                checked.append(fresh[0])
                withheld, index, messages = fresh[1], SourceIndex.of(fresh[0]), chat_messages(fresh[0])
            text = yield to_chat_messages(messages)
            used += 1
            verdict = policy.validate(text, index)
        sources = [asdict(index.sources[index.handle_of[rid]]) for rid in verdict.cited_ids]
        notes = conflict_notes(text, checked[-1], verdict=verdict)
        note = withheld_note(withheld, checked)
        return {"answer": text, "valid": verdict.valid, "verdict": verdict.to_dict(),
                "resolved": resolve(text, index, style="footnotes" if self.resolve == "footnotes" else "links",
                                    attribute=self.attribute),
                "sources": sources, "attempts": used, "withheld": list(withheld), "withheld_note": note,
                # what the reader should get: the answer, then the assembler's notes (conflicts, withheld sources)
                "conflict_notes": [n.to_dict() for n in notes], "delivered": with_notes(text, (*notes, note))}

    def _reassemble(self, assembly: dict[str, Any], documents: list[Document] | None,
                    question: str | None) -> Reassemble | None:
        """The assembly rebuilt without withheld records, when both inputs it needs arrived."""
        if documents is None or question is None:
            return None
        report = assembly.get("report")
        settings = report.get("settings") if isinstance(report, dict) else None
        if not isinstance(settings, dict):
            raise IntegrationInputError("the assembly has no report.settings to rebuild it from")
        return reassembler(haystack_dicts(documents, score_kind=self.score_kind), question, settings,
                           original=assembly, clearance=self.clearance)

    def to_dict(self) -> dict[str, Any]:
        generator = component_to_dict(self.chat_generator, "chat_generator") if self.chat_generator else None
        return default_to_dict(self, uncited=self.uncited, stale_only=self.stale_only, resolve=self.resolve,
                               chat_generator=generator, attempts=self.attempts, regenerate_on=self.regenerate_on,
                               unsupported_value=self.unsupported_value, attribute=self.attribute,
                               repair=self.repair, score_kind=self.score_kind, clearance=self.clearance,
                               severities=self.severities)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CitationValidator:
        params = data.get("init_parameters", {})
        if params.get("chat_generator"):
            deserialize_chatgenerator_inplace(params, key="chat_generator")
        return default_from_dict(cls, data)


def cited_pipeline(retriever: Any, chat_generator: Any, *, as_of: str, regenerate: bool = True,
                   assembler: dict[str, Any] | None = None, validator: dict[str, Any] | None = None) -> Pipeline:
    """retriever -> "pack" -> "llm" -> "check", as an ordinary (serialisable) Pipeline. Run it with
    `{"retriever": {"query": q}, "pack": {"question": q}}`; read `out["check"]`. With `regenerate`, the
    validator asks the same generator again on the chosen findings; it also gets the retrieved documents
    and the question, so a reply resting only on stale sources is asked afresh without them (pass
    `validator={"repair": "ask"}` for the repair turn). `assembler` and `validator` are keyword arguments
    for the two components (the validator's `score_kind` defaults to the assembler's)."""
    pack = EvidencePackAssembler(as_of=as_of, **(assembler or {}))
    cleared = str(pack.options.get("clearance", "internal"))  # the validator's rebuilds see no more than this
    checks = {"score_kind": pack.score_kind, "clearance": cleared, **(validator or {})}
    pipe = Pipeline()
    pipe.add_component("retriever", retriever)
    pipe.add_component("pack", pack)
    pipe.add_component("llm", chat_generator)
    pipe.add_component("check", CitationValidator(chat_generator=chat_generator if regenerate else None, **checks))
    pipe.connect("retriever.documents", "pack.documents")
    pipe.connect("pack.messages", "llm.messages")
    pipe.connect("llm.replies", "check.replies")
    pipe.connect("pack.assembly", "check.assembly")
    pipe.connect("retriever.documents", "check.documents")
    pipe.connect("pack.question", "check.question")
    return pipe
