"""Conflict notes: the assembler names a conflict the model did not.

The assembler already knows which sources cover the same question with different authority or validity
(`report.conflicts`). Small models rarely say so in their answer, even when the prompt asks them to. When an
answer rests (by written or attributed citation) on a source of such a group, we can tell the reader
ourselves, in facts from metadata only: which handle is current and authoritative, and which are not and why.
The note never says what the answer is, and never edits the model's text: it is appended below it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..conflicts import Conflict
from .model import Verdict
from .source import read_assembly
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
        verdict = validate_citations(answer, index, uncited="off", stale_only="off", unsupported_value="off",
                                     attribute=True)
    used = {h for s in verdict.support for h in s.handles}
    notes = []
    for c in index.conflicts:
        members = (*c.current, *(h for h, _ in c.others))
        relied = tuple(h for h in members if h in used)
        if relied:
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


def _described(weak: Sequence[tuple[str, tuple[str, ...]]]) -> str:
    return "; ".join(f"[{h}] ({', '.join(_reader_case(r) for r in reasons)})" for h, reasons in weak)


def with_notes(answer: str, notes: Sequence[ConflictNote]) -> str:
    """The answer as delivered: the model's text (trailing whitespace aside) unchanged, then one line per
    note."""
    if not notes:
        return answer
    return answer.rstrip() + "\n\n" + "\n".join(f"Note: {n.text}" for n in notes)


def _reader_case(reason: str) -> str:
    """"EXPIRED since 2025-01-01" reads as shouting in a note to a person; the prompt keeps the capitals."""
    return re.sub(r"^[A-Z]{2,}(?: [A-Z]{2,})*\b", lambda m: m.group(0).lower(), reason)
