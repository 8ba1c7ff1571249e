"""The pipeline: options -> rank -> admit -> screen -> frame -> fill (dedup) -> fit -> ledger.

Each pass is a small function in its own module; this one only wires them together. The passes after
`rank` are generators over one lazy stream in rank order, so a record is validated, admitted, screened,
deduplicated and costed only when the budget pass asks for it: the cost follows what is selected, not how
many candidates arrived. What the budget pass never reached is still accounted for, as "not reached".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .errors import OptionError
from .options import Options
from .passes.admit import admit_stream, cleared
from .passes.budget import fill, screen_size
from .passes.dedup import dedup
from .passes.fit import Blocks, fit, frame_request
from .passes.ledger import ledger
from .passes.screen import screen
from .records.candidates import Dropped
from .records.ranking import Ranking, parse_pending, rank
from .records.record import Record
from .render.neutralise import neutralise_question, replace_surrogates
from .report import Assembly, ManifestEntry, Outcome, Report

__all__ = ["Assembly", "ManifestEntry", "Outcome", "Report", "assemble"]


def assemble(records: Iterable[Record | Mapping[str, Any]], question: str, **options: Any) -> Assembly:
    """Compile ranked records into a budgeted, ordered prompt with provenance.

    `as_of` is required: validity is judged at a date the caller states, never the wall clock. Every other
    option is described in `Options` and the README; all are checked before a record is read.
    """
    opts = Options.build(**options)
    question = _question(question, opts)
    ranking = rank(records, on_invalid=opts.on_invalid, visible=lambda s: cleared(s, opts.clearance),
                   strict=opts.strict)
    if opts.strict:
        _validate_all(ranking, opts)
    frame = frame_request(question, opts, ranking.count)
    blocks = Blocks(opts, frame)
    stream = admit_stream(ranking, as_of=opts.as_of, clearance=opts.clearance,
                          exclude_expired=opts.exclude_expired, exclude_not_yet_valid=opts.exclude_not_yet_valid,
                          exclude_superseded=opts.exclude_superseded, on_invalid=opts.on_invalid)
    stream = screen_size(screen(stream, threshold=opts.injection_threshold), max_chars=frame.max_chars)
    filled = fill(dedup(stream, threshold=opts.dedup_threshold, embedding_cutoff=opts.embedding_cutoff),
                  cost=blocks.cost, available=frame.available, max_records=opts.budget.max_records,
                  fill_gaps=opts.budget.fill_gaps)
    unreached = _not_reached(ranking, filled.stopped_by)
    fitted = fit([c for c, _ in filled.selected], frame, opts, blocks)
    return ledger(opts, [*ranking.unusable, *filled.dropped, *fitted.late_drops], unreached, fitted)


def _question(question: Any, opts: Options) -> str:
    """The question as it enters the prompt. In many apps an end user typed it, so by default it is
    neutralised like record text (an ordinary question comes back unchanged)."""
    if not isinstance(question, str):
        raise OptionError(f"question must be a string, got {type(question).__name__}")
    if not opts.neutralise_question:
        return replace_surrogates(question)
    return neutralise_question(question, handle_prefix=opts.handle_prefix, frame_labels=opts.frame_labels)


def _validate_all(ranking: Ranking, opts: Options) -> None:
    """`strict`: validate every record the caller may see before any work, so a malformed record fails the
    call even where the budget pass would never have reached it."""
    for p in ranking.rest():
        if cleared(p.sensitivity, opts.clearance):
            parse_pending(p, on_invalid=opts.on_invalid)
    ranking.rewind()


def _not_reached(ranking: Ranking, stopped_by: str | None) -> Callable[[], list[Dropped]]:
    """The inputs the budget pass never asked for, listed only when the report is read."""
    reason = stopped_by or "over_budget"
    detail = "not reached: max_records reached" if reason == "max_records" else "not reached: budget full"
    rest = ranking.rest
    return lambda: [Dropped(p.id, reason, p.rank, detail=detail) for p in rest()]  # type: ignore[arg-type]
