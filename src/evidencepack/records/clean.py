"""Clean untrusted text: remove what no reader should receive (lone surrogates, controls, ANSI escapes,
invisible and direction-changing characters, odd line breaks). Shared by the injection scan (`passes.scan`)
and the neutraliser (`render.neutralise`), which defuses structure on top of it; kept here so that no pass
depends on the renderer.
"""

from __future__ import annotations

import re
from collections import Counter

# Invisible or direction-changing code points: zero-width, bidi controls, tag characters, soft hyphen,
# invisible operators, deprecated format controls, interlinear annotation, fillers, variation selectors of
# the supplement block (used to smuggle bytes), combining grapheme joiner.
_INVISIBLE_BMP = ("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
                  "\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb")
_INVISIBLE_ASTRAL = "\U0001d173-\U0001d17a\U000e0000-\U000e007f\U000e0100-\U000e01ef"
_INVISIBLE = re.compile(f"[{_INVISIBLE_BMP}{_INVISIBLE_ASTRAL}]")
# Runs of basic variation selectors: one after a character is ordinary (emoji style), a run is a payload.
_VS_RUN = re.compile("[\ufe00-\ufe0f]{2,}")
_LINE_BREAKS = re.compile("\r\n|[\r\u2028\u2029\u0085\u000b\u000c]")
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# What the substitutions in `clean` act on, split so each scan runs at C speed (`re` checks a class that mixes
# BMP and astral ranges range by range): most text has none of it, and three cheap checks beat six
# substitutions. Variation selectors are looked for with `in` (one after an emoji is ordinary).
_CLEAN_BMP = re.compile(f"[{_INVISIBLE_BMP}\ud800-\udfff\r\u2028\u2029\u0085\u000b\u000c\x1b"
                        "\x00-\x08\x0e-\x1f\x7f-\x9f]")
_CLEAN_ASTRAL = re.compile(f"[{_INVISIBLE_ASTRAL}]")
_VARIATION_SELECTORS = tuple(map(chr, range(0xFE00, 0xFE10)))

REPLACEMENT_CHAR = "\ufffd"


def _needs_cleaning(text: str) -> bool:
    if _CLEAN_BMP.search(text):
        return True
    if text.isascii():
        return False
    astral = len(text.encode("utf-16-le", "surrogatepass")) != 2 * len(text)  # C-speed test for astral chars
    return astral and _CLEAN_ASTRAL.search(text) is not None


def clean(text: str, *, counts: Counter[str] | None = None) -> str:
    """Remove what no reader should receive: lone surrogates (they cannot be encoded as UTF-8), control
    characters and ANSI escapes (terminal tricks), invisible and direction-changing characters (hidden or
    reordered text), and odd line breaks (normalised to `\\n`). Does not defuse structure."""
    tally: Counter[str] = Counter() if counts is None else counts

    def sub(pattern: re.Pattern[str], repl: str, kind: str, s: str) -> str:
        new, n = pattern.subn(repl, s)
        if n:
            tally[kind] += n
        return new

    if not _needs_cleaning(text):  # then every substitution but the last is a no-op
        if text.isascii() or not any(vs in text for vs in _VARIATION_SELECTORS):
            return text
        return sub(_VS_RUN, "", "invisible", text)
    ascii_only = text.isascii()
    if not ascii_only:
        text = sub(_SURROGATE, REPLACEMENT_CHAR, "surrogate", text)
    text = sub(_LINE_BREAKS, "\n", "line_break", text)
    text = sub(_ANSI, "", "ansi_escape", text)
    text = sub(_CONTROL, "", "control", text)
    if not ascii_only:
        text = sub(_INVISIBLE, "", "invisible", text)
        text = sub(_VS_RUN, "", "invisible", text)
    return text
