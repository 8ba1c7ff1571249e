"""Neutralise untrusted text so it cannot pass for prompt structure.

Retrieved text and metadata come from users, vendors and the web. Before they enter a block we defuse what
a model or a chat template could read as structure: chat-template role markers, line-start role labels,
our own delimiters and handles, invisible and direction-changing Unicode, and control characters. Defused
text stays readable: a role marker `<|im_start|>` becomes `‹|im_start|›`, a forged handle `[S9]` becomes
`{S9}`. Ordinary prose passes through unchanged. Every change is counted, per kind, for the report.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable

# Invisible or direction-changing code points: zero-width, bidi controls, tag characters, soft hyphen.
_INVISIBLE = re.compile(
    "[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u061c\ufeff\U000e0000-\U000e007f]"
)
_LINE_BREAKS = re.compile("\r\n|[\r\u2028\u2029\u0085\u000b\u000c]")
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")

# Matched against a folded view (NFKC + casefold), so full-width and mathematical look-alikes and odd
# spacing are caught too; the replacement is applied to the original span.
_ROLE_MARKERS = re.compile(
    r"<\s*\|\s*[^|<>\n]{1,40}?\s*\|\s*>"                      # ChatML, Llama 3, Phi: <|im_start|>, <|eot_id|>
    r"|\[\s*/?\s*(?:inst|sys|system_prompt|avail_tools|tool_calls|tool_results)\s*\]"  # Llama 2, Mistral
    r"|<<\s*/?\s*sys\s*>>"                                    # Llama 2 system block
    r"|<\s*/?\s*(?:start_of_turn|end_of_turn|s|bos|eos|system|user|assistant)\s*>"  # Gemma, BOS/EOS tags
    r"|^[ \t]*(?:#{1,6}[ \t]*)?(?:system|user|assistant|human|instruction|instructions|response)[ \t]*:",
    re.MULTILINE,
)
_DELIMITERS = re.compile(r"<<<|>>>|<!--|-->|<\s*/?\s*sources?(?=[\s_>-])", re.IGNORECASE)

REPLACEMENT_CHAR = "\ufffd"


def _fold(text: str) -> tuple[str, list[int]]:
    """NFKC + casefold, char by char, with a map from folded index to original index."""
    out: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        folded = unicodedata.normalize("NFKC", ch).casefold() if ord(ch) > 127 else ch.lower()
        out.append(folded)
        index.extend([i] * len(folded))
    return "".join(out), index


def _defuse_marker(original: str) -> str:
    """Readable, inert form of a role marker: angle brackets become single guillemets, brackets and
    colons their full-width forms, so no tokenizer maps it to a control token."""
    folded = unicodedata.normalize("NFKC", original)
    if folded.rstrip().endswith(":"):
        return original.rstrip()[:-1] + "\uff1a"
    table = str.maketrans({"<": "\u2039", ">": "\u203a", "[": "\uff3b", "]": "\uff3d"})
    return folded.translate(table)


def _replace_folded(text: str, pattern: re.Pattern[str], replace: Callable[[str], str]) -> tuple[str, int]:
    folded, index = _fold(text)
    spans = [(index[m.start()], index[m.end() - 1] + 1) for m in pattern.finditer(folded) if m.end() > m.start()]
    if not spans:
        return text, 0
    parts: list[str] = []
    last = 0
    for start, end in spans:
        if start < last:
            continue
        parts.append(text[last:start])
        parts.append(replace(text[start:end]))
        last = end
    parts.append(text[last:])
    return "".join(parts), len(spans)


def _handle_pattern(prefix: str) -> re.Pattern[str]:
    p = re.escape(prefix)
    return re.compile(
        rf"[\[(\u3010\uff3b\uff08]\s*{p}\s*\d+(?:\s*[,;\-\u2013]\s*(?:{p})?\s*\d+)*\s*[\])\u3011\uff3d\uff09]",
        re.IGNORECASE,
    )


def neutralise(text: str, *, boundary: str = "", handle_prefix: str = "S",
               counts: Counter[str] | None = None) -> str:
    """Return `text` defused; add what was changed, per kind, to `counts` when given."""
    tally: Counter[str] = Counter() if counts is None else counts

    def sub(pattern: re.Pattern[str], repl: str | Callable[[re.Match[str]], str], kind: str, s: str) -> str:
        new, n = pattern.subn(repl, s)
        if n:
            tally[kind] += n
        return new

    text = sub(_SURROGATE, REPLACEMENT_CHAR, "surrogate", text)
    text = sub(_LINE_BREAKS, "\n", "line_break", text)
    text = sub(_ANSI, "", "ansi_escape", text)
    text = sub(_CONTROL, "", "control", text)
    text = sub(_INVISIBLE, "", "invisible", text)
    text, n = _replace_folded(text, _ROLE_MARKERS, _defuse_marker)
    if n:
        tally["role_marker"] += n
    if boundary:
        text = sub(re.compile(re.escape(boundary), re.IGNORECASE), "\u2039boundary\u203a", "boundary", text)
    text = sub(_DELIMITERS, lambda m: m.group(0).replace("<", "\u2039").replace(">", "\u203a"),
               "delimiter", text)
    text = sub(_handle_pattern(handle_prefix),
               lambda m: "{" + m.group(0)[1:-1] + "}", "handle", text)
    return text


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
