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
#: - stale_only: a sentence whose only support is expired, superseded or informal.
SEVERITIES: Mapping[str, Severity] = MappingProxyType({
    "unknown_handle": "error",
    "record_id": "error",
    "excluded_source": "error",
    "uncited": "warn",
    "stale_only": "error",
})
#: Kinds decided by a single citation (what streaming can report as soon as the citation is complete).
CITATION_KINDS = ("unknown_handle", "record_id", "excluded_source")


def severity_map(*, uncited: Severity | None = None, stale_only: Severity | None = None,
                 severities: Mapping[str, Severity] | None = None) -> Mapping[str, Severity]:
    """`SEVERITIES` with the caller's overrides; `uncited=` and `stale_only=` win over `severities`."""
    merged = dict(SEVERITIES)
    overrides: dict[str, Any] = {}
    if severities is not None:
        if not isinstance(severities, Mapping):
            raise CitationInputError(f"severities must be a mapping of finding kind to level, got "
                                     f"{type(severities).__name__}")
        overrides.update(severities)
    for name, value in (("uncited", uncited), ("stale_only", stale_only)):
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

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Sentence:
    index: int
    start: int
    end: int
    text: str
    stating: bool


@dataclass(frozen=True)
class Verdict:
    valid: bool
    findings: tuple[Finding, ...]
    citations: tuple[Citation, ...]
    sentences: tuple[Sentence, ...]
    cited_ids: tuple[str, ...]
    coverage: float  # share of stating sentences with at least one valid citation

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "findings": [f.to_dict() for f in self.findings],
            "citations": [dict(c.__dict__) for c in self.citations],
            "cited_ids": list(self.cited_ids),
            "coverage": round(self.coverage, 4),
            "sentences": len(self.sentences),
            "stating_sentences": sum(s.stating for s in self.sentences),
        }

    def __str__(self) -> str:
        if self.valid:
            return "valid"
        return "; ".join(f.message for f in self.findings if f.severity == "error")
