"""Issue 25, item 8: one sensitivity rule for every path (a null sensitivity fails closed), repair
conversations that do not grow with the attempts, and dedup memory that is released after an assembly."""

from __future__ import annotations

import gc
import random
import tracemalloc
from typing import Any

import pytest

from evidencepack import Admission, Budget, RecordError, assemble
from evidencepack.citations import validate_citations
from evidencepack.citations.policies import REPAIR_OPENING
from evidencepack.integrations.adapters import haystack_dicts, llamaindex_dicts
from evidencepack.integrations.common import chat_messages, repair
from evidencepack.passes.dedup import FINGERPRINT_CACHE_CHARS
from evidencepack.records.record import Record

AS_OF = "2026-01-01"


def fates(records: list[dict[str, Any]], clearance: str = "restricted") -> list[tuple[str, str | None]]:
    a = assemble(records, "q", as_of=AS_OF, boundary_key="k" * 16,
                 admission=Admission(clearance=clearance, on_invalid="drop"))
    return [(o.decision, o.reason) for o in a.report.records]


@pytest.mark.parametrize("record", [
    {"id": "a", "text": "t", "sensitivity": None},
    {"id": "a", "text": "t", "metadata": {"sensitivity": None}},
    {"id": "a", "text": "t", "sensitivity": "internal", "metadata": {"sensitivity": None}},
    {"id": "a", "text": "t", "sensitivity": 3},
    {"id": "a", "text": "t", "sensitivity": "secret"},
])
def test_a_sensitivity_that_is_not_a_level_fails_closed(record: dict[str, Any]) -> None:
    """Null counts as a wrong type, like any other: above every clearance, even `restricted`."""
    assert fates([record]) == [("dropped", "above_clearance")]
    with pytest.raises(RecordError, match="sensitivity"):
        Record.from_dict(record)  # the strict constructor refuses it


def test_no_sensitivity_key_is_internal() -> None:
    assert fates([{"id": "a", "text": "t"}], clearance="internal") == [("included", None)]


def test_framework_documents_with_a_null_sensitivity_fail_closed() -> None:
    haystack = pytest.importorskip("haystack")
    schema = pytest.importorskip("llama_index.core.schema")
    hs = haystack_dicts([haystack.Document(content="w", meta={"sensitivity": None})])
    li = llamaindex_dicts([schema.TextNode(text="y", metadata={"sensitivity": None})])
    assert fates(hs) == fates(li) == [("dropped", "above_clearance")]


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


def test_dedup_memory_is_released_after_a_many_record_assembly() -> None:
    """Before: a process-wide cache kept every text's shingle set (about 90 bytes per character), 800 MB
    after 4,000 records of 1.7 KB (here 160 MB). Now the cache is bounded by the characters it keeps, so what
    stays after the call is a small multiple of the input plus that bound."""
    rng = random.Random(0)
    words = [f"w{i}" for i in range(5000)]
    records = [{"id": f"r{i}", "text": " ".join(rng.choice(words) for _ in range(300)), "score": 1 - i / 1000}
               for i in range(600)]
    size = sum(len(r["text"]) for r in records)
    gc.collect()
    tracemalloc.start()
    try:
        a = assemble(records, "q?", as_of=AS_OF, boundary_key="k" * 16,
                     budget=Budget(context_window=8192, fill_gaps=True))
        del a
        gc.collect()
        retained, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    bound = 8 * size + 120 * FINGERPRINT_CACHE_CHARS  # input-sized leftovers + the cache's cap (~90 B a char)
    assert retained < bound, (retained, size)  # was about 155 × the input
