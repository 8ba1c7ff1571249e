"""Ledger: every input record accounted once, the manifest, the budget figures, the token breakdown.

`ledger` turns what the passes produced (drops, the fitted prompt) into an `Assembly`. The manifest is built from
records only, so nothing in a record's text can add, rename or re-point a handle.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..records.candidates import Candidate, Dropped
from ..records.ranking import Unusable
from ..render import header_segment
from ..render.neutralise import replace_surrogates
from ..report import Assembly, ManifestEntry, Outcome, Report
from ..seal import sealing_key
from ..tokens.target import count_settings
from .fit import Fitted, Request

logger = logging.getLogger("evidencepack")


def ledger(opts: Request, settings: Mapping[str, Any], drops: Iterable[Dropped | Unusable],
           unreached: Callable[[], list[Dropped]], fitted: Fitted) -> Assembly:
    """Account for every input exactly once and build the assembly; `settings` is what the report records."""
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
        budget={"context_window": b.window, "context_window_source": b.window_source,
                "system_prompt": fitted.system_tokens,
                "question": fitted.question_tokens, "output_reserve": b.output_reserve,
                "safety_margin": b.safety_margin, "retrieval_budget": fitted.available, "used": fitted.used,
                "left": fitted.available - fitted.used, "framing": fitted.framing,
                "prompt_tokens": fitted.system_tokens + fitted.question_tokens + fitted.framing + fitted.used,
                **count_settings(opts.model, opts.tokenizer)},
        conflicts=fitted.conflicts,
        neutralised={s.candidate.id: dict(s.prepared.neutralised) for s in fitted.seats if s.prepared.neutralised},
        injection_scores=dict(scores[rank] for rank in sorted(scores)),
        settings=settings,
        breakdown=lambda: _token_breakdown(opts, fitted),
        caching=lambda: _cache(opts, fitted),
    )
    assembly = Assembly(fitted.system, fitted.user, manifest, report, fitted.boundary, opts.layout.format,
                        opts.layout.handle_prefix, sealing_key(opts.boundary_key), fitted.cache_split)
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


def _token_breakdown(opts: Request, fitted: Fitted) -> dict[str, Any]:
    """Where the source tokens go: record text, headers (and each field), delimiters, the notice, and the shown
    rule when the layout asks for one."""
    count = opts.count
    text = sum(count(s.prepared.body) for s in fitted.seats)
    total = sum(s.tokens for s in fitted.seats)
    per_field: Counter[str] = Counter()
    for s in fitted.seats:
        for name, value in s.prepared.fields:
            per_field[name] += count(header_segment(opts.layout.format, name, value))
    out = {"blocks": total, "text": text, "headers_and_delimiters": total - text,
           "fields": dict(per_field), "notice": count(fitted.notice) if fitted.notice else 0}
    if opts.layout.show_rule:  # only then: other layouts' reports keep their bytes
        out["shown_rule"] = count(fitted.shown) if fitted.shown else 0
    return out


def _cache(opts: Request, fitted: Fitted) -> dict[str, Any]:
    """What a provider's prompt cache can reuse: the system prompt and the user message up to the question's
    line, which stay byte-identical for any question over the same selection (content tokens, without the
    chat framing). Anthropic's `cache_control` breakpoints sit at the two ends (`Assembly.anthropic`)."""
    prefix = fitted.system_tokens + opts.count(fitted.user[: fitted.cache_split])
    suffix = opts.count(fitted.user[fitted.cache_split:])
    return {"prefix_tokens": prefix, "question_tokens": suffix,
            "prefix_share": round(prefix / max(1, prefix + suffix), 4), "breakpoints": ["system", "sources"]}


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
