"""The books: every input record accounted once, the manifest, the budget figures, the token breakdown.

`ledger` turns what the passes produced (drops, the fitted prompt) into an `Assembly`: the prompt as text and
chat messages, the manifest (built from records only, so nothing in a record's text can add, rename or
re-point a handle) and the `Report`. `report_table` prints the report for a person.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .candidates import Candidate, Dropped
from .conflicts import Conflict
from .fit import Fitted
from .models import count_settings
from .options import Options
from .records import Unusable
from .render import header_segment
from .render.neutralise import replace_surrogates

logger = logging.getLogger("evidencepack")
SCHEMA = "evidencepack.assembly/1"


@dataclass(frozen=True)
class ManifestEntry:
    """Where a handle points. Built from records only: nothing in a record's text can change it."""

    handle: str
    id: str
    position: int
    rank: int
    tokens: int
    status: str
    authority: str
    sensitivity: str
    doc: str | None = None
    section: str | None = None
    url: str | None = None
    date: str | None = None
    source_system: str | None = None
    topic: str | None = None
    absorbed: tuple[str, ...] = ()
    valid_from: str | None = None  # the validity window (ISO), so a reader-facing note can date an expiry
    valid_until: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["absorbed"] = list(self.absorbed)
        return out


@dataclass(frozen=True)
class Outcome:
    """One input record's fate."""

    id: str
    decision: str  # "included" | "dropped"
    rank: int
    reason: str | None = None
    duplicate_of: str | None = None
    handle: str | None = None
    position: int | None = None
    tokens: int | None = None
    detail: str | None = None
    notes: tuple[str, ...] = ()  # field values left out under on_invalid="drop"

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["notes"] = list(self.notes)
        return out


@dataclass(frozen=True)
class Report:
    """Every input record's fate, the budget arithmetic, conflicts, and where the tokens went."""

    budget: Mapping[str, Any]
    conflicts: tuple[Conflict, ...]
    neutralised: Mapping[str, Mapping[str, int]]
    injection_scores: Mapping[str, float]
    settings: Mapping[str, Any]
    breakdown: Callable[[], dict[str, Any]] = field(default=dict, repr=False, compare=False)
    outcomes: Callable[[], tuple[Outcome, ...]] = field(default=tuple, repr=False, compare=False)

    @cached_property
    def records(self) -> tuple[Outcome, ...]:
        """Every input record, in rank order, exactly once. Listed on first use: records the budget pass
        never reached cost nothing until someone reads their line."""
        return self.outcomes()

    @cached_property
    def tokens(self) -> dict[str, Any]:
        """Source tokens split into record text, headers and delimiters, each field, and the notice. Counted
        on first use: it re-tokenizes every block's parts, which assembly itself never needs."""
        return self.breakdown()

    def to_dict(self) -> dict[str, Any]:
        return {
            "records": [o.to_dict() for o in self.records],
            "budget": dict(self.budget),
            "conflicts": [c.to_dict() for c in self.conflicts],
            "tokens": dict(self.tokens),
            "neutralised": {k: dict(v) for k, v in self.neutralised.items()},
            "injection_scores": dict(self.injection_scores),
            "settings": dict(self.settings),
        }


@dataclass(frozen=True)
class Assembly:
    """What `assemble` returns: the prompt (as one string and as chat messages), manifest and report."""

    system: str
    user: str
    manifest: tuple[ManifestEntry, ...]
    report: Report
    boundary: str
    format: str
    handle_prefix: str = "S"

    @property
    def prompt(self) -> str:
        return f"{self.system}\n\n{self.user}"

    @property
    def messages(self) -> list[dict[str, str]]:
        """OpenAI-style chat messages."""
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]

    def anthropic(self) -> dict[str, Any]:
        """Keyword arguments for Anthropic's Messages API: `system` is separate there."""
        return {"system": self.system, "messages": [{"role": "user", "content": self.user}]}

    def handle(self, handle: str) -> ManifestEntry | None:
        return next((m for m in self.manifest if m.handle == handle), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "prompt": self.prompt,
            "messages": self.messages,
            "manifest": [m.to_dict() for m in self.manifest],
            "report": self.report.to_dict(),
            "boundary": self.boundary,
            "format": self.format,
            "handle_prefix": self.handle_prefix,
        }

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)


def ledger(opts: Options, drops: Iterable[Dropped | Unusable], unreached: Callable[[], list[Dropped]],
           fitted: Fitted) -> Assembly:
    """Account for every input exactly once and build the assembly."""
    absorbed: dict[str, list[str]] = {}
    outcomes: dict[int, Outcome] = {}
    scores: dict[int, tuple[str, float]] = {s.candidate.rank: (s.candidate.id, float(s.candidate.injection_score))
                                            for s in fitted.seats if s.candidate.injection_score is not None}
    for d in drops:
        score = getattr(d, "injection_score", None)
        if score is not None:
            scores[d.rank] = (d.id, float(score))
        if d.duplicate_of:
            absorbed.setdefault(d.duplicate_of, []).append(d.id)
        outcomes[d.rank] = Outcome(d.id, "dropped", d.rank, reason=d.reason, duplicate_of=d.duplicate_of,
                                   tokens=getattr(d, "tokens", None), detail=d.detail,
                                   notes=getattr(d, "notes", ()))
    manifest = tuple(_manifest_entry(seat.handle, position, seat.candidate, seat.tokens,
                                     absorbed.get(seat.candidate.id, ()))
                     for position, seat in enumerate(fitted.seats, start=1))
    for m, seat in zip(manifest, fitted.seats):
        outcomes[m.rank] = Outcome(m.id, "included", m.rank, handle=m.handle, position=m.position,
                                   tokens=m.tokens, notes=seat.candidate.notes)
    b = opts.budget

    def every_outcome() -> tuple[Outcome, ...]:
        for d in unreached():
            outcomes[d.rank] = Outcome(d.id, "dropped", d.rank, reason=d.reason, detail=d.detail)
        return tuple(outcomes[rank] for rank in sorted(outcomes))

    report = Report(
        outcomes=every_outcome,
        budget={"context_window": b.context_window, "system_prompt": fitted.system_tokens,
                "question": fitted.question_tokens, "output_reserve": b.output_reserve,
                "safety_margin": b.safety_margin, "retrieval_budget": fitted.available, "used": fitted.used,
                "left": fitted.available - fitted.used, "framing": fitted.framing,
                "prompt_tokens": fitted.system_tokens + fitted.question_tokens + fitted.framing + fitted.used,
                **count_settings(opts.model, opts.tokenizer)},
        conflicts=fitted.conflicts,
        neutralised={s.candidate.id: dict(s.prepared.neutralised) for s in fitted.seats if s.prepared.neutralised},
        injection_scores=dict(scores[rank] for rank in sorted(scores)),
        settings=opts.settings(),
        breakdown=lambda: _token_breakdown(opts, fitted),
    )
    assembly = Assembly(fitted.system, fitted.user, manifest, report, fitted.boundary, opts.format, opts.handle_prefix)
    _log(assembly)
    return assembly


def _manifest_entry(handle: str, position: int, c: Candidate, tokens: int, absorbed: Sequence[str]
                    ) -> ManifestEntry:
    r = c.record

    def encodable(value: str | None) -> str | None:
        return replace_surrogates(value) if value is not None else None

    return ManifestEntry(
        handle=handle, id=r.id, position=position, rank=c.rank, tokens=tokens, status=c.status,
        authority=r.authority, sensitivity=r.sensitivity, doc=encodable(r.doc), section=encodable(r.section),
        url=encodable(r.url), date=r.date.isoformat() if r.date else None,
        valid_from=r.valid_from.isoformat() if r.valid_from else None,
        valid_until=r.valid_until.isoformat() if r.valid_until else None,
        source_system=encodable(r.source_system), topic=encodable(r.topic), absorbed=tuple(absorbed),
    )


def _token_breakdown(opts: Options, fitted: Fitted) -> dict[str, Any]:
    """Where the source tokens go: record text, headers (and each field), delimiters, the notice."""
    count = opts.count
    text = sum(count(s.prepared.body) for s in fitted.seats)
    total = sum(s.tokens for s in fitted.seats)
    per_field: Counter[str] = Counter()
    for s in fitted.seats:
        for name, value in s.prepared.fields:
            per_field[name] += count(header_segment(opts.format, name, value))
    return {"blocks": total, "text": text, "headers_and_delimiters": total - text,
            "fields": dict(per_field), "notice": count(fitted.notice) if fitted.notice else 0}


def _log(assembly: Assembly) -> None:
    """One structured line per call: what went in and what it cost. Never record text, and never the id
    of a record above the caller's clearance."""
    if not logger.isEnabledFor(logging.INFO):
        return
    dropped = Counter(o.reason for o in assembly.report.records if o.decision == "dropped")
    logger.info(json.dumps({
        "event": "evidencepack.assemble",
        "included": [{"id": m.id, "handle": m.handle, "tokens": m.tokens} for m in assembly.manifest],
        "dropped": dict(sorted(dropped.items())),
        "budget": dict(assembly.report.budget),
    }, ensure_ascii=False))


def report_table(result: Assembly) -> str:
    """The report as a fixed-width table a person can read."""
    status = {m.id: (m.status, m.authority) for m in result.manifest}
    rows = [("rank", "id", "decision", "handle/reason", "pos", "tokens", "status", "authority")]
    for o in result.report.records:
        st, auth = status.get(o.id, ("", "")) if o.decision == "included" else ("", "")
        what = o.handle if o.decision == "included" else (
            f"{o.reason} of {o.duplicate_of}" if o.duplicate_of else o.reason)
        rows.append((str(o.rank), o.id, o.decision, what or "", str(o.position or ""),
                     str(o.tokens or ""), st, auth))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    b = result.report.budget
    lines.append("")
    framing = f" + framing {b['framing']}" if b.get("framing") else ""
    lines.append(f"budget: window {b['context_window']} = system {b['system_prompt']} + question {b['question']}"
                 f"{framing} + output {b['output_reserve']} + margin {b['safety_margin']} + retrieval "
                 f"{b['retrieval_budget']}; used {b['used']}, left {b['left']}")
    t = result.report.tokens
    lines.append(f"source tokens: {t['blocks']} in blocks = {t['text']} text + {t['headers_and_delimiters']} "
                 f"headers and delimiters; notice {t['notice']}; per field: "
                 + ", ".join(f"{k} {v}" for k, v in t["fields"].items()))
    return "\n".join(lines)
