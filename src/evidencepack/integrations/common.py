"""What every integration shares, with no framework imported: forgiving assembly, and the
answer -> validate -> regenerate loop (plain, async and streaming) around any chat call.

A framework component must not fail a user's request because one retrieved chunk is blank or came twice,
and must not let such a chunk vanish either: `assemble_lenient` reports each one in the assembly's report
(`invalid_record`, `empty_text`, `duplicate` with `duplicate_of`) and notes every field value it left out.

The loop is provider-neutral: give it a function from chat messages (OpenAI-style dicts) to the answer text,
or to an iterable of text chunks when streaming. It regenerates only on the findings you choose. Given a
`reassemble` function, an answer resting only on weak sources is answered afresh on an assembly without them
(`repair="withhold"`: small models repeat themselves when asked to repair, and answer a question without the
misleading sources); every other finding, and every answer when there is no `reassemble`, gets a repair turn.
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import InitVar, dataclass, replace
from typing import Any, Literal, TypedDict

from ..assemble import Assembly, ManifestEntry, assemble
from ..citations import (
    ConflictNote,
    Finding,
    SourceIndex,
    StreamValidator,
    Verdict,
    conflict_notes,
    injection_note,
    repair_instruction,
    resolve,
    transplant_note,
    validate_citations,
    verdict_note,
    with_notes,
    withheld_note,
    withhold,
)
from ..citations.policies import REPAIR_OPENING
from ..citations.severities import Severities, Severity
from ..errors import OptionError
from ..options import Options
from ..passes.admit import Admission
from ..records.record import Record
from ..seal import check_replayed_settings

OnInvalid = Literal["raise", "drop"]
Repair = Literal["ask", "withhold"]
#: How a regeneration is asked for: "ask" sends the findings as a second turn; "withhold" asks the question
#: afresh on an assembly without the weak sources a stale-only answer rested on (`citations.withhold`),
#: and falls back to "ask" when there is nothing to withhold.
REPAIRS: tuple[str, ...] = ("ask", "withhold")
#: A new assembly from the ids of every record withheld so far: the same records without them, the same
#: question and the same options.
Reassemble = Callable[[tuple[str, ...]], Assembly]
#: Findings that trigger a regeneration unless the caller chooses others: a handle never sent, a dropped
#: source cited by id, a claim resting only on stale or informal sources, a value only such sources state.
REGENERATE_ON: tuple[str, ...] = ("unknown_handle", "excluded_source", "stale_only", "stale_value")


class ChatMessage(TypedDict):
    """One OpenAI-style chat message; the shape every provider helper converts from."""

    role: Literal["system", "user", "assistant"]
    content: str


# -- forgiving assembly --------------------------------------------------------------------------------


def assemble_lenient(records: Iterable[Record | Mapping[str, Any]], question: str, *,
                     on_invalid: OnInvalid = "drop", admission: Admission | None = None, **kwargs: Any) -> Assembly:
    """`assemble` with `on_invalid="drop"` by default: a bad or repeated record is reported (`invalid_record`,
    `empty_text`, `duplicate` with `duplicate_of`) and an unusable field value is left out with a note in
    `Outcome.notes`, instead of failing the request. The one entry point every component uses; `on_invalid`
    replaces the one of `admission`, every other keyword is `assemble`'s."""
    if admission is not None and not isinstance(admission, Admission):
        raise OptionError(f"admission must be an Admission, got {type(admission).__name__}")
    return assemble(records, question, admission=replace(admission or Admission(), on_invalid=on_invalid),
                    **kwargs)


# -- answering ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answered:
    """The final answer, its verdict, and the manifest entries it cites (resolved server-side)."""

    answer: str
    verdict: Verdict
    sources: tuple[ManifestEntry, ...]
    attempts: int  # regenerations after the first answer
    assembly: Assembly  # the one the final answer was checked against (a smaller one after a withholding retry)
    withheld: tuple[str, ...] = ()  # record ids left out of a retry's assembly (`Policy(repair="withhold")`)
    earlier: tuple[Assembly, ...] = ()  # the assemblies answered before `assembly`, first first (after withholding)

    def resolved(self, style: Literal["links", "footnotes"] = "links") -> str:
        """The answer with its handles turned into links or footnotes from the manifest (and, when the verdict
        was reached with attribution, the sources attributed to uncited sentences, marked as such)."""
        return resolve(self.answer, self.assembly, style=style, attribute=self.verdict.attributed)

    def notes(self) -> tuple[ConflictNote, ...]:
        """A note for each conflict group the answer rests on (`citations.conflict_notes`), for the reader:
        small models rarely name a conflict themselves. Uncited answers rest on nothing unless the policy
        attributes (`Policy(attribute=True)`)."""
        return conflict_notes(self.answer, self.assembly, verdict=self.verdict)

    def withheld_note(self) -> str:
        """One sentence naming the sources left out of a withholding retry and why (`citations.withheld_note`,
        metadata only), "" when none was: the reader should know the answer was given without them."""
        return withheld_note(self.withheld, (*self.earlier, self.assembly))

    def value_note(self) -> str:
        """One sentence when the answer gives a value the sources state only for something else
        (`citations.transplant_note`, from the verdict's `transplanted_value` findings), "" otherwise: the
        warning reaches the reader with the first answer, no second call."""
        return transplant_note(self.answer, self.assembly, self.verdict)

    def verdict_note(self) -> str:
        """One sentence when the answer opens with "Yes" or "No" against the rule that decides the question
        (`citations.verdict_note`, from the verdict's `verdict_against_rule` finding), "" otherwise: the reader is
        told with the first answer, no second call."""
        return verdict_note(self.answer, self.assembly, self.verdict)

    def injection_note(self) -> str:
        """One sentence when the answer may have followed text planted in a source (`citations.injection_note`,
        from the verdict's `suspicious_copy` and `foreign_url` findings), "" otherwise: the reader is told with
        the first answer, no second call."""
        return injection_note(self.answer, self.assembly, self.verdict)

    def with_notes(self) -> str:
        """The answer unchanged, then one `Note:` line per conflict note, one for the withheld sources, one for
        a value the sources give only for something else, one for a "Yes" against the deciding rule and one for
        text the answer may have followed."""
        return with_notes(self.answer, (*self.notes(), self.withheld_note(), self.value_note(),
                                        self.verdict_note(), self.injection_note()))

    def to_dict(self) -> dict[str, Any]:
        return {"answer": self.answer, "verdict": self.verdict.to_dict(), "attempts": self.attempts,
                "sources": [s.to_dict() for s in self.sources],
                "conflict_notes": [n.to_dict() for n in self.notes()], "withheld": list(self.withheld),
                "withheld_note": self.withheld_note(), "value_note": self.value_note(),
                "verdict_note": self.verdict_note(), "injection_note": self.injection_note()}


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


@dataclass(frozen=True, kw_only=True)
class Policy:
    """How answers are checked and when a new one is asked for. Built by keyword only."""

    attempts: int = 2
    regenerate_on: tuple[str, ...] = REGENERATE_ON
    severities: Severities = Severities()  # the level of every finding kind (`citations.Severities`)
    attribute: bool = False  # attribute uncited sentences (`citations.attribution`) before checking stale_only/values
    # "withhold": ask afresh without the weak sources (needs `reassemble`), see REPAIRS. The default is "ask"
    # because a Policy cannot know whether a `reassemble` will be given; the components that reassemble by
    # themselves (LangChain, LlamaIndex), and `answer*` / `ask*` given `reassemble` but no policy or repair,
    # choose "withhold" (`default_repair`).
    repair: Repair = "ask"
    # Kept for one release (DeprecationWarning): the levels of three kinds, now `severities`.
    uncited: InitVar[Severity | None] = None
    stale_only: InitVar[Severity | None] = None
    unsupported_value: InitVar[Severity | None] = None

    def __post_init__(self, uncited: Severity | None, stale_only: Severity | None,
                      unsupported_value: Severity | None) -> None:
        if not isinstance(self.attempts, int) or self.attempts < 0:
            raise OptionError(f"attempts must be an integer >= 0, got {self.attempts!r}")
        known = set(Severities.kinds())
        unknown = set(self.regenerate_on) - known
        if unknown:
            raise OptionError(f"regenerate_on: unknown finding kind(s) {sorted(unknown)} (one of {sorted(known)})")
        # a bad level fails when a component is built, not at its first answer
        levels = Severities.from_mapping(self.severities)
        given = {k: v for k, v in (("uncited", uncited), ("stale_only", stale_only),
                                   ("unsupported_value", unsupported_value)) if v is not None}
        if given:
            warnings.warn(f"Policy({', '.join(f'{k}=' for k in given)}): pass severities=Severities(...) instead; "
                          "the per-kind fields go in the next release", DeprecationWarning, stacklevel=3)
            levels = Severities.from_mapping(given, base=levels)
        object.__setattr__(self, "severities", levels)
        if not isinstance(self.attribute, bool):
            raise OptionError(f"attribute must be True or False, got {self.attribute!r}")
        if not isinstance(self.repair, str) or self.repair not in REPAIRS:
            raise OptionError(f"repair must be one of {', '.join(REPAIRS)}, got {self.repair!r}")

    def validate(self, answer: str, index: SourceIndex) -> Verdict:
        return validate_citations(answer, index, severities=self.severities, attribute=self.attribute)

    def stream_validator(self, index: SourceIndex) -> StreamValidator:
        """The streaming form of `validate`, with the same options (its `close()` gives the same verdict)."""
        return StreamValidator(index, severities=self.severities, attribute=self.attribute)

    def retry(self, verdict: Verdict) -> bool:
        return any(f.severity == "error" and f.kind in self.regenerate_on for f in verdict.findings)


def chat_messages(assembly: Assembly) -> list[ChatMessage]:
    return [{"role": "system", "content": assembly.system}, {"role": "user", "content": assembly.user}]


def repair(messages: list[ChatMessage], answer: str, verdict: Verdict, prefix: str) -> list[ChatMessage]:
    """The conversation for a regeneration: the answer as the model gave it, then exactly what was wrong.
    Only the latest failed answer and its repair request are sent: an earlier pair is replaced, not kept, so
    what each attempt resends stays the same size (it grew by the answer and request every time)."""
    base = messages
    if len(base) >= 2 and base[-2]["role"] == "assistant" and base[-1]["content"].startswith(REPAIR_OPENING):
        base = base[:-2]
    return [*base, {"role": "assistant", "content": answer},
            {"role": "user", "content": repair_instruction(verdict)}]


def finish(assembly: Assembly, answer: str, verdict: Verdict, attempts: int, index: SourceIndex,
           withheld: tuple[str, ...] = (), earlier: tuple[Assembly, ...] = ()) -> Answered:
    sources = tuple(entry for rid in verdict.cited_ids
                    if (entry := assembly.handle(index.handle_of[rid])) is not None)
    return Answered(answer, verdict, sources, attempts, assembly, withheld, earlier)


@dataclass(frozen=True)
class _Turn:
    """One request: the assembly an answer is checked against, and the conversation sent for it."""

    assembly: Assembly
    index: SourceIndex
    messages: list[ChatMessage]
    withheld: tuple[str, ...] = ()
    earlier: tuple[Assembly, ...] = ()  # the assemblies of the turns before a withholding retry

    @classmethod
    def first(cls, assembly: Assembly, withheld: tuple[str, ...] = (), earlier: tuple[Assembly, ...] = ()) -> _Turn:
        return cls(assembly, SourceIndex.of(assembly), chat_messages(assembly), withheld, earlier)

    def done(self, text: str, verdict: Verdict, used: int) -> Answered:
        return finish(self.assembly, text, verdict, used, self.index, self.withheld, self.earlier)


def default_repair(reassemble: Reassemble | None) -> Repair:
    """"withhold" when there is a way to reassemble, else "ask": the measured better repair wherever it is
    possible, and never a default that fails (see docs/evaluation.md, "Asking afresh without the misleading
    sources")."""
    return "ask" if reassemble is None else "withhold"


def _checked(policy: Policy | None, reassemble: Reassemble | None) -> Policy:
    """The policy, once it is known the loop can follow it (before any model call). Without a policy, the
    default one with `default_repair(reassemble)`."""
    policy = policy or Policy(repair=default_repair(reassemble))
    if reassemble is not None and not callable(reassemble):
        raise OptionError(f"reassemble must be a function from withheld record ids to an Assembly, "
                          f"got {type(reassemble).__name__}")
    if policy.repair == "withhold" and reassemble is None:
        raise OptionError("Policy(repair='withhold') needs reassemble=: a function that takes the withheld record "
                          "ids and returns a new Assembly (the same records without those ids, the same question "
                          "and options)")
    return policy


def withheld_retry(index: SourceIndex, withheld: tuple[str, ...], verdict: Verdict, policy: Policy,
                   reassemble: Reassemble | None) -> tuple[Assembly, tuple[str, ...]] | None:
    """With `repair="withhold"` and weak sources to withhold from a rejected answer (checked against `index`),
    the assembly to ask afresh on and every id withheld so far; None when the repair turn is due instead."""
    if policy.repair != "withhold" or reassemble is None:
        return None
    ids = withhold(verdict, index)
    if not ids:
        return None
    every = tuple(dict.fromkeys(withheld + ids))
    fresh = reassemble(every)
    if not isinstance(fresh, Assembly):
        raise OptionError(f"reassemble must return an Assembly, got {type(fresh).__name__}")
    return fresh, every


def _next(turn: _Turn, text: str, verdict: Verdict, policy: Policy, reassemble: Reassemble | None) -> _Turn:
    """The request after a rejected answer: with `repair="withhold"` and weak sources to withhold, the question
    afresh on an assembly without them (a new conversation); otherwise the repair turn."""
    retry = withheld_retry(turn.index, turn.withheld, verdict, policy, reassemble)
    if retry is not None:
        return _Turn.first(retry[0], retry[1], (*turn.earlier, turn.assembly))
    return replace(turn, messages=repair(turn.messages, text, verdict, turn.assembly.handle_prefix))


def answer(assembly: Assembly, complete: Callable[[list[ChatMessage]], str], *,
           policy: Policy | None = None, reassemble: Reassemble | None = None) -> Answered:
    """Ask, validate, and regenerate while the verdict has a chosen finding and attempts remain. With
    `Policy(repair="withhold")`, `reassemble(withheld_ids)` gives the assembly a stale-only answer is asked
    again on (see `REPAIRS`); without a `policy`, that is the default when `reassemble` is given."""
    policy = _checked(policy, reassemble)
    turn = _Turn.first(assembly)
    text = complete(turn.messages)
    verdict, used = policy.validate(text, turn.index), 0
    while policy.retry(verdict) and used < policy.attempts:
        turn = _next(turn, text, verdict, policy, reassemble)
        text = complete(turn.messages)
        used += 1
        verdict = policy.validate(text, turn.index)
    return turn.done(text, verdict, used)


async def answer_async(assembly: Assembly, complete: Callable[[list[ChatMessage]], Awaitable[str]], *,
                       policy: Policy | None = None, reassemble: Reassemble | None = None) -> Answered:
    """`answer` for an async chat call (`reassemble` stays a plain function: assembly is CPU work)."""
    policy = _checked(policy, reassemble)
    turn = _Turn.first(assembly)
    text = await complete(turn.messages)
    verdict, used = policy.validate(text, turn.index), 0
    while policy.retry(verdict) and used < policy.attempts:
        turn = _next(turn, text, verdict, policy, reassemble)
        text = await complete(turn.messages)
        used += 1
        verdict = policy.validate(text, turn.index)
    return turn.done(text, verdict, used)


class _Attempt:
    """One streamed attempt: chunks in, `Delta` and `Flagged` events out; at the end either `Done` or the
    request for the next attempt. Shared by the sync and async streams, which differ only in how they
    iterate."""

    def __init__(self, turn: _Turn, policy: Policy, used: int, reassemble: Reassemble | None) -> None:
        self.turn, self.policy, self.used, self.reassemble = turn, policy, used, reassemble
        self.validator = policy.stream_validator(turn.index)
        self.parts: list[str] = []

    def feed(self, chunk: str) -> list[Event]:
        if not chunk:
            return []
        self.parts.append(chunk)
        return [Delta(chunk, self.used), *(Flagged(f, self.used) for f in self.validator.feed(chunk))]

    def end(self) -> Done | _Turn:
        text, verdict, turn = "".join(self.parts), self.validator.close(), self.turn
        if not self.policy.retry(verdict) or self.used >= self.policy.attempts:
            return Done(turn.done(text, verdict, self.used))
        return _next(turn, text, verdict, self.policy, self.reassemble)


def answer_stream(assembly: Assembly, stream: Callable[[list[ChatMessage]], Iterable[str]], *,
                  policy: Policy | None = None, reassemble: Reassemble | None = None) -> Iterator[Event]:
    """Stream the answer as `Delta`s, report citation problems as `Flagged` the moment they complete, and
    end with `Done`. A regeneration streams too, as the next `attempt`: a display should start over (after
    a withholding retry, `Flagged` handles refer to the new assembly, `Done.result.assembly`)."""
    return _stream(assembly, stream, _checked(policy, reassemble), reassemble)


def _stream(assembly: Assembly, stream: Callable[[list[ChatMessage]], Iterable[str]], policy: Policy,
            reassemble: Reassemble | None) -> Iterator[Event]:
    turn, used = _Turn.first(assembly), 0
    while True:
        attempt = _Attempt(turn, policy, used, reassemble)
        for chunk in stream(turn.messages):
            yield from attempt.feed(chunk)
        outcome = attempt.end()
        if isinstance(outcome, Done):
            yield outcome
            return
        turn, used = outcome, used + 1


def answer_stream_async(assembly: Assembly, stream: Callable[[list[ChatMessage]], AsyncIterable[str]], *,
                        policy: Policy | None = None, reassemble: Reassemble | None = None) -> AsyncIterator[Event]:
    """`answer_stream` for an async stream of text chunks: `async for event in answer_stream_async(...)`."""
    return _astream(assembly, stream, _checked(policy, reassemble), reassemble)


async def _astream(assembly: Assembly, stream: Callable[[list[ChatMessage]], AsyncIterable[str]], policy: Policy,
                   reassemble: Reassemble | None) -> AsyncIterator[Event]:
    turn, used = _Turn.first(assembly), 0
    while True:
        attempt = _Attempt(turn, policy, used, reassemble)
        async for chunk in stream(turn.messages):
            for event in attempt.feed(chunk):
                yield event
        outcome = attempt.end()
        if isinstance(outcome, Done):
            yield outcome
            return
        turn, used = outcome, used + 1


def without(records: Iterable[Any], withheld: Iterable[str]) -> list[Any]:
    """`records` (`Record`s or dicts) minus those whose id is in `withheld`, order kept: what a component
    reassembles from for `Policy(repair="withhold")`."""
    out = frozenset(withheld)

    def kept(record: Any) -> bool:
        rid = record.get("id") if isinstance(record, Mapping) else getattr(record, "id", None)
        return not (isinstance(rid, str) and rid in out)  # a record without a usable id is reported, not withheld

    return [r for r in records if kept(r)]


def severities_of(severities: Severities | Mapping[str, Severity] | None, *, uncited: Severity,
                  stale_only: Severity, unsupported_value: Severity) -> Severities:
    """The severities an entry point checks with: `severities` (a `Severities`, taken as is, or a mapping of
    finding kind to level, any kind) over the three shortcut keywords the entry points have always taken."""
    base = Severities(uncited=uncited, stale_only=stale_only, unsupported_value=unsupported_value)
    return Severities.from_mapping(severities, base=base)


def reassembler(records: Sequence[Any], question: str, settings: Mapping[str, Any], *,
                original: Mapping[str, Any] | None = None, clearance: str = "internal",
                **options: Any) -> Reassemble:
    """`reassemble` for an assembly known only by its JSON (a Haystack component gets no more): the same
    records without the withheld ones, the same question, and the options its report recorded
    (`report.settings`, read back by `Options.kwargs_from_settings`), plus `options` it cannot record (a
    boundary key, a tokenizer object). Given the `original` assembly dict, each rebuild must rank the sources
    both share in the same order; records converted differently (another `score_kind`, other documents)
    would otherwise answer the retry on a silently different selection. The settings came from a JSON that
    travelled: `clearance` is the most the caller allows, and settings that would widen it (or carry a system
    template) are refused (`seal.check_replayed_settings`)."""
    if not isinstance(settings, Mapping):
        raise OptionError("the assembly's report has no settings to reassemble from")
    check_replayed_settings(settings, clearance=clearance)
    kwargs = {**Options.kwargs_from_settings(settings), **options}
    kwargs.setdefault("on_invalid", kwargs["admission"].on_invalid)  # the recorded one, not assemble_lenient's
    kept = list(records)
    expected = _ranked_ids(original.get("manifest", ())) if original is not None else None

    def rebuild(withheld: tuple[str, ...]) -> Assembly:
        fresh = assemble_lenient(without(kept, withheld), question, **kwargs)
        if expected is not None:
            _check_same_ranking(expected, _ranked_ids(m.to_dict() for m in fresh.manifest))
        return fresh

    return rebuild


def _ranked_ids(manifest: Iterable[Any]) -> list[str]:
    entries = [m for m in manifest if isinstance(m, Mapping) and isinstance(m.get("rank"), int)]
    return [str(m.get("id")) for m in sorted(entries, key=lambda m: m["rank"])]


def _check_same_ranking(expected: Sequence[str], rebuilt: Sequence[str]) -> None:
    """The sources both assemblies include must come in the same rank order."""
    shared = set(expected) & set(rebuilt)
    before = [i for i in expected if i in shared]
    after = [i for i in rebuilt if i in shared]
    if before != after:
        raise OptionError(f"the rebuilt assembly ranks its sources {after} where the original ranked them "
                          f"{before}: the records were converted differently (is the validator's score_kind "
                          "the assembler's?) or are not the documents the assembler got")


def result_of(events: Iterable[Event]) -> Answered:
    """Drain a stream of events and return the final result."""
    for event in events:
        if isinstance(event, Done):
            return event.result
    raise RuntimeError("stream ended without a result")  # pragma: no cover - answer_stream always ends in Done
