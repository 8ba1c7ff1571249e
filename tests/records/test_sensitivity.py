"""One sensitivity rule for every path (issue 25, item 8): a sensitivity that is not a level, or is null,
fails closed; no sensitivity key means internal; framework documents follow the same rule."""

from __future__ import annotations

from typing import Any

import pytest

from evidencepack import Admission, RecordError, assemble
from evidencepack.integrations.adapters import haystack_dicts, llamaindex_dicts
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
