"""A deterministic check that a regex runs in linear time, used instead of wall-clock ratios in unit tests.

Python's `re` backtracks, so a pattern is super-linear in two ways, and this module finds both in the
parsed pattern:

- **ambiguous runs**: two unbounded repeats that can match the same characters with nothing but optional
  items between them (`\\s*/?\\s*`), or an unbounded repeat of something that can match empty (`(a*)*`):
  one start position then tries every way of splitting a run, quadratic or worse;
- **restart scans**: an unbounded repeat that can consume the character a match starts with
  (`<img[^>]*src` on `<img <img <img ...`): every start position re-scans the same run, quadratic over the
  text. A repeat that cannot cross the next start (`<\\s*` stops at the next `<`) scans each character once.

Sets of characters are compared on a probe alphabet (Latin-1, general punctuation, CJK punctuation,
full-width forms), enough for the classes these patterns use. Bounded repeats (`{0,40}`) are allowed: they
cost a constant factor. The check is conservative about what it cannot read (it reports it).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import Any

if sys.version_info >= (3, 11):
    from re import _constants as C  # noqa: N812
    from re import _parser as P  # noqa: N812
else:  # pragma: no cover
    import sre_constants as C  # noqa: N812
    import sre_parse as P  # noqa: N812

PROBES = frozenset(map(chr, [*range(0x250), *range(0x2000, 0x2070), *range(0x3000, 0x3020), *range(0xFF00, 0xFF70),
                             0x2045, 0x2046, 0x27E6, 0x27E7, 0xFE0F, 0x1F600]))
LINE_START = "\n"  # `^` and `(?<=\n)` are treated as "starts after a newline"
_SINGLE = (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN)


def _category(cat: Any, ch: str) -> bool:
    name = str(cat).replace("UNI_", "")
    if name.endswith("LINEBREAK"):
        base = ch == "\n"
    elif "DIGIT" in name:
        base = ch.isdecimal()
    elif "SPACE" in name:
        base = ch.isspace()
    elif "WORD" in name:
        base = ch.isalnum() or ch == "_"
    else:
        raise ValueError(f"unknown category {cat}")
    return base != ("NOT_" in name)


def _in(items: list[tuple[Any, Any]], ch: str) -> bool:
    negate = False
    hit = False
    for op, av in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            hit = hit or ord(ch) == av
        elif op is C.RANGE:
            hit = hit or av[0] <= ord(ch) <= av[1]
        elif op is C.CATEGORY:
            hit = hit or _category(av, ch)
        else:
            raise ValueError(f"unsupported class item {op}")
    return hit != negate


def _single(op: Any, av: Any, flags: int) -> frozenset[str]:
    def test(ch: str) -> bool:
        if op is C.LITERAL:
            return ord(ch) == av
        if op is C.NOT_LITERAL:
            return ord(ch) != av
        if op is C.ANY:
            return bool(flags & re.DOTALL) or ch != "\n"
        return _in(av, ch)

    if flags & re.IGNORECASE:
        return frozenset(ch for ch in PROBES if any(len(c) == 1 and test(c) for c in (ch, ch.lower(), ch.upper())))
    return frozenset(ch for ch in PROBES if test(ch))


_REPEATS = tuple(op for op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)) if op)
_ANCHORS = (C.AT_BEGINNING, C.AT_BEGINNING_LINE)


class _Walker:
    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.flags = pattern.flags
        self.tree = P.parse(pattern.pattern, pattern.flags)
        self.problems: list[str] = []
        self.cache: dict[tuple[str, str], frozenset[str]] = {}

    def chars(self, op: Any, av: Any) -> frozenset[str]:
        key = (str(op), str(av))
        if key not in self.cache:
            self.cache[key] = _single(op, av, self.flags)
        return self.cache[key]

    def consumable(self, seq: Any) -> frozenset[str]:
        """Every character the sequence could consume."""
        out: set[str] = set()
        for op, av in seq:
            out |= self.chars(op, av) if op in _SINGLE else set().union(*map(self.consumable, _children(op, av)))
        return frozenset(out)

    def first(self, seq: Any) -> tuple[frozenset[str], bool]:
        """(characters a match of the sequence can start with, whether it can match empty)."""
        out: set[str] = set()
        for op, av in seq:
            if op in _SINGLE:
                return frozenset(out | self.chars(op, av)), False
            if op is C.AT or op in (C.ASSERT, C.ASSERT_NOT):
                continue  # zero-width
            if op in _REPEATS:
                chars, nullable = self.first(av[2])
                out |= chars
                if av[0] > 0 and not nullable:
                    return frozenset(out), False
                continue
            alts = _children(op, av)
            if not alts:
                raise ValueError(f"unsupported op {op}")
            nullable = False
            for alt in alts:
                chars, alt_nullable = self.first(alt)
                out |= chars
                nullable = nullable or alt_nullable
            if not nullable:
                return frozenset(out), False
        return frozenset(out), True

    # -- restart scans: an unbounded repeat must not be able to run over the start of another match -------
    def restarts(self, seq: Any, prefix: tuple[frozenset[str], ...], after: list[Any]) -> None:
        """A failed match restarts one position later; that is only linear overall if no unbounded repeat
        can run over the start of another match and then fail. A repeat is safe when a character every
        match needs before it lies outside it, or when nothing after it can fail."""
        items = list(seq)
        for i, (op, av) in enumerate(items):
            before = prefix + tuple(self.required(items[:i]))
            rest = items[i + 1:] + after
            if op in _REPEATS and av[1] == C.MAXREPEAT:
                body = self.consumable(av[2])
                if all(part & body for part in before) and not self.first(rest)[1]:
                    self.problems.append(f"restart scan: an unbounded repeat over {_show(body)} can run over the "
                                         "start of the next match, then fail")
                if self.first(av[2])[1]:
                    self.problems.append("unbounded repeat of something that can match empty")
            for child in _children(op, av):
                self.restarts(child, before, rest)

    def required(self, items: list[Any]) -> Iterator[frozenset[str]]:
        """Sets of characters of which every match of `items` must consume one, plus a newline for a line-start
        anchor (`^`, a newline lookbehind) and the empty set for a string-start anchor (one start only)."""
        for op, av in items:
            if op in _SINGLE:
                yield self.chars(op, av)
            elif op is C.AT and av in _ANCHORS:
                yield frozenset() if av is C.AT_BEGINNING and not self.flags & re.MULTILINE else frozenset("\n")
            elif op is C.AT and av is C.AT_BEGINNING_STRING:
                yield frozenset()
            elif op is C.ASSERT and av[0] < 0:
                yield self.consumable(av[1])
            elif op in _REPEATS and av[0] > 0:
                yield from self.required(list(av[2]))
            elif op is C.SUBPATTERN or op is C.BRANCH:
                chars, nullable = self.first([(op, av)])
                if not nullable:
                    yield chars  # one of these is consumed

    # -- ambiguous runs: two unbounded repeats that can share a run ------------------------------------------
    def ambiguity(self, seq: Any, after: list[Any]) -> None:
        items = list(seq)
        for i, (op, av) in enumerate(items):
            rest = items[i + 1:] + after
            if op in _REPEATS and av[1] == C.MAXREPEAT:
                body = list(av[2])
                if len(body) == 1 and body[0][0] in _SINGLE:  # a run of one class: what may continue it?
                    self.follow(self.consumable(body), rest)
                self.ambiguity(body, body + rest)  # the next iteration follows the last
            else:
                for child in _children(op, av):
                    self.ambiguity(child, rest)

    def follow(self, run: frozenset[str], rest: list[Any]) -> bool:
        """Walk what can follow a repeat over `run`; report an unbounded repeat that can continue the run.
        True when a required item outside `run` stops the walk."""
        for op, av in rest:
            if op in _SINGLE:
                if not self.chars(op, av) & run:
                    return True
            elif op is C.AT or op in (C.ASSERT, C.ASSERT_NOT):
                continue
            elif op in _REPEATS:
                if av[1] == C.MAXREPEAT and self.first(av[2])[0] & run:
                    self.problems.append(f"ambiguous run: two unbounded repeats can share {_show(run)}")
                    return True
                if self.follow(run, list(av[2])) and av[0] > 0:
                    return True
            else:
                alts = _children(op, av)
                stops = [self.follow(run, list(alt)) for alt in alts]
                if alts and all(stops):
                    return True
        return False

    def check(self) -> list[str]:
        self.restarts(self.tree, (), [])
        self.ambiguity(self.tree, [])
        return sorted(set(self.problems))


def _children(op: Any, av: Any) -> list[Any]:
    if op in _REPEATS:
        return [av[2]]
    if op is C.SUBPATTERN:
        return [av[-1]]
    if op is C.BRANCH:
        return list(av[1])
    if op is getattr(C, "ATOMIC_GROUP", None):
        return [av]
    return []  # single characters, anchors, lookarounds (zero-width)


def _show(chars: frozenset[str]) -> str:
    return repr("".join(sorted(chars))[:12])


def linear_time_problems(pattern: re.Pattern[str] | str, flags: int = 0) -> list[str]:
    """Why `pattern` may run in super-linear time on some input (empty when it cannot, by these rules)."""
    compiled = re.compile(pattern, flags) if isinstance(pattern, str) else pattern
    return _Walker(compiled).check()
