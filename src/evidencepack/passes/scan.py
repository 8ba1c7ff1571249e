"""A heuristic scan for injection-like content in a record. It reports; it never drops on its own.

A score in [0, 1] from weighted signals: imperatives aimed at the model, orders about the reply ("begin your
reply with …") or about what to tell the user, chat role markers and tool-output labels, attempts to close a
source block, requests to cite or trust the record itself, claims about "these sources", forged handles,
exfiltration requests, hidden or encoded content; and, whatever the wording, a sentence that talks about the
reading (the model, its answer, the question, the documents it was given) while giving an order. It is a
tripwire for review, not a classifier: `injection_threshold` can exclude records above a score (always with the
reason reported), and `on_flagged` datamarks the records at or above `SUSPICIOUS` or cuts their flagged
sentences out. Text is scanned in a normalised view (invisible and control characters removed, NFKC, case-
folded, common Cyrillic look-alikes mapped to Latin) and once more after decoding what an attacker uses to hide
instructions (HTML entities, percent-encoding, backslash escapes, Unicode tag characters, base64), so the
mutations that fool a plain regex do not fool it.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from ..records.clean import clean
from ..records.record import Record


def _alternatives(pattern: str) -> list[str]:
    """The top-level `|` branches of a regex source (escapes, groups and character classes kept whole)."""
    out, depth, start, i, in_class = [], 0, 0, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "]" or pattern[i + 1:i + 3] == "^]":
                i += 2 if pattern[i + 1] == "]" else 3
                continue
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
        i += 1
    return [*out, pattern[start:]]


def _compile(pattern: str) -> re.Pattern[str]:
    """`pattern` compiled, with the `\\b` that opens a branch hoisted into one `(?<!\\w)` in front of all such
    branches: the same matches, but the engine tests the inside of a word once instead of once per branch (2-5x
    faster on prose; the scan runs on every selected record of a first call)."""
    branches = _alternatives(pattern)
    words = [b[2:] for b in branches if b.startswith("\\b")]
    if len(words) > 1:
        pattern = "|".join(["(?<!\\w)(?:" + "|".join(words) + ")", *(b for b in branches if not b.startswith("\\b"))])
    return re.compile(pattern, re.MULTILINE)


#: (signal kind, weight, pattern source): what the scan looks for, as written (lower case: text is case-folded).
_SIGNAL_TABLE: tuple[tuple[str, float, str], ...] = (
    ("override", 0.5,
     r"\b(?:ignore|disregard|forget)\b.{0,10}\b(?:the above|what you were (?:asked|told))\b|"
     r"\b(?:ignore|disregard|forget|override|bypass|skip)\b.{0,40}\b(?:previous|prior|above|earlier|all|"
     r"system|your|the|other|any)\b.{0,30}\b(?:instructions?|prompts?|rules|guidelines|messages?|sources?|"
     r"context|question|safety|requests?|task|query)"),
    ("override", 0.5,
     r"\b(?:forget everything|supersedes? your|real instructions|no restrictions|developer mode|"
     r"maintenance mode|(?:note|message|notice|instructions?) (?:to|for) (?:the |all |any )?(?:ai|models?|"
     r"assistants?|llms?|language models?|chatbots?)\b|do not answer the question|"
     r"(?:priority|developer|admin(?:istrator)?) (?:override|instructions?))"),
    ("role_marker", 0.4,
     r"<\s*\|\s*[a-z_▁][a-z_▁ ]{1,29}\s*\|\s*>|\[\s*(?:/\s*)?(?:inst|system_prompt)\s*\]|<<\s*(?:/\s*)?sys\s*>>|"
     r"<\s*(?:/\s*)?(?:start_of_turn|end_of_turn|s)\s*>"),
    ("role_label", 0.3,
     r"#{2,6}[ \t]{0,3}(?:system|assistant|instructions?)[ \t]{0,3}#{2}|"
     r"<!--[ \t]{0,3}(?:system|assistant|ai|instructions?)\s{0,3}:|"
     r"^[ \t]*(?:#{1,6}[ \t]*)?(?:system|assistant|human|user|model|instruction|response|developer|tool|ai|"
     r"function|bot)\s*:"),
    ("close_block", 0.3,
     r"</\s*(?:source|sources|document|context|instructions?|system)\s*>|<<<|>>>|\]\]>|"
     r"\b(?:end of (?:sources?|context|document)|(?:end|begin) (?:source|system))\b"),
    ("self_authority", 0.4,
     r"\b(?:cite|treat|consider|regard)\b.{0,30}\b(?:this|me|it)\b.{0,30}\b(?:as\s+)?"
     r"(?:authoritative|the (?:only|official|primary) source|current|trusted)|"
     r"\b(?:do not|don't) cite any other|every other source is (?:outdated|expired|wrong)|"
     r"treat every other source as"),
    ("forged_handle", 0.3,
     r"[\[(\u3010]\s*(?:[\^/]\s*)?s\s*\d+\s*(?:[\])\u3011:,]|$)|\bsource s\d+\b"),
    # "you must" and a bare "from now on" are how workplace rules talk to staff ("From now on nobody gets past
    # reception without a DBS"); "from now on" orders the model when it comes with an answer or a persona
    ("model_directive", 0.3,
     r"\b(?:you are now|new instructions?|system prompt|act as|you have been|conversation reset)\b|"
     r"\bfrom now on\b.{0,30}\b(?:you are|you will|you'll|you follow|answer|reply|respond|speak|talk|act|behave|"
     r"pretend)\b|\b(?:answer|reply|respond|speak|talk|act|behave|pretend)\b.{0,40}\bfrom now on\b"),
    ("answer_directive", 0.4,
     r"\b(?:in|to|into|with|from|of) your (?:answer|response|reply|output)\b|"
     r"\byour (?:answer|response|reply)(?:'s)? words\b|\b(?:answer|reply|respond) only with\b"),
    ("answer_directive", 0.4,
     r"\b(?:begin|start|open|end|finish|conclude|close|prefix|preface|sign)(?:s|ed|ing|ning)?\b.{0,30}"
     r"\byour (?:answer|response|reply|output|message)s?\b|"
     r"\b(?:every|each|all|any) (?:answer|reply|response)s? (?:must|should|shall)\b|"
     r"\b(?:say|write|answer|reply|respond|report)\b.{0,30}\b(?:exactly|verbatim|as the answer)\b"),
    ("answer_directive", 0.4,
     r"\b(?:translate|rewrite|format|write|put|phrase|word|style)\b.{0,20}\byour (?:answer|response|reply|"
     r"output)s?\b|\b(?:respond|reply|answer)s? to (?:every|each|any|all) (?:query|queries|question|request|"
     r"message)|\b(?:respond|reply)\s+only\b|\bonly (?:respond|reply|answer) (?:in|with)\b|"
     r"\bbefore (?:answering|responding|replying|you answer|you respond|you reply)\b|"
     r"\badd (?:the following|this) (?:sentence|line|text|link|phrase|note)\b|"
     r"\byour (?:final )?(?:answer|response|reply|output) (?:must|should|shall|has to|needs to)\b|"
     r"\b(?:reply|respond|answer) with (?:only|just|nothing but)\b|"
     r"\bwhen (?:asked|someone asks|a user asks|the user asks)\b.{0,40}\b(?:always|say|answer|reply|respond)\b|"
     r"\b(?:respond|reply|answer|talk) to the (?:user|reader)\b|\b(?:tell|inform|advise) the reader\b"),
    ("model_directive", 0.3,
     r"\bthe (?:assistant|ai|model|chatbot|language model|llm)\b.{0,20}\b(?:should|must|shall|needs to|"
     r"has to|will now)\b|\b(?:hey|dear|attention|to any|to all|notes? (?:to|for)) (?:the )?(?:ai|llm|chatbot|"
     r"assistant|bot|language model|automated (?:readers?|systems?|agents?))\b|\bllm instructions?\b|"
     r"\bif you are an? (?:ai|llm|chatbot|assistant|bot|(?:large )?language model)\b|\bpretend (?:you are|to be)\b|"
     r"\bnew task\s*:|\bwhoever (?:reads|processes|summari[sz]es) this\b"),
    ("user_directive", 0.3,
     r"\b(?:tell|inform|advise|remind|warn|instruct|ask) the user\b|\bthe user'?s question\b|"
     r"\b(?:never|do not|don't) (?:tell|give|show) the user\b"),
    ("role_label", 0.3,
     r"^\W{0,6}(?:tool|function)[ _-]?(?:result|output|call[ _-]?output|response)\b|"
     r"\[\s*(?:tool|function)[ _-]?(?:result|output|call[ _-]?output|response)\s*\]"),
    ("override", 0.5,
     r"\bignor(?:a|e[sz]?)\b.{0,20}\binstruc(?:ciones|tions)\b|\bvergiss\b.{0,30}\banweisungen\b|"
     r"\byou are no longer\b|\bsay nothing about\b|\bwhatever the question\b|\bthe real answer\b|"
     r"\bthe correct (?:response|answer) is\s*:|\[\s*(?:system|admin|developer)[ _-]?override\s*\]|"
     r"\bassistant instructions?\b|^\W{0,6}(?:developer|system|admin) (?:message|note|notice)\s*:"),
    ("model_directive", 0.3,
     r"\bfrom here on\b|\b(?:todo|fixme|tip|reminder)s? for (?:the |all )?(?:ai|assistants?|models?|llms?|"
     r"bots?|chatbots?)\b|\bai (?:tools?|systems?|models?|assistants?)\b.{0,15}\b(?:summari[sz]ing|reading|"
     r"processing)\b|\bprocessed by (?:a|an|the) (?:model|ai|llm|language model)\b|"
     r"\banyone (?:generating|writing|summari[sz]ing) (?:a |an |the )?(?:response|answer|reply|summary)\b|"
     r"\btell (?:whoever|anyone who) (?:is asking|asks)\b"),
    ("answer_directive", 0.4,
     r"\b(?:begin|start|end|open|close)s?\b.{0,10}\b(?:every|each) (?:answer|response|reply)\b|"
     r"\binsert (?:the following|this)\b|\b(?:in|into) (?:the|every|each) (?:answer|response|reply)\b|"
     r"\b(?:summary|summaries) of this (?:document|page|text|record)\b.{0,20}\b(?:must|should)\b|"
     r"\byour summary (?:must|should|claims|says|states)\b|\banswer format\b|"
     r"\bwhen you (?:answer|respond|reply),"),
    ("meta_sources", 0.3,
     r"\b(?:these|the other|all (?:the )?other|every other|the retrieved) (?:sources|search results)\b"),
    ("exfiltration", 0.4,
     r"\b(?:repeat|reveal|print|output|send|leak|exfiltrate|append|include|quote|list)\b.{0,40}\b(?:"
     r"system prompt|instructions|api keys?|password|secret|hidden|other sources|conversation|"
     r"environment variables?|email)|\b(?:repeat|print|output|reveal|copy)\b.{0,20}\b(?:text|everything|"
     r"content|message|words) above\b|\b(?:initial|original|hidden|first) prompt\b"),
    ("exfiltration", 0.3,
     r"!\[[^\]]{0,200}\]\(https?://[^)?]{0,500}\?[^)]{0,500}=|https?://\S{0,500}(?:\{|%7b)|"
     r"<img\b[^>]{0,500}\bsrc\s*=\s*[\"']?https?://|"
     r"\bcall the \w+ tool\b"),
    ("concealment", 0.2, r"\b(?:do not|don't) (?:tell|mention|reveal)\b.{0,30}\b(?:user|anyone)"),
    ("encoded", 0.4, r"\bdecode\b.{0,40}\b(?:follow|execute|obey|run)\b"),
)
_SIGNALS: tuple[tuple[str, float, re.Pattern[str]], ...] = tuple(
    (name, weight, _compile(pattern)) for name, weight, pattern in _SIGNAL_TABLE)
# Every pattern above is linear: repeats that could run over the start of another match are bounded
# (`[^>]{0,500}`), so `<img <img <img …` or `<|` plus a megabyte of spaces cannot make the scan quadratic
# (`tests/properties/test_untrusted_text.py` checks each pattern; `benchmarks/bench_neutralise.py` measures the growth).
# Characters with no business in retrieved prose: tag characters, bidi overrides, ANSI escapes, C0/C1
# controls other than tab and newline. Their presence is a signal in itself.
_HIDDEN = re.compile("[\U000e0000-\U000e007f\u202a-\u202e\u2066-\u2069\x1b\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_TAGS = re.compile("[\U000e0020-\U000e007e]+")
_B64 = re.compile(r"[A-Za-z0-9+/]{24,}={0,2}")
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})")
_CYRILLIC = str.maketrans("асԁеіјорѕхуАВСЕНІЈКМОРЅТХУ", "acdeijopsxyABCEHIJKMOPSTXY")
_LEET = str.maketrans("4310572$@", "aeiostzsa")
_LEET_WORD = re.compile(r"\b(?=\w*[a-z])(?=\w*[0134578])[a-z0134578]{3,}\b")
_SPLIT_WORD = re.compile(r"\b[a-z]{1,5}(?:-[a-z]{1,5})+\b")
# cheap first tests (one fast search) before counting such words: most prose has neither
_LEET_HINT = re.compile(r"[a-z][0134578]|[0134578][a-z]")
_SPLIT_HINT = re.compile(r"[a-z]-[a-z]")
_MAX_SCAN = 200_000  # characters per field: a tripwire, not a parser; keeps a 1 MB record cheap
#: A score at or above this reads like an instruction to the model: the one threshold the `on_flagged` layout
#: option, the `suspicious_copy` finding and the eval harness's screen condition share. The lowest weight that
#: fires alone is 0.3, so one signal is enough (scripts/scan_figures.py measures what that costs on benign text).
SUSPICIOUS = 0.25


def injection_score(record: Record) -> float:
    """Sum of the weights of the signal kinds found in the record's text and metadata, capped at 1."""
    return round(min(sum(injection_signals(record).values()), 1.0), 2)


def injection_signals(record: Record) -> dict[str, float]:
    """Which signal kinds fired, with their weight (the strongest pattern per kind); for the report."""
    return dict(_signals("\n".join(s[:_MAX_SCAN] for s in _strings(record))))


@lru_cache(maxsize=16_384)
def _signals(joined: str) -> tuple[tuple[str, float], ...]:
    """A record's signals, cached by its text and metadata: a warm corpus is scanned once, not per request."""
    return tuple(text_signals(joined).items())


def text_score(text: str) -> float:
    """`injection_score` of a bare string (one sentence of a record, say): the validator scores a source
    sentence by sentence to tell a planted instruction from the record's benign rest."""
    return round(min(sum(text_signals(text[:_MAX_SCAN]).values()), 1.0), 2)


def text_signals(raw: str) -> dict[str, float]:
    """The signal kinds found in `raw` (and in what it hides), with their weights."""
    found: dict[str, float] = {}
    if _HIDDEN.search(raw):
        found["hidden_characters"] = 0.3
    for view in _views(raw):
        for name, weight, pattern in _SIGNALS:
            if weight > found.get(name, 0.0) and pattern.search(view):
                found[name] = weight
        if "reader_directive" not in found and _reader_directive(view):
            found["reader_directive"] = 0.3
    return found


# The patterns above name phrasings; this one names a situation, so that wording nobody listed still fires. A
# sentence is an order to the model when it both (a) talks about the reading itself (a machine reader, the answer
# it will give, the question it was asked, the instructions or documents it was given, the act of reading or
# summarising "this") and (b) gives an order (a modal, "always"/"instead"/"from now on", or a clause opening on an
# imperative verb). Policy prose gives orders all the time but seldom talks about the reader's answer, and prose
# about assistants or answers seldom orders; the pair is rare in benign text (scripts/scan_figures.py).
# Each phrase starts a word (`_compile` puts one `(?<!\w)` in front of them all, which made the check 5x faster
# than a `\b` per phrase); `_GLUED_READING` holds what may sit inside a word (CJK text).
_ABOUT_THE_READING = (
    # a machine reader, named or addressed
    r"(?:assistants?|chat ?bots?|(?:the|this) bot|(?:large )?language models?|copilots?|automated (?:readers?|"
    r"assistants?|agents?|systems?|tools?|summari[sz]ers?))\b",
    # whoever reads, summarises or answers from this text
    r"(?:whoever|anyone|anybody|everyone|those|(?:the|any|every) (?:model|system|tool|agent|crawler|indexer|"
    r"reader|person|one)s?) (?:who |that |which )?(?:is |are )?(?:read|summari[sz]|answer|process|pars|generat|"
    r"respond|handl|ingest|index|crawl|writ)\w*",
    r"(?:upon|after|on|when|while|before) (?:reading|processing|summari[sz]ing|parsing|ingesting|answering) "
    r"(?:this|these|the above)\b|summari[sz]e (?:this|the above) (?:document|page|text|record|review|email|"
    r"thread|article|post|message)\b",
    # the answer it will give, or what it says
    r"(?:your|any|every|each|the next|this) (?:(?:whole|entire|final|next|single|first|last) )?(?:answers?|"
    r"repl(?:y|ies)|responses?|outputs?|summar(?:y|ies)|completions?)\b(?! to\b)|"
    r"(?:everything|anything|whatever|all) you (?:say|write|output|produce|generate|reply|answer)\b|"
    r"(?:respond|reply|answer|act|behave|write)(?:ing)? as (?:if|though)\b",
    # the question it was asked, the person who asked
    r"this (?:question|query|conversation|chat|prompt)\b|(?:if|when|whenever) (?:you are |you're |you get )?"
    r"(?:asked|questioned|queried)\b|(?:questions?|requests?) (?:that )?you (?:are|get) asked\b|"
    r"you (?:are|were|have been|are being) (?:asked|told|instructed)\b|what you are doing\b|"
    r"(?:the|this) (?:user|customer|person|reader|visitor|caller)'s (?:question|request|query|message|prompt)\b|"
    r"(?:anything|whatever|what) the user (?:says|asks|wants)\b|let the (?:user|reader) know\b|"
    r"report to the (?:user|reader)\b",
    # the instructions and documents it was given
    r"your (?:instructions|rules|guidelines|directives|prompt|programming|configuration|orders|task)\b|"
    r"(?:summary|summari[sz]ation|answer|response|reply|output|ai|assistant|model|bot|llm) (?:instructions?|"
    r"directives?|rules?|notes?)\b|"
    r"(?:documents?|sources?|pages?|records?|files?|context|passages?|results?|texts?) (?:that |which )?you "
    r"(?:can see|see|were given|have been given|have access to|retrieved|received|are reading)\b|"
    r"you were (?:given|shown|provided)\b|in front of you\b|(?:markdown|hidden|invisible) (?:image|pixel)s?\b|"
    r"tracking pixels?\b|(?:every|all|any) other (?:documents?|sources?|pages?|records?|results?)\b",
    # the same in the languages an attacker switches to most
    r"(?:ia|ki|assistente?|asistente|assistentin|intelligence artificielle|künstliche intelligenz|"
    r"inteligencia artificial|intelig[eê]ncia artificial|intelligenza artificiale|quiconque)\b|"
    r"(?:ta|votre|chaque|toute|deine|ihre|jede|tu|su|cada|toda|sua|tua|ogni) (?:r[ée]ponse|antwort|respuesta|"
    r"resposta|risposta)\b|wer\b.{0,40}\b(?:zusammenfasst|liest|beantwortet|verarbeitet)\b|"
    r"(?:ao|al|en) (?:resumir|leer|ler|responder|r[ée]sumant|lisant)\b|(?:quien|chi) (?:resuma|lea|responda|"
    r"riassume|legge|risponde)\b",
)
_GLUED_READING = (
    r"(?<![a-z0-9])(?:ai|a\.i\.|llms?|gpts?)(?![a-z0-9])|人工智能|助手|机器人|你的(?:回答|回复)|アシスタント|"
    r"あなたの(?:回答|返答|返信)|(?:回答|返答)(?:は|では|の最初)",
)
_GIVES_AN_ORDER = (
    # a modal or a standing order
    r"\b(?:must|should|shall|has to|have to|needs? to|are to|is to|will now|may now|can now|always|never|instead|"
    r"exclusively|from now on|from this point|henceforth|going forward|(?:are|is) (?:now )?(?:allowed|authori[sz]ed|"
    r"permitted|required|instructed|expected) to|(?:takes?|has|have) (?:priority|precedence) over|(?:are|is) (?:now )?"
    r"(?:suspended|lifted|disabled|waived|revoked|void))\b",
    # the same in other languages
    r"\b(?:doit|doivent|devez|dois|toujours|jamais|r[ée]pond(?:s|ez)|[ée]cri(?:s|vez)|dites|ignore[rz]?|muss|"
    r"müssen|sollst|sollen|immer|niemals|antworte|schreibe?|ignoriere|behaupten?|sage|debe[ns]?|siempre|nunca|"
    r"responde|escribe|ignora|deve[m]?|sempre|responda|escreva|diga|devi|mai|rispondi|scrivi)\b|"
    r"必须|务必|请|总是|永远|不要|忽略|必ず|してください|しなさい|常に|無視",
)
#: ... or a clause that opens on one of these verbs (a set: cheaper to compile and to extend than an alternation)
IMPERATIVES = frozenset((
    "answer", "reply", "respond", "say", "tell", "write", "print", "output", "add", "append", "prepend", "include",
    "insert", "put", "replace", "substitute", "translate", "use", "describe", "claim", "state", "mention",
    "recommend", "suggest", "refer", "direct", "send", "forward", "share", "reveal", "disclose", "list", "enumerate",
    "repeat", "echo", "summarise", "summarize", "ignore", "disregard", "forget", "skip", "omit", "stop", "act",
    "pretend", "behave", "refuse", "decline", "confirm", "deny", "rate", "rank", "treat", "quote", "cite", "render",
    "show", "display", "start", "begin", "end", "finish", "conclude", "close", "format", "convert", "sign", "praise",
    "promote", "advertise", "advise", "warn", "inform", "notify", "urge", "encourage", "explain", "report", "insist",
    "assert", "approve", "reject", "delete", "remove", "call", "visit", "click", "open", "navigate", "email",
    "contact", "ask", "give", "provide", "generate", "create", "compose", "produce", "switch", "speak", "talk",
    "imagine", "assume", "emphasise", "emphasize", "highlight", "verify", "run", "execute", "download", "install",
    "upload", "post", "publish", "link", "return", "let", "make", "keep", "collect", "gather", "attach", "embed",
    "encode", "steer", "push", "point", "drop", "abandon", "discard", "halt", "cease", "override", "bypass", "hide",
    "conceal", "withhold", "relay", "leak", "expose", "dump", "paste", "copy", "emit", "adopt", "become",
    "do not", "don't", "never",
))
# Zero-width, so that clause openings may overlap (", so tell …": "so" does not hide the "tell" after it).
_CLAUSE_OPENING = re.compile(r"(?=(?:^|[:;,(]\s*|\b(?:and|then|so|please)\s+)\W{0,3}(?:(?:also|then|please|just|"
                             r"simply|kindly|now|quietly|silently|secretly|first|immediately)\s+)?"
                             r"(do not|[a-z]+(?:'t)?)\b)")
_READING = _compile("|".join([*(rf"\b(?:{phrase})" for phrase in _ABOUT_THE_READING), *_GLUED_READING]))
_ORDER = re.compile("|".join(_GIVES_AN_ORDER))


def _gives_an_order(view: str, start: int, stop: int) -> bool:
    """True when `view[start:stop]` (one sentence) holds a modal or standing order, or a clause opening on an
    imperative verb."""
    return bool(_ORDER.search(view, start, stop)) or any(
        m.group(1) in IMPERATIVES for m in _CLAUSE_OPENING.finditer(view, start, stop))


def _reader_directive(view: str) -> bool:
    """True when one sentence of `view` (normalised) both talks about the reading and gives an order. Each sentence
    is searched for an order once, however many reading phrases it holds, so the check stays linear."""
    ends: list[int] | None = None
    checked = -1
    for m in _READING.finditer(view):
        if ends is None:
            ends = [e.end() for e in _SENTENCE_END.finditer(view)]
        i = bisect_right(ends, m.start())
        if i == checked:
            continue
        checked = i
        if _gives_an_order(view, ends[i - 1] if i else 0, ends[i] if i < len(ends) else len(view)):
            return True
    return False


# A sentence ends after end punctuation (closing quotes or brackets and a chat role marker may follow it) before
# a space, and at every line break: a planted instruction is rarely glued to the benign text around it.
_SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*(?:<\|[^|<>\n]{1,40}\|>)?(?=[ \t])|\n")
def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text`, surrounding spaces left out: the unit the validator scores a
    source in (`citations.injected`) and the unit `passes.redact` cuts."""
    cuts = [0, *(m.end() for m in _SENTENCE_END.finditer(text)), len(text)]
    out = []
    for a, b in zip(cuts, cuts[1:]):
        part = text[a:b]
        if part.strip():
            lead = len(part) - len(part.lstrip())
            out.append((a + lead, a + len(part.rstrip())))
    return out


def _strings(record: Record) -> Iterator[str]:
    yield record.text
    for value in (record.doc, record.section, record.topic, record.source_system, record.url):
        if value:
            yield value
    yield from _metadata_strings(record.metadata)


def _metadata_strings(metadata: Mapping[str, Any], limit: int = 1000) -> Iterator[str]:
    """String keys and values anywhere in `metadata`, walked iteratively (deep nesting cannot recurse)."""
    stack: list[Any] = [metadata]
    seen = 0
    while stack and seen < limit:
        item = stack.pop()
        seen += 1
        if isinstance(item, str):
            yield item
        elif isinstance(item, Mapping):
            stack.extend(k for k in item if isinstance(k, str))
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)


def _views(raw: str) -> list[str]:
    """The normalised text, plus decoded forms of what it hides (each normalised the same way)."""
    base = normalise(raw)
    views = [base]
    hidden = "".join(chr(ord(c) - 0xE0000) for m in _TAGS.finditer(raw) for c in m.group(0))
    if hidden:
        views.append(normalise(hidden))
    decoded = _ESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), unquote(html.unescape(raw)))
    if decoded != raw:
        views.append(normalise(decoded))
    # l33t and hy-phen-at-ed spellings: read once more spelled plainly, when the text has several such words
    if _LEET_HINT.search(base) and len(_LEET_WORD.findall(base)) >= 2:
        views.append(base.translate(_LEET))
    if _SPLIT_HINT.search(base) and len(_SPLIT_WORD.findall(base)) >= 3:
        views.append(_SPLIT_WORD.sub(lambda m: m.group(0).replace("-", ""), base))
    for m in _B64.finditer(raw):
        try:
            text = base64.b64decode(m.group(0) + "=" * (-len(m.group(0)) % 4)).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if text.isprintable() or "\n" in text:
            views.append(normalise(text))
    return views


def normalise(text: str) -> str:
    """Neutralise's cleanup (controls, invisibles) without its defusing, then NFKC, look-alike folding and case
    folding (the patterns are lower case and compiled without IGNORECASE, which makes them about 1.7x faster)."""
    cleaned = clean(text)
    return unicodedata.normalize("NFKC", cleaned).translate(_CYRILLIC).casefold()
