"""Handle grammar: which bracketed text in an answer is a citation, and of what.

A citation is a bracket group (`[...]`, `(...)`, `【...】`, `［...］`, `（...）`, any opener with any closer)
on one line. Its inside is one of:

- a list of handles, `S1`, `S1, S3`, `S1; S2`, `S2-S4`, `S2–4` (a range of at most 51 handles expands; a
  longer or reversed one counts as its two ends);
- a record id, `[hb-2025]` or `[id: hb-2025]`, square brackets only. Record ids are *not* citations: they
  are reported (`record_id`, or `excluded_source` for a dropped record) and support nothing, so a record
  whose text says "per [hb-2025]" cannot re-point a claim to another record;
- anything else, which is prose.

A handle counts only when spelled exactly as the manifest spells it: the assembly's ASCII prefix in its case,
then ASCII digits without a leading zero. Spellings a reader would take for a handle but that are not one
(`[s1]`, `[S01]`, `[S١]`, `[S１]`, `[ſ1]`, `[Ｓ1]`) are `lookalike` citations: they resolve to nothing and are
reported as `unknown_handle`. Digits are compared as text, so a handle with any number of digits is just
an unknown handle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

OPENERS = "[(\u3010\uff3b\uff08"
CLOSERS = "])\u3011\uff3d\uff09"
ID_OPENERS = "[\u3010\uff3b"  # a record id in parentheses is ordinary prose ("(a)", "(2025)")
MAX_RANGE = 50
_SPACE = r"[ \t\u00a0\u3000]*"
_DASH = r"[-\u2010\u2011\u2012\u2013\u2014~]"
_SEP_CHARS = ",;\u3001\uff0c\uff1b"
_SEP = f"[{_SEP_CHARS}]"


@dataclass(frozen=True)
class Cite:
    """One cited item as found in the answer."""

    written: str  # the item as written (one member of a group, or the record id)
    handle: str | None  # the manifest-style handle when `written` is spelled as one
    form: str  # handle | lookalike | record_id
    start: int  # the whole bracket group
    end: int


def _item(p: str, capture: bool) -> str:
    a, bp, bd = ("(?P<a>", "(?P<bp>", "(?P<bd>") if capture else ("(?:",) * 3
    return rf"{a}{p}{_SPACE}\d+)(?:{_SPACE}{_DASH}{_SPACE}{bp}{p}{_SPACE})?{bd}\d+))?"


@lru_cache(maxsize=64)
def _patterns(prefix: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(group, item, canonical) for a prefix. The group and item patterns accept look-alike spellings of the
    prefix (any case, full-width letters, and what `re.IGNORECASE` folds to it, such as `ſ`) and any Unicode
    decimal digits, so that they can be reported; `canonical` says which spellings are handles."""
    p = "(?:" + "".join(
        "[" + re.escape(c.lower() + c.upper() + chr(ord(c.lower()) + 0xFEE0) + chr(ord(c.upper()) + 0xFEE0)) + "]"
        for c in prefix) + ")"
    bare = _item(p, capture=False)
    group = rf"{_SPACE}{bare}(?:{_SPACE}{_SEP}{_SPACE}{bare})*{_SPACE}"
    return (re.compile(group, re.IGNORECASE), re.compile(_item(p, capture=True), re.IGNORECASE),
            handle_pattern(prefix))


@lru_cache(maxsize=64)
def handle_pattern(prefix: str, max_digits: int | None = None) -> re.Pattern[str]:
    """A handle as the manifest spells it: `prefix`, then ASCII digits without a leading zero (at most
    `max_digits` of them; the assembly reader caps a manifest's handles, a citation's are compared as text)."""
    more = "*" if max_digits is None else f"{{0,{max_digits - 1}}}"
    return re.compile(re.escape(prefix) + r"[1-9][0-9]" + more)


#: Any handle-like group whatever its prefix (one to eight ASCII letters, then digits; lists and ranges), in
#: any text, sources included. Not a citation rule (that is `Grammar`): value extraction blanks these so a
#: citation's digits are never read as a number.
HANDLE_LIKE = re.compile(
    rf"[{re.escape(OPENERS)}]\s*[A-Za-z]{{1,8}}\d+(?:\s*(?:[{_SEP_CHARS}/&]|{_DASH})\s*(?:and\s+)?[A-Za-z]{{0,8}}\d+)*"
    rf"\s*[{re.escape(CLOSERS)}]")


@dataclass(frozen=True)
class Grammar:
    """The citation grammar of one assembly: its handle prefix and the record ids it knows."""

    prefix: str = "S"
    ids: frozenset[str] = frozenset()

    def classify(self, start: int, group: str) -> list[Cite]:
        """The items of one bracket group `group` (brackets included) found at `start`; [] for prose."""
        end = start + len(group)
        inner = group[1:-1]
        full, item, canonical = _patterns(self.prefix)
        if full.fullmatch(inner):
            cites: list[Cite] = []
            for m in item.finditer(inner):
                first, digits = m["a"], m["bd"]
                if digits is None:
                    cites.append(self._cite(first, canonical, start, end))
                    continue
                last = (m["bp"] or _NON_DIGITS.match(first).group()) + digits  # type: ignore[union-attr]
                if canonical.fullmatch(first) and canonical.fullmatch(last) and len(first) + len(last) < 16:
                    low, high = int(first[len(self.prefix):]), int(last[len(self.prefix):])
                    if 0 <= high - low <= MAX_RANGE:
                        cites += [Cite(f"{self.prefix}{n}", f"{self.prefix}{n}", "handle", start, end)
                                  for n in range(low, high + 1)]
                        continue
                cites += [self._cite(first, canonical, start, end), self._cite(last, canonical, start, end)]
            return cites
        if group[0] in ID_OPENERS and self.ids:
            name = inner.strip()
            if name.startswith("id:"):
                name = name[3:].lstrip()
            if name in self.ids:
                return [Cite(name, None, "record_id", start, end)]
        return []

    @staticmethod
    def _cite(written: str, canonical: re.Pattern[str], start: int, end: int) -> Cite:
        if canonical.fullmatch(written):
            return Cite(written, written, "handle", start, end)
        return Cite(written, None, "lookalike", start, end)


_NON_DIGITS = re.compile(r"\D*")
