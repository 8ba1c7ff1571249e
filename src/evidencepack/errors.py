"""Error types. Every user mistake surfaces as one of these, never as a bare traceback."""

from __future__ import annotations


class EvidencepackError(Exception):
    """Base class for every error evidencepack raises on purpose."""


class RecordError(EvidencepackError, ValueError):
    """A record is malformed. The message names the line (JSONL) or the record id, and the field, never the
    value; the id is left out when the record may be above the caller's clearance."""

    def __init__(self, message: str, *, record_id: str | None = None, field: str | None = None,
                 line: int | None = None) -> None:
        where = []
        if line is not None:
            where.append(f"line {line}")
        if record_id is not None:
            where.append(f"record {record_id!r}")
        if field is not None:
            where.append(f"field {field!r}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)
        self.record_id = record_id
        self.field = field
        self.line = line


class OptionError(EvidencepackError, ValueError):
    """An assembly option is unknown, of the wrong type or out of range; raised before any record is read."""


class BudgetError(EvidencepackError, ValueError):
    """The reserves do not fit in the context window: there is no retrieval budget at all."""


class BoundaryKeyError(EvidencepackError, ValueError):
    """The boundary key is not bytes or str, or is shorter than 16 bytes (a short key makes the boundary
    predictable to whoever can guess it)."""


class TokenizerError(EvidencepackError, ValueError):
    """A tokenizer name or file could not be loaded."""


class AssemblyFormatError(EvidencepackError, ValueError):
    """A serialised assembly (the CLI's JSON) is not one evidencepack wrote."""


class CitationError(EvidencepackError):
    """An answer failed citation validation under the `reject` policy; carries the verdict."""

    def __init__(self, verdict: object) -> None:
        super().__init__(f"answer failed citation validation: {verdict}")
        self.verdict = verdict


class DatasetError(EvidencepackError, ValueError):
    """An evaluation data set (trap questions, sweep data) is malformed or missing."""


class CitationInputError(EvidencepackError, ValueError):
    """A citation function got an argument it cannot use: an answer that is not text, an unknown severity,
    style or attempt count, a `generate` that returns something other than text."""
