"""`evidencepack batch-check`: every answer of a batch checked against its assembly, as `validate` checks one.

The assemblies file is indexed by request id (byte offsets only) and each assembly is read back when its
answer comes, so memory follows the number of ids, not the size of the assemblies; answers stream. Each
answer gets one verdict line (`validate --json`'s object plus the id and what the summary counts); a line
that cannot be checked (unknown id, no answer from the provider, a request that failed to assemble, a
repeated answer, an unreadable line) gets a verdict line with `error` and is counted, never a crash.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..citations import conflict_notes, read_assembly, validate_citations, withhold
from ..citations.model import Verdict
from ..citations.severities import Severities
from ..citations.source import SourceIndex
from ..errors import EvidencepackError
from ..seal import verify, verify_env
from .answers import Answer, read_answer
from .run import is_error_line, request_id

SHOWN_IDS = 100  # ids listed in the summary per problem (the counts are complete)


@dataclass(frozen=True)
class CheckSettings:
    severities: Severities = field(default_factory=Severities)
    attribute: bool = False
    notes: bool = False
    boundary_key: bytes | None = None  # verify seals with it; None: $EVIDENCEPACK_BOUNDARY_KEY when set
    worst: int = 20


class AssemblyIndex:
    """Request id -> byte offset of its line in the assemblies file (the file stays on disk)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offsets: dict[str, int] = {}
        self.failed: set[str] = set()  # ids whose request failed to assemble (an error line)
        self.repeated: list[str] = []
        offset = 0
        with path.open("rb") as f:
            for raw in f:
                rid = request_id(raw)
                if rid is not None and is_error_line(raw):
                    if rid not in self.offsets:
                        self.failed.add(rid)
                elif rid is not None:
                    if rid in self.offsets:
                        self.repeated.append(rid)
                    else:
                        self.offsets[rid] = offset
                        self.failed.discard(rid)
                offset += len(raw)
        self._file = path.open("rb")

    def close(self) -> None:
        self._file.close()

    def read(self, rid: str) -> dict[str, Any]:
        self._file.seek(self.offsets[rid])
        data = json.loads(self._file.readline())
        if not isinstance(data, dict):
            raise EvidencepackError("the assembly line is not a JSON object")
        return data


class LineIndex(AssemblyIndex):
    """The same lookups over assembly lines held in memory (one batch of a Ray pipeline): id -> line."""

    def __init__(self, lines: Iterable[bytes]) -> None:  # noqa: D107 - no file: nothing to open
        self.path = None  # type: ignore[assignment]
        self.offsets, self.failed, self.repeated = {}, set(), []
        self._lines: list[bytes] = []
        for raw in lines:
            rid = request_id(raw)
            if rid is None:
                continue
            if is_error_line(raw):
                self.failed.add(rid)
            elif rid not in self.offsets:
                self.offsets[rid] = len(self._lines)
                self._lines.append(raw)

    def close(self) -> None:
        return None

    def read(self, rid: str) -> dict[str, Any]:
        data = json.loads(self._lines[self.offsets[rid]])
        if not isinstance(data, dict):
            raise EvidencepackError("the assembly line is not a JSON object")
        return data


def verdict_line(answer: bytes, assemblies: Iterable[bytes], settings: CheckSettings, number: int = 0) -> str:
    """The verdict line `batch-check` writes for one answer line, checked against the given assembly lines
    (those of its request, usually one): the same checks, the same bytes (`line` is `number`)."""
    out = _check_line(number, answer, LineIndex(assemblies), settings, Tally(Severities.kinds()))
    return json.dumps(out, ensure_ascii=False)


@dataclass
class Tally:
    """The summary's running counts (memory: counts and a bounded list of the worst answers)."""

    kinds: tuple[str, ...]
    lines: int = 0
    checked: int = 0
    valid: int = 0
    coverage_sum: float = 0.0
    attributed_sum: float = 0.0
    attributed_n: int = 0
    weak_only: int = 0
    with_conflicts: int = 0
    valid_with_conflicts: int = 0
    answered: set[str] = field(default_factory=set)
    problems: dict[str, list[Any]] = field(default_factory=dict)
    problem_counts: dict[str, int] = field(default_factory=dict)
    kind_answers: dict[str, int] = field(default_factory=dict)
    kind_findings: dict[str, int] = field(default_factory=dict)
    worst: list[tuple[Any, ...]] = field(default_factory=list)

    def problem(self, name: str, what: Any) -> None:
        self.problem_counts[name] = self.problem_counts.get(name, 0) + 1
        shown = self.problems.setdefault(name, [])
        if len(shown) < SHOWN_IDS:
            shown.append(what)


def check_batch(index: AssemblyIndex, answers: IO[bytes], verdicts: IO[str], settings: CheckSettings
                ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Write one verdict line per answer line to `verdicts`; return the summary and the worst answers (each
    with its answer text and assembly, for the page)."""
    tally = Tally(Severities.kinds())
    for number, raw in _lines(answers):
        tally.lines += 1
        out = _check_line(number, raw, index, settings, tally)
        verdicts.write(json.dumps(out, ensure_ascii=False) + "\n")
    for rid in index.offsets:
        if rid not in tally.answered:
            tally.problem("missing_answers", rid)
    for rid in index.repeated:
        tally.problem("repeated_assemblies", rid)
    for rid in sorted(index.failed - tally.answered):
        tally.problem("failed_requests", rid)
    worst = [_worst_entry(entry) for _, entry in sorted(tally.worst, reverse=True)]
    return summary(tally, worst), worst


def _lines(stream: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    for number, raw in enumerate(stream, start=1):
        if raw.strip():
            yield number, raw


def _check_line(number: int, raw: bytes, index: AssemblyIndex, settings: CheckSettings, tally: Tally
                ) -> dict[str, Any]:
    try:
        answer = read_answer(json.loads(raw))
    except (ValueError, RecursionError):
        answer = Answer(None, None, "not valid JSON", "unknown")
    head: dict[str, Any] = {"id": answer.id, "line": number}

    def fail(problem: str, message: str) -> dict[str, Any]:
        tally.problem(problem, answer.id if answer.id is not None else number)
        return {**head, "valid": False, "error": {"kind": problem, "message": message}}

    if answer.id is None:
        return fail("bad_lines", answer.failure or "the line names no request id")
    if answer.id in tally.answered:
        return fail("repeated_answers", "a second answer for this id (the first was checked)")
    if answer.id in index.failed:
        tally.answered.add(answer.id)
        return fail("no_assembly", "the request failed to assemble (its batch line is an error)")
    if answer.id not in index.offsets:
        return fail("unknown_ids", "no assembly has this id")
    tally.answered.add(answer.id)
    if answer.text is None:
        return fail("failed_answers", answer.failure or "no answer")
    try:
        data = index.read(answer.id)
        data = verify_env(data) if settings.boundary_key is None else _verified(data, settings.boundary_key)
        source = read_assembly(data)
        verdict = validate_citations(answer.text, source, severities=settings.severities,
                                     attribute=settings.attribute)
    except (EvidencepackError, ValueError, RecursionError) as err:
        return fail("bad_assemblies", f"the assembly cannot be read: {err}")
    return {**head, **_verdict_fields(answer.id, answer.text, source, verdict, settings, tally, number)}


def _verified(data: dict[str, Any], key: bytes) -> dict[str, Any]:
    verify(data, key)
    return data


def _verdict_fields(rid: str, text: str, source: SourceIndex, verdict: Verdict, settings: CheckSettings, tally: Tally,
                    number: int) -> dict[str, Any]:
    out = verdict.to_dict()
    handles = {h for s in verdict.support for h in s.handles}
    weak_only = bool(handles) and all(source.sources[h].weak for h in handles if h in source.sources)
    conflicts = len(source.conflicts)
    out["weak_only"] = weak_only
    out["conflicts_delivered"] = conflicts
    if settings.notes:
        out["conflict_notes"] = [n.to_dict() for n in conflict_notes(text, source, verdict=verdict)]
        out["withhold"] = list(withhold(verdict, source))
    tally.checked += 1
    tally.valid += verdict.valid
    tally.coverage_sum += verdict.coverage
    if verdict.attributed_coverage is not None:
        tally.attributed_sum += verdict.attributed_coverage
        tally.attributed_n += 1
    tally.weak_only += weak_only
    if conflicts:
        tally.with_conflicts += 1
        tally.valid_with_conflicts += verdict.valid
    kinds = [f.kind for f in verdict.findings]
    for kind in set(kinds):
        tally.kind_answers[kind] = tally.kind_answers.get(kind, 0) + 1
    for kind in kinds:
        tally.kind_findings[kind] = tally.kind_findings.get(kind, 0) + 1
    errors = sum(f.severity == "error" for f in verdict.findings)
    warnings = len(verdict.findings) - errors
    # worst first: invalid, most errors, least coverage, most warnings; ties by line (deterministic)
    key = (verdict.valid, -errors, round(verdict.coverage, 4), -warnings, number)
    entry = (*key, rid, text, errors, warnings, verdict.coverage, verdict.valid)
    _keep_worst(tally.worst, entry, settings.worst)
    return out


def _keep_worst(worst: list[tuple[Any, ...]], entry: tuple[Any, ...], n: int) -> None:
    """The n worst entries seen so far (smallest keys), in O(n) memory: a min-heap on the negated key, so
    its top is the least bad entry kept."""
    if n <= 0:
        return
    valid, neg_errors, coverage, neg_warnings, number = entry[:5]
    item = ((-int(valid), -neg_errors, -coverage, -neg_warnings, -number), entry)
    if len(worst) < n:
        heapq.heappush(worst, item)
    elif item[0] > worst[0][0]:
        heapq.heapreplace(worst, item)


def _worst_entry(entry: tuple[Any, ...]) -> dict[str, Any]:
    number, rid, text, errors, warnings, coverage, valid = entry[4:]
    return {"id": rid, "line": number, "valid": valid, "errors": errors, "warnings": warnings,
            "coverage": round(coverage, 4), "answer": text}


def _rate(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def summary(t: Tally, worst: list[dict[str, Any]]) -> dict[str, Any]:
    """The run's figures (JSON-ready); rates are over the answers checked."""
    problems = ("missing_answers", "failed_requests", "unknown_ids", "failed_answers", "no_assembly",
                "repeated_answers", "bad_lines", "bad_assemblies", "repeated_assemblies")
    return {
        "answer_lines": t.lines,
        "checked": t.checked,
        "valid": t.valid,
        "valid_rate": _rate(t.valid, t.checked),
        "coverage": round(t.coverage_sum / t.checked, 4) if t.checked else None,
        "attributed_coverage": (round(t.attributed_sum / t.attributed_n, 4) if t.attributed_n else None),
        "findings": {k: {"answers": t.kind_answers.get(k, 0), "rate": _rate(t.kind_answers.get(k, 0), t.checked),
                         "findings": t.kind_findings.get(k, 0)} for k in t.kinds},
        "weak_only": {"answers": t.weak_only, "rate": _rate(t.weak_only, t.checked)},
        "conflicts_delivered": {"answers": t.with_conflicts, "rate": _rate(t.with_conflicts, t.checked),
                                "valid_rate": _rate(t.valid_with_conflicts, t.with_conflicts)},
        "problems": {p: {"count": t.problem_counts.get(p, 0), "shown": t.problems.get(p, [])} for p in problems},
        "worst": [{k: v for k, v in w.items() if k != "answer"} for w in worst],
    }


def run_check(assemblies: Path, answers: IO[bytes], verdicts: IO[str], settings: CheckSettings,
              page: Path | None = None, on_page: Callable[[Path], None] | None = None) -> dict[str, Any]:
    """Check, and write the HTML summary with the worst answers' inspector pages when `page` is given."""
    index = AssemblyIndex(assemblies)
    try:
        result, worst = check_batch(index, answers, verdicts, settings)
        if page is not None:
            from .check_page import write_pages

            write_pages(page, result, worst, index, settings)
            if on_page is not None:
                on_page(page)
    finally:
        index.close()
    return result
