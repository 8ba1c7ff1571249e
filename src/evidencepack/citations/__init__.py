"""Citations the code can enforce: parse an answer's handles and check them against the manifest.

The model writes `[S3]`; our code decides whether S3 was ever sent and where it points. Only handles are
citations, spelled exactly as the manifest spells them; a bracketed record id or a look-alike spelling
supports nothing and is reported. Findings and their default severities are in `SEVERITIES`. Resolution to
links or footnotes uses only the manifest's server-side fields, so a record can never forge or re-point its
own citation target.

Modules: `handles` (grammar), `markdown` (code blocks, units, inline code; the incremental scanner),
`sentences`, `source` (the one assembly reader), `validate`, `policies` (enforce, strip, regenerate, the
shared repair prompt, and `withhold` for a retry without misleading sources), `notes` (conflict notes for
the reader when the model did not name a conflict; `withheld_note` for the sources a retry left out),
`resolve` (links, footnotes), `stream`. With
`attribute=True` the validator gives uncited sentences the sources their content matches
(`citations.claims`, imported when first needed) and reports that support apart from what the model wrote
(`Verdict.support`).
"""

from .handles import Cite, Grammar
from .model import SEVERITIES, Citation, Finding, Sentence, Severity, Support, Verdict, severity_map
from .notes import ConflictNote, conflict_notes, with_notes, withheld_note
from .policies import (
    Regenerated,
    Stripped,
    enforce,
    regenerate,
    repair_instruction,
    repair_line,
    repair_prompt,
    strip_invalid,
    withhold,
)
from .resolve import resolve
from .sentences import split_sentences
from .source import Fate, Source, SourceIndex, read_assembly
from .stream import StreamValidator
from .validate import parse_citations, validate_citations

__all__ = [
    "SEVERITIES", "Cite", "Citation", "ConflictNote", "Fate", "Finding", "Grammar", "Regenerated", "Sentence",
    "Severity", "Source", "SourceIndex", "StreamValidator", "Stripped", "Support", "Verdict", "conflict_notes",
    "enforce", "parse_citations", "read_assembly", "regenerate", "repair_instruction", "repair_line",
    "repair_prompt", "resolve", "severity_map", "split_sentences", "strip_invalid", "validate_citations",
    "with_notes", "withheld_note", "withhold",
]
