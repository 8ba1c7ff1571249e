"""The values that flow between passes: a candidate record, and a drop with its reason."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .record import Record

Status = Literal["current", "expired", "not_yet_valid"]
Reason = Literal[
    "above_clearance", "expired_excluded", "not_yet_valid_excluded", "superseded_excluded",
    "injection_suspected", "duplicate", "over_budget", "larger_than_budget", "max_records",
    "invalid_record", "empty_text", "conflict_withheld",
]
REASONS: tuple[str, ...] = Reason.__args__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Candidate:
    """A record on its way through the passes, with what the passes learned about it."""

    record: Record
    rank: int  # 1 = best, unique per input record
    status: Status = "current"
    injection_score: float | None = None  # set by the screen pass when it runs
    notes: tuple[str, ...] = ()  # field values left out under on_invalid="drop"

    @property
    def id(self) -> str:
        return self.record.id


@dataclass(frozen=True)
class Dropped:
    """A record that will not reach the prompt, and why. `detail` is safe to show (never record text)."""

    id: str
    reason: Reason
    rank: int
    duplicate_of: str | None = None
    tokens: int | None = None
    detail: str | None = None
    notes: tuple[str, ...] = ()
    injection_score: float | None = None

    @classmethod
    def of(cls, cand: Candidate, reason: Reason, **details: Any) -> Dropped:
        """Drop a candidate, keeping what earlier passes learned about it (notes, injection score)."""
        return cls(cand.id, reason, cand.rank, notes=cand.notes, injection_score=cand.injection_score, **details)


@dataclass(frozen=True)
class PassResult:
    kept: tuple[Candidate, ...]
    dropped: tuple[Dropped, ...]


def status_text(cand: Candidate) -> str | None:
    """Validity as a status computed at `as_of`, not two raw dates the model must compare.
    Records without a validity window carry no status: there is nothing to say."""
    record = cand.record
    if cand.status == "expired":
        return f"EXPIRED since {record.valid_until.isoformat()}"  # type: ignore[union-attr]
    if cand.status == "not_yet_valid":
        return f"not valid until {record.valid_from.isoformat()}"  # type: ignore[union-attr]
    if record.valid_from is None and record.valid_until is None:
        return None
    return "current"
