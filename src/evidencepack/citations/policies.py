"""Acting on a verdict: reject (`enforce`), `strip_invalid`, or `regenerate` with a repair prompt.

`repair_prompt` is the one wording used to ask a model for a corrected answer; the evaluation's guard
condition uses it too, so what the library does and what the evaluation measured are the same request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import CitationError, CitationInputError
from .model import Citation, Severity, Verdict, check_text, severity_map
from .source import read_assembly
from .validate import validate_citations

REPAIR_OPENING = "Your answer has problems:"
REPAIR_CLOSING = ("Answer the question again. Base the answer on sources that are current and authoritative, "
                  "cite only handles that appear in the sources, and if a source is expired, superseded or "
                  "informal, say so instead of giving its rule as the answer.")


def repair_prompt(problems: Iterable[str]) -> str:
    """The regeneration request: exactly what was wrong (one line each), then what to do."""
    return "\n".join([REPAIR_OPENING, *(f"- {p}" for p in problems), REPAIR_CLOSING])


def repair_instruction(verdict: Verdict) -> str:
    """`repair_prompt` for the error findings of a verdict."""
    return repair_prompt(f.message for f in verdict.findings if f.severity == "error")


def enforce(answer: str, assembly: Any, *, uncited: Severity | None = None, stale_only: Severity | None = None,
            severities: Mapping[str, Severity] | None = None) -> Verdict:
    """The `reject` policy: return the verdict when valid, else raise `CitationError` carrying it."""
    verdict = validate_citations(answer, assembly, uncited=uncited, stale_only=stale_only, severities=severities)
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
    verdict = validate_citations(answer, assembly, uncited="off", stale_only="off")
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
               uncited: Severity | None = None, stale_only: Severity | None = None,
               severities: Mapping[str, Severity] | None = None) -> Regenerated:
    """The `regenerate` policy: ask `generate(repair_prompt)` for a new answer until one is valid or
    `attempts` run out; returns the first valid answer, else the last one with its verdict."""
    if not callable(generate):
        raise CitationInputError(f"generate must be a callable taking the repair prompt, got {type(generate).__name__}")
    if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 0:
        raise CitationInputError(f"attempts must be a whole number >= 0, got {attempts!r}")
    levels = severity_map(uncited=uncited, stale_only=stale_only, severities=severities)
    index = read_assembly(assembly)
    verdict = validate_citations(answer, index, severities=levels)
    used = 0
    while not verdict.valid and used < attempts:
        answer = check_text(generate(repair_instruction(verdict)), "generate()'s answer")
        used += 1
        verdict = validate_citations(answer, index, severities=levels)
    return Regenerated(answer, verdict, used)
