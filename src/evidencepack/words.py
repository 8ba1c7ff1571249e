"""Content words: a stop-word list and a light stem, shared by the passes that compare a question or an answer
with record text (the shown rule, attribution, the transplant and verdict checks). No dictionary, no model: the same
words give the same stems on every machine."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

STOP_WORDS = frozenset([
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
WORD = re.compile(r"[a-z][a-z'-]+")


@lru_cache(maxsize=65_536)
def stem(w: str) -> str:
    """A light suffix-stripping stem, no dictionary: enough to match "claims" with "claim" across texts (cached:
    the same words recur in every source and answer)."""
    w = w.strip("'-").removesuffix("'s")
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("ly", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + repl
            break
    return w[:-1] if w.endswith("e") and len(w) >= 4 else w  # "move" and "moved" both give "mov"


def content_words(text: str) -> frozenset[str]:
    """Lower-cased, lightly stemmed words that carry content (no stop words, no numbers)."""
    return frozenset(stem(w) for w in WORD.findall(text.lower()) if w not in STOP_WORDS and len(w) > 2)


def closest_sentence(question: str, candidates: Iterable[tuple[str, Sequence[str], str]]) -> tuple[str, str] | None:
    """(key, sentence): among `candidates` (key, its sentences, its titles), the sentence sharing the most content
    words with `question` that are not in its own titles (titles describe the whole text, so they cannot tell its
    sentences apart), then the most content words at all; ties go to the earlier candidate, then the earlier
    sentence. None when no sentence shares a word. What `Layout.show_rule` shows, and what `verdict_against_rule`
    reads."""
    asked = content_words(question)
    best: tuple[tuple[int, int], str, str] | None = None
    for key, sentences, titles in candidates:
        telling = asked - content_words(titles)
        for sentence in sentences:
            words = content_words(sentence)
            shared = (len(telling & words), len(asked & words))
            if shared[1] and (best is None or shared > best[0]):
                best = (shared, key, sentence)
    return None if best is None else (best[1], best[2])
