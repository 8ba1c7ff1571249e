"""Error types. Every user mistake surfaces as one of these, never as a bare traceback.

Every class evidencepack raises on purpose lives here (the modules that used to define one re-export it, so
`from evidencepack.integrations import MissingExtraError` keeps working). The second base, where there is one,
is kept for callers that already catch the built-in (`except ValueError`):

    EvidencepackError
    ├── RecordError           (ValueError)    a record, or a JSONL line, is malformed
    ├── OptionError           (ValueError)    an option is unknown, of the wrong type or out of range
    ├── BudgetError           (ValueError)    the reserves leave no retrieval budget
    ├── BoundaryKeyError      (ValueError)    the boundary key is not bytes/str or too short
    ├── TokenizerError        (ValueError)    a tokenizer or chat template could not be loaded or run
    ├── AssemblyFormatError   (ValueError)    a serialised assembly is not one evidencepack wrote
    ├── UsageError                            a command-line mistake
    ├── IntegrationInputError (ValueError)    a framework component got input it cannot use
    ├── MissingExtraError     (ImportError)   an integration imported without its extra
    ├── ProviderError         (TypeError)     a client that is not an OpenAI/Anthropic client of the right kind
    ├── BackendError          (RuntimeError)  an evaluation backend failed for good or cannot be set up
    ├── CitationError                         an answer failed citation validation under `reject`
    ├── DatasetError          (ValueError)    an evaluation data set is malformed or missing
    └── CitationInputError    (ValueError)    a citation function got an argument it cannot use
"""

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
    """An assembly option is unknown, of the wrong type or out of range; raised before any record is read. Also
    an evaluation run's options (a condition name, guard kinds, the guard's repair), which select assembly
    options."""


class BudgetError(EvidencepackError, ValueError):
    """The reserves do not fit in the context window: there is no retrieval budget at all."""


class BoundaryKeyError(EvidencepackError, ValueError):
    """The boundary key is not bytes or str, or is shorter than 16 bytes (a short key makes the boundary
    predictable to whoever can guess it)."""


class TokenizerError(EvidencepackError, ValueError):
    """A tokenizer name or file could not be loaded."""


class AssemblyFormatError(EvidencepackError, ValueError):
    """A serialised assembly (the CLI's JSON) is not one evidencepack wrote."""


class UsageError(EvidencepackError):
    """A command-line mistake."""


class IntegrationInputError(EvidencepackError, ValueError):
    """A component was given input it cannot use (the message says what it expected)."""


class MissingExtraError(EvidencepackError, ImportError):
    """An integration was imported without the package it wraps; the message names the extra to install."""


class ProviderError(EvidencepackError, TypeError):
    """The client is neither an OpenAI nor an Anthropic client, or is sync where async is needed (or back)."""


class BackendError(EvidencepackError, RuntimeError):
    """A call that failed for good (after retries), or a backend that cannot be set up."""


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
