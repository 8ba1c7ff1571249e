"""Citations the code can enforce: parse an answer's handles and check them against the manifest.

The model reports `[S3]`; our code decides whether S3 was ever sent and where it points. Findings:
`unknown_handle` (never in the prompt), `excluded_source` (a record the assembler dropped, cited by id),
`uncited` (a stating sentence without a citation) and `stale_only` (a sentence whose only support is
expired, superseded or informal). Resolution to links or footnotes uses only the manifest's server-side
fields, so a record can never forge its own citation target.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .errors import AssemblyFormatError, CitationError

Severity = Literal["off", "warn", "error"]
WEAK_AUTHORITIES = ("informal", "superseded")

# Opening and closing brackets models use around handles, ASCII and full-width.
_OPEN, _CLOSE = r"[\[(\u3010\uff3b\uff08]", r"[\])\u3011\uff3d\uff09]"
_CODE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`", re.DOTALL)
_ABBREVIATIONS = frozenset((
    "e.g", "i.e", "etc", "vs", "cf", "al", "approx", "dept", "inc", "ltd", "co", "corp", "no", "nos", "fig", "sec",
    "p", "pp", "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
    "sep", "sept", "oct", "nov", "dec", "u.s", "a.m", "p.m",
))
_BULLET = re.compile(r"^\s*(?:[-*+\u2022]|\d{1,3}[.)])\s+")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s|\*\*[^*]+\*\*:?\s*$)|:\s*$")
_NON_STATING = re.compile(
    r"^\W*(?:hi|hello|hey|thanks|thank you|sure|certainly|of course|great question|good question|"
    r"let me know|hope (?:this|that) helps|feel free|i hope|happy to help|best regards|regards|cheers)\b",
    re.IGNORECASE)
# A sentence that marks its weak source as outdated is reporting it, not relying on it.
_OUTDATED_CUES = re.compile(
    r"\b(?:outdated|out of date|expired|superseded|no longer|used to|previously|formerly|old(?:er)?|"
    r"informal|earlier guidance|prior policy|not current|replaced|however|but)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Citation:
    """One cited handle: where it sits in the answer and what it resolves to."""

    handle: str  # as written, upper-cased (for an id citation: the id)
    start: int  # offsets of the bracket group that holds it
    end: int
    sentence: int
    record_id: str | None = None  # the record it resolves to, when it resolves


@dataclass(frozen=True)
class Finding:
    kind: str  # unknown_handle | excluded_source | uncited | stale_only
    severity: str  # warn | error
    message: str
    sentence: int
    start: int
    end: int
    handle: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Sentence:
    index: int
    start: int
    end: int
    text: str
    stating: bool


@dataclass(frozen=True)
class Verdict:
    valid: bool
    findings: tuple[Finding, ...]
    citations: tuple[Citation, ...]
    sentences: tuple[Sentence, ...]
    cited_ids: tuple[str, ...]
    coverage: float  # share of stating sentences with at least one valid citation

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "findings": [f.to_dict() for f in self.findings],
            "citations": [c.__dict__ for c in self.citations],
            "cited_ids": list(self.cited_ids),
            "coverage": round(self.coverage, 4),
            "sentences": len(self.sentences),
            "stating_sentences": sum(s.stating for s in self.sentences),
        }

    def __str__(self) -> str:
        if self.valid:
            return "valid"
        return "; ".join(f.message for f in self.findings if f.severity == "error")


@dataclass(frozen=True)
class SourceIndex:
    """What the validator needs from an assembly: the manifest and the fate of every record."""

    prefix: str
    manifest: Mapping[str, Mapping[str, Any]]  # handle -> manifest entry
    outcomes: Mapping[str, Mapping[str, Any]]  # record id -> report outcome
    handle_of: Mapping[str, str] = field(default_factory=dict)  # record id -> handle, for included records

    @classmethod
    def of(cls, assembly: Any) -> SourceIndex:
        """Accept an `Assembly` or its `to_dict()` (the CLI's JSON)."""
        data = assembly if isinstance(assembly, Mapping) else assembly.to_dict()
        try:
            manifest = {m["handle"]: m for m in data["manifest"]}
            outcomes = {o["id"]: o for o in data["report"]["records"]}
            prefix = data.get("handle_prefix", "S")
            if not isinstance(prefix, str) or not prefix.isalpha():
                raise TypeError("handle_prefix")
        except (KeyError, TypeError) as err:
            raise AssemblyFormatError(f"not an evidencepack assembly (missing or malformed {err})") from None
        return cls(prefix, manifest, outcomes, {m["id"]: h for h, m in manifest.items()})

    @property
    def citable_ids(self) -> list[str]:
        """Record ids a model may cite in brackets; ids that read as handles are left to the handle parser."""
        pattern = _group_pattern(self.prefix)
        return [i for i in self.outcomes if not pattern.fullmatch(f"[{i}]")]

    def is_weak(self, handle: str) -> bool:
        entry = self.manifest[handle]
        return entry.get("status") != "current" or entry.get("authority") in WEAK_AUTHORITIES


def _group_pattern(prefix: str) -> re.Pattern[str]:
    p = re.escape(prefix)
    item = rf"{p}\s*\d+(?:\s*[-\u2013]\s*(?:{p})?\s*\d+)?"
    return re.compile(rf"{_OPEN}\s*({item}(?:\s*[,;]\s*{item})*)\s*{_CLOSE}", re.IGNORECASE)


def _expand(group: str, prefix: str) -> list[str]:
    """`S1, S3` -> [S1, S3]; `S2-S4` -> [S2, S3, S4] (a reversed or huge range is kept as its ends)."""
    handles: list[str] = []
    for part in re.split(r"\s*[,;]\s*", group.strip()):
        nums = [int(n) for n in re.findall(r"\d+", part)]
        if len(nums) == 2 and 0 <= nums[1] - nums[0] <= 50:
            handles += [f"{prefix}{n}" for n in range(nums[0], nums[1] + 1)]
        else:
            handles += [f"{prefix}{n}" for n in nums]
    return handles


def split_sentences(text: str) -> list[Sentence]:
    """Sentences with offsets. Abbreviations, decimals, list items and bullets do not break a sentence;
    each bullet or heading line is its own unit; a citation right after the full stop stays with it."""
    spans: list[tuple[int, int]] = []
    for line_start, line in _lines(text):
        if not line.strip():
            continue
        start = line_start
        for m in re.finditer(r"[.!?\u3002]+[\"'\u201d\u2019)\]]*(?=\s+[\"'\u201c\u2018(\[A-Z0-9*_]|\s*$)",
                             line):
            before = line[: m.start()].split()
            word = before[-1].lower().strip("(\"'") if before else ""
            if re.fullmatch(r"\s*\d{1,3}", line[start - line_start: m.start()]):
                continue  # "1." opening a numbered list item
            if m.group(0).startswith(".") and (word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())):
                continue
            end = line_start + m.end()
            spans.append((start, end))
            start = end
        if text[start: line_start + len(line)].strip():
            spans.append((start, line_start + len(line)))
    spans = _attach_trailing_citations(text, spans)
    out = []
    for i, (s, e) in enumerate(spans):
        while s < e and text[s].isspace():
            s += 1
        sentence = text[s:e]
        out.append(Sentence(i, s, e, sentence, _is_stating(sentence)))
    return out


def _lines(text: str) -> Iterable[tuple[int, str]]:
    """Lines joined into paragraphs, except that bullets, headings and blank lines start a new unit."""
    pos = 0
    unit_start, unit = 0, ""
    for raw in text.split("\n"):
        if unit and (not raw.strip() or _BULLET.match(raw) or raw.lstrip().startswith("#") or
                     _HEADING.search(unit)):
            yield unit_start, unit
            unit_start, unit = pos, raw
        elif unit:
            unit = unit + "\n" + raw
        else:
            unit_start, unit = pos, raw
        pos += len(raw) + 1
    if unit:
        yield unit_start, unit


_LEADING_CITATION = re.compile(rf"^\s*(?:{_OPEN}[^\])\u3011\uff3d\uff09\n]{{1,40}}{_CLOSE}\s*)+(?=\s|$)")


def _attach_trailing_citations(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """"No carry-over. [S1] Next..." - the [S1] belongs to the sentence before it."""
    out: list[tuple[int, int]] = []
    for s, e in spans:
        m = _LEADING_CITATION.match(text[s:e])
        if out and m and text[out[-1][1] - 1: out[-1][1]] in ".!?)":
            out[-1] = (out[-1][0], s + m.end())
            s += m.end()
            if not text[s:e].strip():
                continue
        out.append((s, e))
    return out


def _is_stating(sentence: str) -> bool:
    body = _BULLET.sub("", sentence).strip()
    if not body or body.endswith("?") or _NON_STATING.match(body) or _HEADING.search(body):
        return False
    return len(re.findall(r"\w+", body)) >= 3


def parse_citations(answer: str, prefix: str = "S", ids: Iterable[str] = ()) -> list[tuple[str, int, int, bool]]:
    """(handle or id, start, end, is_id) for every citation outside code spans, in order."""
    masked = _CODE.sub(lambda m: " " * len(m.group(0)), answer)
    found = [(h.upper(), m.start(), m.end(), False)
             for m in _group_pattern(prefix).finditer(masked) for h in _expand(m.group(1), prefix.upper())]
    id_list = sorted((i for i in ids if i), key=len, reverse=True)
    if id_list:
        alt = "|".join(re.escape(i) for i in id_list)
        found += [(m.group(1), m.start(), m.end(), True)
                  for m in re.finditer(rf"{_OPEN}\s*(?:id:\s*)?({alt})\s*{_CLOSE}", masked)]
    return sorted(found, key=lambda c: (c[1], c[0]))


def validate_citations(answer: str, assembly: Any, *, uncited: Severity = "warn",
                       stale_only: Severity = "error") -> Verdict:
    """Check every citation in `answer` against the assembly that produced the prompt."""
    for name, value in (("uncited", uncited), ("stale_only", stale_only)):
        if value not in ("off", "warn", "error"):
            raise ValueError(f"{name} must be off, warn or error, got {value!r}")
    index = assembly if isinstance(assembly, SourceIndex) else SourceIndex.of(assembly)
    prefix = index.prefix.upper()
    sentences = split_sentences(answer)

    def sentence_of(pos: int) -> int:
        return next((s.index for s in sentences if s.start <= pos < max(s.end, s.start + 1)),
                    len(sentences) - 1 if sentences else 0)

    citations: list[Citation] = []
    findings: list[Finding] = []
    for handle, start, end, is_id in parse_citations(answer, prefix, index.citable_ids):
        sent = sentence_of(start)
        record_id, finding = _resolve(index, handle, is_id)
        citations.append(Citation(handle, start, end, sent, record_id))
        if finding:
            findings.append(Finding(finding[0], "error", finding[1], sent, start, end, handle))
    valid_by_sentence: dict[int, list[str]] = {}
    for c in citations:
        if c.record_id is not None and c.record_id in index.handle_of:
            valid_by_sentence.setdefault(c.sentence, []).append(index.handle_of[c.record_id])
    stating = [s for s in sentences if s.stating]
    for s in sentences:
        cited = valid_by_sentence.get(s.index, [])
        if s.stating and not cited and uncited != "off" and not any(c.sentence == s.index for c in citations):
            findings.append(Finding("uncited", uncited, f"sentence {s.index + 1} states something and cites "
                                    "nothing", s.index, s.start, s.end))
        if (cited and stale_only != "off" and all(index.is_weak(h) for h in cited)
                and not _OUTDATED_CUES.search(s.text)):
            weak = ", ".join(sorted(set(cited)))
            findings.append(Finding("stale_only", stale_only, f"sentence {s.index + 1} rests only on "
                                    f"expired, superseded or informal sources ({weak})", s.index, s.start, s.end))
    covered = sum(1 for s in stating if valid_by_sentence.get(s.index))
    findings.sort(key=lambda f: (f.start, f.kind))
    cited_ids = tuple(dict.fromkeys(c.record_id for c in citations if c.record_id and c.record_id in
                                    index.handle_of))
    return Verdict(
        valid=not any(f.severity == "error" for f in findings),
        findings=tuple(findings), citations=tuple(citations), sentences=tuple(sentences),
        cited_ids=cited_ids, coverage=covered / len(stating) if stating else 1.0,
    )


def _resolve(index: SourceIndex, handle: str, is_id: bool) -> tuple[str | None, tuple[str, str] | None]:
    """The record a citation points to, or the finding it earns."""
    if not is_id:
        entry = index.manifest.get(handle)
        if entry is None:
            return None, ("unknown_handle", f"[{handle}] was not in the prompt")
        return entry["id"], None
    outcome = index.outcomes[handle]
    if outcome.get("decision") == "included":
        return handle, None
    kept = outcome.get("duplicate_of")
    if outcome.get("reason") == "duplicate" and kept in index.handle_of:
        return kept, None
    return None, ("excluded_source", f"{handle} was dropped by the assembler ({outcome.get('reason')}) and "
                                     "never shown to the model")


# -- acting on the verdict ---------------------------------------------------------------------------


def enforce(answer: str, assembly: Any, **kwargs: Any) -> Verdict:
    """The `reject` policy: return the verdict when valid, else raise `CitationError` carrying it."""
    verdict = validate_citations(answer, assembly, **kwargs)
    if not verdict.valid:
        raise CitationError(verdict)
    return verdict


@dataclass(frozen=True)
class Stripped:
    text: str
    removed: tuple[str, ...]
    affected_sentences: tuple[int, ...]


def strip_invalid(answer: str, assembly: Any, *, mark: str | None = None) -> Stripped:
    """The `strip` policy: remove handles that do not resolve (and brackets left empty); report, and
    optionally mark, the sentences that lost a citation. Nothing else in the answer changes."""
    index = assembly if isinstance(assembly, SourceIndex) else SourceIndex.of(assembly)
    verdict = validate_citations(answer, index, uncited="off", stale_only="off")
    bad = {(c.start, c.end) for c in verdict.citations if c.record_id is None}
    if not bad:
        return Stripped(answer, (), ())
    groups: dict[tuple[int, int], list[Citation]] = {}
    for c in verdict.citations:
        groups.setdefault((c.start, c.end), []).append(c)
    out, last = [], 0
    affected: set[int] = set()
    for (start, end), members in sorted(groups.items()):
        if (start, end) not in bad:
            continue
        keep = [c.handle for c in members if c.record_id is not None]
        affected.add(members[0].sentence)
        cut_from = start - 1 if not keep and start > 0 and answer[start - 1] == " " else start
        out.append(answer[last:cut_from])
        if keep:
            out.append(answer[start] + ", ".join(keep) + answer[end - 1])
        if mark and not keep:
            out.append(mark)
        last = end
    out.append(answer[last:])
    removed = tuple(c.handle for c in verdict.citations if c.record_id is None)
    return Stripped("".join(out), removed, tuple(sorted(affected)))


def repair_instruction(verdict: Verdict, prefix: str = "S") -> str:
    """What to tell the model when it must try again: exactly what was wrong, nothing vaguer."""
    lines = ["Your answer has citation problems. Rewrite it so that every claim cites a handle that appears "
             "in the sources, and fix each of these:"]
    for f in verdict.findings:
        if f.severity == "error":
            lines.append(f"- {f.message}")
    lines.append(f"Cite sources as [{prefix}1]. Answer from current, authoritative sources; if you mention "
                 "expired, superseded or informal guidance, say that it is outdated.")
    return "\n".join(lines)


@dataclass(frozen=True)
class Regenerated:
    answer: str
    verdict: Verdict
    attempts: int  # generations after the first answer


def regenerate(answer: str, assembly: Any, generate: Callable[[str], str], *, attempts: int = 2,
               **kwargs: Any) -> Regenerated:
    """The `regenerate` policy: ask `generate(repair_instruction)` for a new answer until one is valid or
    `attempts` run out; returns the first valid answer, else the last one with its verdict."""
    index = assembly if isinstance(assembly, SourceIndex) else SourceIndex.of(assembly)
    verdict = validate_citations(answer, index, **kwargs)
    used = 0
    while not verdict.valid and used < attempts:
        answer = generate(repair_instruction(verdict, index.prefix))
        used += 1
        verdict = validate_citations(answer, index, **kwargs)
    return Regenerated(answer, verdict, used)


def resolve(answer: str, assembly: Any, *, style: Literal["links", "footnotes"] = "links") -> str:
    """Turn valid handles into links or numbered footnotes from the manifest's own `url`, `doc` and
    `section`. Text from the answer or the record never becomes a link target."""
    if style not in ("links", "footnotes"):
        raise ValueError(f"style must be links or footnotes, got {style!r}")
    index = assembly if isinstance(assembly, SourceIndex) else SourceIndex.of(assembly)
    verdict = validate_citations(answer, index, uncited="off", stale_only="off")
    groups: dict[tuple[int, int], list[Citation]] = {}
    for c in verdict.citations:
        groups.setdefault((c.start, c.end), []).append(c)
    numbers: dict[str, int] = {}
    out, last = [], 0
    for (start, end), members in sorted(groups.items()):
        parts = []
        for c in members:
            handle = index.handle_of.get(c.record_id) if c.record_id else None
            if handle is None:
                parts.append(f"[{c.handle}]")
                continue
            n = numbers.setdefault(handle, len(numbers) + 1)
            url = _safe_url(index.manifest[handle].get("url"))
            if style == "footnotes":
                parts.append(f"[^{n}]")
            else:
                parts.append(f"[{handle}]({url})" if url else f"[{handle}: {_label(index.manifest[handle])}]")
        out.append(answer[last:start])
        out.append("".join(parts))
        last = end
    out.append(answer[last:])
    text = "".join(out)
    if style == "footnotes" and numbers:
        notes = []
        for handle, n in numbers.items():
            entry = index.manifest[handle]
            url = _safe_url(entry.get("url"))
            notes.append(f"[^{n}]: {_label(entry)}" + (f" <{url}>" if url else ""))
        text = text.rstrip("\n") + "\n\n" + "\n".join(notes) + "\n"
    return text


def _label(entry: Mapping[str, Any]) -> str:
    parts = [str(entry.get("doc") or entry.get("id"))]
    if entry.get("section"):
        parts.append(f"\u00a7{entry['section']}")
    return re.sub(r"[\[\]()<>\n]", " ", ", ".join(parts)).strip()


def _safe_url(url: Any) -> str | None:
    if isinstance(url, str) and re.match(r"^https?://[^\s<>()\[\]\"']+$", url):
        return url
    return None


class StreamValidator:
    """Validate as tokens arrive: `feed` returns findings for citations completed by this chunk, so an
    unknown handle is reported as soon as its closing bracket streams in; `close` gives the full verdict."""

    def __init__(self, assembly: Any, **kwargs: Any) -> None:
        self._index = assembly if isinstance(assembly, SourceIndex) else SourceIndex.of(assembly)
        self._kwargs = kwargs
        self._text = ""
        self._seen: set[tuple[str, int]] = set()

    def feed(self, chunk: str) -> list[Finding]:
        self._text += chunk
        new: list[Finding] = []
        for handle, start, end, is_id in parse_citations(self._text, self._index.prefix, self._index.citable_ids):
            if (handle, start) in self._seen:
                continue
            self._seen.add((handle, start))
            _, finding = _resolve(self._index, handle, is_id)
            if finding:
                new.append(Finding(finding[0], "error", finding[1], -1, start, end, handle))
        return new

    def close(self) -> Verdict:
        return validate_citations(self._text, self._index, **self._kwargs)

