"""Neutralise untrusted text so it cannot pass for prompt structure.

Retrieved text and metadata come from users, vendors and the web. Before they enter a block we defuse what
a model or a chat template could read as structure: chat-template role markers, line-start role labels,
our own delimiters and handles, invisible and direction-changing Unicode, and control characters. Defused
text stays readable: a role marker `<|im_start|>` becomes `‹|im_start|›`, `[INST]` becomes `⁅INST⁆`, a
line-start `System:` becomes `System꞉`, a forged handle `[S9]` becomes `{S9}`. Ordinary prose passes through
unchanged. Every change is counted, per kind, for the report.

Structure is matched on a folded view of the text (NFKC + casefold), so full-width, mathematical and other
compatibility look-alikes are caught; the replacement is applied to the original span. Every defused form is
chosen to be stable under NFKC, so folding the output (as some tokenizers do) cannot bring a marker back.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from functools import lru_cache

# Invisible or direction-changing code points: zero-width, bidi controls, tag characters, soft hyphen,
# invisible operators, deprecated format controls, interlinear annotation, fillers, variation selectors of
# the supplement block (used to smuggle bytes), combining grapheme joiner.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    "\u3164\ufeff\uffa0\ufff9-\ufffb\U0001d173-\U0001d17a\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
# Runs of basic variation selectors: one after a character is ordinary (emoji style), a run is a payload.
_VS_RUN = re.compile("[\ufe00-\ufe0f]{2,}")
_LINE_BREAKS = re.compile("\r\n|[\r\u2028\u2029\u0085\u000b\u000c]")
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")

# Matched against the folded view (NFKC + casefold). No two unbounded quantifiers may match the same run
# (`\s*/?\s*` would backtrack quadratically on a long run of spaces): a 1 MB record must stay linear.
_ROLE_MARKERS = (
    r"<\s*\|\s*[^|<>\s][^|<>\n]{0,39}?\s*\|\s*>"              # ChatML, Llama 3, Phi, DeepSeek: <|im_start|>
    r"|\[\s*(?:/\s*)?(?:inst|sys|system_prompt|available_tools|avail_tools|tool_calls|tool_results|img)\s*\]"
    r"|<<\s*(?:/\s*)?sys\s*>>"                                    # Llama 2 system block
    r"|<\s*(?:/\s*)?(?:start_of_turn|end_of_turn|start_of_image|end_of_image|s|bos|eos|pad|unk|mask|system|user"
    r"|assistant|think|tool_call|tool_response|tools)\s*>"    # Gemma, BOS/EOS, Qwen tool and reasoning tags
    r"|^[ \t]*(?:#{1,6}[ \t]*)?(?:system|user|assistant|human|model|instruction|instructions|response)[ \t]*:"
)
# Our own block delimiters in every format: <<<…>>> (text, json), <!-- … --> (markdown), <source_…> (xml).
_DELIMITERS = r"<<<|>>>|<!--|-->|<\s*(?:/\s*)?sources?(?=[\s_>-])"
_HANDLE_OPEN = "[\\[(\u3010\u3014\u3016\u3018\u301a\u2045\u27e6]"
_HANDLE_CLOSE = "[\\])\u3011\u3015\u3017\u3019\u301b\u2046\u27e7]"
_BRACKETS = str.maketrans({"<": "\u2039", ">": "\u203a", "[": "\u2045", "]": "\u2046"})

REPLACEMENT_CHAR = "\ufffd"
DEFUSED_COLON = "\ua789"  # MODIFIER LETTER COLON: reads as a colon, is not one, and NFKC keeps it


@lru_cache(maxsize=4096)
def _fold_char(ch: str) -> str:
    return unicodedata.normalize("NFKC", ch).casefold()


def _fold(text: str) -> tuple[str, range | list[int]]:
    """NFKC + casefold, char by char, with a map from folded index to original index (identity for ASCII)."""
    if text.isascii():
        return text.lower(), range(len(text))
    out: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        folded = ch.lower() if ch < "\x80" else _fold_char(ch)
        out.append(folded)
        index.extend([i] * len(folded))
    return "".join(out), index


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
    return opened[:-1] + "}" if re.search(_HANDLE_CLOSE + "$", opened) else opened


@lru_cache(maxsize=64)
def _structure_pattern(boundary: str, prefix: str) -> re.Pattern[str]:
    """One alternation over everything that could pass for structure, so the text is folded once."""
    p = re.escape(prefix.casefold())
    handle = (rf"{_HANDLE_OPEN}\s*(?:[\^/#@]\s*)?{p}\s*\d+(?:\s*[,;\-\u2013]\s*(?:{p}\s*)?\d+)*"
              rf"(?:\s*{_HANDLE_CLOSE})?")
    parts = [f"(?P<role_marker>{_ROLE_MARKERS})"]
    if boundary:
        parts.append(f"(?P<boundary>{re.escape(boundary.casefold())})")
    parts += [f"(?P<delimiter>{_DELIMITERS})", f"(?P<handle>{handle})"]
    return re.compile("|".join(parts), re.MULTILINE)


_DEFUSE: dict[str, Callable[[str], str]] = {
    "role_marker": _defuse_marker,
    "boundary": lambda _: "\u2039boundary\u203a",
    "delimiter": _defuse_delimiter,
    "handle": _defuse_handle,
}


def _replace_structure(text: str, pattern: re.Pattern[str], tally: Counter[str]) -> str:
    folded, index = _fold(text)
    parts: list[str] = []
    last = 0
    for m in pattern.finditer(folded):
        if m.end() == m.start():
            continue
        start, end = index[m.start()], index[m.end() - 1] + 1
        if start < last:
            continue
        kind = m.lastgroup or "role_marker"
        parts.append(text[last:start])
        parts.append(_DEFUSE[kind](text[start:end]))
        tally[kind] += 1
        last = end
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)


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


def neutralise(text: str, *, boundary: str = "", handle_prefix: str = "S",
               counts: Counter[str] | None = None) -> str:
    """Return `text` cleaned and defused; add what was changed, per kind, to `counts` when given."""
    tally: Counter[str] = Counter() if counts is None else counts
    return _replace_structure(clean(text, counts=tally), _structure_pattern(boundary, handle_prefix), tally)


def replace_surrogates(value: str) -> str:
    """Lone surrogates become U+FFFD, so a value that reaches JSON output is always encodable as UTF-8."""
    return value if value.isascii() else _SURROGATE.sub(REPLACEMENT_CHAR, value)


_SAFE_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def safe_label(value: str | None) -> str | None:
    """`value` when it is a short ASCII slug (`pto-carryover`), else None: the only record-supplied text
    that may appear outside a delimited block (e.g. a topic in the conflict notice)."""
    return value if value is not None and _SAFE_LABEL.fullmatch(value) else None


def neutralise_value(value: str, *, boundary: str = "", handle_prefix: str = "S", max_chars: int = 160,
                     counts: Counter[str] | None = None) -> str:
    """A metadata value for a header: neutralised, single-line, whitespace-collapsed, length-capped."""
    tally: Counter[str] = Counter() if counts is None else counts
    text = neutralise(value, boundary=boundary, handle_prefix=handle_prefix, counts=tally)
    flat = " ".join(text.split())
    if flat != text.strip():
        tally["newline_in_metadata"] += text.count("\n")
    if len(flat) > max_chars:
        tally["truncated_metadata"] += 1
        flat = flat[: max_chars - 1].rstrip() + "\u2026"
    return flat
