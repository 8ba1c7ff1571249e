"""evidencepack: compile retrieved records into the prompt an LLM reads, with provenance you can verify."""

from .assemble import Assembly, ManifestEntry, Outcome, Report, assemble
from .budget import Budget
from .citations import Verdict, validate_citations
from .errors import (
    AssemblyFormatError,
    BoundaryKeyError,
    BudgetError,
    CitationError,
    EvidencepackError,
    RecordError,
    TokenizerError,
)
from .records import Record, load_jsonl, parse_records
from .tokenizers import CallableTokenizer, Tokenizer, get_tokenizer

__version__ = "0.1.0"

__all__ = [
    "Assembly", "AssemblyFormatError", "BoundaryKeyError", "Budget", "BudgetError", "CallableTokenizer",
    "CitationError", "EvidencepackError", "ManifestEntry", "Outcome", "Record", "RecordError", "Report", "Tokenizer",
    "TokenizerError", "Verdict", "assemble", "get_tokenizer", "load_jsonl", "parse_records", "validate_citations",
]
