"""Attribution: which sources support a sentence that cites none, by the content words and values it shares.

Small models rarely write a handle, so a validator that only reads handles has nothing to check.
`attribute(answer, assembly)` gives each sentence the handles that support it: the handles the model wrote
(`written=True`), or, for a sentence without one, the sources whose content words and values it shares
(`written=False`). A sentence no source supports gets none; the rule prefers leaving a sentence
unattributed to attributing it wrongly (see docs/variants.md for its measured precision).
`unsupported_value(answer, assembly)` names each value of a cited or attributed sentence that none of its
sources states (the check is `values.unsupported_among`, the validator's own). Sources are read from the
rendered prompt (the text the model saw, header and body), never from anything the model wrote.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import CitationInputError
from ..records.vectors import cosine
from ..words import content_words as _content_words
from .parse import read_sentences
from .source import SourceIndex, read_assembly
from .values import UnsupportedValue, extract_values, mask_handles, supported, unsupported_in

__all__ = ["MARGIN", "MIN_WORDS", "THRESHOLD", "Attribution", "Attributor", "Embed", "attribute", "content_words",
           "sources_of", "unsupported_value"]

#: An embedding: text -> vector (for attribution only).
Embed = Callable[[str], Sequence[float]]


def _vector(embed: Embed, text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in embed(text))


def _similarity(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """`records.vectors.cosine`; vectors of different lengths are the `embed` function's mistake, named as such."""
    if len(a) != len(b):
        raise CitationInputError(f"embed returned vectors of different lengths ({len(a)} and {len(b)}): "
                                 "one embedding model must embed the sources and the answer")
    return cosine(a, b)


def content_words(text: str) -> frozenset[str]:
    """Lower-cased, lightly stemmed words that carry content (no stop words, no handles, no numbers)."""
    return _content_words(mask_handles(text))


def sources_of(assembly: Any) -> dict[str, str]:
    """Handle -> the source as the model saw it (header and text), read back from the rendered prompt.
    Accepts an `Assembly`, its `to_dict()` or a `citations.SourceIndex`."""
    return dict(read_assembly(assembly).passages)


@dataclass(frozen=True)
class Attribution:
    """The handles that support one sentence: written by the model, or attributed here."""

    sentence: int
    text: str
    handles: tuple[str, ...]
    written: bool
    scores: Mapping[str, float] = field(default_factory=dict)
    start: int = 0  # offsets of the sentence in the answer
    end: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"sentence": self.sentence, "text": self.text, "handles": list(self.handles), "written": self.written,
                "scores": {h: round(s, 3) for h, s in self.scores.items()}, "start": self.start, "end": self.end}


#: A sentence is attributed to a source when its weighted content-word overlap reaches THRESHOLD, the source
#: states at least one of the sentence's values (when it has any), and the source is within MARGIN of the best.
THRESHOLD = 0.5
MARGIN = 0.15
MIN_WORDS = 2  # fewer content words than this (beyond the question's) is not a claim to attribute


def _idf(docs: Mapping[str, frozenset[str]]) -> Callable[[str], float]:
    n = max(len(docs), 1)
    df: dict[str, int] = {}
    for words in docs.values():
        for w in words:
            df[w] = df.get(w, 0) + 1
    return lambda w: math.log(1 + n / df.get(w, 0.5))


class Attributor:
    """What attribution reads from one assembly, prepared once: each source's content words and values, word
    rarity among the sources, the question's words. `handles(claim)` attributes one sentence."""

    def __init__(self, index: SourceIndex, *, embed: Embed | None = None, threshold: float = THRESHOLD,
                 margin: float = MARGIN) -> None:
        self.index = index
        self.sources = index.passages
        self.question = content_words(index.question)
        self.words = {h: content_words(t) for h, t in self.sources.items()}
        self.values = {h: extract_values(t) for h, t in self.sources.items()}
        self.idf = _idf(self.words)
        self.embed = embed
        self.vectors = {h: _vector(embed, t) for h, t in self.sources.items()} if embed is not None else {}
        self.threshold, self.margin = threshold, margin

    def handles(self, claim: str) -> tuple[tuple[str, ...], dict[str, float]]:
        """The sources that support `claim` (a sentence with its citations blanked), and every positive score.
        Only handles of the manifest can come back: the sources are read for those handles only."""
        mine = content_words(claim)
        weight = {w: self.idf(w) * (0.5 if w in self.question else 1.0) for w in mine}
        total = sum(weight.values())
        sv = extract_values(claim)
        if len(mine - self.question) < MIN_WORDS and not sv:
            return (), {}
        vector = _vector(self.embed, claim) if self.embed is not None else None
        scores: dict[str, float] = {}
        for h in self.sources:
            score = sum(weight[w] for w in mine & self.words[h]) / total if total else 0.0
            if vector is not None:
                score = (score + _similarity(vector, self.vectors[h])) / 2
            if sv and not any(supported(v, self.values[h]) for v in sv):
                score = 0.0
            scores[h] = score
        best = max(scores.values(), default=0.0)
        chosen = tuple(h for h, sc in scores.items() if sc >= self.threshold and sc >= best - self.margin)
        return chosen, {h: sc for h, sc in scores.items() if sc > 0}


def attribute(answer: str, assembly: Any, *, embed: Embed | None = None, threshold: float = THRESHOLD,
              margin: float = MARGIN) -> tuple[Attribution, ...]:
    """Each sentence of `answer` with the handles that support it. Written handles are kept as written (the
    validator judges them); an uncited sentence gets the sources whose weighted content words it shares (words
    rarer among the prompt's sources weigh more; the question's own words weigh half), filtered by values: a
    source that states none of the sentence's numbers, dates, durations or amounts cannot support it. With
    `embed`, the lexical score is averaged with the embedding cosine. Sentences and written handles are read
    exactly as `citations.validate_citations` reads them."""
    index = read_assembly(assembly)
    attributor = Attributor(index, embed=embed, threshold=threshold, margin=margin)
    out: list[Attribution] = []
    for x in read_sentences(answer, index.grammar):
        s = x.sentence
        if x.written:
            out.append(Attribution(s.index, s.text, x.written, True, start=s.start, end=s.end))
            continue
        chosen, scores = attributor.handles(x.claim)
        out.append(Attribution(s.index, s.text, chosen, False, scores, s.start, s.end))
    return tuple(out)


def unsupported_value(answer: str, assembly: Any, attributions: Sequence[Attribution] | None = None, *,
                      embed: Embed | None = None, threshold: float = THRESHOLD, margin: float = MARGIN
                      ) -> tuple[UnsupportedValue, ...]:
    """Values of cited or attributed sentences that their sources do not state. A sentence with no source
    at all is not checked here (that is `uncited`); values the question itself contains count as given."""
    index = read_assembly(assembly)
    if attributions is None:
        attributions = attribute(answer, index, embed=embed, threshold=threshold, margin=margin)
    sources = index.passages
    out: list[UnsupportedValue] = []
    for a in attributions:
        known = [sources[h] for h in a.handles if h in sources]
        if not known:
            continue
        for v in unsupported_in(mask_handles(a.text), known, also_given=index.question):
            out.append(UnsupportedValue(a.sentence, v, a.handles, a.written))
    return tuple(out)
