"""evidencepack: compile retrieved records into the prompt an LLM reads, with provenance you can verify."""

from typing import TYPE_CHECKING, Any

from .assemble import assemble
from .errors import (
    AssemblyFormatError,
    BoundaryKeyError,
    BudgetError,
    CitationError,
    CitationInputError,
    EvidencepackError,
    OptionError,
    RecordError,
    TokenizerError,
)
from .options import LAYOUTS, Options
from .passes.admit import Admission
from .passes.budget import Budget
from .passes.dedup import Dedup
from .records import Record, parse_records
from .records.jsonl import load_jsonl
from .render.layout import Layout
from .report import Assembly, ManifestEntry, Outcome, Report
from .tokens.tokenizers import CallableTokenizer, Tokenizer, get_tokenizer

if TYPE_CHECKING:
    from .citations import Verdict, regenerate, validate_citations

__version__ = "0.1.0"

#: Imported on first use: a process that only assembles never pays for the citation checker's import.
_LAZY = {"Verdict": "citations", "regenerate": "citations", "validate_citations": "citations"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "LAYOUTS", "Admission", "Dedup", "Layout",
    "Assembly", "AssemblyFormatError", "BoundaryKeyError", "Budget", "BudgetError", "CallableTokenizer",
    "CitationError", "CitationInputError", "EvidencepackError", "ManifestEntry", "OptionError", "Options", "Outcome",
    "Record", "RecordError", "Report", "Tokenizer", "TokenizerError", "Verdict", "assemble", "get_tokenizer",
    "load_jsonl", "parse_records", "regenerate", "validate_citations",
]
