"""Render: turn seated candidates into delimited, neutralised source blocks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ..passes.redact import redact_flagged
from ..passes.scan import SUSPICIOUS, injection_score
from ..records.candidates import Candidate, status_text
from .fields import PROFILES, escape_free_text, field_value, header_order, is_free_text, resolve_profile
from .formats import DATAMARK, FORMATS, Block, datamark, header_segment, read_blocks, render_block
from .neutralise import DEFAULT_FRAME_LABELS, contains_boundary, neutralise, neutralise_value

MARKINGS: tuple[str, ...] = ("none", "datamark")
#: What happens to a record the injection scan reads as an instruction to the model (`passes.scan.SUSPICIOUS`):
#: kept as it is, datamarked, or its flagged sentences cut out (`passes.redact.redact_flagged`; a record flagged
#: as a whole but in no one sentence is datamarked). The defence lands where the attack is; every other record
#: stays verbatim and costs what it did.
ON_FLAGGED: tuple[str, ...] = ("keep", "datamark", "redact")

__all__ = [
    "DATAMARK", "FORMATS", "MARKINGS", "ON_FLAGGED", "PROFILES", "Block", "Prepared", "header_segment", "neutralise",
    "mentions", "neutralise_value", "prepare", "read_blocks", "render_block", "resolve_profile", "status_text",
]


@dataclass(frozen=True)
class Prepared:
    """A candidate's header fields and body, neutralised and ready for any handle."""

    fields: tuple[tuple[str, str], ...]
    body: str
    neutralised: Counter[str] = field(default_factory=Counter)


def prepare(cand: Candidate, profile: Sequence[str], *, prefix: str, marking: str = "none", on_flagged: str = "keep",
            boundary: str = "", frame_labels: tuple[str, ...] = DEFAULT_FRAME_LABELS) -> Prepared:
    """A candidate's header values and body, neutralised. Without `boundary` the work is the same for every
    request (and cached); `guard` re-runs it with the boundary only for a record that contains the code.
    Fields come in header order (closed vocabularies first); free-text values are escaped for quoting."""
    record = cand.record
    raw = tuple((name, value) for name in header_order(profile) if (value := field_value(cand, name)) is not None)
    flagged = on_flagged != "keep" and is_flagged(cand)
    titles = " ".join(v for v in (record.doc, record.section, record.topic) if v)
    if boundary:
        return _prepare(raw, record.text, titles, flagged, prefix, marking, on_flagged, boundary, frame_labels)
    fields, body, counts = _prepared(raw, record.text, titles, flagged, prefix, marking, on_flagged, frame_labels)
    return Prepared(fields, body, Counter(dict(counts)))  # a fresh Counter: the cached one is never handed out


@lru_cache(maxsize=16_384)
def _prepared(raw: tuple[tuple[str, str], ...], text: str, titles: str, flagged: bool, prefix: str, marking: str,
              on_flagged: str, frame_labels: tuple[str, ...]) -> tuple[tuple[tuple[str, str], ...], str,
                                                                       tuple[tuple[str, int], ...]]:
    """The boundary-free preparation of a block, by everything it reads: a warm corpus's blocks are prepared once,
    not once per request (a new question over the same records re-renders only its own frame)."""
    p = _prepare(raw, text, titles, flagged, prefix, marking, on_flagged, "", frame_labels)
    return p.fields, p.body, tuple(p.neutralised.items())


def _prepare(raw: tuple[tuple[str, str], ...], text: str, titles: str, flagged: bool, prefix: str, marking: str,
             on_flagged: str, boundary: str, frame_labels: tuple[str, ...]) -> Prepared:
    counts: Counter[str] = Counter()
    fields = []
    for name, raw_value in raw:
        if boundary:
            value = neutralise_value(raw_value, boundary=boundary, handle_prefix=prefix, counts=counts,
                                     frame_labels=frame_labels)
        else:
            value, value_counts = _neutralised_value(raw_value, prefix, frame_labels)
            counts.update(value_counts)
        if value and is_free_text(name):
            escaped = escape_free_text(value)
            if escaped != value:
                counts["header_escape"] += 1
            value = escaped
        if value:
            fields.append((name, value))
    text, mark = _acted_on(text, titles, flagged, on_flagged, counts)
    mark = mark or marking == "datamark"
    if boundary:
        body_counts: Counter[str] = Counter()
        body = neutralise(text, boundary=boundary, handle_prefix=prefix, counts=body_counts,
                          frame_labels=frame_labels)
    else:
        body, body_counts = _neutralised_text(text, prefix, frame_labels)
    counts.update(body_counts)
    if mark:
        body = datamark(body)
        counts["datamarked"] += 1
    return Prepared(tuple(fields), body, counts)


def _acted_on(text: str, titles: str, flagged: bool, on_flagged: str, counts: Counter[str]) -> tuple[str, bool]:
    """The record's text after `on_flagged`, and whether to datamark it. A flagged record loses its flagged
    sentences (`redact`, counted) or is datamarked; one flagged by no sentence of its text (by its metadata, say)
    is datamarked either way."""
    if not flagged:
        return text, False
    if on_flagged == "redact":
        cut_text, cut = redact_flagged(text, titles)
        if cut:
            counts["redacted"] += cut
            return cut_text, False
    return text, True


def is_flagged(cand: Candidate) -> bool:
    """Does the scan read the record as an instruction to the model (the screen's score when it ran)?"""
    score = cand.injection_score if cand.injection_score is not None else injection_score(cand.record)
    return score >= SUSPICIOUS


def mentions(prepared: Prepared, boundary: str) -> bool:
    """Does the prepared block contain the boundary code (only a record that guessed it does)?"""
    return contains_boundary(prepared.body, boundary) or any(contains_boundary(v, boundary) for _, v in prepared.fields)


@lru_cache(maxsize=65_536)
def _neutralised_value(value: str, prefix: str, frame_labels: tuple[str, ...]) -> tuple[str, Counter[str]]:
    """Header values (documents, sections, dates) recur across records and requests: neutralise each once."""
    counts: Counter[str] = Counter()
    return neutralise_value(value, handle_prefix=prefix, counts=counts, frame_labels=frame_labels), counts


@lru_cache(maxsize=16_384)
def _neutralised_text(text: str, prefix: str, frame_labels: tuple[str, ...] = DEFAULT_FRAME_LABELS
                      ) -> tuple[str, Counter[str]]:
    """Neutralising is the costliest step per block and the same chunk recurs across requests, while the
    boundary changes per request: cache the boundary-free work, check for the boundary afterwards."""
    counts: Counter[str] = Counter()
    return neutralise(text, handle_prefix=prefix, counts=counts, frame_labels=frame_labels), counts
