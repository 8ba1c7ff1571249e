"""Repair conversations do not grow with the attempts (issue 25, item 8)."""

from __future__ import annotations

from evidencepack import assemble
from evidencepack.citations import validate_citations
from evidencepack.citations.policies import REPAIR_OPENING
from evidencepack.integrations.common import chat_messages, repair

AS_OF = "2026-01-01"


def test_repair_conversation_does_not_grow_with_the_attempts() -> None:
    a = assemble([{"id": "a", "text": "PTO does not carry over.", "authority": "authoritative"}], "Carry over?",
                 as_of=AS_OF, boundary_key="k" * 16)
    base = chat_messages(a)
    sizes = []
    messages = base
    for attempt in range(8):
        answer = f"Attempt {attempt}: it carries over [S9]. " + "Filler sentence. " * 60
        verdict = validate_citations(answer, a)
        messages = repair(messages, answer, verdict, "S")
        sizes.append(sum(len(m["content"]) for m in messages))
        assert messages[:2] == base and len(messages) == 4  # the original turns, the latest answer, its repair
        assert messages[2]["content"] == answer and messages[3]["content"].startswith(REPAIR_OPENING)
    assert max(sizes) - min(sizes) < 20  # only the attempt number's digits differ
