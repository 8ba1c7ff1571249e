"""What validation produces: citations, findings, sentences, the verdict, and how severe each finding is.

Severities live in one mapping, `SEVERITIES`, so every entry point (batch, streaming, the CLI, the
policies) agrees on what an error is. A caller overrides entries per call; unknown kinds or levels are a
`CitationInputError`, never a silent default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from ..errors import CitationInputError

Severity = Literal["off", "warn", "error"]
LEVELS: tuple[str, ...] = ("off", "warn", "error")

#: Every finding kind and its default severity.
#: - unknown_handle: a handle (or a spelling of one) that was not in the prompt;
#: - record_id: a bracketed record id; only handles are citations, so it supports nothing;
#: - excluded_source: a bracketed id of a record the assembler dropped (never shown to the model);
#: - uncited: a sentence that states something and cites nothing;
#: - stale_only: a sentence whose only support (written, or attributed when attribution is on) is expired,
#:   superseded or informal;
#: - unsupported_value: a number, date, duration, amount or percentage of a sentence that none of the sources
#:   it cites (or, with attribution on, is attributed to) states.
SEVERITIES: Mapping[str, Severity] = MappingProxyType({
    "unknown_handle": "error",
    "record_id": "error",
    "excluded_source": "error",
    "uncited": "warn",
    "stale_only": "error",
    "stale_value": "error",
    "unsupported_value": "warn",
})
#: Kinds decided by a single citation (what streaming can report as soon as the citation is complete).
CITATION_KINDS = ("unknown_handle", "record_id", "excluded_source")


def severity_map(*, uncited: Severity | None = None, stale_only: Severity | None = None,
                 severities: Mapping[str, Severity] | None = None,
                 unsupported_value: Severity | None = None) -> Mapping[str, Severity]:
    """`SEVERITIES` with the caller's overrides; `uncited=`, `stale_only=` and `unsupported_value=` win over
    `severities`."""
    merged = dict(SEVERITIES)
    overrides: dict[str, Any] = {}
    if severities is not None:
        if not isinstance(severities, Mapping):
            raise CitationInputError(f"severities must be a mapping of finding kind to level, got "
                                     f"{type(severities).__name__}")
        overrides.update(severities)
    for name, value in (("uncited", uncited), ("stale_only", stale_only), ("unsupported_value", unsupported_value)):
        if value is not None:
            overrides[name] = value
    for kind, level in overrides.items():
        if kind not in SEVERITIES:
            raise CitationInputError(f"unknown finding kind {kind!r} (one of {', '.join(SEVERITIES)})")
        if not isinstance(level, str) or level not in LEVELS:
            raise CitationInputError(f"{kind} must be off, warn or error, got {level!r}")
        merged[kind] = level  # type: ignore[assignment]
    return MappingProxyType(merged)


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
    kind: str  # a key of SEVERITIES
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
