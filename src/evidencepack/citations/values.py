"""Values in text: every number, date, duration, amount or percentage, in a normal form, and whether a set of
sources states them. The one unsupported-value check (`unsupported_among`) lives here; the validator
(`unsupported_value` findings) and `attribution.unsupported_value` both use it.

Values are compared in a normal form, so "fourteen weeks" matches "14 weeks", "every 90 days" matches a
"90-day" rule, "$1,500" matches "1500 dollars" and "Jan. 1, 2025" matches "2025-01-01". Handle-like groups
(`handles.HANDLE_LIKE`) and a leading list marker (`markdown.BULLET`) carry digits that are not claims.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .handles import HANDLE_LIKE
from .markdown import strip_bullet
from .model import shorten

__all__ = ["UnsupportedValue", "Value", "claimed_values", "extract_values", "mask_handles", "retracted_spans",
           "supported", "unsupported_among", "unsupported_in", "unsupported_message", "values_of"]

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
    text = mask_handles(text)
    out: list[Value] = []
    for m in _VALUE.finditer(text):
        kind, key, number = _read_value(m, text)
        if key:
            out.append(Value(kind, m.group(0), key, number, m.start(), m.end()))
    return tuple(out)


_Read = tuple[str, str, float | None]  # (kind, key, number); an empty key is not a value
_SCALE = {"k": 1e3, "thousand": 1e3, "million": 1e6, "m": 1e6}


def _read_value(m: re.Match[str], text: str) -> _Read:
    """One match of `_VALUE` in its normal form."""
    g = m.groupdict()
    if g["iso"] or g["mdy"] or g["dmy"] or g["slash"]:
        return "date", _date_key(m), None
    if g["money"] or g["dollars"] or g["pct"]:
        return _amount(g)
    if g["dur"]:
        return _duration(m, text)
    if g["year"]:
        return "year", g["year"], float(g["year"])
    if g["num"]:
        number = _number(g["num"])
        return "number", _fmt(number) if number is not None else "", number
    return "number", "", None  # a bare number word is too often not a claim ("the current one", "the two sources")


def _date_key(m: re.Match[str]) -> str:
    g = m.groupdict()
    if g["iso"]:
        return g["iso"]
    if g["mdy"]:
        return _date(g["mdy_y"], _month(m.group("mdy").split()[0]), g["mdy_d"]) or ""
    if g["dmy"]:
        return _date(g["dmy_y"], _month(g["dmy_m"]), g["dmy_d"]) or ""
    return _date(g["sl_y"], int(g["sl_m"]), g["sl_d"]) or ""


def _amount(g: dict[str, Any]) -> _Read:
    """Money ("$1.5k"), dollars and cents in words, and percentages."""
    if g["money"]:
        number = _number(g["money_n"])
        if number is None:
            return "number", "", None
        number *= _SCALE.get((g["money_s"] or "").lower(), 1)
        return "amount", f"{g['cur']}{_fmt(number)}", number
    if g["dollars"]:
        number = _number(g["dollars_n"])
        if number is None:
            return "number", "", None
        if g["dollars_u"].lower().startswith("cent"):
            number /= 100
        return "amount", f"${_fmt(number)}", number
    number = _number(g["pct_n"])
    return ("percent", f"{_fmt(number)}%", number) if number is not None else ("number", "", None)


def _duration(m: re.Match[str], text: str) -> _Read:
    """"14 weeks", "fourteen weeks", "90-day"; "a week" only where it is a duration, not a rate."""
    g = m.groupdict()
    if g["dur_n"].lower() in ("a", "an") and not _A_DURATION_AFTER.search(text, max(m.start() - 40, 0), m.start()):
        return "number", "", None
    number = _number(g["dur_n"])
    unit = _DURATION_UNITS.get(g["dur_u"].lower().split()[-1].rstrip("s"))
    if number is None or not unit:
        return "number", "", number
    return "duration", f"{_fmt(number)} {unit}", number


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
    return any(s.key == value.key or _states(s, value) for s in source_values)


def _states(s: Value, value: Value) -> bool:
    """Does source value `s` state `value` in another form?"""
    if value.kind in ("number", "year") and value.number is not None and s.number == value.number:
        return True
    if value.kind == "year":
        return s.kind == "date" and s.key.startswith(value.key + "-")
    if value.kind == "duration":
        return value.number is not None and _same_duration(s, value)
    if value.kind == "amount":
        return s.kind == "number" and s.number == value.number
    if value.kind == "date":
        return s.kind == "date" and value.key[-5:] == s.key[-5:] and (
            value.key.startswith("--") or s.key.startswith("--"))
    return False


def _same_duration(s: Value, value: Value) -> bool:
    """A bare number of the same magnitude, or a duration of the same length in days or in months."""
    if s.kind == "number":
        return s.number == value.number
    if s.kind != "duration":
        return False
    days = _in_days(value)
    if days is not None and _in_days(s) == days:
        return True
    months = _in_months(value)
    return months is not None and _in_months(s) == months


# A rule named only to say it is gone: "The old 90-day rotation no longer applies." The values between the
# marker of an old rule and the clause's retraction, in one clause, are not the sentence's claims (issue 25).
_OLD_RULE = re.compile(r"\b(?:old|previous|former|earlier|prior|legacy|outdated|superseded|expired)\b", re.IGNORECASE)
_RETRACTED = re.compile(
    r"\b(?:no longer (?:applies|apply|holds|hold|stands|is in effect|are in effect|is required|are required|"
    r"is valid|are valid|exists|exist)|(?:does|do) not apply|(?:has|have|had) been (?:replaced|retired|removed|"
    r"dropped|superseded|rescinded|withdrawn|abolished)|(?:was|were) (?:replaced|retired|removed|dropped|"
    r"superseded|rescinded|withdrawn|abolished)|(?:is|are) (?:obsolete|void|gone))\b", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"[;:!?\n]|\.\s|\b(?:but|while|whereas|and now|now)\b", re.IGNORECASE)
_RETRACTION_REACH = 80  # characters from the old-rule marker to its retraction


def retracted_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each stretch "old … no longer applies" in one clause of `text`: from the old-rule marker
    to the retraction. A value inside one names the rule that is gone; it does not state it."""
    spans: list[tuple[int, int]] = []
    for m in _OLD_RULE.finditer(text):
        r = _RETRACTED.search(text, m.end(), m.end() + _RETRACTION_REACH)
        if r is not None and not _CLAUSE_BREAK.search(text, m.end(), r.start()):
            spans.append((m.start(), r.start()))
    return spans


def claimed_values(text: str) -> tuple[Value, ...]:
    """The values `text` claims: `extract_values`, without those that name a rule the text says is gone
    (`retracted_spans`)."""
    found = extract_values(text)
    spans = retracted_spans(text) if found else []
    return tuple(v for v in found if not any(a <= v.start and v.end <= b for a, b in spans))


def unsupported_among(values: Iterable[Value], pool: Sequence[Value]) -> tuple[Value, ...]:
    """The one unsupported-value check: the `values` that no value of `pool` (the sources' and the
    question's) states."""
    return tuple(v for v in values if not supported(v, pool))


def unsupported_in(sentence: str, sources: Sequence[str], *, also_given: str = "") -> tuple[Value, ...]:
    """The values `sentence` claims (`claimed_values`) that none of `sources` states (nor `also_given`, e.g. the
    question)."""
    pool = [v for s in (*sources, also_given) for v in values_of(s)]
    return unsupported_among(claimed_values(sentence), pool)


@lru_cache(maxsize=4096)
def values_of(passage: str) -> tuple[Value, ...]:
    """A source's values. Cached by text: every validation against the same prompt (a retry, a stream's
    close, the next answer) reads the same passages, and `stale_value` reads all of them."""
    return extract_values(passage)


def mask_handles(text: str) -> str:
    """Handles and list numbering carry digits that are not claims."""
    return strip_bullet(HANDLE_LIKE.sub(lambda m: " " * len(m.group(0)), text), " ")


def unsupported_message(sentence: int, value: Value, handles: Sequence[str], written: bool) -> str:
    """The one wording of an unsupported value, for the validator's finding and `UnsupportedValue` alike."""
    which = "which it cites" if written else "to which it is attributed (it cites nothing)"
    return (f"sentence {sentence + 1}: {shorten(value.text, 40)!r} ({value.kind}) is not stated in "
            f"{', '.join(handles)}, {which}")


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
        return unsupported_message(self.sentence, self.value, self.handles, self.written)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "sentence": self.sentence, "value": self.value.text, "normal": self.value.key,
                "value_kind": self.value.kind, "handles": list(self.handles), "written": self.written,
                "message": self.message}
