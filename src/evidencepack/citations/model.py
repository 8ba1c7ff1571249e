"""What validation produces: citations, findings, sentences, the verdict (how severe each finding kind is:
`severities`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import CitationInputError


def check_text(value: Any, name: str = "answer") -> str:
    if not isinstance(value, str):
        raise CitationInputError(f"{name} must be a string, got {type(value).__name__}")
    return value


def shorten(text: str, limit: int = 24) -> str:
    """A spelling for a message: a handle with thousands of digits must not flood a log line."""
    return text if len(text) <= limit else f"{text[:limit]}\u2026 ({len(text)} characters)"


@dataclass(frozen=True)
class Citation:
    """One cited item: where its bracket group sits in the answer and what it resolves to."""

    handle: str  # the manifest handle when spelled as one; otherwise the spelling (or record id) as written
    start: int  # offsets of the bracket group that holds it
    end: int
    sentence: int
    record_id: str | None = None  # the record it resolves to; None when it supports nothing
    form: str = "handle"  # handle | lookalike (a handle-like spelling that is not one) | record_id


@dataclass(frozen=True)
class Finding:
    kind: str  # a field of Severities
    severity: str  # warn | error
    message: str
    sentence: int  # -1 when reported by streaming before sentences are known
    start: int
    end: int
    handle: str | None = None
    sources: tuple[str, ...] = ()  # the handles the finding is about beyond its one citation (`stale_value`)

    def to_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["sources"] = list(self.sources)
        return out


@dataclass(frozen=True)
class Sentence:
    index: int
    start: int
    end: int
    text: str
    stating: bool


@dataclass(frozen=True)
class Support:
    """What one stating sentence rests on: the handles the model wrote (`written=True`, valid ones only), or,
    for a sentence without a valid written citation and with attribution on, the handles attributed to it by
    content (`written=False`). Empty `handles`: nothing supports it."""

    sentence: int
    handles: tuple[str, ...]
    record_ids: tuple[str, ...]
    written: bool

    def to_dict(self) -> dict[str, Any]:
        return {"sentence": self.sentence, "handles": list(self.handles), "record_ids": list(self.record_ids),
                "written": self.written}


@dataclass(frozen=True)
class Verdict:
    valid: bool
    findings: tuple[Finding, ...]
    citations: tuple[Citation, ...]
    sentences: tuple[Sentence, ...]
    cited_ids: tuple[str, ...]
    coverage: float  # share of stating sentences with at least one valid citation (written by the model)
    support: tuple[Support, ...] = ()  # one per stating sentence, in order
    attributed_coverage: float | None = None  # share with written or attributed support; None: attribution off
    attributed: bool = False  # was attribution on?

    @property
    def attributed_ids(self) -> tuple[str, ...]:
        """Record ids attributed (not written) to some sentence, in order of first use."""
        return tuple(dict.fromkeys(i for s in self.support if not s.written for i in s.record_ids))

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "findings": [f.to_dict() for f in self.findings],
            "citations": [dict(c.__dict__) for c in self.citations],
            "cited_ids": list(self.cited_ids),
            "coverage": round(self.coverage, 4),
            "sentences": len(self.sentences),
            "stating_sentences": sum(s.stating for s in self.sentences),
            "attribution": self.attributed,
            "attributed_coverage": None if self.attributed_coverage is None else round(self.attributed_coverage, 4),
            "attributed_ids": list(self.attributed_ids),
            "support": [s.to_dict() for s in self.support],
        }

    def __str__(self) -> str:
        if self.valid:
            return "valid"
        return "; ".join(f.message for f in self.findings if f.severity == "error")
