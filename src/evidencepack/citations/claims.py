"""Claims in an answer, checked against the sources the model saw: who supports a sentence, and whether its
numbers do.

Small models rarely write a handle, so a validator that only reads handles has nothing to check. Two pure
functions fill the gap:

- `attribute(answer, assembly)` gives each sentence the handles that support it: the handles the model wrote
  (`written=True`), or, for a sentence without one, the sources whose content words and values it shares
  (`written=False`). A sentence no source supports gets none; the rule prefers leaving a sentence
  unattributed to attributing it wrongly (see docs/variants.md for its measured precision).
- `unsupported_value(answer, assembly)` names each number, date, duration, amount or percentage in a
  sentence that occurs in none of the sources the sentence cites or is attributed to.

Values are compared in a normal form, so "fourteen weeks" matches "14 weeks", "every 90 days" matches a
"90-day" rule, "$1,500" matches "1500 dollars" and "Jan. 1, 2025" matches "2025-01-01". Both functions read
the sources from the rendered prompt (the text the model saw, header and body), never from anything the
model wrote.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .handles import Cite, Grammar
from .model import Sentence
from .sentences import split_sentences as _split
from .source import SourceIndex, read_assembly

__all__ = ["Attribution", "Attributor", "ClaimSentence", "UnsupportedValue", "Value", "attribute", "claim_sentences",
           "content_words", "extract_values", "handles_in", "read_sentences", "sources_of", "split_sentences",
           "supported", "unsupported_in", "unsupported_value"]

# ---------------------------------------------------------------- values

_SMALL = {w: i for i, w in enumerate(
    [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"
])}
_TENS = {w: 10 * i for i, w in enumerate([
    "_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"
]) if i > 1}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_NUMBER_WORD = "|".join(sorted([*_SMALL, *_TENS, *_SCALES], key=len, reverse=True))
_WORDS_RX = rf"(?:{_NUMBER_WORD})(?:(?:[\s-]+|\s+and\s+)(?:{_NUMBER_WORD}))*"
_NUM_RX = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_DURATION_UNITS = {
    "minute": "minute", "min": "minute", "hour": "hour", "hr": "hour", "day": "day", "workday": "day",
    "week": "week", "wk": "week", "month": "month", "year": "year", "yr": "year",
}
_UNIT_RX = r"(?:business |working |calendar |work )?(?:minute|min|hour|hr|workday|day|week|wk|month|year|yr)s?"
# Up to three words may sit between a number and its unit: "2 or more consecutive days", "5 paid days".
_FILLER_RX = r"(?:(?:or more|or fewer|or less|full|consecutive|paid|unpaid|additional|extra|more|calendar|working|" \
             r"business|straight|separate)\s+){0,3}"
# "a week" is a duration after these words ("within a year", "up to a week", "with a year of service"), and a
# rate anywhere else ("$40 a month", "10 days a year"), where it is not a claim of its own.
_A_DURATION_AFTER = re.compile(r"\b(?:within|for|to|about|around|after|over|under|than|least|most|in|of|with|nearly|"
                               r"almost|only|just|full|entire|whole|half|once|take|takes|took|lasts?|lasted)\s*$",
                               re.IGNORECASE)
_MONTHS = {m: i + 1 for i, m in enumerate(
    [
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december"
])}
_MONTH_ABBR = {m[:3]: i for m, i in _MONTHS.items()} | {"sept": 9}
_MONTH_RX = r"(?:" + "|".join(sorted([*_MONTHS, *_MONTH_ABBR], key=len, reverse=True)) + r")\.?"

_VALUE = re.compile(
    # dates first, so their digits are not read again as numbers
    rf"(?P<iso>\b(?:19|20)\d\d-\d\d-\d\d\b)"
    rf"|(?P<mdy>\b{_MONTH_RX}\s+(?P<mdy_d>\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(?P<mdy_y>(?:19|20)\d\d))?\b)"
    rf"|(?P<dmy>\b(?P<dmy_d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dmy_m>{_MONTH_RX})(?:,?\s+(?P<dmy_y>(?:19|20)\d\d))?\b)"
    rf"|(?P<slash>\b(?P<sl_m>\d{{1,2}})/(?P<sl_d>\d{{1,2}})/(?P<sl_y>(?:19|20)\d\d)\b)"
    # amounts and percentages
    rf"|(?P<money>(?P<cur>[$€£])\s?(?P<money_n>{_NUM_RX})(?:\s?(?P<money_s>k|thousand|million|m)\b)?)"
    rf"|(?P<dollars>\b(?P<dollars_n>{_NUM_RX}|{_WORDS_RX})\s+(?P<dollars_u>dollars?|cents?|usd)\b)"
    rf"|(?P<pct>\b(?P<pct_n>{_NUM_RX}|{_WORDS_RX})\s?(?:%|percent\b|per cent\b))"
    # durations: "14 weeks", "fourteen weeks", "90-day", "a week"
    rf"|(?P<dur>\b(?P<dur_n>{_NUM_RX}|{_WORDS_RX}|an?)(?:-|\s+){_FILLER_RX}(?P<dur_u>{_UNIT_RX})\b)"
    # years, then any other number
    rf"|(?P<year>\b(?:19|20)\d\d\b)"
    rf"|(?P<num>(?<![\w.])(?:{_NUM_RX})(?![\w]|\.\d))"
    rf"|(?P<words>\b{_WORDS_RX}\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Value:
    """A number-like claim: `key` is its normal form ("$300", "50%", "2025-01-01", "--12-31", "14 week",
    "2025", "1.5"); `number` its magnitude (a date's is None)."""

    kind: str  # amount | percent | date | duration | year | number
    text: str
    key: str
    number: float | None
    start: int = 0
    end: int = 0


def _words_to_number(text: str) -> float | None:
    total, current = 0, 0
    seen = False
    for w in re.split(r"[\s-]+", text.lower()):
        if w in ("", "and"):
            continue
        if w in _SMALL:
            current += _SMALL[w]
        elif w in _TENS:
            current += _TENS[w]
        elif w == "hundred":
            current = max(current, 1) * 100
        elif w in _SCALES:
            total += max(current, 1) * _SCALES[w]
            current = 0
        else:
            return None
        seen = True
    return float(total + current) if seen else None


def _number(text: str) -> float | None:
    t = text.strip().lower()
    if t in ("a", "an"):
        return 1.0
    if re.fullmatch(_NUM_RX, t):
        return float(t.replace(",", ""))
    return _words_to_number(t)


def _fmt(n: float) -> str:
    return str(int(n)) if n == int(n) else f"{n:g}"


def _month(text: str) -> int | None:
    t = text.lower().rstrip(".")
    return _MONTHS.get(t) or _MONTH_ABBR.get(t)


def _date(y: str | None, m: int | None, d: str) -> str | None:
    day = int(d)
    if m is None or not 1 <= m <= 12 or not 1 <= day <= 31:
        return None
    return f"{y}-{m:02d}-{day:02d}" if y else f"--{m:02d}-{day:02d}"


def extract_values(text: str) -> tuple[Value, ...]:
    """Every number-like value in `text`, normalised. Handles such as [S3] and list numbering are not values."""
    text = _mask_handles(text)
    out: list[Value] = []
    for m in _VALUE.finditer(text):
        g = m.groupdict()
        kind, key, number = "number", "", None
        if g["iso"]:
            kind, key = "date", g["iso"]
        elif g["mdy"]:
            kind, key = "date", _date(g["mdy_y"], _month(m.group("mdy").split()[0]), g["mdy_d"]) or ""
        elif g["dmy"]:
            kind, key = "date", _date(g["dmy_y"], _month(g["dmy_m"]), g["dmy_d"]) or ""
        elif g["slash"]:
            kind, key = "date", _date(g["sl_y"], int(g["sl_m"]), g["sl_d"]) or ""
        elif g["money"]:
            number = _number(g["money_n"])
            scale = {"k": 1e3, "thousand": 1e3, "million": 1e6, "m": 1e6}.get((g["money_s"] or "").lower(), 1)
            if number is not None:
                number *= scale
                kind, key = "amount", f"{g['cur']}{_fmt(number)}"
        elif g["dollars"]:
            number = _number(g["dollars_n"])
            if number is not None:
                if g["dollars_u"].lower().startswith("cent"):
                    number /= 100
                kind, key = "amount", f"${_fmt(number)}"
        elif g["pct"]:
            number = _number(g["pct_n"])
            if number is not None:
                kind, key = "percent", f"{_fmt(number)}%"
        elif g["dur"]:
            if g["dur_n"].lower() in ("a", "an") and not _A_DURATION_AFTER.search(text, max(m.start() - 40, 0),
                                                                                   m.start()):
                continue
            number = _number(g["dur_n"])
            unit = _DURATION_UNITS.get(g["dur_u"].lower().split()[-1].rstrip("s"))
            if number is not None and unit:
                kind, key = "duration", f"{_fmt(number)} {unit}"
        elif g["year"]:
            kind, key, number = "year", g["year"], float(g["year"])
        elif g["num"]:
            number = _number(g["num"])
            key = _fmt(number) if number is not None else ""
        elif g["words"]:
            continue  # a bare number word is too often not a claim ("the current one", "the two sources")
        if key:
            out.append(Value(kind, m.group(0), key, number, m.start(), m.end()))
    return tuple(out)


_DAYS = {"day": 1, "week": 7}
_MONTHS_IN = {"month": 1, "year": 12}


def _in_days(v: Value) -> float | None:
    unit = v.key.split(" ", 1)[1] if v.kind == "duration" else None
    return v.number * _DAYS[unit] if unit in _DAYS and v.number is not None else None


def _in_months(v: Value) -> float | None:
    unit = v.key.split(" ", 1)[1] if v.kind == "duration" else None
    return v.number * _MONTHS_IN[unit] if unit in _MONTHS_IN and v.number is not None else None


def supported(value: Value, source_values: Iterable[Value]) -> bool:
    """Does some source value state `value`? Same normal form; or, for a bare number or year, the same
    magnitude in any form; a duration matches its equivalent ("a week" = "7 days", "a year" = "12 months");
    a date without a year matches the same day and month."""
    for s in source_values:
        if s.key == value.key:
            return True
        if value.kind in ("number", "year") and value.number is not None and s.number == value.number:
            return True
        if value.kind == "year" and s.kind == "date" and s.key.startswith(value.key + "-"):
            return True
        if value.kind == "duration" and s.kind in ("duration", "number") and value.number is not None:
            days = _in_days(value)
            if s.kind == "number" and s.number == value.number:
                return True
            if days is not None and _in_days(s) == days:
                return True
            months = _in_months(value)
            if months is not None and _in_months(s) == months:
                return True
        if value.kind == "amount" and s.kind == "number" and s.number == value.number:
            return True
        if value.kind == "date" and s.kind == "date" and value.key[-5:] == s.key[-5:] and (
                value.key.startswith("--") or s.key.startswith("--")):
            return True
    return False


def unsupported_in(sentence: str, sources: Sequence[str], *, also_given: str = "") -> tuple[Value, ...]:
    """The values of `sentence` that none of `sources` states (nor `also_given`, e.g. the question)."""
    pool = [v for s in (*sources, also_given) for v in extract_values(s)]
    return tuple(v for v in extract_values(sentence) if not supported(v, pool))


# ---------------------------------------------------------------- words

_STOP = frozenset([
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as",
    "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "cannot",
    "could", "did", "do", "does", "doing", "done", "down", "during", "each", "either", "else", "etc", "even",
    "ever", "every", "few", "for", "from", "further", "get", "gets", "got", "had", "has", "have", "having",
    "he", "her", "here", "hers", "him", "his", "how", "however", "i", "if", "in", "into", "is", "it", "its",
    "itself", "just", "least", "less", "let", "like", "may", "me", "might", "more", "most", "much", "must",
    "my", "need", "needs", "neither", "no", "nor", "not", "now", "of", "off", "on", "once", "one", "only", "or",
    "other", "our", "ours", "out", "over", "own", "per", "please", "rather", "same", "shall", "she", "should",
    "since", "so", "some", "still", "such", "than", "that", "the", "their", "theirs", "them", "then", "there",
    "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "upon", "us", "very",
    "via", "was", "we", "were", "what", "when", "where", "whether", "which", "while", "who", "whom", "whose",
    "why", "will", "with", "within", "without", "would", "yes", "yet", "you", "your", "yours", "according",
    "based", "source", "sources", "handbook", "document", "information", "provided", "states", "say", "says",
    "said", "answer", "question"
])
_WORD = re.compile(r"[a-z][a-z'-]+")


def _stem(w: str) -> str:
    w = w.strip("'-").removesuffix("'s")
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("ly", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + repl
            break
    return w[:-1] if w.endswith("e") and len(w) >= 4 else w  # "move" and "moved" both give "mov"


def content_words(text: str) -> frozenset[str]:
    """Lower-cased, lightly stemmed words that carry content (no stop words, no handles, no numbers)."""
    words = _WORD.findall(_mask_handles(text).lower())
    return frozenset(_stem(w) for w in words if w not in _STOP and len(w) > 2)


# ---------------------------------------------------------------- sentences and sources

# Generic handle-like groups in any text (sources included), so their digits are never read as values. In an
# answer, the citation validator's own scanner finds the citations (`read_sentences`); this only backs it up.
_HANDLE = re.compile(r"[\[(\u3010\uff3b\uff08]\s*([A-Za-z]{1,8}\d+(?:\s*(?:[,;/&\u3001\uff0c\uff1b]|"
                     r"[-\u2010-\u2014~])\s*(?:and\s+)?[A-Za-z]{0,8}\d+)*)\s*[\])\u3011\uff3d\uff09]")
_LIST_MARK = re.compile(r"^\s*(?:[-*+\u2022]|\d{1,2}[.)])\s+")


def _mask_handles(text: str) -> str:
    """Handles and list numbering carry digits that are not claims."""
    return _LIST_MARK.sub(" ", _HANDLE.sub(lambda m: " " * len(m.group(0)), text))


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
    sentences = _split(text, units)
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
    from .validate import scan

    cites, units = scan(answer, grammar if isinstance(grammar, Grammar) else Grammar(grammar))
    return claim_sentences(answer, cites, units)


def split_sentences(answer: str) -> list[str]:
    """Sentences and list items, exactly as the citation validator splits them (`citations.sentences`): no
    split after an abbreviation ("Dec. 31"); a citation after the full stop stays with the sentence before."""
    return [x.text for x in _split(answer)]


def handles_in(sentence: str, prefix: str = "S") -> tuple[str, ...]:
    """Handles written in a text, in order, once each: the spellings the citation validator reads as handles
    (its scanner and grammar: lists, ranges such as [S3-S4], any bracket form; nothing inside code)."""
    return tuple(dict.fromkeys(h for x in read_sentences(sentence, prefix) for h in x.written))


def sources_of(assembly: Any) -> dict[str, str]:
    """Handle -> the source as the model saw it (header and text), read back from the rendered prompt.
    Accepts an `Assembly`, its `to_dict()` or a `citations.SourceIndex`."""
    return dict(read_assembly(assembly).passages)


def _question_of(assembly: Any) -> str:
    return read_assembly(assembly).question


# ---------------------------------------------------------------- attribution


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


Embed = Callable[[str], Sequence[float]]
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


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b)) / (na * nb) if na and nb else 0.0


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
        self.vectors = {h: embed(t) for h, t in self.sources.items()} if embed is not None else {}
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
        vector = self.embed(claim) if self.embed is not None else None
        scores: dict[str, float] = {}
        for h in self.sources:
            score = sum(weight[w] for w in mine & self.words[h]) / total if total else 0.0
            if vector is not None:
                score = (score + _cosine(vector, self.vectors[h])) / 2
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


# ---------------------------------------------------------------- unsupported values


@dataclass(frozen=True)
class UnsupportedValue:
    """A value in a sentence that none of the sentence's sources states."""

    sentence: int
    value: Value
    handles: tuple[str, ...]
    written: bool
    kind: str = "unsupported_value"

    @property
    def message(self) -> str:
        where = ", ".join(self.handles)
        how = "cites" if self.written else "is attributed to"
        return (f"sentence {self.sentence + 1}: {self.value.text!r} ({self.value.kind}) is not stated in {where}, "
                f"which it {how}")

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "sentence": self.sentence, "value": self.value.text, "normal": self.value.key,
                "value_kind": self.value.kind, "handles": list(self.handles), "written": self.written,
                "message": self.message}


def unsupported_value(answer: str, assembly: Any, attributions: Sequence[Attribution] | None = None,
                      **attribute_options: Any) -> tuple[UnsupportedValue, ...]:
    """Values of cited or attributed sentences that their sources do not state. A sentence with no source
    at all is not checked here (that is `uncited`); values the question itself contains count as given."""
    index = read_assembly(assembly)
    attributions = attribute(answer, index, **attribute_options) if attributions is None else attributions
    sources = index.passages
    out: list[UnsupportedValue] = []
    for a in attributions:
        known = [sources[h] for h in a.handles if h in sources]
        if not known:
            continue
        for v in unsupported_in(_mask_handles(a.text), known, also_given=index.question):
            out.append(UnsupportedValue(a.sentence, v, a.handles, a.written))
    return tuple(out)
