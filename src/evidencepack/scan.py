"""A heuristic scan for injection-like content in a record. It reports; it never drops on its own.

A score in [0, 1] from weighted signals: imperatives aimed at the model, chat role markers, requests to
cite or trust the record itself, exfiltration requests. It is a tripwire for review, not a classifier: a
policy option (`injection_threshold`) can exclude records above a score, always with the reason reported.
"""

from __future__ import annotations

import re
import unicodedata

from .records import Record

_SIGNALS: tuple[tuple[float, re.Pattern[str]], ...] = tuple(
    (weight, re.compile(pattern, re.IGNORECASE | re.MULTILINE)) for weight, pattern in (
        (0.5, r"\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:previous|prior|above|earlier|all|system|"
              r"your)\b.{0,20}\b(?:instructions?|prompts?|rules|guidelines|messages?)"),
        (0.4, r"<\s*\|\s*[a-z_]{2,30}\s*\|\s*>|\[/?inst\]|<</?sys>>|<start_of_turn>|<end_of_turn>"),
        (0.3, r"^\s*(?:#{1,6}\s*)?(?:system|assistant|human|instruction)\s*:"),
        (0.4, r"\b(?:cite|treat|consider|regard)\b.{0,30}\b(?:this|me|it)\b.{0,30}\b(?:as\s+)?"
              r"(?:authoritative|the (?:only|official|primary) source|current|trusted)"),
        (0.3, r"\b(?:you are now|new instructions?|from now on|you must|system prompt|act as)\b"),
        (0.4, r"\b(?:repeat|reveal|print|output|send|leak|exfiltrate)\b.{0,40}\b(?:system prompt|"
              r"instructions|api key|password|secret|hidden|other sources|conversation)"),
        (0.3, r"!\[[^\]]*\]\(https?://[^)]*\?[^)]*=|https?://\S*(?:\{|%7b)"),
        (0.2, r"\b(?:do not|don't) (?:tell|mention|reveal)\b.{0,30}\b(?:user|anyone)"),
    )
)


def injection_score(record: Record) -> float:
    """Sum of the weights of the signals found in the record's text and metadata, capped at 1."""
    texts = [record.text, *(v for v in (record.doc, record.section, record.topic, record.source_system) if v)]
    texts += [v for v in record.metadata.values() if isinstance(v, str)]
    folded = unicodedata.normalize("NFKC", "\n".join(texts))
    folded = re.sub("[\u200b-\u200f\u2060-\u2064\ufeff\u00ad]", "", folded)
    score = sum(weight for weight, pattern in _SIGNALS if pattern.search(folded))
    return round(min(score, 1.0), 2)
