"""The values that flow between passes: a candidate record, a drop with its reason, a pass result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .records import Record

Status = Literal["current", "expired", "not_yet_valid"]
Reason = Literal[
    "above_clearance", "expired_excluded", "not_yet_valid_excluded", "superseded_excluded",
    "injection_suspected", "duplicate", "over_budget", "larger_than_budget", "max_records",
]


@dataclass(frozen=True)
class Candidate:
    """A record on its way through the passes, with what the passes learned about it."""

    record: Record
    rank: int  # 1 = best, after `parse_records` ordering
    status: Status = "current"

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


@dataclass(frozen=True)
class PassResult:
    kept: tuple[Candidate, ...]
    dropped: tuple[Dropped, ...]
