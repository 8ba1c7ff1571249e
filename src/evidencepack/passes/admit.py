"""Admit: clearance and validity at an explicit `as_of` date.

Clearance is a hard wall: a record above the caller's clearance is dropped here, before the rest of it is
even validated, and nothing of it but its id travels further. A sensitivity that cannot be read for certain
counts as above every clearance. Validity becomes a status label; by default stale records stay in,
labelled, because a model told that a record is expired can say so, while a silently missing record cannot
be discussed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..errors import OptionError
from ..optspec import check_bool, check_choice, check_number, option, optional_float
from ..records.candidates import Candidate, Dropped, PassResult, Status
from ..records.ranking import Pending, parse_pending
from ..records.record import SENSITIVITIES, Record, When, strictly_before

ON_INVALID = ("raise", "drop")


@dataclass(frozen=True)
class Admission:
    """Which records may enter at all (the admission passes' option group: admit, and the screen pass's
    injection threshold). `injection_threshold` lives here, not in a group of its own: like the exclude switches
    it decides whether a record is let in (a drop with its reason), from the record alone, before dedup and
    budget; it changes nothing of how an admitted record looks."""

    clearance: str = option("internal", "the highest sensitivity the caller may see; a record above it is dropped "
                            "before the rest of it is read", choices=lambda: SENSITIVITIES)
    exclude_expired: bool = option(False, "drop expired records (default: keep them, labelled EXPIRED)",
                                   cli="switch")
    exclude_not_yet_valid: bool = option(False, "drop records not valid yet at as_of (default: keep them, "
                                         "labelled)", cli="switch")
    exclude_superseded: bool = option(False, "drop records whose authority is superseded (default: keep them, "
                                      "labelled)", cli="switch")
    on_invalid: str = option("raise", "raise: a malformed or repeated record fails the call; drop: it is "
                             "reported and left out", choices=lambda: ON_INVALID)
    strict: bool = option(False, "validate every record the caller may see before any work, so a malformed "
                          "record anywhere fails the call (default: only the records the budget reaches; the "
                          "command line validates all unless given --lazy)", flag="--lazy", cli="negate",
                          cli_default=True, flag_help="validate only the records the budget reaches (the library "
                          "default); without it every record is validated first and a malformed one anywhere is an "
                          "error")
    injection_threshold: float | None = option(
        None, "drop records whose injection score (0-1) is above this (default none: score and report only)",
        parse=optional_float)

    def __post_init__(self) -> None:
        check_choice("clearance", self.clearance, SENSITIVITIES)
        check_choice("on_invalid", self.on_invalid, ON_INVALID)
        for name in ("exclude_expired", "exclude_not_yet_valid", "exclude_superseded", "strict"):
            check_bool(name, getattr(self, name))
        check_number("injection_threshold", self.injection_threshold, low=0.0, high=1.0, optional=True)


#: Named admissions: `exclude-stale` leaves expired and superseded records out instead of labelling them.
ADMISSIONS: dict[str, Admission] = {
    "default": Admission(),
    "exclude-stale": Admission(exclude_expired=True, exclude_superseded=True),
}


def validity_status(record: Record, as_of: When) -> Status:
    """`current`, `expired` (after the last valid day) or `not_yet_valid` (before the first)."""
    if record.valid_from is not None and strictly_before(as_of, record.valid_from):
        return "not_yet_valid"
    if record.valid_until is not None and strictly_before(record.valid_until, as_of):
        return "expired"
    return "current"


def cleared(sensitivity: str | None, clearance: str) -> bool:
    """May a caller cleared for `clearance` see a record of this sensitivity? Unreadable means no."""
    if clearance not in SENSITIVITIES:
        raise OptionError(f"unknown clearance {clearance!r} (one of {', '.join(SENSITIVITIES)})")
    return sensitivity in SENSITIVITIES and SENSITIVITIES.index(sensitivity) <= SENSITIVITIES.index(clearance)


def admit_record(record: Record, rank: int, *, as_of: When, clearance: str = "internal",
                 exclude_expired: bool = False, exclude_not_yet_valid: bool = False,
                 exclude_superseded: bool = False, notes: tuple[str, ...] = ()) -> Candidate | Dropped:
    """One record's admission: a candidate with its validity status, or a drop with the reason."""
    if not cleared(record.sensitivity, clearance):
        return Dropped(record.id, "above_clearance", rank)
    status = validity_status(record, as_of)
    if status == "expired" and exclude_expired:
        return Dropped(record.id, "expired_excluded", rank, notes=notes)
    if status == "not_yet_valid" and exclude_not_yet_valid:
        return Dropped(record.id, "not_yet_valid_excluded", rank, notes=notes)
    if record.authority == "superseded" and exclude_superseded:
        return Dropped(record.id, "superseded_excluded", rank, notes=notes)
    return Candidate(record, rank, status, notes=notes)


def admit_stream(pending: Iterable[Pending], *, as_of: When, clearance: str = "internal",
                 exclude_expired: bool = False, exclude_not_yet_valid: bool = False,
                 exclude_superseded: bool = False, on_invalid: str = "raise") -> Iterator[Candidate | Dropped]:
    """Admit ranked inputs one at a time, as the budget pass pulls them: clearance first (from the cheaply
    read sensitivity, so a record the caller may not see is never validated and no error can name it),
    then the record is validated, then its validity is judged."""
    for p in pending:
        if not cleared(p.sensitivity, clearance):
            yield Dropped(p.id, "above_clearance", p.rank)
            continue
        parsed = parse_pending(p, on_invalid=on_invalid)
        if parsed.record is None:
            yield Dropped(p.id, parsed.reason, p.rank, detail=parsed.detail, notes=parsed.notes)  # type: ignore[arg-type]
            continue
        yield admit_record(parsed.record, p.rank, as_of=as_of, clearance=clearance, exclude_expired=exclude_expired,
                           exclude_not_yet_valid=exclude_not_yet_valid, exclude_superseded=exclude_superseded,
                           notes=parsed.notes)


def admit(records: Iterable[Record], *, as_of: When, clearance: str = "internal", exclude_expired: bool = False,
          exclude_not_yet_valid: bool = False, exclude_superseded: bool = False) -> PassResult:
    """Admit already-parsed records (given best-first) all at once."""
    kept: list[Candidate] = []
    dropped: list[Dropped] = []
    for rank, record in enumerate(records, start=1):
        out = admit_record(record, rank, as_of=as_of, clearance=clearance, exclude_expired=exclude_expired,
                           exclude_not_yet_valid=exclude_not_yet_valid, exclude_superseded=exclude_superseded)
        (kept if isinstance(out, Candidate) else dropped).append(out)  # type: ignore[arg-type]
    return PassResult(tuple(kept), tuple(dropped))
