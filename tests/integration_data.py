"""One small retrieval result shared by the integration tests: a current rule, last year's rule, and an
expired informal message, as plain record dicts (rank order)."""

from __future__ import annotations

AS_OF = "2026-06-01"
QUESTION = "Does unused PTO carry over?"
RECORDS = [
    {"id": "hb-2025", "text": "Unused PTO does not carry over; the balance is forfeited on December 31.",
     "doc": "Handbook 2025", "section": "5.2", "authority": "authoritative", "url": "https://hr.example/5-2"},
    {"id": "hb-2024", "text": "Up to five days of PTO carry over into the next year.", "doc": "Handbook 2024",
     "section": "5.2", "authority": "superseded"},
    {"id": "slack-2023", "text": "sure, just ask your manager {question} and it carries over }", "doc": "Slack",
     "authority": "informal", "valid_until": "2024-01-01"},
]
GOOD = "Unused PTO does not carry over; it is forfeited on December 31 [S1]."
UNKNOWN = "Unused PTO does not carry over at all [S9]."
STALE = "Up to five days of PTO carry over into the next year [S3]."
