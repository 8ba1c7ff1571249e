"""Acting on a verdict: reject (`enforce`), `strip_invalid`, or `regenerate` with a repair prompt.

`repair_prompt` is the one wording used to ask a model for a corrected answer; the evaluation's guard
condition uses it too, so what the library does and what the evaluation measured are the same request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import CitationError, CitationInputError
from .model import Citation, Verdict, check_text, shorten
from .severities import QUIET, Severities, Severity, severities_of
from .source import SourceIndex, read_assembly
from .validate import Embed, validate_citations

REPAIR_OPENING = "Your answer has problems:"
REPAIR_CLOSING = ("Answer the question again. Base the answer on sources that are current and authoritative, "
                  "cite only handles that appear in the sources, and if a source is expired, superseded or "
                  "informal, say so instead of giving its rule as the answer.")


#: What to do about a finding whose message says only what is wrong. The kinds about pointers (unknown
#: handles, record ids, stale-only support) are covered by the closing line; these two are what small models
#: do most, and a line that only says "cites nothing" does not tell them how to fix it.
REPAIR_HINTS: Mapping[str, str] = {
    "uncited": "put the handle of the source that states it, such as [{prefix}1], right after the claim",
    "unsupported_value": "give only values the sources state, or cite the source that states this one",
}


def repair_prompt(problems: Iterable[str]) -> str:
    """The regeneration request: exactly what was wrong (one line each), then what to do."""
    return "\n".join([REPAIR_OPENING, *(f"- {p}" for p in problems), REPAIR_CLOSING])


def repair_line(kind: str, message: str, prefix: str = "S", quote: str | None = None) -> str:
    """One line of the repair prompt: the finding's message, for `uncited` and `unsupported_value` with the
    sentence quoted (small models do not count sentences) and what to do (`REPAIR_HINTS`). Other kinds give
    their message unchanged, so the lines asked for them stay the same."""
    hint = REPAIR_HINTS.get(kind)
    if hint is None:
        return message
    said = f" (\"{shorten(' '.join(quote.split()), 100)}\")" if quote else ""
    return f"{message}{said}: {hint.format(prefix=prefix)}"


def repair_instruction(verdict: Verdict, kinds: Iterable[str] | None = None, prefix: str = "S") -> str:
    """`repair_prompt` for the error findings of a verdict, or, given `kinds`, for its findings of those kinds
    at any level."""
    wanted = None if kinds is None else frozenset(kinds)
    texts = {s.index: s.text for s in verdict.sentences}
    return repair_prompt(
        repair_line(f.kind, f.message, prefix, texts.get(f.sentence)) for f in verdict.findings
        if (f.severity == "error" if wanted is None else f.kind in wanted))


def enforce(answer: str, assembly: Any, *, severities: Severities | Mapping[str, Severity] | None = None,
            attribute: bool = False, embed: Embed | None = None, uncited: Severity | None = None,
            stale_only: Severity | None = None, unsupported_value: Severity | None = None,
            stale_value: Severity | None = None) -> Verdict:
    """The `reject` policy: return the verdict when valid, else raise `CitationError` carrying it.
    `severities` as `validate_citations` takes it (the per-kind keywords warn, as there)."""
    levels = severities_of(severities, uncited=uncited, stale_only=stale_only, unsupported_value=unsupported_value,
                           stale_value=stale_value)
    verdict = validate_citations(answer, assembly, severities=levels, attribute=attribute, embed=embed)
    if not verdict.valid:
        raise CitationError(verdict)
    return verdict


@dataclass(frozen=True)
class Stripped:
    text: str
    removed: tuple[str, ...]
    affected_sentences: tuple[int, ...]


def strip_invalid(answer: str, assembly: Any, *, mark: str | None = None) -> Stripped:
    """The `strip` policy: remove cited items that support nothing (unknown handles, look-alikes, record
    ids) and brackets left empty; report, and optionally mark, the sentences that lost a citation. Nothing
    else in the answer changes."""
    if mark is not None:
        check_text(mark, "mark")
    verdict = validate_citations(answer, assembly, severities=QUIET)
    groups: dict[tuple[int, int], list[Citation]] = {}
    for c in verdict.citations:
        groups.setdefault((c.start, c.end), []).append(c)
    out, last = [], 0
    affected: set[int] = set()
    removed: list[str] = []
    for (start, end), members in groups.items():
        if all(c.record_id is not None for c in members):
            continue
        keep = [c.handle for c in members if c.record_id is not None]
        removed += [c.handle for c in members if c.record_id is None]
        affected.add(members[0].sentence)
        cut_from = start - 1 if not keep and start > last and answer[start - 1] == " " else start
        out.append(answer[last:cut_from])
        if keep:
            out.append(answer[start] + ", ".join(keep) + answer[end - 1])
        if mark and not keep:
            out.append(mark)
        last = end
    if not removed:
        return Stripped(answer, (), ())
    out.append(answer[last:])
    return Stripped("".join(out), tuple(removed), tuple(sorted(affected)))


@dataclass(frozen=True)
class Regenerated:
    answer: str
    verdict: Verdict
    attempts: int  # generations after the first answer


def regenerate(answer: str, assembly: Any, generate: Callable[[str], str], *, attempts: int = 2,
               severities: Severities | Mapping[str, Severity] | None = None, attribute: bool = False,
               embed: Embed | None = None, uncited: Severity | None = None, stale_only: Severity | None = None,
               unsupported_value: Severity | None = None, stale_value: Severity | None = None) -> Regenerated:
    """The `regenerate` policy: ask `generate(repair_prompt)` for a new answer until one is valid or
    `attempts` run out; returns the first valid answer, else the last one with its verdict. To act on
    answers that cite nothing or state values their sources do not:
    `severities={"uncited": "error", "unsupported_value": "error"}` (with `attribute=True`, values of uncited
    sentences are checked against the sources their content matches, and `stale_only` judges that support
    too)."""
    if not callable(generate):
        raise CitationInputError(f"generate must be a callable taking the repair prompt, got {type(generate).__name__}")
    if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 0:
        raise CitationInputError(f"attempts must be a whole number >= 0, got {attempts!r}")
    levels = severities_of(severities, uncited=uncited, stale_only=stale_only, unsupported_value=unsupported_value,
                           stale_value=stale_value)
    index = read_assembly(assembly)
    verdict = validate_citations(answer, index, severities=levels, attribute=attribute, embed=embed)
    used = 0
    while not verdict.valid and used < attempts:
        answer = check_text(generate(repair_instruction(verdict, prefix=index.prefix)), "generate()'s answer")
        used += 1
        verdict = validate_citations(answer, index, severities=levels, attribute=attribute, embed=embed)
    return Regenerated(answer, verdict, used)


def withhold(verdict: Verdict, assembly: Any) -> tuple[str, ...]:
    """Record ids to leave out of a second assembly when an answer rests only on weak sources: every source
    a `stale_only` sentence rests on, every source a `stale_value` finding names, and the other expired,
    superseded or informal members of the conflict groups those sources belong to (a sibling that says the
    same old rule would mislead the retry just as well). Current authoritative records are never withheld.
    Small models repeat their answer when asked to repair it; a prompt without the misleading sources is a
    different question, and one they do answer.

    The retry is the caller's: `assemble([r for r in records if r.id not in withheld], question, ...)`, with the
    same options. Empty when neither finding was raised (at any severity)."""
    index = read_assembly(assembly)
    handles = _stale_only_sources(verdict, index)
    # a value only weak sources state came from them, whatever the sentence cites
    handles += [h for f in verdict.findings if f.kind == "stale_value" for h in f.sources if h in index.sources]
    for c in index.conflicts:
        if any(h in handles for h, _ in c.others):
            handles += [h for h, _ in c.others]
    return tuple(dict.fromkeys(index.sources[h].id for h in handles))


def _stale_only_sources(verdict: Verdict, index: SourceIndex) -> list[str]:
    """The weak sources the `stale_only` sentences rest on, written or attributed."""
    flagged = {f.sentence for f in verdict.findings if f.kind == "stale_only"}
    handles = [h for s in verdict.support if s.sentence in flagged for h in s.handles if index.sources[h].weak]
    # a sentence the splitter does not count as stating has no support row, yet its citations can be stale-only
    written = [index.handle_of[c.record_id] for c in verdict.citations if c.sentence in flagged and c.record_id]
    return handles + [h for h in written if index.sources[h].weak]
