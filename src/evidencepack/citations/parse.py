"""Reading an answer: its citations (the scanner and the handle grammar) and its sentences with what each cites.

One scan finds every cited item outside code (`markdown.Scanner`, `handles.Grammar`) and the units the sentence
splitter needs; everything that reads handles from an answer (validation, attribution, `handles_in`) reads
them here, so they all agree on what a citation is.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .handles import Cite, Grammar
from .markdown import Group, Scanner
from .model import Sentence, check_text
from .sentences import split_sentences

__all__ = ["ClaimSentence", "claim_sentences", "handles_in", "parse_citations", "read_sentences", "scan"]


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


@dataclass(frozen=True)
class ClaimSentence:
    """A sentence as the citation validator splits it, with the handles written in it and its `claim`: the
    text with every citation group blanked out (same length, so offsets still hold)."""

    sentence: Sentence
    written: tuple[str, ...]  # spelled as handles (valid or not), in order, once each
    claim: str


def claim_sentences(text: str, cites: Sequence[Cite], units: Sequence[tuple[int, int]] | None = None
                    ) -> list[ClaimSentence]:
    """Sentences of `text` (the validator's splitter) with the citations the validator's scanner found."""
    return claims_of(text, cites, split_sentences(text, units))


def claims_of(text: str, cites: Sequence[Cite], sentences: Sequence[Sentence]) -> list[ClaimSentence]:
    """`sentences` of `text` with their citations (each finds its sentence by binary search) blanked out."""
    starts = [x.start for x in sentences]
    mine: dict[int, list[Cite]] = {}
    for c in cites:
        mine.setdefault(max(bisect_right(starts, c.start) - 1, 0), []).append(c)
    out: list[ClaimSentence] = []
    for x in sentences:
        chars = list(x.text)
        for c in mine.get(x.index, ()):
            lo, hi = max(c.start - x.start, 0), min(c.end - x.start, len(chars))
            chars[lo:hi] = " " * max(hi - lo, 0)
        written = tuple(dict.fromkeys(c.handle for c in mine.get(x.index, ()) if c.handle is not None))
        out.append(ClaimSentence(x, written, "".join(chars)))
    return out


def read_sentences(answer: str, grammar: Grammar | str = "S") -> list[ClaimSentence]:
    """`claim_sentences` of an answer, scanned with the citation grammar (a `Grammar` or a handle prefix)."""
    cites, units = scan(answer, grammar if isinstance(grammar, Grammar) else Grammar(grammar))
    return claim_sentences(answer, cites, units)


def handles_in(sentence: str, prefix: str = "S") -> tuple[str, ...]:
    """Handles written in a text, in order, once each: the spellings the citation validator reads as handles
    (its scanner and grammar: lists, ranges such as [S3-S4], any bracket form; nothing inside code)."""
    return tuple(dict.fromkeys(h for x in read_sentences(sentence, prefix) for h in x.written))
