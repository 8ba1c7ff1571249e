"""Findings for an answer that repeats or obeys text planted in a source (issue 28): `suspicious_copy` and
`foreign_url`.

The assembler neutralises a record so an instruction in it cannot break out of its block, but a model may
still do what it says. Two traces of that can be read from the answer and the blocks the model was shown:

- `suspicious_copy`: an answer sentence repeats `COPY_WORDS` words in a row from a sentence of a source that
  the injection scan (`passes.scan.text_score`) scores at `SUSPICIOUS` or more, and from no other sentence
  of the sources; or it writes a name only such a sentence gives (a capitalised or upper-case word, or a code
  of letters and digits, that no other sentence, header or the question contains: the canary word, the
  made-up contact or sign-off an injection asks for). The scan runs per sentence, so copying the benign rest
  of the same record (often the gold record the question is answered from) stays silent.
- `foreign_url`: a URL or domain in the answer that no source gives outside such a sentence (its header and
  the manifest's url and doc count as given, and so does the question).

Both read the sources as the model saw them (the blocks of the prompt, datamarking undone); a prompt without
blocks (`flat`) gives them nothing to compare with, so they stay silent. Only source sentences that share a
run of words with the answer are scored, so the cost follows the answer, not the prompt.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..passes.redact import REDACTED
from ..passes.scan import SUSPICIOUS, sentence_spans, text_score
from ..render.formats import DATAMARK
from .model import Finding, Sentence, shorten
from .severities import Severities
from .source import SourceIndex

#: Words in a row an answer sentence must share with a suspicious sentence (and with no benign one).
COPY_WORDS = 4
_WORD = re.compile(r"[^\W_]+")
# A name-like word: capitalised or upper case (4+ letters), or a code mixing letters and digits (MAINT-7741).
_NAME = re.compile(r"(?<![\w-])(?:[A-Z][a-z]*[A-Z0-9][\w-]*|[A-Z][a-z]{3,}|[A-Z]{4,}|[A-Za-z]+-\d+)(?![\w-])")
# A URL with a scheme, a www. host, or a bare host under a common top-level domain (a bare "policy.The" typed
# without its space is not a domain; a list keeps such slips out).
_TLDS = ("com|org|net|io|co|xyz|info|biz|ru|cn|de|uk|fr|us|me|ly|app|dev|site|online|top|club|example|test|"
         "invalid|local|internal|corp|gov|edu|mil|int|ai|tv|cc|ws|in|eu|ca|au|jp")
_URL = re.compile(
    r"\bhttps?://([^\s/?#<>()\[\]\"'`]+)|"
    r"(?<![\w@.-])((?:www\.)(?:[a-z0-9-]+\.)+[a-z]{2,24})\b|"
    rf"(?<![\w@./-])((?:[a-z0-9](?:[a-z0-9-]{{0,61}}[a-z0-9])?\.)+(?:{_TLDS}))\b(?![\w-])",
    re.IGNORECASE)


# The neutraliser's defused forms back to what they stand for (`render.neutralise`): for scoring only.
_UNDEFUSE = str.maketrans({"\u2039": "<", "\u203a": ">", "\u2045": "[", "\u2046": "]", "\ua789": ":"})


@dataclass(frozen=True)
class SourceSentence:
    handle: str
    text: str

    @property
    def score(self) -> float:
        return _score(self.text)


@lru_cache(maxsize=4096)
def _score(text: str) -> float:
    return text_score(text)


def words(text: str) -> list[str]:
    """Lower-cased words (letters and digits), datamarking undone: what a copy is compared on."""
    return _WORD.findall(unicodedata.normalize("NFKC", text.replace(DATAMARK, " ")).casefold())


def _grams(ws: Sequence[str], n: int = COPY_WORDS) -> set[tuple[str, ...]]:
    return {tuple(ws[i:i + n]) for i in range(len(ws) - n + 1)}


def _bodies(index: SourceIndex) -> dict[str, str]:
    """Handle -> the source's text as the model saw it (without its header line)."""
    return {h: p.split("\n", 1)[1] if "\n" in p else "" for h, p in index.passages.items()}


def source_sentences(body: str, handle: str) -> list[SourceSentence]:
    """The sentences of a source, its defused markers restored (the scan must see `<|im_start|>`, not the
    `‹|im_start|›` the model was shown) and the assembler's own cut markers (`passes.redact.REDACTED`) left out:
    a break after end punctuation (closing quotes and a role marker may follow it) and at every line break, so a
    planted instruction is not glued to the benign text after it."""
    text = body.replace(DATAMARK, " ").replace(REDACTED, "\n").translate(_UNDEFUSE)
    return [SourceSentence(handle, text[a:b]) for a, b in sentence_spans(text)]


def injected_findings(text: str, sentences: Sequence[Sentence], index: SourceIndex, levels: Severities
                      ) -> list[Finding]:
    """The `suspicious_copy` and `foreign_url` findings of an answer (none when both are off or the prompt
    has no blocks to read)."""
    if (levels.suspicious_copy == "off" and levels.foreign_url == "off") or not index.passages:
        return []
    sources = [x for h, body in _bodies(index).items() for x in source_sentences(body, h)]
    out: list[Finding] = []
    if levels.suspicious_copy != "off":
        out += _copies(sentences, sources, index, levels)
    if levels.foreign_url != "off":
        out += _foreign(text, sentences, sources, index, levels)
    return out


def _copies(sentences: Sequence[Sentence], sources: Sequence[SourceSentence], index: SourceIndex,
            levels: Severities) -> list[Finding]:
    """An answer sentence sharing a run of `COPY_WORDS` words with a suspicious source sentence and with no
    benign one, or writing a name only a suspicious sentence gives."""
    mine = {s.index: _grams(words(s.text)) for s in sentences}
    every = set().union(*mine.values()) if mine else set()
    planted: dict[tuple[str, ...], SourceSentence] = {}
    benign: set[tuple[str, ...]] = set()
    for src in sources if every else ():
        shared = _grams(words(src.text)) & every
        if not shared:
            continue  # the answer copies nothing of it: not scored
        if src.score >= SUSPICIOUS:
            for g in shared:
                planted.setdefault(g, src)
        else:
            benign |= shared
    names = _planted_names(sentences, sources, index)
    out: list[Finding] = []
    for s in sentences:
        hit = next((g for g in sorted(mine[s.index]) if g in planted and g not in benign), None)
        if hit is None and s.index not in names:
            continue
        name, src = names[s.index] if hit is None else ("", planted[hit])
        what = f"the name \"{name}\" that only" if name else "text of"
        out.append(Finding("suspicious_copy", levels.suspicious_copy,
                           f"sentence {s.index + 1} repeats {what} {src.handle} gives in a sentence that reads "
                           f"like an instruction to the model (injection score {src.score:.2f}): "
                           f"\"{shorten(' '.join(src.text.split()), 80)}\"",
                           s.index, s.start, s.end, sources=(src.handle,)))
    return out


@lru_cache(maxsize=16_384)
def _names(text: str) -> tuple[str, ...]:
    """Name-like words of a source sentence, as written; a capitalised (not upper-case) first word is left out:
    it is capitalised because it starts the sentence. Cached: the same sources come back with every answer."""
    return tuple(m.group(0) for m in _NAME.finditer(text)
                 if m.group(0).isupper() or text[:m.start()].strip(" \t\"'([*#>-"))


def _planted_names(sentences: Sequence[Sentence], sources: Sequence[SourceSentence], index: SourceIndex
                   ) -> dict[int, tuple[str, SourceSentence]]:
    """Answer sentence -> a name it writes (starting with a capital, as a word or glued to what follows) that
    only suspicious source sentences give: no benign sentence, no header, not the question. Only the source
    sentences containing a name the answer writes are scored, so the cost follows the answer."""
    texts = {s.index: s.text.replace(DATAMARK, " ") for s in sentences}
    written: dict[str, list[int]] = {}
    folded = " ".join(texts.values()).casefold()
    for name in {n for src in sources for n in _names(src.text) if n.casefold() in folded}:
        rx = re.compile(r"(?<![^\W_])" + re.escape(name), re.IGNORECASE)
        at = [i for i, t in texts.items() if any(m.group(0)[0].isupper() for m in rx.finditer(t))]
        if at:
            written[name] = at
    if not written:
        return {}
    shown = set(words(" ".join([p.split("\n", 1)[0] for p in index.passages.values()] + [index.question])))
    out: dict[int, tuple[str, SourceSentence]] = {}
    for name in sorted(written):
        parts = set(words(name))
        givers = [src for src in sources if parts <= set(words(src.text))]
        if not parts & shown and all(src.score >= SUSPICIOUS for src in givers):
            for i in written[name]:
                out.setdefault(i, (name, givers[0]))
    return out


def hosts(text: str) -> list[tuple[str, int, int]]:
    """Every URL host or bare domain in `text` (lower-cased, without www. and port), with its span."""
    out = []
    for m in _URL.finditer(text.replace(DATAMARK, " ")):
        raw = next(g for g in m.groups() if g)
        host = raw.lower().split("@")[-1].split(":")[0].rstrip(".")
        host = host[4:] if host.startswith("www.") else host
        if "." in host:
            out.append((host, m.start(), m.end()))
    return out


def _given(index: SourceIndex, sources: Iterable[SourceSentence]) -> set[str]:
    """Hosts the assembly gives: in a source's benign sentences, its header, its manifest url and doc, and the
    question."""
    texts = [s.text for s in sources if hosts(s.text) and s.score < SUSPICIOUS]
    texts += [p.split("\n", 1)[0] for p in index.passages.values()]
    texts += [v for src in index.sources.values() for v in (src.url, src.doc) if v]
    texts.append(index.question)
    return {h for t in texts for h, _, _ in hosts(t)}


def _foreign(text: str, sentences: Sequence[Sentence], sources: Sequence[SourceSentence], index: SourceIndex,
             levels: Severities) -> list[Finding]:
    found = hosts(text)
    if not found:
        return []
    given = _given(index, sources)
    starts = [s.start for s in sentences]
    out: list[Finding] = []
    for host, start, end in found:
        if host in given or any(host.endswith("." + g) for g in given):
            continue
        sentence = max((i for i, st in enumerate(starts) if st <= start), default=-1)
        out.append(Finding("foreign_url", levels.foreign_url,
                           f"{shorten(text[start:end], 80)} is a link or domain no source gives (outside text "
                           "that reads like an instruction to the model)", sentence, start, end))
    return out
