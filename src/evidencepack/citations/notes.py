"""Conflict notes: the assembler names a conflict the model did not.

The assembler already knows which sources cover the same question with different authority or validity
(`report.conflicts`). Small models rarely say so in their answer, even when the prompt asks them to. When an
answer rests (by written or attributed citation) on a source of such a group, we can tell the reader
ourselves, in facts from metadata only: which handle is current and authoritative, and which are not and why.
The note never says what the answer is, and never edits the model's text: it is appended below it.

When the assembler itself left a group's weak members out (`conflict_policy="withhold"`), the model never saw
them and cannot mention them, so that group's note is always delivered: it names what was left out and why.

When an answer was asked again without the weak sources a stale-only answer rested on (`withhold`), the
reader is owed the same candour: `withheld_note` names what was left out and why, from the manifest only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import CitationInputError
from ..passes.conflicts import Conflict
from ..render.neutralise import neutralise_value
from .model import Verdict
from .resolve import label
from .severities import QUIET
from .source import WEAK_AUTHORITIES, Source, SourceIndex, read_assembly
from .validate import validate_citations


@dataclass(frozen=True)
class ConflictNote:
    """One conflict group the answer touches, and the sentence that tells the reader about it."""

    topic: str | None
    current: tuple[str, ...]  # handles of the current authoritative sources
    others: tuple[tuple[str, tuple[str, ...]], ...]  # (handle, why it is not the answer)
    relied_on: tuple[str, ...]  # the group's handles the answer rests on, written or attributed
    weak_only: bool  # the answer rests on this group's weak sources only, never on a current one
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"topic": self.topic, "current": list(self.current),
                "others": [{"handle": h, "reasons": list(r)} for h, r in self.others],
                "relied_on": list(self.relied_on), "weak_only": self.weak_only, "text": self.text}


def conflict_notes(answer: str, assembly: Any, *, verdict: Verdict | None = None) -> tuple[ConflictNote, ...]:
    """A note for each conflict group that the answer rests on, in the order of the report's conflicts.

    `verdict` is the answer's verdict when the caller already has one; it should have attribution on
    (`validate_citations(..., attribute=True)`), or answers that cite nothing touch no group. Without it, the
    answer is validated here with attribution on."""
    index = read_assembly(assembly)
    if verdict is None:
        verdict = validate_citations(answer, index, severities=QUIET,
                                     attribute=True)
    used = {h for s in verdict.support for h in s.handles}
    notes = []
    for c in index.conflicts:
        members = (*c.current, *(h for h, _ in c.others))
        relied = tuple(h for h in members if h in used)
        if c.withheld:
            notes.append(ConflictNote(c.topic, c.current, c.others, relied, False, _withheld_text(c, index)))
        elif relied:
            weak_only = not any(h in c.current for h in relied)
            notes.append(ConflictNote(c.topic, c.current, c.others, relied, weak_only, note_text(c, relied)))
    return tuple(notes)


def note_text(conflict: Conflict, relied_on: Sequence[str] = ()) -> str:
    """One sentence for the reader, from metadata: handles, authority and validity, never the answer. When
    the answer rests only on the group's weak sources (`relied_on` holds no current one), it says so."""
    cur = " and ".join(f"[{h}]" for h in conflict.current)
    one = len(conflict.current) == 1
    holds = f"{'is' if one else 'are'} current and authoritative and {'holds' if one else 'hold'} where they differ"
    weak = list(conflict.others)
    if relied_on and not any(h in conflict.current for h in relied_on):
        weak = [(h, r) for h, r in weak if h in relied_on]
        return f"Conflicting sources: this answer rests on {_described(weak)}; {cur} {holds}."
    return f"Conflicting sources: {_described(weak)} cover{'s' if len(weak) == 1 else ''} the same question as " \
           f"{cur}, which {holds}."


def _withheld_text(conflict: Conflict, index: SourceIndex) -> str:
    """The note for a group whose weak members the assembler left out: which, why, and which source holds.
    Names are neutralised and cut like `withheld_note`'s; reasons only in the assembler's own wording."""
    cur = " and ".join(f"[{h}]" for h in conflict.current)
    one = len(conflict.current) == 1
    items = []
    for w in conflict.withheld:
        name = _withheld_label(Source("", w.id, None, None, w.doc, w.section), index)
        reasons = tuple(r for r in (_safe_reason(r) for r in w.reasons) if r)
        items.append(f"{name} ({', '.join(reasons)})" if reasons else name)
    n = len(items)
    also = f" and {_described(conflict.others)}" if conflict.others else ""
    return (f"Conflicting sources: {n} source{'s' if n > 1 else ''} on the same question "
            f"{'were' if n > 1 else 'was'} left out as not current or not authoritative: {'; '.join(items)}{also}; "
            f"{cur} {'is' if one else 'are'} current and authoritative and {'holds' if one else 'hold'}.")


def _safe_reason(reason: str) -> str | None:
    """A reason as the assembler writes it (an authority it knows, an expiry or start date), in reader case;
    anything else in a crafted report is dropped, so no words but ours reach the note."""
    if reason in WEAK_AUTHORITIES:
        return reason
    for pattern, wording in ((r"EXPIRED since ", "expired since "), (r"not valid until ", "not valid until ")):
        if reason.startswith(pattern) and (m := _ISO_DATE.fullmatch(reason[len(pattern):])):
            return wording + m.group(1)
    return None


def _described(weak: Sequence[tuple[str, tuple[str, ...]]]) -> str:
    return "; ".join(f"[{h}] ({', '.join(_reader_case(r) for r in reasons)})" for h, reasons in weak)


def with_notes(answer: str, notes: Sequence[ConflictNote | str]) -> str:
    """The answer as delivered: the model's text (trailing whitespace aside) unchanged, then one line per
    note (a `ConflictNote`, or a note's text such as `withheld_note`'s; empty ones are skipped)."""
    texts = [t for t in (n.text if isinstance(n, ConflictNote) else n for n in notes) if t]
    if not texts:
        return answer
    return answer.rstrip() + "\n\n" + "\n".join(f"Note: {t}" for t in texts)


def transplant_note(answer: str, assembly: Any, verdict: Verdict) -> str:
    """One sentence for the reader when the answer gives a value the sources state only for something else (the
    verdict's `transplanted_value` findings): "No source states this for what was asked: $40 is what Handbook
    2026, §4.2 gives for something else." Empty when there is none. The value is the answer's own text; the
    source is named from metadata only, as `withheld_note` names it, never quoted."""
    found = [f for f in verdict.findings if f.kind == "transplanted_value"]
    if not found:
        return ""
    index = read_assembly(assembly)
    items = []
    for f in found:
        value = " ".join(answer[f.start:f.end].split())[:40]
        names = [_withheld_label(index.sources[h], index) for h in f.sources if h in index.sources]
        where = " and ".join(dict.fromkeys(names)) or "a source"
        items.append(f"{value} is what {where} gives for something else")
    return "No source states this for what was asked: " + "; ".join(dict.fromkeys(items)) + "."


def verdict_note(answer: str, assembly: Any, verdict: Verdict) -> str:
    """One sentence for the reader when the answer opens with a verdict against the rule that decides the question
    (the verdict's `verdict_against_rule` finding): "This answer opens with "Yes", but the current rule in Travel
    Policy, §Rental cars [S3] restricts it: read that rule before acting on the Yes." (for a "No": "... states what
    the answer denies: ..."). Empty when there is none. The source is named from metadata only, as `withheld_note`
    names it, never quoted."""
    found = [f for f in verdict.findings if f.kind == "verdict_against_rule"]
    if not found:
        return ""
    index = read_assembly(assembly)
    names = [f"{_withheld_label(index.sources[h], index)} [{h}]" for f in found for h in f.sources
             if h in index.sources]
    where = " and ".join(dict.fromkeys(names)) or "the current source"
    word = answer[found[0].start:found[0].end]
    if word.lower() not in ("yes", "no"):  # a grant without the word: "You can take one home"
        return f"This answer says \"{word.lower()}\", but the current rule in {where} restricts it: read that rule " \
               "before acting on it."
    word = word.capitalize()
    against = "restricts it" if word == "Yes" else "states what the answer denies"
    return f"This answer opens with \"{word}\", but the current rule in {where} {against}: read that rule before " \
           f"acting on the {word}."


def injection_note(answer: str, assembly: Any, verdict: Verdict) -> str:
    """One sentence for the reader when the answer may have followed text planted in a source (the verdict's
    `suspicious_copy` and `foreign_url` findings): "Part of this answer repeats what Wiki page, §Parking wrote
    as an instruction to the assistant, not as information: do not act on it. No source gives the link
    evil.example: check it before you open it." Empty when there is none. Sources are named from metadata only,
    as `withheld_note` names them; a link is the answer's own text, cut short."""
    index = read_assembly(assembly)
    copied = [_withheld_label(index.sources[h], index) for f in verdict.findings if f.kind == "suspicious_copy"
              for h in f.sources if h in index.sources]
    links = [" ".join(answer[f.start:f.end].split())[:60] for f in verdict.findings if f.kind == "foreign_url"]
    parts = []
    if copied or any(f.kind == "suspicious_copy" for f in verdict.findings):
        where = " and ".join(dict.fromkeys(copied)) or "a source"
        parts.append(f"Part of this answer repeats what {where} wrote as an instruction to the assistant, not as "
                     "information: do not act on it.")
    if links:
        parts.append(f"No source gives the link {', '.join(dict.fromkeys(links))}: check it before you open it.")
    return " ".join(parts)


def _reader_case(reason: str) -> str:
    """"EXPIRED since 2025-01-01" reads as shouting in a note to a person; the prompt keeps the capitals."""
    return re.sub(r"^[A-Z]{2,}(?: [A-Z]{2,})*\b", lambda m: m.group(0).lower(), reason)


# -- withheld sources ----------------------------------------------------------------------------------------

_EXPIRED = re.compile(r"EXPIRED since ([0-9]{4}-[0-9]{2}-[0-9]{2})")
_NOT_YET = re.compile(r"not valid until ([0-9]{4}-[0-9]{2}-[0-9]{2})")
_ISO_DATE = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})(?:[T ][0-9:.+\-Z]*)?$")
LABEL_CHARS = 80  # a source's name in a note: enough to recognise it, too short to carry a message


def withheld_note(withheld: Iterable[str], assembly: Any) -> str:
    """One sentence for the reader naming the sources an answer was given without, and why each is not the
    answer: "Answered without 2 sources that are not current or not authoritative: Handbook 2024, §5.2
    (superseded); Slack (informal, expired since 2024-01-01)." Empty when nothing was withheld.

    Built from metadata only (name, section, authority, validity, date), never from record text, and never
    stating what the answer is. `assembly` is the assembly the ids were withheld from, or a list of
    assemblies (first first, as `Answered.earlier`): each id is described from the first that lists it.
    The expiry date comes from the conflict report or the manifest's validity window (ISO dates only), else
    the status stands alone. Names come from retrieved records, so they are neutralised as prompt headers are, cut
    to `LABEL_CHARS`, and stripped of brackets, parentheses and semicolons (the note's own punctuation).
    An id in no given manifest is a `CitationInputError`."""
    if isinstance(withheld, str | bytes) or not isinstance(withheld, Iterable):
        raise CitationInputError(f"withheld must be a list of record ids, got {type(withheld).__name__}")
    ids = list(dict.fromkeys(withheld))
    if not all(isinstance(i, str) for i in ids):
        raise CitationInputError("withheld must be a list of record ids (strings)")
    if not ids:
        return ""
    indexes = [read_assembly(a) for a in (assembly if isinstance(assembly, list | tuple) else [assembly])]
    described = _withheld_sources(ids, indexes)
    n = len(described)
    why = ""
    if all(reasons for _, reasons, _ in described):  # what `withhold` gives; an id the caller chose may not be
        why = f" that {'are' if n > 1 else 'is'} not current or not authoritative"
    items = "; ".join(f"{name} ({', '.join(reasons + dated)})" if reasons + dated else name
                      for name, reasons, dated in described)
    return f"Answered without {n} source{'s' if n > 1 else ''}{why}: {items}."


def _withheld_sources(ids: Sequence[str], indexes: Sequence[SourceIndex]
                      ) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """(name, reasons, date) of each withheld id, from the first assembly that lists it; an id none lists is
    a `CitationInputError`."""
    described: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = []
    missing = []
    for rid in ids:
        index = next((x for x in indexes if rid in x.handle_of), None)
        if index is None:
            missing.append(rid)
            continue
        source = index.sources[index.handle_of[rid]]
        dated = (f"dated {source.date}",) if source.date is not None and _ISO_DATE.fullmatch(source.date) else ()
        described.append((_withheld_label(source, index), _withheld_reasons(source, index), dated))
    if missing:
        raise CitationInputError(f"withheld: {len(missing)} id(s) not in the manifest of the given assembly: "
                                 f"{', '.join(repr(m) for m in missing)}")
    return described


def _withheld_label(source: Source, index: SourceIndex) -> str:
    """The source's name and section as `resolve` labels them, each value first neutralised as a prompt
    header value is (role markers, delimiters, handle look-alikes, hidden characters; one line)."""
    def safe(value: str | None) -> str | None:
        if value is None:
            return None
        return neutralise_value(value, boundary=index.boundary or "", handle_prefix=index.prefix,
                                max_chars=LABEL_CHARS) or None

    text = label(Source(source.handle, safe(source.id) or "?", None, None, safe(source.doc), safe(source.section)))
    text = " ".join(text.replace(";", ",").split())
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1].rstrip() + "\u2026"


def _withheld_reasons(source: Source, index: SourceIndex) -> tuple[str, ...]:
    """Why the source is not the answer: its authority and validity, each only from a value the assembler
    itself writes (an authority or status it knows, a date in ISO form), so a crafted manifest cannot put
    words here."""
    reported = _reported_reasons(source.handle, index)
    reasons = [source.authority] if source.authority in WEAK_AUTHORITIES else []
    if source.status == "expired":
        since = next((m.group(1) for r in reported if (m := _EXPIRED.fullmatch(r))), None) or _iso(source.valid_until)
        reasons.append(f"expired since {since}" if since else "expired")
    elif source.status == "not_yet_valid":
        until = next((m.group(1) for r in reported if (m := _NOT_YET.fullmatch(r))), None) or _iso(source.valid_from)
        reasons.append(f"not valid until {until}" if until else "not yet valid")
    elif source.status != "current":
        reasons.append("not current")
    return tuple(reasons)


def _iso(value: str | None) -> str | None:
    """The date part of an ISO date or datetime from the manifest, or None: nothing else reaches a note."""
    m = _ISO_DATE.match(value) if value else None
    return m.group(1) if m else None


def _reported_reasons(handle: str, index: SourceIndex) -> tuple[str, ...]:
    """What the assembler's conflict report says about `handle` ("EXPIRED since 2025-01-01", …), if anything."""
    found: Mapping[str, tuple[str, ...]] = {h: r for c in index.conflicts for h, r in c.others}
    return found.get(handle, ())
