"""How severe each finding kind is: one frozen object, `Severities`, with one field per kind.

Every entry point (batch, streaming, the policies, the integrations' `Policy`, the CLI's flags, the inspector)
takes a `Severities`, so they agree on what an error is, and a new finding kind is one new field here: its
default, its description (the CLI flag's help) and its flag all follow from it. Unknown kinds and levels are
a `CitationInputError` naming the kind, never a silent default.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any, Literal

from ..errors import CitationInputError

Severity = Literal["off", "warn", "error"]
LEVELS: tuple[str, ...] = ("off", "warn", "error")


def _kind(default: Severity, description: str) -> Any:
    return field(default=default, metadata={"description": description})


@dataclass(frozen=True, kw_only=True)
class Severities:
    """The level of every finding kind: off (not reported), warn (reported, the answer stays valid) or error
    (the answer is invalid). The defaults are the library's; `from_mapping` overrides some."""

    unknown_handle: Severity = _kind("error", "a handle (or a spelling of one) that was not in the prompt")
    record_id: Severity = _kind("error", "a bracketed record id: only handles are citations, so it supports nothing")
    excluded_source: Severity = _kind("error", "a bracketed id of a record the assembler dropped (never shown "
                                               "to the model)")
    uncited: Severity = _kind("warn", "a stating sentence without a citation")
    stale_only: Severity = _kind("error", "a sentence resting only on expired, superseded or informal sources "
                                          "(written, or attributed with --attribute)")
    stale_value: Severity = _kind("error", "a number, date, duration or amount that only expired, superseded or "
                                           "informal sources state, whatever the sentence cites")
    unsupported_value: Severity = _kind("warn", "a number, date, duration or amount that the sentence's sources "
                                                "do not state")
    transplanted_value: Severity = _kind("warn", "a value given for a word of the question no source mentions, "
                                                 "which the sources state only about something else")
    verdict_against_rule: Severity = _kind("warn", "an answer that opens with \"Yes\" while the sentence of a "
                                                   "conflict group's current authoritative source closest to the "
                                                   "question restricts (\"not reimbursed\", \"must not\", \"only\"), "
                                                   "or with \"No\" denying what that sentence states")
    suspicious_copy: Severity = _kind("warn", "a sentence that repeats words from a source sentence the injection "
                                              "scan scores as an instruction to the model (planted text obeyed)")
    foreign_url: Severity = _kind("warn", "a link or domain that no source gives outside text the injection scan "
                                          "scores as an instruction to the model")

    def __post_init__(self) -> None:
        for kind in self.kinds():
            level = getattr(self, kind)
            if not isinstance(level, str) or level not in LEVELS:
                raise CitationInputError(f"{kind} must be off, warn or error, got {_spelling(level)}")

    @classmethod
    def kinds(cls) -> tuple[str, ...]:
        """Every finding kind, in the order findings are documented."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def describe(cls, kind: str) -> str:
        """What a finding of `kind` is (one line; the CLI flag's help)."""
        return str(next(f.metadata["description"] for f in fields(cls) if f.name == kind))

    @classmethod
    def from_mapping(cls, levels: Mapping[str, Any] | Severities | None, base: Severities | None = None
                     ) -> Severities:
        """`base` (default: the library's defaults) with `levels` (finding kind -> level) applied. A
        `Severities` is returned as is; an unknown kind or level is a `CitationInputError` naming it."""
        if isinstance(levels, Severities):
            return levels
        base = cls() if base is None else base
        if levels is None:
            return base
        if not isinstance(levels, Mapping):
            raise CitationInputError(f"severities must be a Severities or a mapping of finding kind to level, got "
                                     f"{type(levels).__name__}")
        unknown = [k for k in levels if k not in cls.kinds()]
        if unknown:
            raise CitationInputError(f"unknown finding kind {_spelling(unknown[0])} (one of "
                                     f"{', '.join(cls.kinds())})")
        return replace(base, **dict(levels))

    def __getitem__(self, kind: str) -> Severity:
        if kind not in self.kinds():
            raise CitationInputError(f"unknown finding kind {_spelling(kind)} (one of {', '.join(self.kinds())})")
        level: Severity = getattr(self, kind)
        return level

    def __iter__(self) -> Iterator[str]:
        return iter(self.kinds())

    def as_dict(self) -> dict[str, Severity]:
        return {k: self[k] for k in self.kinds()}


def _spelling(value: Any) -> str:
    """A kind or level as the caller gave it, cut short (it may be anything)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "\u2026"


#: Every finding kind and its default severity (read-only; `Severities()` as a mapping).
SEVERITIES: Mapping[str, Severity] = MappingProxyType(Severities().as_dict())
#: The sentence-level checks off: for callers that read only a verdict's citations and support (strip, resolve,
#: conflict notes), not its findings.
QUIET = Severities(uncited="off", stale_only="off", stale_value="off", unsupported_value="off",
                   suspicious_copy="off", foreign_url="off", transplanted_value="off", verdict_against_rule="off")
#: Kinds decided by a single citation (what streaming can report as soon as the citation is complete).
CITATION_KINDS = ("unknown_handle", "record_id", "excluded_source")


def severities_of(severities: Severities | Mapping[str, Any] | None = None, *, uncited: Any = None,
                  stale_only: Any = None, unsupported_value: Any = None, stale_value: Any = None,
                  stacklevel: int = 3) -> Severities:
    """The `Severities` for one call: `severities` (a `Severities`, or a mapping of overrides), then the
    per-kind keywords kept for one release (`uncited=`, `stale_only=`, `unsupported_value=`, `stale_value=`),
    which win and warn (`DeprecationWarning`: pass `severities=` instead)."""
    levels = Severities.from_mapping(severities)
    given = {k: v for k, v in (("uncited", uncited), ("stale_only", stale_only),
                               ("unsupported_value", unsupported_value), ("stale_value", stale_value))
             if v is not None}
    if not given:
        return levels
    names = ", ".join(f"{k}=" for k in given)
    warnings.warn(f"{names}: pass severities=Severities({names}...) or severities={{...}} instead; the per-kind "
                  "keywords go in the next release",
                  DeprecationWarning, stacklevel=stacklevel)
    return Severities.from_mapping(given, base=levels)


def severity_map(*, uncited: Severity | None = None, stale_only: Severity | None = None,
                 severities: Mapping[str, Severity] | Severities | None = None,
                 unsupported_value: Severity | None = None) -> Severities:
    """`Severities.from_mapping(severities)` with the per-kind keywords applied (they win). Kept for one
    release: use `Severities` / `Severities.from_mapping`."""
    return severities_of(severities, uncited=uncited, stale_only=stale_only, unsupported_value=unsupported_value)
