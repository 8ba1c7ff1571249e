"""The pipeline: options -> rank -> admit -> screen -> frame -> fill (dedup) -> fit -> ledger.

Each pass is a small function in its own module; this one only wires them together. The passes after
`rank` are generators over one lazy stream in rank order, so a record is validated, admitted, screened,
deduplicated and costed only when the budget pass asks for it: the cost follows what is selected, not how
many candidates arrived. What the budget pass never reached is still accounted for, as "not reached".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .errors import OptionError
from .options import Options
from .passes.admit import Admission, admit_stream, cleared
from .passes.budget import Budget, Withheld, fill, screen_size
from .passes.conflicts import Withholding
from .passes.dedup import Dedup
from .passes.dedup import dedup as dedup_pass
from .passes.fit import Blocks, fit, frame_request
from .passes.ledger import ledger
from .passes.screen import screen
from .records.candidates import Dropped
from .records.ranking import Ranking, parse_pending, rank
from .records.record import Record
from .render.layout import Layout
from .render.neutralise import neutralise_question, replace_surrogates
from .report import Assembly, ManifestEntry, Outcome, Report
from .tokens.tokenizers import CountCache, Tokenizer

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .options import LegacyOptions

__all__ = ["Assembly", "ManifestEntry", "Outcome", "Report", "assemble"]


def assemble(records: Iterable[Record | Mapping[str, Any]], question: str, *, as_of: Any = None,
             budget: Budget | None = None, admission: Admission | None = None, dedup: Dedup | None = None,
             layout: Layout | None = None, tokenizer: str | Tokenizer | None = None, model: Any = None,
             boundary_key: bytes | str | None = None, count_cache: CountCache | None = None,
             options: Options | None = None, **legacy: Unpack[LegacyOptions]) -> Assembly:
    """Compile ranked records into a budgeted, ordered prompt with provenance.

    `as_of` is required (here or in `options`): validity is judged at a date the caller states, never the wall
    clock. The option groups (`Budget`, `Admission`, `Dedup`, `Layout`) are described in docs/options.md;
    arguments given replace those of `options`; all are checked before a record is read. The flat keyword
    names of 1.x (`order=`, `format=`, ...) still work for one release, with a `DeprecationWarning`.
    """
    opts = Options.build(as_of=as_of, budget=budget, admission=admission, dedup=dedup, layout=layout,
                         tokenizer=tokenizer, model=model, boundary_key=boundary_key, count_cache=count_cache,
                         options=options, **legacy)
    question = _question(question, opts.layout)
    admit = opts.admission
    ranking = rank(records, on_invalid=admit.on_invalid, visible=lambda s: cleared(s, admit.clearance),
                   strict=admit.strict)
    if admit.strict:
        _validate_all(ranking, admit)
    frame = frame_request(question, opts, ranking.count)
    blocks = Blocks(opts, frame)
    stream = admit_stream(ranking, as_of=opts.as_of, clearance=admit.clearance,
                          exclude_expired=admit.exclude_expired, exclude_not_yet_valid=admit.exclude_not_yet_valid,
                          exclude_superseded=admit.exclude_superseded, on_invalid=admit.on_invalid)
    stream = screen_size(screen(stream, threshold=admit.injection_threshold), max_chars=frame.max_chars)
    filled = fill(dedup_pass(stream, threshold=opts.dedup.threshold, embedding_cutoff=opts.dedup.embedding_cutoff),
                  cost=blocks.cost, available=frame.available, max_records=opts.budget.max_records,
                  fill_gaps=opts.budget.fill_gaps, withheld=_withheld(opts.layout))
    unreached = _not_reached(ranking, filled.stopped_by)
    fitted = fit([c for c, _ in filled.selected], frame, opts, blocks)
    return ledger(opts, opts.settings(), [*ranking.unusable, *filled.dropped, *fitted.late_drops], unreached,
                  fitted)


def _question(question: Any, layout: Layout) -> str:
    """The question as it enters the prompt. In many apps an end user typed it, so by default it is
    neutralised like record text (an ordinary question comes back unchanged)."""
    if not isinstance(question, str):
        raise OptionError(f"question must be a string, got {type(question).__name__}")
    if not layout.neutralise_question:
        return replace_surrogates(question)
    return neutralise_question(question, handle_prefix=layout.handle_prefix, frame_labels=layout.frame_labels)


def _withheld(layout: Layout) -> Withheld | None:
    """Under `conflict_policy="withhold"`, what the fit pass will leave out of a selection: the budget pass gives
    their room to the next ranks instead of leaving it empty."""
    if layout.conflict_policy != "withhold":
        return None
    return Withholding(embedding_threshold=layout.conflict_embedding_threshold)


def _validate_all(ranking: Ranking, admit: Admission) -> None:
    """`strict`: validate every record the caller may see before any work, so a malformed record fails the
    call even where the budget pass would never have reached it."""
    for p in ranking.rest():
        if cleared(p.sensitivity, admit.clearance):
            parse_pending(p, on_invalid=admit.on_invalid)
    ranking.rewind()


def _not_reached(ranking: Ranking, stopped_by: str | None) -> Callable[[], list[Dropped]]:
    """The inputs the budget pass never asked for, listed only when the report is read."""
    reason = stopped_by or "over_budget"
    detail = "not reached: max_records reached" if reason == "max_records" else "not reached: budget full"
    rest = ranking.rest
    return lambda: [Dropped(p.id, reason, p.rank, detail=detail) for p in rest()]  # type: ignore[arg-type]
