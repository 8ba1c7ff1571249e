"""Neutralise untrusted text so it cannot pass for prompt structure.

Retrieved text and metadata come from users, vendors and the web. Before they enter a block we defuse what
a model or a chat template could read as structure: chat-template role markers, line-start role labels,
our own delimiters and handles, invisible and direction-changing Unicode, and control characters. Defused
text stays readable: a role marker `<|im_start|>` becomes `‹|im_start|›`, `[INST]` becomes `⁅INST⁆`, a
line-start `System:` (or `Question:`, a label of our own frame) becomes `System꞉`, a forged handle `[S9]`
becomes `{S9}`. Ordinary prose passes through unchanged. Every change is counted, per kind, for the report.

Structure is matched on a folded view of the text (NFKC + casefold), so full-width, mathematical and other
compatibility look-alikes are caught; the replacement is applied to the original span. Every defused form is
chosen to be stable under NFKC, so folding the output (as some tokenizers do) cannot bring a marker back.

Cost: the structure pattern depends only on the handle prefix and the frame labels, so it is compiled once per
configuration; the per-request boundary is found by substring search. Folding goes through `str.translate`
with a cached per-character table, and the folded-to-original index is built only when something matched.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import chain, repeat
from string import Template

# The cleanup shared with the injection scan lives with the records (a pass must not import the renderer); its
# patterns are re-exported for the tests that check neutralise against a reference.
from ..records.clean import _ANSI as _ANSI
from ..records.clean import _CONTROL as _CONTROL
from ..records.clean import _INVISIBLE as _INVISIBLE
from ..records.clean import _LINE_BREAKS as _LINE_BREAKS
from ..records.clean import _SURROGATE as _SURROGATE
from ..records.clean import _VS_RUN as _VS_RUN
from ..records.clean import REPLACEMENT_CHAR as REPLACEMENT_CHAR
from ..records.clean import clean as clean

# Matched against the folded view (NFKC + casefold). No two unbounded quantifiers may match the same run
# (`\s*/?\s*` would backtrack quadratically on a long run of spaces): a 1 MB record must stay linear.
_ROLE_MARKERS = (
    r"<\s*\|\s*[^|<>\s][^|<>\n]{0,39}?\s*\|\s*>"              # ChatML, Llama 3, Phi, DeepSeek: <|im_start|>
    r"|\[\s*(?:/\s*)?(?:inst|sys|system_prompt|available_tools|avail_tools|tool_calls|tool_results|img)\s*\]"
    r"|<<\s*(?:/\s*)?sys\s*>>"                                    # Llama 2 system block
    r"|<\s*(?:/\s*)?(?:start_of_turn|end_of_turn|start_of_image|end_of_image|s|bos|eos|pad|unk|mask|system|user"
    r"|assistant|think|tool_call|tool_response|tools)\s*>"    # Gemma, BOS/EOS, Qwen tool and reasoning tags
)
# Line-start role labels (`System:`, `### Instruction:`), OpenAI's `developer` and `tool` roles, `AI:` as in
# LangChain transcripts. Anchored at a line start (`^`, or after a newline only, for a question).
_ROLE_LABELS = ("system", "user", "assistant", "human", "model", "instruction", "instructions", "response",
                "developer", "tool", "ai")
_LABEL_LEAD = r"[ \t]*(?:#{1,6}[ \t]*)?"
# Our own block delimiters in every format: <<<…>>> (text, json), <!-- … --> (markdown), <source_…> (xml).
_DELIMITERS = r"<<<|>>>|<!--|-->|<\s*(?:/\s*)?sources?(?=[\s_>-])"
_HANDLE_OPEN = "[\\[(\u3010\u3014\u3016\u3018\u301a\u2045\u27e6]"
_HANDLE_CLOSE = "[\\])\u3011\u3015\u3017\u3019\u301b\u2046\u27e7]"
_HANDLE_CLOSE_END = re.compile(_HANDLE_CLOSE + "$")
_BRACKETS = str.maketrans({"<": "\u2039", ">": "\u203a", "[": "\u2045", "]": "\u2046"})

DEFUSED_COLON = "\ua789"  # MODIFIER LETTER COLON: reads as a colon, is not one, and NFKC keeps it


#: Entries kept in each fold cache; past this a character is worked out on every use (still correct, only
#: slower), so text that cycles through the whole code space cannot grow the caches without bound.
_FOLD_CACHE_SIZE = 65_536
# Characters NFKC changes on their own that ordinary text is full of: no-break and other spaces, `…`, `™`,
# superscripts and fractions, ligatures, full- and half-width forms (all CJK punctuation). Only a speed-up:
# any character is checked before it is replaced, and anything not listed takes the general path.
_COMMON_COMPAT = re.compile("[\u00a0\u00a8\u00aa\u00af\u00b2-\u00b5\u00b8-\u00ba\u00bc-\u00be\u2000-\u200a"
                            "\u2011\u2024-\u2026\u202f\u2033\u2034\u205f\u2122\u2160-\u217f\u2460-\u24ff"
                            "\u3000\ufb00-\ufb06\uff01-\uffee]")


class _FoldTable(dict):  # type: ignore[type-arg]
    """A `str.translate` table, code point -> NFKC + casefold of that one character, filled on first use."""

    def __missing__(self, code: int) -> str:
        folded = unicodedata.normalize("NFKC", chr(code)).casefold()
        if len(self) < _FOLD_CACHE_SIZE:
            self[code] = folded
        return folded


_FOLD = _FoldTable()
_NFKC_OF: dict[str, str] = {}


def _nfkc(char: str) -> str:
    nfkc = _NFKC_OF.get(char)
    if nfkc is None:
        nfkc = unicodedata.normalize("NFKC", char)
        if len(_NFKC_OF) < _FOLD_CACHE_SIZE:
            _NFKC_OF[char] = nfkc
    return nfkc


def _fold(text: str) -> str:
    """The view structure is matched on: NFKC + casefold applied character by character (so that a match
    maps back to an original span), computed with whole-string operations that run in C.

    Casefolding is per character and context-free, so for text in which no character is changed by NFKC on
    its own the view is a plain `casefold`; `is_normalized` tells (an NFKC-normal text holds no such
    character). Text that is not NFKC-normal usually just has a few common compatibility characters, each
    replaced by its NFKC form with one `str.replace` (those forms hold only NFKC-stable characters); only
    what remains goes through the per-character table. Tests check each of these facts over every code
    point and compare the result with a per-character reference."""
    if text.isascii():
        return text.lower()
    if not unicodedata.is_normalized("NFKC", text):
        for char in set(_COMMON_COMPAT.findall(text)):
            text = text.replace(char, _nfkc(char))
        if not unicodedata.is_normalized("NFKC", text):
            return text.translate(_FOLD)
    return text.casefold()


def _fold_index(text: str, folded: str) -> Sequence[int]:
    """Folded position -> original position. Built only once a match needs mapping back: most texts have no
    match, and most of the rest fold each character to exactly one (no character folds to nothing), which
    is the identity map."""
    if len(folded) == len(text):
        return range(len(text))
    lengths = map(len, map(_FOLD.__getitem__, map(ord, text)))
    return list(chain.from_iterable(map(repeat, range(len(text)), lengths)))


def _defuse_marker(original: str) -> str:
    """Readable, inert form of a role marker: angle brackets become single guillemets, square brackets
    quill brackets, a trailing colon a modifier colon; none of them folds back under NFKC, so no tokenizer
    maps the result to a control token."""
    folded = unicodedata.normalize("NFKC", original)
    if folded.rstrip().endswith(":"):
        return folded.rstrip()[:-1] + DEFUSED_COLON
    return folded.translate(_BRACKETS)


def _defuse_delimiter(original: str) -> str:
    return unicodedata.normalize("NFKC", original).translate(_BRACKETS)


def _defuse_handle(original: str) -> str:
    """`[S9]` -> `{S9}`: still readable as a reference, no longer parseable as one of our citations."""
    folded = unicodedata.normalize("NFKC", original)
    opened = "{" + folded[1:]
    return opened[:-1] + "}" if _HANDLE_CLOSE_END.search(opened) else opened


#: The label words of evidencepack's own frame: `Sources:` and `Question:` (user message), `Context:` (the
#: flat format), `Notice:` (the conflict notice). A record line that starts with one of them could pass for
#: the frame, so it is defused like a role label. `tests/render/test_neutralise.py` checks this list against the
#: built-in templates; callers with their own templates pass `frame_labels=template_labels(...)`.
DEFAULT_FRAME_LABELS: tuple[str, ...] = ("context", "notice", "question", "sources")

# A label as written at the start of a template line: up to four words, e.g. `Sources:` or `User question:`.
_TEMPLATE_LABEL = re.compile(r"^[ \t]*(?:#{1,6}[ \t]*)?([^\W\d_][^\W_]*(?:[ \t-]+[^\W\d_][^\W_]*){0,3})[ \t]*:",
                             re.MULTILINE)


def template_labels(*templates: str | Template) -> tuple[str, ...]:
    """The line-start labels (`Sources:`, `Question:`) of the given templates, folded, sorted, unique: what a
    record must not be able to imitate. Pass the result as `frame_labels`."""
    found: set[str] = set()
    for template in templates:
        text = template.template if isinstance(template, Template) else template
        found.update(m.group(1) for m in _TEMPLATE_LABEL.finditer(text))
    return _normalise_labels(tuple(found))


def _normalise_labels(labels: tuple[str, ...]) -> tuple[str, ...]:
    words = {" ".join(unicodedata.normalize("NFKC", label).casefold().split()) for label in labels}
    return tuple(sorted(words - {""}))


def _pattern(prefix: str, labels: Iterable[str], first_line: bool) -> re.Pattern[str]:
    from .formats import delimiter_pattern, delimiter_starts  # the registry: every format's delimiters

    return _structure_pattern(prefix, labels if isinstance(labels, tuple) else tuple(labels), first_line,
                              delimiter_pattern(), delimiter_starts())


@lru_cache(maxsize=64)
def _structure_pattern(prefix: str, labels: tuple[str, ...], first_line: bool, delimiters: str = _DELIMITERS,
                       starts: str = "<>-") -> re.Pattern[str]:
    """One alternation over everything that could pass for structure, so the text is folded once. Keyed on
    the handle prefix, the frame labels and the registered formats' delimiters only, so it is compiled once
    per configuration, never per request; the boundary, which changes per request, is found by plain
    substring search instead."""
    pattern = _compile(prefix, _normalise_labels(labels), first_line, delimiters)
    _TRIGGERS[pattern] = re.compile("[" + re.escape(starts) + f"\n{_HANDLE_OPEN[1:-1]}]")
    return pattern


@lru_cache(maxsize=64)
def _compile(prefix: str, words: tuple[str, ...], first_line: bool, delimiters: str = _DELIMITERS
             ) -> re.Pattern[str]:
    start = "^" if first_line else r"(?<=\n)"  # a question's first line follows `Question: `, not a line start
    p = re.escape(prefix.casefold())
    handle = (rf"{_HANDLE_OPEN}\s*(?:[\^/#@]\s*)?{p}\s*\d+(?:\s*[,;\-\u2013]\s*(?:{p}\s*)?\d+)*"
              rf"(?:\s*{_HANDLE_CLOSE})?")
    parts = [f"(?P<role_marker>{_ROLE_MARKERS}|{start}{_LABEL_LEAD}(?:{'|'.join(_ROLE_LABELS)})[ \\t]*:)"]
    if words:
        alternatives = "|".join(r"[ \t]+".join(map(re.escape, w.split())) for w in words)
        parts.append(f"(?P<frame_label>{start}{_LABEL_LEAD}(?:{alternatives})[ \\t]*:)")
    parts += [f"(?P<delimiter>{delimiters})", f"(?P<handle>{handle})"]
    return re.compile("|".join(parts), re.MULTILINE)


# Where a structure match can start, in the folded view: the first character of every alternative above
# (`<` `>` `-` and the opening brackets), or just after a newline (line-start labels). Scanning for these
# with a plain character class runs at C speed; the full alternation is then tried only there.
_TRIGGER = re.compile(f"[<>\\-\n{_HANDLE_OPEN[1:-1]}]")
_TRIGGERS: dict[re.Pattern[str], re.Pattern[str]] = {}  # per pattern: also where registered delimiters start


def _search(pattern: re.Pattern[str], folded: str, pos: int) -> re.Match[str] | None:
    """`pattern.search(folded, pos)`, trying the pattern only at `pos` and where a match can start."""
    m = pattern.match(folded, pos)
    if m is not None:
        return m
    for t in _TRIGGERS.get(pattern, _TRIGGER).finditer(folded, pos):
        m = pattern.match(folded, t.end() if folded[t.start()] == "\n" else t.start())
        if m is not None:
            return m
    return None


_DEFUSE: dict[str, Callable[[str], str]] = {
    "role_marker": _defuse_marker,
    "frame_label": _defuse_marker,
    "boundary": lambda _: "\u2039boundary\u203a",
    "delimiter": _defuse_delimiter,
    "handle": _defuse_handle,
}
#: Kinds that win over the boundary when both start at the same position (the order of the alternation
#: the boundary used to be compiled into).
_BEFORE_BOUNDARY = frozenset(("role_marker", "frame_label"))

Span = tuple[int, int, str]


def _spans(pattern: re.Pattern[str], folded: str, needle: str) -> Iterator[Span]:
    """Matches in the folded text, leftmost first, as if `needle` (the folded boundary) were an alternative
    of `pattern` placed after the role markers and frame labels; found with `str.find`, not a regex."""
    pos = 0
    if not needle or needle not in folded:
        while (m := _search(pattern, folded, pos)) is not None:
            yield m.start(), m.end(), m.lastgroup or "role_marker"
            pos = max(m.end(), m.start() + 1)
        return
    while True:
        m = _search(pattern, folded, pos)
        b = folded.find(needle, pos)
        if b >= 0 and (m is None or b < m.start() or (b == m.start() and m.lastgroup not in _BEFORE_BOUNDARY)):
            yield b, b + len(needle), "boundary"
            pos = b + len(needle)
        elif m is not None:
            yield m.start(), m.end(), m.lastgroup or "role_marker"
            pos = max(m.end(), m.start() + 1)
        else:
            return


def _literal_spans(folded: str, needle: str) -> Iterator[Span]:
    pos = folded.find(needle)
    while pos >= 0:
        yield pos, pos + len(needle), "boundary"
        pos = folded.find(needle, pos + len(needle))


def _rewrite(text: str, folded: str, spans: Iterable[Span], tally: Counter[str]) -> str:
    """Replace each span (found in the folded view) on the original text with its defused form."""
    index: Sequence[int] | None = None
    parts: list[str] = []
    last = 0
    for fstart, fend, kind in spans:
        if fend == fstart:
            continue
        if index is None:
            index = _fold_index(text, folded)
        start, end = index[fstart], index[fend - 1] + 1
        if start < last:
            continue
        parts.append(text[last:start])
        parts.append(_DEFUSE[kind](text[start:end]))
        tally[kind] += 1
        last = end
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)


def _defuse(text: str, pattern: re.Pattern[str], boundary: str, tally: Counter[str]) -> str:
    folded = _fold(text)
    needle = boundary.casefold()
    out = _rewrite(text, folded, _spans(pattern, folded, needle), tally)
    if needle and out is not text and needle in (folded_out := _fold(out)):
        # The boundary survived inside another defused span (e.g. `<|ep…|>` read as a role marker): the
        # code itself must never reach a block, so defuse what is left of it too.
        out = _rewrite(out, folded_out, _literal_spans(folded_out, needle), tally)
    return out


def contains_boundary(text: str, boundary: str) -> bool:
    """Whether `boundary` occurs in `text` in the view neutralise matches on (NFKC + casefold): the cheap
    check after boundary-free neutralisation, so that only a text that holds the code pays for a re-run."""
    return bool(boundary) and boundary.casefold() in _fold(text)

def neutralise(text: str, *, boundary: str = "", handle_prefix: str = "S", counts: Counter[str] | None = None,
               frame_labels: Iterable[str] = DEFAULT_FRAME_LABELS) -> str:
    """Return `text` cleaned and defused; add what was changed, per kind, to `counts` when given.

    `frame_labels` are the line-start labels of the frame around the blocks (see `template_labels`); the
    compiled pattern is cached per (handle_prefix, frame_labels), and `boundary` needs no compilation."""
    tally: Counter[str] = Counter() if counts is None else counts
    return _defuse(clean(text, counts=tally), _pattern(handle_prefix, frame_labels, True), boundary, tally)


def neutralise_question(question: str, *, boundary: str = "", handle_prefix: str = "S",
                        frame_labels: Iterable[str] = DEFAULT_FRAME_LABELS, starts_line: bool = False,
                        counts: Counter[str] | None = None) -> str:
    """Neutralise an end user's question as record text is: role markers, our delimiters and boundary,
    handle look-alikes, line-start role and frame labels, invisible and control characters. An ordinary
    question comes back byte-identical.

    The question's first line follows `Question: ` in the built-in frame, so it is not a line start and a
    leading `Context:` is left alone; pass `starts_line=True` for a template that puts `$question` at the
    start of a line."""
    tally: Counter[str] = Counter() if counts is None else counts
    pattern = _pattern(handle_prefix, frame_labels, starts_line)
    return _defuse(clean(question, counts=tally), pattern, boundary, tally)

def replace_surrogates(value: str) -> str:
    """Lone surrogates become U+FFFD, so a value that reaches JSON output is always encodable as UTF-8."""
    return value if value.isascii() else _SURROGATE.sub(REPLACEMENT_CHAR, value)


_SAFE_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def safe_label(value: str | None) -> str | None:
    """`value` when it is a short ASCII slug (`pto-carryover`), else None: the only record-supplied text
    that may appear outside a delimited block (e.g. a topic in the conflict notice)."""
    return value if value is not None and _SAFE_LABEL.fullmatch(value) else None


def neutralise_value(value: str, *, boundary: str = "", handle_prefix: str = "S", max_chars: int = 160,
                     counts: Counter[str] | None = None, frame_labels: Iterable[str] = DEFAULT_FRAME_LABELS) -> str:
    """A metadata value for a header: neutralised, single-line, whitespace-collapsed, length-capped."""
    tally: Counter[str] = Counter() if counts is None else counts
    text = neutralise(value, boundary=boundary, handle_prefix=handle_prefix, counts=tally, frame_labels=frame_labels)
    flat = " ".join(text.split())
    if flat != text.strip():
        tally["newline_in_metadata"] += text.count("\n")
    if len(flat) > max_chars:
        tally["truncated_metadata"] += 1
        flat = flat[: max_chars - 1].rstrip() + "\u2026"
    return flat
