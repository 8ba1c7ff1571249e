"""The assembler's input: a `Record` (one retrieved chunk with its provenance and policy metadata), JSONL
reading, the lazy ranking `assemble` uses, and the `Candidate`/`Dropped` values the passes hand on."""

from .jsonl import load_jsonl, parse_jsonl_bytes, read_jsonl_bytes
from .ranking import parse_records, rank
from .record import AUTHORITIES, SENSITIVITIES, Record, When, parse_when

__all__ = ["AUTHORITIES", "SENSITIVITIES", "Record", "When", "load_jsonl", "parse_jsonl_bytes", "parse_records",
           "parse_when", "rank", "read_jsonl_bytes"]
