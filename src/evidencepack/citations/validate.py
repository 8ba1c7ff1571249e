"""Validation: check every citation in an answer against the assembly that produced the prompt.

Linear in the answer: one scan finds the citations (`markdown.Scanner`), one pass splits sentences, and each
citation finds its sentence by binary search.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..errors import CitationInputError
from .attribution import Attributor, Embed
from .handles import Cite
from .injected import injected_findings
from .model import Citation, Finding, Sentence, Support, Verdict, check_text, shorten
from .parse import parse_citations, scan
from .reading import LEAD_LINE, verdict_start
from .sentences import split_sentences
from .severities import Severities, Severity, severities_of
from .source import SourceIndex, read_assembly
from .transplant import transplant_findings
from .values import Value, claimed_values, extract_values, supported, unsupported_among, unsupported_message, values_of
from .verdict import verdict_findings

__all__ = ["Embed", "finding_for", "judge", "parse_citations", "scan", "validate_citations", "verdict_of"]

# A sentence that marks its weak source as outdated is reporting it, not relying on it.
_OUTDATED_CUES = re.compile(
    r"\b(?:outdated|out of date|expired|superseded|no longer|used to|previously|formerly|old(?:er)?|"
    r"informal|earlier guidance|prior policy|not current|replaced|however|but)\b", re.IGNORECASE)


# An answer form's conflict line ("Conflicts: …", `conflict_form`'s "Conflict on pto-carryover: …"), or the line
# right under a bare label: the model's account of what the disagreeing sources say.
_CONFLICT_LABEL = re.compile(r"^[\W_]*(?:conflicts?|disagreements?|contradictions?)(?:\s+on\s+[\w.-]+)?[\W_]*:",
                            re.IGNORECASE)


# A sentence that sets sources against each other ("S1 states $300, while S4 suggests $750") reports what they
# say; the values in it are not the answer's.
_CONTRAST = re.compile(r"\b(?:disagree\w*|conflict\w*|contradict\w*|differ\w*|whereas|while|versus)\b",
                       re.IGNORECASE)


def _conflict_line(text: str, start: int) -> str | None:
    """The line of the sentence at `start` when it is an answer form's conflict line (labelled, or under a bare
    label), else None."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    line = text[line_start:line_end if line_end >= 0 else len(text)]
    above = text[:max(line_start - 1, 0)].rstrip("\n").rsplit("\n", 1)[-1] if line_start else ""
    labelled = bool(_CONFLICT_LABEL.match(line)) or bool(_CONFLICT_LABEL.fullmatch(above.strip()))
    return line if labelled else None


def _reports_a_conflict(text: str, start: int) -> bool:
    """Is the sentence at `start` on a conflict line that marks its sources as outdated? Such a line reports
    what the weak sources say, however many sentences that takes; the answer does not rest on it."""
    line = _conflict_line(text, start)
    return line is not None and bool(_OUTDATED_CUES.search(line))


def _reports_values(text: str, sentence: Sentence) -> bool:
    """Does the sentence report what disagreeing sources say rather than state the answer? Then a value only
    a weak source states is quoted, not given (`stale_value` stays quiet)."""
    return bool(_CONTRAST.search(sentence.text)) or _conflict_line(text, sentence.start) is not None


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


def finding_for(cite: Cite, problem: tuple[str, str] | None, levels: Severities,
                sentence: int = -1) -> Finding | None:
    """The finding a judged citation earns at these severities (None when it earns none or it is off)."""
    if problem is None or levels[problem[0]] == "off":
        return None
    return Finding(problem[0], levels[problem[0]], problem[1], sentence, cite.start, cite.end, cite.written)


def validate_citations(answer: str, assembly: Any, *, severities: Severities | Mapping[str, Severity] | None = None,
                       attribute: bool = False, embed: Embed | None = None, uncited: Severity | None = None,
                       stale_only: Severity | None = None, unsupported_value: Severity | None = None,
                       stale_value: Severity | None = None) -> Verdict:
    """Check every citation in `answer` against the assembly (an `Assembly`, its JSON dict, or a
    `SourceIndex`). `severities` is a `Severities` or a mapping of overrides (finding kind -> level) on
    the defaults; the per-kind keywords (`uncited=`, `stale_only=`, `unsupported_value=`, `stale_value=`)
    still work for one release and warn. With `attribute=True`, each stating sentence without a valid
    citation is given the sources its content matches (`attribution.attribute`), and `stale_only` and
    `unsupported_value` judge that support too; `embed` is passed to the attribution."""
    text = check_text(answer)
    levels = severities_of(severities, uncited=uncited, stale_only=stale_only, unsupported_value=unsupported_value,
                           stale_value=stale_value)
    index = read_assembly(assembly)
    cites, units = scan(text, index.grammar)
    return verdict_of(text, cites, units, index, levels, attribute=attribute, embed=embed)


@dataclass(frozen=True)
class _Read:
    """What the citations of an answer say: every citation, the findings they earn, and for each sentence
    the handles of the records it validly cites."""

    citations: tuple[Citation, ...]
    findings: tuple[Finding, ...]
    supported: Mapping[int, tuple[str, ...]]


def _read_citations(cites: list[Cite], sentences: list[Sentence], index: SourceIndex, levels: Severities) -> _Read:
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
    return _Read(tuple(citations), tuple(findings),
                 {k: tuple(dict.fromkeys(v)) for k, v in supported.items()})


def _form_answer_support(text: str, sentences: list[Sentence], read: _Read) -> dict[int, tuple[str, ...]]:
    """An answer form's `Answer:` line rests on what its lead lines cite ("Rule: ... [S1]" / "Answer: No."): the form
    asks for the answer as that rule decides it. Each sentence of that line that cites nothing itself gets the lead
    lines' handles, so it is neither `uncited` nor unchecked (a rule cited from a weak source makes it stale-only)."""
    lead = LEAD_LINE.match(text)
    if not lead:
        return {}
    start = verdict_start(text)  # at or after the lead lines' end
    handles = tuple(dict.fromkeys(h for s in sentences if s.end <= lead.end() for h in read.supported.get(s.index, ())))
    line_end = text.find("\n", start)
    line_end = len(text) if line_end < 0 else line_end
    cited = {c.sentence for c in read.citations}
    return {s.index: handles for s in sentences
            if handles and s.end > start and s.start < line_end and s.index not in cited}


def verdict_of(text: str, cites: list[Cite], units: list[tuple[int, int]], index: SourceIndex,
               levels: Severities, *, attribute: bool = False, embed: Embed | None = None) -> Verdict:
    """The verdict for `text` given the citations and units found in it (batch and streaming share this)."""
    if attribute and index.prompt is None:
        raise CitationInputError("attribution reads the sources from the assembly's prompt, and this assembly "
                                 "has none (pass an Assembly or the JSON `evidencepack assemble --json` prints)")
    sentences = split_sentences(text, units)
    read = _read_citations(cites, sentences, index, levels)
    read = replace(read, supported={**read.supported, **_form_answer_support(text, sentences, read)})
    with_citation = {c.sentence for c in read.citations} | set(read.supported)
    claims = _Claims(text, cites, sentences, index, embed)
    attributed: dict[int, tuple[str, ...]] = {}
    if attribute:
        attributed = {s.index: claims.attributed(s.index) for s in sentences
                      if s.stating and not read.supported.get(s.index)}
    findings = list(read.findings)
    support: list[Support] = []
    for s in sentences:
        cited = read.supported.get(s.index, ())
        guessed = attributed.get(s.index, ())
        if s.stating:
            handles = cited or guessed
            support.append(Support(s.index, handles, tuple(index.sources[h].id for h in handles), bool(cited)))
        findings += _sentence_findings(_Sentence(s, cited, guessed, s.index in with_citation), text, claims, levels)
    findings += injected_findings(text, sentences, index, levels)
    findings += transplant_findings(sentences, index, levels)
    findings += verdict_findings(text, sentences, index, levels)
    findings.sort(key=lambda f: (f.start, f.kind))
    return _verdict(read, findings, sentences, support, attribute)


def _verdict(read: _Read, findings: list[Finding], sentences: list[Sentence], support: list[Support],
             attribute: bool) -> Verdict:
    """The verdict, with its coverage (written) and attributed coverage (written or attributed)."""
    stating = sum(s.stating for s in sentences)
    covered = sum(1 for s in sentences if s.stating and read.supported.get(s.index))
    cited_ids = tuple(dict.fromkeys(c.record_id for c in read.citations if c.record_id))
    either = sum(1 for x in support if x.handles)
    return Verdict(
        valid=not any(f.severity == "error" for f in findings),
        findings=tuple(findings), citations=read.citations, sentences=tuple(sentences),
        cited_ids=cited_ids, coverage=covered / stating if stating else 1.0, support=tuple(support),
        attributed_coverage=(either / stating if stating else 1.0) if attribute else None, attributed=attribute,
    )


@dataclass(frozen=True)
class _Sentence:
    """One sentence and what it rests on: the handles it validly cites, else those attributed to it."""

    sentence: Sentence
    cited: tuple[str, ...]
    guessed: tuple[str, ...]
    has_citation: bool  # any citation at all, valid or not

    @property
    def rests_on(self) -> tuple[str, ...]:
        return self.cited or self.guessed


def _sentence_findings(x: _Sentence, text: str, claims: _Claims, levels: Severities) -> list[Finding]:
    """The sentence-level findings of one sentence: uncited, stale_only or stale_value, unsupported_value."""
    s = x.sentence
    out: list[Finding] = []
    if s.stating and not x.has_citation and levels.uncited != "off":
        matches = f" (its content matches {', '.join(x.guessed)})" if x.guessed else ""
        out.append(Finding("uncited", levels.uncited, f"sentence {s.index + 1} states something "
                           f"and cites nothing{matches}", s.index, s.start, s.end))
    reports = bool(_OUTDATED_CUES.search(s.text)) or _reports_a_conflict(text, s.start)
    weak = claims.index.sources
    if (x.rests_on and levels.stale_only != "off" and all(weak[h].weak for h in x.rests_on)
            and not reports):
        names = ", ".join(sorted(set(x.rests_on)))
        how = "" if x.cited else ", attributed: it cites nothing and its content matches them"
        out.append(Finding("stale_only", levels.stale_only, f"sentence {s.index + 1} rests only on "
                           f"expired, superseded or informal sources ({names}{how})", s.index, s.start, s.end))
    elif s.stating and levels.stale_value != "off" and not reports and not _reports_values(text, s):
        out += _stale_values(s, claims, levels.stale_value)
    if x.rests_on and levels.unsupported_value != "off":
        out += [Finding("unsupported_value", levels.unsupported_value,
                        unsupported_message(s.index, value, x.rests_on, bool(x.cited)), s.index,
                        s.start + value.start, s.start + value.end)
                for value in claims.unsupported(s.index, x.rests_on)]
    return out


def _stale_values(s: Sentence, claims: _Claims, level: Severity) -> list[Finding]:
    return [Finding("stale_value", level,
                    f"sentence {s.index + 1}: {shorten(value.text, 40)!r} ({value.kind}) is stated only by "
                    f"expired, superseded or informal sources ({', '.join(weak_sources)})",
                    s.index, s.start + value.start, s.start + value.end, sources=weak_sources)
            for value, weak_sources in claims.weak_only(s.index)]


class _Claims:
    """Attribution and value checks for one answer, prepared only when first needed."""

    def __init__(self, text: str, cites: list[Cite], sentences: list[Sentence], index: SourceIndex,
                 embed: Embed | None) -> None:
        self.text, self.cites, self.sentences, self.index = text, cites, sentences, index
        self.embed = embed
        self._claims: list[str] | None = None
        self._attributor: Attributor | None = None
        self._claim_values: dict[int, tuple[Value, ...]] = {}
        self._weak_pool: tuple[Value, ...] | None = None

    def claim(self, sentence: int) -> str:
        """The sentence with its citation groups blanked (their digits are not claims)."""
        if self._claims is None:
            chars = list(self.text)
            for c in self.cites:
                chars[c.start:c.end] = " " * (c.end - c.start)
            blanked = "".join(chars)
            self._claims = [blanked[s.start:s.end] for s in self.sentences]
        return self._claims[sentence]

    def attributed(self, sentence: int) -> tuple[str, ...]:
        if self._attributor is None:
            self._attributor = Attributor(self.index, embed=self.embed)
        handles: tuple[str, ...] = self._attributor.handles(self.claim(sentence))[0]
        return tuple(h for h in handles if h in self.index.sources)

    def claim_values(self, sentence: int) -> tuple[Value, ...]:
        if sentence not in self._claim_values:
            self._claim_values[sentence] = extract_values(self.claim(sentence))
        return self._claim_values[sentence]

    def _source_values(self, key: str) -> tuple[Value, ...]:
        """The values of one source (by handle), or of the question (key "")."""
        return values_of(self.index.passages[key] if key else self.index.question)

    def weak_only(self, sentence: int) -> list[tuple[Value, tuple[str, ...]]]:
        """The sentence's values that some shown source states and only weak ones do (expired, superseded,
        informal), each with those sources: whatever the sentence cites, such a value came from them. Values
        the question contains, or that no source states, are not this check's."""
        out: list[tuple[Value, tuple[str, ...]]] = []
        weak_pool = self._weak_values()
        if not weak_pool:
            return out  # nothing weak was shown, or it states no values (the common case)
        for v in self.claim_values(sentence):
            # most values are not a weak source's: only those are checked against every other source
            if not supported(v, weak_pool) or supported(v, self._source_values("")):
                continue
            stating = tuple(h for h in self.index.passages if supported(v, self._source_values(h)))
            if all(self.index.sources[h].weak for h in stating):
                out.append((v, stating))
        return out

    def _weak_values(self) -> tuple[Value, ...]:
        """Every value the weak sources in the prompt state, read once."""
        if self._weak_pool is None:
            weak = [h for h in self.index.passages if self.index.sources[h].weak]
            self._weak_pool = tuple(v for h in weak for v in self._source_values(h))
        return self._weak_pool

    def unsupported(self, sentence: int, handles: tuple[str, ...]) -> list[Value]:
        """The sentence's values that none of `handles` states (values in the question count as given)."""
        known = [h for h in handles if h in self.index.passages]
        mine = self.claim_values(sentence) if known else ()
        if not mine:
            return []
        claimed = claimed_values(self.claim(sentence))
        pool = [v for key in (*known, "") for v in self._source_values(key)]
        return list(unsupported_among((v for v in mine if v in claimed), pool))
