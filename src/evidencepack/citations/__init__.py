"""Citations the code can enforce: parse an answer's handles and check them against the manifest.

The model writes `[S3]`; our code decides whether S3 was ever sent and where it points. Only handles are
citations, spelled exactly as the manifest spells them; a bracketed record id or a look-alike spelling
supports nothing and is reported. Findings and their default severities are the fields of `Severities`
(`SEVERITIES` is the same as a read-only mapping). Resolution to
links or footnotes uses only the manifest's server-side fields, so a record can never forge or re-point its
own citation target.

Modules, each importing only those before it: `handles` (the one handle grammar), `reading` (how an answer in an
answer form is read: lead lines, answer label, the verdict's first sentence, a modal verdict), `markdown` (code
blocks, units, inline code, list markers; the incremental scanner), `model` (what validation produces),
`severities`, `sentences` (the sentence splitter of the citation checks), `parse` (citations and sentences of an
answer), `source` (the one assembly reader), `values` (values in text and the one unsupported-value check),
`attribution` (sources an uncited sentence's content matches), `validate`, `resolve` (links, footnotes), `policies`
(enforce, strip, regenerate, the shared repair prompt, and `withhold` for a retry without misleading sources),
`notes` (conflict notes for the reader when the model did not name a conflict; `withheld_note` for the sources a
retry left out; `transplant_note` for a value the sources give only for something else; `verdict_note` for a "Yes"
or a "No" against the rule that decides; `injection_note` for an answer that may have followed planted text),
`stream`. With `attribute=True` the validator gives uncited sentences the sources their content matches
(`attribution`) and reports that support apart from what the model wrote (`Verdict.support`).
"""

from .handles import Cite, Grammar
from .model import Citation, Finding, Sentence, Support, Verdict
from .notes import (
    ConflictNote,
    conflict_notes,
    injection_note,
    transplant_note,
    verdict_note,
    with_notes,
    withheld_note,
)
from .parse import parse_citations
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
from .severities import SEVERITIES, Severities, Severity, severity_map
from .source import Fate, Source, SourceIndex, read_assembly
from .stream import StreamValidator
from .validate import validate_citations

__all__ = [
    "SEVERITIES", "Cite", "Citation", "ConflictNote", "Fate", "Finding", "Grammar", "Regenerated", "Sentence",
    "Severities", "Severity", "Source", "SourceIndex", "StreamValidator", "Stripped", "Support", "Verdict",
    "conflict_notes", "enforce", "injection_note", "parse_citations", "read_assembly", "regenerate",
    "repair_instruction", "repair_line", "repair_prompt", "resolve", "severity_map", "split_sentences",
    "strip_invalid", "transplant_note", "validate_citations", "verdict_note", "with_notes", "withheld_note",
    "withhold",
]
