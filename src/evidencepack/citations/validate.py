"""Validation: check every citation in an answer against the assembly that produced the prompt.

Linear in the answer: one scan finds the citations (`markdown.Scanner`), one pass splits sentences, and each
citation finds its sentence by binary search.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from typing import Any

from .handles import Cite, Grammar
from .markdown import Group, Scanner
from .model import Citation, Finding, Severity, Verdict, check_text, severity_map, shorten
from .sentences import split_sentences
from .source import SourceIndex, read_assembly

# A sentence that marks its weak source as outdated is reporting it, not relying on it.
_OUTDATED_CUES = re.compile(
    r"\b(?:outdated|out of date|expired|superseded|no longer|used to|previously|formerly|old(?:er)?|"
    r"informal|earlier guidance|prior policy|not current|replaced|however|but)\b", re.IGNORECASE)


def scan(text: str, grammar: Grammar) -> tuple[list[Cite], list[tuple[int, int]]]:
    """Every cited item outside code, in order, and the units of the text (for the sentence splitter)."""
    cites: list[Cite] = []

    def emit(group: Group) -> None:
        cites.extend(grammar.classify(group.start, group.text))

    scanner = Scanner(emit)
    scanner.push(text)
    scanner.finish()
    return cites, scanner.units


def parse_citations(answer: str, prefix: str = "S", ids: Iterable[str] = ()) -> list[tuple[str, int, int, str]]:
    """(handle or spelling, start, end, form) for every citation outside code, in order."""
    grammar = Grammar(prefix, frozenset(i for i in ids if isinstance(i, str) and i))
    return [(c.handle or c.written, c.start, c.end, c.form) for c in scan(check_text(answer), grammar)[0]]


def judge(cite: Cite, index: SourceIndex) -> tuple[str | None, tuple[str, str] | None]:
    """The record a cited item rests on, or the finding (kind, message) it earns instead."""
    if cite.form == "handle":
        source = index.sources.get(cite.handle or "")
        if source is None:
            return None, ("unknown_handle", f"[{shorten(cite.written)}] was not in the prompt")
        return source.id, None
    if cite.form == "lookalike":
        return None, ("unknown_handle", f"[{shorten(cite.written)}] is not a handle from the prompt (handles are "
                                        f"written exactly as shown, like [{index.prefix}1])")
    fate = index.fates[cite.written]
    if fate.decision == "included" or fate.duplicate_of in index.handle_of:
        return None, ("record_id", f"[{shorten(cite.written, 80)}] is a record id, not a handle: only handles "
                                   "from the prompt count as citations")
    return None, ("excluded_source", f"{shorten(cite.written, 80)} was dropped by the assembler ({fate.reason}) "
                                     "and never shown to the model")


def finding_for(cite: Cite, problem: tuple[str, str] | None, levels: Mapping[str, Severity],
                sentence: int = -1) -> Finding | None:
    """The finding a judged citation earns at these severities (None when it earns none or it is off)."""
    if problem is None or levels[problem[0]] == "off":
        return None
    return Finding(problem[0], levels[problem[0]], problem[1], sentence, cite.start, cite.end, cite.written)


def validate_citations(answer: str, assembly: Any, *, uncited: Severity | None = None,
                       stale_only: Severity | None = None,
                       severities: Mapping[str, Severity] | None = None) -> Verdict:
    """Check every citation in `answer` against the assembly (an `Assembly`, its JSON dict, or a
    `SourceIndex`). Severities default to `SEVERITIES`; `uncited=`/`stale_only=` override one entry."""
    text = check_text(answer)
    levels = severity_map(uncited=uncited, stale_only=stale_only, severities=severities)
    index = read_assembly(assembly)
    cites, units = scan(text, index.grammar)
    return verdict_of(text, cites, units, index, levels)


def verdict_of(text: str, cites: list[Cite], units: list[tuple[int, int]], index: SourceIndex,
               levels: Mapping[str, Severity]) -> Verdict:
    """The verdict for `text` given the citations and units found in it (batch and streaming share this)."""
    sentences = split_sentences(text, units)
    starts = [s.start for s in sentences]
    citations: list[Citation] = []
    findings: list[Finding] = []
    supported: dict[int, list[str]] = {}  # sentence -> handles of the records it rests on
    for cite in cites:
        sentence = max(bisect_right(starts, cite.start) - 1, 0)
        record_id, problem = judge(cite, index)
        citations.append(Citation(cite.handle or cite.written, cite.start, cite.end, sentence, record_id, cite.form))
        finding = finding_for(cite, problem, levels, sentence)
        if finding:
            findings.append(finding)
        if record_id is not None:
            supported.setdefault(sentence, []).append(index.handle_of[record_id])
    with_citation = {c.sentence for c in citations}
    stating = 0
    for s in sentences:
        stating += s.stating
        cited = supported.get(s.index, [])
        if s.stating and s.index not in with_citation and levels["uncited"] != "off":
            findings.append(Finding("uncited", levels["uncited"], f"sentence {s.index + 1} states something "
                                    "and cites nothing", s.index, s.start, s.end))
        if (cited and levels["stale_only"] != "off" and all(index.sources[h].weak for h in cited)
                and not _OUTDATED_CUES.search(s.text)):
            weak = ", ".join(sorted(set(cited)))
            findings.append(Finding("stale_only", levels["stale_only"], f"sentence {s.index + 1} rests only on "
                                    f"expired, superseded or informal sources ({weak})", s.index, s.start, s.end))
    covered = sum(1 for s in sentences if s.stating and supported.get(s.index))
    findings.sort(key=lambda f: (f.start, f.kind))
    cited_ids = tuple(dict.fromkeys(c.record_id for c in citations if c.record_id))
    return Verdict(
        valid=not any(f.severity == "error" for f in findings),
        findings=tuple(findings), citations=tuple(citations), sentences=tuple(sentences),
        cited_ids=cited_ids, coverage=covered / stating if stating else 1.0,
    )
