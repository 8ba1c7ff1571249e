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
# no handle at all, but its content is last year's (superseded) rule: attribution sees the sentence rests on it;
# without attribution only its value ("five days", stated by the superseded record alone) gives it away
UNCITED_STALE = "Up to five days of PTO carry over into the next year."
# the same rule without a value: only attribution can see it is stale
UNCITED_STALE_WORDS = "Unused PTO carries over into the next year."
WRONG_DATE = "Unused PTO does not carry over; it is forfeited on December 30 [S1]."  # S1 says December 31


def attributed_stale(verdict: dict) -> bool:
    """The verdict (as a dict) flags the uncited sentence as resting, by attribution, on superseded S2 only."""
    stale = [f for f in verdict["findings"] if f["kind"] == "stale_only"]
    return (len(stale) == 1 and "attributed" in stale[0]["message"] and verdict["attribution"] is True
            and verdict["attributed_ids"] == ["hb-2024"]
            and [(s["handles"], s["written"]) for s in verdict["support"]] == [(["S2"], False)])
