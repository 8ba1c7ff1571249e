"""`transplanted_value`: a value the answer gives for what the question asks about, which the sources state only
about something else (issue 24, item 2).

Asked for a "daily meal allowance" that no record gives, a small model answers "$40", the layover allowance
of another record. Such an answer passes every other check: the value is in the sources, current or not.
What gives it away is read from the question, the answer sentence and the sources the model was shown:

- the answer sentence repeats a word of the question that no source shown contains ("meal"): the answer
  says the value is about something the sources never mention; and
- every source sentence that states the value shares at most `GROUNDED_MAX` words with the question (its
  doc and section titles count as its words): the sources state the value about something else.

Both must hold, so a correct answer that repeats the user's own details ("for the hazmat course in Fort
Wayne") is silent when the sentence stating its value is about what was asked (it shares the question's
other words), and a value stated about the subject of the question anywhere is silent. Words are compared
after stop words are dropped, lightly stemmed, and a word that begins another of at least four letters
matches it ("mile" / "mileage"). Values the question contains, values no source states (`unsupported_value`)
and sentences that say the sources do not state something are not this check's. A prompt without blocks
(`flat`) is read as one text: everything before its question line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

from ..words import STOP_WORDS, stem
from .injected import source_sentences
from .model import Finding, Sentence, shorten
from .severities import Severities
from .source import SourceIndex
from .values import Value, claimed_values, mask_handles, supported, values_of

__all__ = ["GROUNDED_MAX", "transplant_findings"]

#: The most question words a source sentence stating the value may share for the value to count as stated about
#: something else. Chosen on the freight trap answers and reported on the IT ones (scripts/transplant_precision.py):
#: at 0 no correct answer of either is flagged; at 1, 10 of 295 correct freight answers were.
GROUNDED_MAX = 0
_WORD = re.compile(r"[a-z][a-z'-]+")
# Light words of a question that name no subject ("what do I need to give", "am I allowed to").
_LIGHT = frozenset(["give", "gives", "given", "take", "takes", "put", "puts", "make", "makes", "set", "sets",
                    "setting", "keep", "keeps", "kept", "want", "wants", "supposed", "allowed", "allow", "i'm",
                    "i've", "i'd", "i'll", "what's", "what", "tell", "going", "know", "able", "many", "long",
                    "often", "far", "big", "new", "okay", "ok", "first", "anyone", "someone", "something"])
# A sentence that says the sources do not state something names the value it found instead; it gives no answer.
_NOT_STATED = re.compile(r"\b(?:not|n't|no)\s+(?:\w+\s+){0,3}(?:state|states|stated|say|says|said|mention|mentions|"
                         r"mentioned|specify|specifies|specified|cover|covers|covered|provide|provides|provided|"
                         r"give|gives|address|addresses|include|includes|information)\b", re.IGNORECASE)
# A number inside an identifier (a phone number, a code): "1-800-555-0147".
_IDENTIFIER = re.compile(r"\d[-\u2010\u2011]\d|\d[-\u2010\u2011]$|^[-\u2010\u2011]\d")


def _words(text: str) -> frozenset[str]:
    """Lower-cased words that carry content (no stop words, no handles)."""
    raw = (w.strip("'-").removesuffix("'s") for w in _WORD.findall(mask_handles(text).lower()))
    return frozenset(w for w in raw if len(w) > 2 and w not in STOP_WORDS and w not in _LIGHT)


def _same(a: str, b: str) -> bool:
    if a == b or stem(a) == stem(b):
        return True
    short, long = sorted((a, b), key=len)
    return len(short) >= 4 and long.startswith(short)


def _in(word: str, words: Iterable[str]) -> bool:
    return any(_same(word, w) for w in words)


@dataclass(frozen=True)
class _Stated:
    """A source sentence, the handle of its source ("" for a prompt without blocks) and its words with the
    source's doc and section titles."""

    handle: str
    text: str
    words: frozenset[str]

    @cached_property
    def values(self) -> tuple[Value, ...]:
        return values_of(self.text)


def _sources(index: SourceIndex) -> list[_Stated]:
    """Every sentence of the sources as the model saw them."""
    out: list[_Stated] = []
    for h, passage in index.passages.items():
        src = index.sources[h]
        out += _passage(h, passage, " ".join(t for t in (src.doc, src.section) if t))
    if not index.passages and index.prompt and index.question:  # flat: the user text before its question line
        out += _passage("", "\n" + index.prompt.rsplit("\nQuestion: ", 1)[0], "")
    return out


@lru_cache(maxsize=4096)
def _passage(handle: str, passage: str, titles: str) -> tuple[_Stated, ...]:
    """A passage's sentences with their words, read once per passage: the next answer to the same prompt (a
    retry, a stream) reuses them."""
    body = passage.split("\n", 1)[1] if "\n" in passage else ""
    extra = _words(titles)
    return tuple(_Stated(handle, s.text, _words(s.text) | extra) for s in source_sentences(body, handle))


def _identifier(text: str, value: Value) -> bool:
    return value.kind == "number" and bool(
        _IDENTIFIER.search(text[max(value.start - 2, 0):value.start + 1])
        or _IDENTIFIER.search(text[value.end - 1:value.end + 2]))


@dataclass(frozen=True)
class _Reading:
    """What the check reads once per answer: the question's words, its values, the source sentences, and the
    question's words that no source contains."""

    question: frozenset[str]
    given: tuple[Value, ...]
    sources: tuple[_Stated, ...]
    absent: frozenset[str]

    @classmethod
    def of(cls, index: SourceIndex, question: frozenset[str]) -> _Reading:
        sources = tuple(_sources(index))
        everywhere = frozenset().union(*(x.words for x in sources))
        return cls(question, values_of(index.question), sources,
                   frozenset(w for w in question if not _in(w, everywhere)))

    def stated_elsewhere(self, s: Sentence, value: Value) -> list[_Stated]:
        """The source sentences stating `value` when every one of them shares at most `GROUNDED_MAX` words with
        the question; empty when some states it about the question's subject, or none states it."""
        if supported(value, self.given) or _identifier(s.text, value):
            return []
        stating = [x for x in self.sources if supported(value, x.values)]
        if any(sum(_in(w, x.words) for w in self.question) > GROUNDED_MAX for x in stating):
            return []
        return stating


def transplant_findings(sentences: Sequence[Sentence], index: SourceIndex, levels: Severities) -> list[Finding]:
    """The `transplanted_value` findings of an answer (none when the kind is off, or there is no question or
    no source to read)."""
    level = levels.transplanted_value
    question = _words(index.question) if level != "off" else frozenset()
    candidates = [(s, claimed_values(s.text)) for s in sentences if s.stating and not _NOT_STATED.search(s.text)]
    if not question or not any(found for _, found in candidates):
        return []
    reading = _Reading.of(index, question)
    if not reading.absent:
        return []
    out: list[Finding] = []
    for s, found in candidates:
        missing = sorted(w for w in reading.absent if _in(w, _words(s.text)))
        if not missing:
            continue  # the sentence attaches nothing the sources do not mention
        for value in found:
            stating = reading.stated_elsewhere(s, value)
            if stating:
                out.append(_finding(s, value, stating, missing, level))
    return out


def _finding(s: Sentence, value: Value, stating: Sequence[_Stated], missing: Sequence[str], level: str) -> Finding:
    where = stating[0]
    handles = tuple(dict.fromkeys(x.handle for x in stating if x.handle))
    named = f"[{where.handle}]" if where.handle else "a source"
    return Finding("transplanted_value", level,
                   f"sentence {s.index + 1}: {shorten(value.text, 40)!r} is what {named} states for "
                   f"\"{shorten(' '.join(where.text.split()), 80)}\", not for the question's "
                   f"{', '.join(repr(w) for w in missing)}, which no source mentions",
                   s.index, s.start + value.start, s.start + value.end, sources=handles)
