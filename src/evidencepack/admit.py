"""Admit: clearance and validity at an explicit `as_of` date.

Clearance is a hard wall: a record above the caller's clearance is dropped here and nothing of it but its
id travels further. Validity becomes a status label; by default stale records stay in, labelled, because a
model that is told a record is expired can say so, while a silently missing record cannot be discussed.
"""

from __future__ import annotations

from collections.abc import Iterable

from .candidates import Candidate, Dropped, PassResult, Status
from .records import SENSITIVITIES, Record, When, strictly_before


def validity_status(record: Record, as_of: When) -> Status:
    """`current`, `expired` (after the last valid day) or `not_yet_valid` (before the first)."""
    if record.valid_from is not None and strictly_before(as_of, record.valid_from):
        return "not_yet_valid"
    if record.valid_until is not None and strictly_before(record.valid_until, as_of):
        return "expired"
    return "current"


def admit(
    records: Iterable[Record],
    *,
    as_of: When,
    clearance: str = "internal",
    exclude_expired: bool = False,
    exclude_not_yet_valid: bool = False,
    exclude_superseded: bool = False,
) -> PassResult:
    """Drop what the caller may not see or asked to exclude; label the rest with a validity status."""
    if clearance not in SENSITIVITIES:
        raise ValueError(f"unknown clearance {clearance!r} (one of {', '.join(SENSITIVITIES)})")
    level = SENSITIVITIES.index(clearance)
    kept: list[Candidate] = []
    dropped: list[Dropped] = []
    for rank, record in enumerate(records, start=1):
        if SENSITIVITIES.index(record.sensitivity) > level:
            dropped.append(Dropped(record.id, "above_clearance", rank))
            continue
        status = validity_status(record, as_of)
        if status == "expired" and exclude_expired:
            dropped.append(Dropped(record.id, "expired_excluded", rank))
        elif status == "not_yet_valid" and exclude_not_yet_valid:
            dropped.append(Dropped(record.id, "not_yet_valid_excluded", rank))
        elif record.authority == "superseded" and exclude_superseded:
            dropped.append(Dropped(record.id, "superseded_excluded", rank))
        else:
            kept.append(Candidate(record, rank, status))
    return PassResult(tuple(kept), tuple(dropped))
