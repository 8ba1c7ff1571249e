"""evidencepack: compile retrieved records into the prompt an LLM reads, with provenance you can verify."""

from .assemble import assemble
from .citations import Verdict, regenerate, validate_citations
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

__version__ = "0.1.0"

__all__ = [
    "LAYOUTS", "Admission", "Dedup", "Layout",
    "Assembly", "AssemblyFormatError", "BoundaryKeyError", "Budget", "BudgetError", "CallableTokenizer",
    "CitationError", "CitationInputError", "EvidencepackError", "ManifestEntry", "OptionError", "Options", "Outcome",
    "Record", "RecordError", "Report", "Tokenizer", "TokenizerError", "Verdict", "assemble", "get_tokenizer",
    "load_jsonl", "parse_records", "regenerate", "validate_citations",
]
