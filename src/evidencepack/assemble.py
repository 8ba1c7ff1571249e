"""The pipeline: records -> admit -> dedup -> budget -> order -> render -> prompt + manifest + report.

`assemble` is the whole compiler pass in one function. Each pass is a pure function in its own module;
this module only wires them together and keeps the books: every input record ends in the report exactly
once, included (with handle, position and tokens) or dropped (with a reason).
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .admit import admit
from .budget import Budget, fill
from .candidates import Candidate, Dropped
from .conflicts import Conflict, find_conflicts, notice_text
from .dedup import DEFAULT_THRESHOLD, EMBEDDING_CUTOFF, dedup
from .errors import TokenizerError
from .models import TargetModel, count_settings, resolve_model
from .order import order as seat
from .records import Record, When, parse_records, parse_when
from .render import FORMATS, Prepared, header_segment, prepare, render_block, resolve_profile
from .render.neutralise import replace_surrogates, safe_label
from .render.prompts import boundary_code, system_prompt, user_message
from .scan import injection_score
from .tokenizers import DEFAULT_CACHE, CountCache, Tokenizer, get_tokenizer

logger = logging.getLogger("evidencepack")
SCHEMA = "evidencepack.assembly/1"
BLOCK_SEPARATOR = "\n\n"


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

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Report:
    records: tuple[Outcome, ...]
    budget: Mapping[str, int]
    conflicts: tuple[Conflict, ...]
    tokens: Mapping[str, Any]
    neutralised: Mapping[str, Mapping[str, int]]
    injection_scores: Mapping[str, float]
    settings: Mapping[str, Any]

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


def assemble(
    records: Iterable[Record | Mapping[str, Any]],
    question: str,
    *,
    as_of: When | str,
    budget: Budget | None = None,
    tokenizer: str | Tokenizer | None = None,
    model: str | TargetModel | Tokenizer | None = None,
    order: str = "edges",
    format: str = "text",
    profile: str | Sequence[str] = "policy",
    clearance: str = "internal",
    exclude_expired: bool = False,
    exclude_not_yet_valid: bool = False,
    exclude_superseded: bool = False,
    dedup_threshold: float = DEFAULT_THRESHOLD,
    embedding_cutoff: float | None = EMBEDDING_CUTOFF,
    conflict_policy: str = "surface",
    conflict_notice: bool = True,
    conflict_embedding_threshold: float | None = 0.9,
    system_template: str | None = None,
    handle_prefix: str = "S",
    boundary_key: bytes | str | None = None,
    marking: str = "none",
    injection_threshold: float | None = None,
    count_cache: CountCache | None = None,
) -> Assembly:
    """Compile ranked records into a budgeted, ordered prompt with provenance.

    `as_of` is required: validity is judged at a date the caller states, never the wall clock.
    `model` names the target model (see `evidencepack.models.resolve_model`): its tokenizer counts, and the
    chat framing it adds is reserved, so `report.budget["prompt_tokens"]` is the request's real size.
    """
    budget = budget or Budget()
    if model is not None and tokenizer is not None:
        raise TokenizerError("give model= (tokenizer and chat framing) or tokenizer=, not both")
    target = resolve_model(model) if model is not None else None
    tok = target.tokenizer if target is not None else get_tokenizer(tokenizer)
    cache = count_cache or DEFAULT_CACHE
    as_of = parse_when(as_of, field="as_of")  # also makes a naive datetime comparable (UTC)
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r} (one of {', '.join(FORMATS)})")
    if not isinstance(handle_prefix, str) or not handle_prefix.isalpha() or not handle_prefix.isascii():
        raise ValueError(f"handle_prefix must be ASCII letters, got {handle_prefix!r}")
    if not isinstance(question, str):
        raise ValueError("question must be a string")
    question = replace_surrogates(question)
    flat = format == "flat"
    fields = resolve_profile(profile)
    if flat:
        fields = ()  # the flat baseline carries no metadata at all

    def count(text: str) -> int:
        return cache.count(tok, text)

    # 1. admit
    ranked = parse_records(records)
    admitted = admit(ranked, as_of=as_of, clearance=clearance, exclude_expired=exclude_expired,
                     exclude_not_yet_valid=exclude_not_yet_valid, exclude_superseded=exclude_superseded)
    candidates, early_drops = list(admitted.kept), list(admitted.dropped)
    scores: dict[str, float] = {}
    if injection_threshold is not None:  # the scan reports every record; only the policy drops
        scores = {c.id: injection_score(c.record) for c in candidates}
        early_drops += [Dropped(c.id, "injection_suspected", c.rank, detail=f"score {scores[c.id]:.2f}")
                        for c in candidates if scores[c.id] > injection_threshold]
        candidates = [c for c in candidates if scores[c.id] <= injection_threshold]

    # Reserves: system prompt and the question's frame, counted with the real tokenizer.
    material = [question, format, *(part for c in candidates for part in (c.id, c.record.text))]
    boundary = boundary_code((m.encode("utf-8", "surrogatepass") for m in material), boundary_key)
    as_of_text = as_of.isoformat()
    system = system_prompt(system_template, boundary=boundary, as_of=as_of_text, prefix=handle_prefix,
                           conflict_policy=conflict_policy, flat=flat)
    frame = user_message("", question, flat=flat)
    system_tokens, question_tokens = count(system), count(frame)
    # With a target model the whole request is counted as the model receives it; the framing is the
    # difference, reserved like the other reserves. Without one it is unknown (0) and the count a guess.
    base_request = target.request_tokens(_chat(system, frame)) if target is not None else None
    framing = base_request - system_tokens - question_tokens if base_request is not None else 0
    available = budget.retrieval_budget(system_tokens, question_tokens, framing=framing)

    # 2. dedup (lazy) and 3. budget: whole blocks, best-first, costed with the widest handle.
    prepared: dict[str, Prepared] = {}
    widest = handle_prefix + "9" * len(str(max(1, len(candidates))))

    def prep(cand: Candidate) -> Prepared:
        if cand.id not in prepared:
            prepared[cand.id] = prepare(cand, fields, boundary=boundary, prefix=handle_prefix, marking=marking)
        return prepared[cand.id]

    def cost(cand: Candidate) -> int:
        p = prep(cand)
        return count(render_block(format, widest, p.fields, p.body, boundary) + _separator(flat))

    filled = fill(dedup(candidates, threshold=dedup_threshold, embedding_cutoff=embedding_cutoff),
                  cost=cost, available=available, max_records=budget.max_records, fill_gaps=budget.fill_gaps)
    reached = {c.id for c, _ in filled.selected} | {d.id for d in filled.dropped}
    unreached = [Dropped(c.id, filled.stopped_by or "over_budget", c.rank, detail="not reached: budget full"
                         if filled.stopped_by != "max_records" else "not reached: max_records reached")
                 for c in candidates if c.id not in reached]
    selected = [c for c, _ in filled.selected]
    late_drops: list[Dropped] = []

    # 4. order and 5. render; the whole prompt is counted once more, and if the real count (handles,
    # conflict notice, joins) overshoots, the lowest-ranked record leaves and we render again.
    while True:
        seated = seat(selected, order, stable_key=lambda c: c.id)  # type: ignore[arg-type]
        handles = [(f"{handle_prefix}{i}", c) for i, c in enumerate(seated, start=1)]
        conflicts = find_conflicts(handles, embedding_threshold=conflict_embedding_threshold) if not flat else ()
        blocks = [render_block(format, h, prep(c).fields, prep(c).body, boundary) for h, c in handles]
        notice = ""
        if conflict_notice and conflicts:
            # The notice sits outside every block, so a topic appears there only if it is a plain slug.
            labels = {c.topic: c.topic for c in conflicts if c.topic is not None and safe_label(c.topic)}
            notice = notice_text(conflicts, labels)
        sources = _separator(flat).join(([notice] if notice else []) + blocks)
        user = user_message(sources, question, flat=flat)
        used = (count(user) - question_tokens if base_request is None
                else target.request_tokens(_chat(system, user)) - base_request)  # type: ignore[union-attr]
        if used <= available or not selected:
            break
        worst = max(selected, key=lambda c: c.rank)
        selected.remove(worst)
        late_drops.append(Dropped(worst.id, "over_budget", worst.rank,
                                  detail="dropped after rendering: the full prompt overshot the budget"))

    # Books: manifest from records only; every input record accounted exactly once.
    all_drops = early_drops + list(filled.dropped) + unreached + late_drops
    absorbed: dict[str, list[str]] = {}
    for d in all_drops:
        if d.duplicate_of:
            absorbed.setdefault(d.duplicate_of, []).append(d.id)
    manifest = tuple(
        _manifest_entry(h, pos, c, count(block), absorbed.get(c.id, ()))
        for pos, ((h, c), block) in enumerate(zip(handles, blocks), start=1)
    )
    outcomes = {m.id: Outcome(m.id, "included", m.rank, handle=m.handle, position=m.position, tokens=m.tokens)
                for m in manifest}
    for d in all_drops:
        outcomes[d.id] = Outcome(d.id, "dropped", d.rank, reason=d.reason, duplicate_of=d.duplicate_of,
                                 tokens=d.tokens, detail=d.detail)
    rank_of = {r.id: i for i, r in enumerate(ranked)}
    report = Report(
        records=tuple(sorted(outcomes.values(), key=lambda o: rank_of[o.id])),
        budget={
            "context_window": budget.context_window, "system_prompt": system_tokens,
            "question": question_tokens, "output_reserve": budget.output_reserve,
            "safety_margin": budget.safety_margin, "retrieval_budget": available, "used": used,
            "left": available - used, "framing": framing,
            "prompt_tokens": system_tokens + question_tokens + framing + used,
            "exact": target is not None and target.exact,
        },
        conflicts=conflicts,
        tokens=_token_breakdown(format, handles, blocks, notice, prepared, count),
        neutralised={c.id: dict(prep(c).neutralised) for _, c in handles if prep(c).neutralised},
        injection_scores=scores,
        settings={"as_of": as_of_text, "order": order, "format": format,
                  "profile": profile if isinstance(profile, str) else list(profile), "clearance": clearance,
                  "tokenizer": tok.name, "conflict_policy": conflict_policy, "marking": marking,
                  "fill_gaps": budget.fill_gaps, "max_records": budget.max_records,
                  **count_settings(target, tok)},
    )
    assembly = Assembly(system, user, manifest, report, boundary, format, handle_prefix)
    _log(assembly)
    return assembly


def _chat(system: str, user: str) -> list[dict[str, str]]:
    """The messages as `Assembly.messages` sends them."""
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _separator(flat: bool) -> str:
    return "\n" if flat else BLOCK_SEPARATOR


def _manifest_entry(handle: str, position: int, c: Candidate, tokens: int, absorbed: Sequence[str]
                    ) -> ManifestEntry:
    r = c.record

    def encodable(value: str | None) -> str | None:
        return replace_surrogates(value) if value is not None else None

    return ManifestEntry(
        handle=handle, id=r.id, position=position, rank=c.rank, tokens=tokens, status=c.status,
        authority=r.authority, sensitivity=r.sensitivity, doc=encodable(r.doc), section=encodable(r.section),
        url=encodable(r.url), date=r.date.isoformat() if r.date else None,
        source_system=encodable(r.source_system), topic=encodable(r.topic), absorbed=tuple(absorbed),
    )


def _token_breakdown(fmt, handles, blocks, notice, prepared, count) -> dict[str, Any]:
    """Where the source tokens go: record text, headers (and each field), delimiters, the notice."""
    text = sum(count(prepared[c.id].body) for _, c in handles)
    total = sum(count(b) for b in blocks)
    per_field: Counter[str] = Counter()
    for _, c in handles:
        for name, value in prepared[c.id].fields:
            per_field[name] += count(header_segment(fmt, name, value))
    return {"blocks": total, "text": text, "headers_and_delimiters": total - text,
            "fields": dict(per_field), "notice": count(notice) if notice else 0}


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

