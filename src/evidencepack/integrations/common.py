"""What every integration shares, with no framework imported: forgiving assembly, and the
answer -> validate -> regenerate loop (plain, async and streaming) around any chat call.

A framework component must not fail a user's request because one retrieved chunk is blank or came twice,
and must not let such a chunk vanish either: `assemble_lenient` reports each one in the assembly's report
(`invalid_record`, `empty_text`, `duplicate` with `duplicate_of`) and notes every field value it left out.

The loop is provider-neutral: give it a function from chat messages (OpenAI-style dicts) to the answer text,
or to an iterable of text chunks when streaming. It regenerates only on the findings you choose.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, TypedDict

from ..assemble import Assembly, ManifestEntry, Outcome, assemble
from ..citations import Finding, SourceIndex, StreamValidator, Verdict, repair_instruction, resolve, validate_citations
from ..errors import RecordError
from ..records import Record

OnInvalid = Literal["raise", "drop"]
Severity = Literal["off", "warn", "error"]
#: Findings that trigger a regeneration unless the caller chooses others: a handle never sent, a dropped
#: source cited by id, a claim resting only on stale or informal sources.
REGENERATE_ON: tuple[str, ...] = ("unknown_handle", "excluded_source", "stale_only")


class ChatMessage(TypedDict):
    """One OpenAI-style chat message; the shape every provider helper converts from."""

    role: Literal["system", "user", "assistant"]
    content: str


# -- forgiving assembly --------------------------------------------------------------------------------


def assemble_lenient(records: Iterable[Record | Mapping[str, Any]], question: str, *,
                     on_invalid: OnInvalid = "drop", **kwargs: Any) -> Assembly:
    """`assemble` that, by default, reports a bad or repeated record instead of raising.

    Uses the core's `on_invalid` option when the installed evidencepack has it; otherwise the same policy is
    applied here before a strict `assemble`, and the drops and notes are added to its report.
    """
    if on_invalid not in ("raise", "drop"):
        raise ValueError(f"on_invalid must be raise or drop, got {on_invalid!r}")
    if "on_invalid" in inspect.signature(assemble).parameters:
        core: Any = assemble  # the core's option, when this evidencepack has it
        return core(records, question, on_invalid=on_invalid, **kwargs)  # type: ignore[no-any-return]
    if on_invalid == "raise":
        return assemble(records, question, **kwargs)
    kept, dropped, notes = _forgive(list(records))
    assembly = assemble(kept, question, **kwargs)
    outcomes = [replace(o, detail="; ".join(notes[o.id])) if notes.get(o.id) and o.detail is None else o
                for o in assembly.report.records]
    rank = len(outcomes)
    for rid, reason, detail, duplicate_of in dropped:
        rank += 1
        outcomes.append(Outcome(rid, "dropped", rank, reason=reason, duplicate_of=duplicate_of, detail=detail))
    return replace(assembly, report=replace(assembly.report, records=tuple(outcomes)))


_Drop = tuple[str, str, str, "str | None"]


def _forgive(items: list[Record | Mapping[str, Any]]) -> tuple[list[Record], list[_Drop], dict[str, list[str]]]:
    """Records a strict `assemble` accepts, best first, plus what was dropped and what was left out."""
    records: list[Record] = []
    dropped: list[_Drop] = []
    notes: dict[str, list[str]] = {}
    for index, item in enumerate(items):
        if isinstance(item, Record):
            records.append(item)
            continue
        if not isinstance(item, Mapping):
            dropped.append((f"#{index + 1}", "invalid_record", "not a record or a mapping", None))
            continue
        data, left = dict(item), list[str]()
        while True:
            try:
                built = Record.from_dict(data)
                records.append(built)
                if left:
                    notes.setdefault(built.id, []).extend(left)
                break
            except RecordError as err:
                name = err.field
                why = str(err).rsplit(": ", 1)[-1]
                if name in (None, "id", "text", "sensitivity", "metadata") or name not in data:
                    rid = data.get("id")
                    shown = rid if name != "id" and isinstance(rid, str) else f"#{index + 1}"
                    blank = name == "text" and (data.get("text") is None or str(data.get("text")).strip() == "")
                    dropped.append((shown, "empty_text" if blank else "invalid_record",
                                    f"field {name!r}: {why}" if name else why, None))
                    break
                data.pop(name)
                left.append(f"field {name!r} left out: {why}")
    ordered = _order(records, notes)
    seen: set[str] = set()
    unique = []
    for r in ordered:
        if r.id in seen:
            dropped.append((r.id, "duplicate", "the same id came twice; the higher-ranked copy is kept", r.id))
            continue
        seen.add(r.id)
        unique.append(r)
    if ordered is not records:  # order fixed here: strip rank and score so the core keeps it
        unique = [replace(r, rank=None, score=None) for r in unique]
    return unique, dropped, notes


def _order(records: list[Record], notes: dict[str, list[str]]) -> list[Record]:
    """Best first by rank, else score; inputs without a usable one rank after those with one, noted."""
    for name in ("rank", "score"):
        given = [r for r in records if getattr(r, name) is not None]
        if not given:
            continue
        sign = 1 if name == "rank" else -1
        best = sorted(given, key=lambda r: sign * getattr(r, name))
        rest = [r for r in records if getattr(r, name) is None]
        for r in rest:
            notes.setdefault(r.id, []).append(f"no usable {name}: ranked after the records that have one")
        return best + rest
    return records


# -- answering ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answered:
    """The final answer, its verdict, and the manifest entries it cites (resolved server-side)."""

    answer: str
    verdict: Verdict
    sources: tuple[ManifestEntry, ...]
    attempts: int  # regenerations after the first answer
    assembly: Assembly

    def resolved(self, style: Literal["links", "footnotes"] = "links") -> str:
        """The answer with its handles turned into links or footnotes from the manifest."""
        return resolve(self.answer, self.assembly, style=style)

    def to_dict(self) -> dict[str, Any]:
        return {"answer": self.answer, "verdict": self.verdict.to_dict(), "attempts": self.attempts,
                "sources": [s.to_dict() for s in self.sources]}


@dataclass(frozen=True)
class Delta:
    """A piece of answer text as it streams; `attempt` 0 is the first answer, 1 the first regeneration."""

    text: str
    attempt: int


@dataclass(frozen=True)
class Flagged:
    """A citation problem found while the answer streams (e.g. a handle never sent)."""

    finding: Finding
    attempt: int


@dataclass(frozen=True)
class Done:
    result: Answered


Event = Delta | Flagged | Done


@dataclass(frozen=True)
class Policy:
    """How answers are checked and when a new one is asked for."""

    attempts: int = 2
    regenerate_on: tuple[str, ...] = REGENERATE_ON
    uncited: Severity = "warn"
    stale_only: Severity = "error"

    def __post_init__(self) -> None:
        if not isinstance(self.attempts, int) or self.attempts < 0:
            raise ValueError(f"attempts must be an integer >= 0, got {self.attempts!r}")
        known = {"unknown_handle", "excluded_source", "uncited", "stale_only"}
        unknown = set(self.regenerate_on) - known
        if unknown:
            raise ValueError(f"regenerate_on: unknown finding kind(s) {sorted(unknown)} (one of {sorted(known)})")

    def validate(self, answer: str, index: SourceIndex) -> Verdict:
        return validate_citations(answer, index, uncited=self.uncited, stale_only=self.stale_only)

    def retry(self, verdict: Verdict) -> bool:
        return any(f.severity == "error" and f.kind in self.regenerate_on for f in verdict.findings)


def chat_messages(assembly: Assembly) -> list[ChatMessage]:
    return [{"role": "system", "content": assembly.system}, {"role": "user", "content": assembly.user}]


def repair(messages: list[ChatMessage], answer: str, verdict: Verdict, prefix: str) -> list[ChatMessage]:
    """The conversation for a regeneration: the answer as the model gave it, then exactly what was wrong."""
    return [*messages, {"role": "assistant", "content": answer},
            {"role": "user", "content": repair_instruction(verdict, prefix)}]


def finish(assembly: Assembly, answer: str, verdict: Verdict, attempts: int, index: SourceIndex) -> Answered:
    sources = tuple(entry for rid in verdict.cited_ids
                    if (entry := assembly.handle(index.handle_of[rid])) is not None)
    return Answered(answer, verdict, sources, attempts, assembly)


def answer(assembly: Assembly, complete: Callable[[list[ChatMessage]], str], *,
           policy: Policy | None = None) -> Answered:
    """Ask, validate, and regenerate while the verdict has a chosen finding and attempts remain."""
    policy = policy or Policy()
    index = SourceIndex.of(assembly)
    messages = chat_messages(assembly)
    text = complete(messages)
    verdict, used = policy.validate(text, index), 0
    while policy.retry(verdict) and used < policy.attempts:
        messages = repair(messages, text, verdict, assembly.handle_prefix)
        text = complete(messages)
        used += 1
        verdict = policy.validate(text, index)
    return finish(assembly, text, verdict, used, index)


async def answer_async(assembly: Assembly, complete: Callable[[list[ChatMessage]], Awaitable[str]], *,
                       policy: Policy | None = None) -> Answered:
    """`answer` for an async chat call."""
    policy = policy or Policy()
    index = SourceIndex.of(assembly)
    messages = chat_messages(assembly)
    text = await complete(messages)
    verdict, used = policy.validate(text, index), 0
    while policy.retry(verdict) and used < policy.attempts:
        messages = repair(messages, text, verdict, assembly.handle_prefix)
        text = await complete(messages)
        used += 1
        verdict = policy.validate(text, index)
    return finish(assembly, text, verdict, used, index)


def answer_stream(assembly: Assembly, stream: Callable[[list[ChatMessage]], Iterable[str]], *,
                  policy: Policy | None = None) -> Iterator[Event]:
    """Stream the answer as `Delta`s, report citation problems as `Flagged` the moment they complete, and
    end with `Done`. A regeneration streams too, as the next `attempt`: a display should start over."""
    policy = policy or Policy()
    index = SourceIndex.of(assembly)
    messages = chat_messages(assembly)
    used = 0
    while True:
        validator = StreamValidator(index, uncited=policy.uncited, stale_only=policy.stale_only)
        parts: list[str] = []
        for chunk in stream(messages):
            if not chunk:
                continue
            parts.append(chunk)
            yield Delta(chunk, used)
            for finding in validator.feed(chunk):
                yield Flagged(finding, used)
        text, verdict = "".join(parts), validator.close()
        if not policy.retry(verdict) or used >= policy.attempts:
            yield Done(finish(assembly, text, verdict, used, index))
            return
        messages = repair(messages, text, verdict, assembly.handle_prefix)
        used += 1


async def answer_stream_async(assembly: Assembly, stream: Callable[[list[ChatMessage]], AsyncIterable[str]], *,
                              policy: Policy | None = None) -> AsyncIterator[Event]:
    """`answer_stream` for an async stream of text chunks."""
    policy = policy or Policy()
    index = SourceIndex.of(assembly)
    messages = chat_messages(assembly)
    used = 0
    while True:
        validator = StreamValidator(index, uncited=policy.uncited, stale_only=policy.stale_only)
        parts: list[str] = []
        async for chunk in stream(messages):
            if not chunk:
                continue
            parts.append(chunk)
            yield Delta(chunk, used)
            for finding in validator.feed(chunk):
                yield Flagged(finding, used)
        text, verdict = "".join(parts), validator.close()
        if not policy.retry(verdict) or used >= policy.attempts:
            yield Done(finish(assembly, text, verdict, used, index))
            return
        messages = repair(messages, text, verdict, assembly.handle_prefix)
        used += 1


def result_of(events: Iterable[Event]) -> Answered:
    """Drain a stream of events and return the final result."""
    for event in events:
        if isinstance(event, Done):
            return event.result
    raise RuntimeError("stream ended without a result")  # pragma: no cover - answer_stream always ends in Done
