"""Sentence splitting with offsets, in one linear pass.

Units come from `markdown.units` (code blocks are not sentences). Inside a unit a sentence ends at `.`, `!`,
`?` or `。` (plus closing quotes or brackets) followed by whitespace and a likely sentence start, or by the
end of the unit; abbreviations, initials, decimals and a list number ("1.") do not end one. A citation right
after the full stop ("...over. [S1] Next") stays with the sentence before it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .handles import CLOSERS, OPENERS
from .markdown import strip_bullet, units
from .model import Sentence

ABBREVIATIONS = frozenset((
    "e.g", "i.e", "etc", "vs", "cf", "al", "approx", "dept", "inc", "ltd", "co", "corp", "no", "nos", "fig", "sec",
    "p", "pp", "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
    "sep", "sept", "oct", "nov", "dec", "u.s", "a.m", "p.m",
))
# The look-behind makes a long run of `!!!!` one attempt, not one per character (which would be quadratic).
_END = re.compile(r"(?<![.!?\u3002])[.!?\u3002]+[\"'\u201d\u2019)\]]*"
                  r"(?=\s+[\"'\u201c\u2018(\[A-Z0-9*_]|\s*$)")
_LIST_NUMBER = re.compile(r"\s*\d{1,3}")
_LEADING_CITATION = re.compile(
    rf"\s*(?:[{re.escape(OPENERS)}][^{re.escape(CLOSERS)}\n]{{1,40}}[{re.escape(CLOSERS)}]\s*)+(?=\s|$)")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s|\*\*[^*]+\*\*:?\s*$)|:\s*$")
_NON_STATING = re.compile(
    r"^\W*(?:hi|hello|hey|thanks|thank you|sure|certainly|of course|great question|good question|"
    r"let me know|hope (?:this|that) helps|feel free|i hope|happy to help|best regards|regards|cheers)\b",
    re.IGNORECASE)
_WORDS = re.compile(r"\w+")


def split_sentences(text: str, unit_spans: Sequence[tuple[int, int]] | None = None) -> list[Sentence]:
    """Sentences with offsets into `text`; each bullet or heading line is its own sentence. `unit_spans`
    (from a scanner that has already read `text`) saves finding the units again."""
    spans: list[tuple[int, int]] = []
    for start, end in units(text) if unit_spans is None else unit_spans:
        _split_unit(text, start, end, spans)
    out = []
    for i, (s, e) in enumerate(_attach_trailing_citations(text, spans)):
        while s < e and text[s].isspace():
            s += 1
        sentence = text[s:e]
        out.append(Sentence(i, s, e, sentence, is_stating(sentence)))
    return out


def _split_unit(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    sentence_start = start
    previous_end = start  # every candidate is followed by whitespace, so the word before one starts after it
    for m in _END.finditer(text, start, end):
        word = _word_before(text, previous_end, m.start())
        previous_end = m.end()
        if m.start() - sentence_start <= 64 and _LIST_NUMBER.fullmatch(text, sentence_start, m.start()):
            continue  # "1." opening a numbered list item
        if m.group().startswith(".") and (word in ABBREVIATIONS or (len(word) == 1 and word.isalpha())):
            continue
        spans.append((sentence_start, m.end()))
        sentence_start = m.end()
    if text[sentence_start:end].strip():
        spans.append((sentence_start, end))


def _word_before(text: str, lo: int, hi: int) -> str:
    """The last whitespace-separated word of text[lo:hi], lower-cased, without opening quotes."""
    cut = max(text.rfind(" ", lo, hi), text.rfind("\n", lo, hi), text.rfind("\t", lo, hi)) + 1
    words = text[max(cut, lo):hi].split()
    return words[-1].lower().strip("(\"'") if words else ""


def _attach_trailing_citations(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """"No carry-over. [S1] Next..." - the [S1] belongs to the sentence before it."""
    out: list[tuple[int, int]] = []
    for s, e in spans:
        m = _LEADING_CITATION.match(text, s, e)
        if out and m and text[out[-1][1] - 1: out[-1][1]] in ".!?)":
            out[-1] = (out[-1][0], m.end())
            s = m.end()
            if not text[s:e].strip():
                continue
        out.append((s, e))
    return out


def is_stating(sentence: str) -> bool:
    """Does the sentence assert something? Questions, greetings, closings, headings and fragments do not."""
    body = strip_bullet(sentence).strip()
    if not body or body.endswith("?") or _NON_STATING.match(body) or _HEADING.search(body):
        return False
    return len(_WORDS.findall(body)) >= 3
