"""Every integration entry point takes `severities=` (any finding kind) beside its three old keywords, through
one helper, `integrations.common.severities_of`."""

from __future__ import annotations

import inspect

import pytest

from evidencepack.citations.severities import Severities
from evidencepack.errors import EvidencepackError
from evidencepack.integrations.common import severities_of


def test_a_mapping_applies_over_the_keywords_and_an_object_is_taken_as_is() -> None:
    got = severities_of({"stale_value": "off"}, uncited="error", stale_only="warn", unsupported_value="off")
    assert (got.uncited, got.stale_only, got.unsupported_value, got.stale_value) == ("error", "warn", "off", "off")
    assert severities_of({"uncited": "off"}, uncited="error", stale_only="error", unsupported_value="warn"
                         ).uncited == "off"  # the mapping wins over the keyword
    whole = Severities(record_id="warn")
    assert severities_of(whole, uncited="error", stale_only="warn", unsupported_value="off") is whole
    assert severities_of(None, uncited="off", stale_only="error", unsupported_value="warn") == Severities(
        uncited="off")
    with pytest.raises(EvidencepackError, match="unknown finding kind"):
        severities_of({"nope": "off"}, uncited="warn", stale_only="error", unsupported_value="warn")


@pytest.mark.parametrize(("module", "names"), [
    ("evidencepack.integrations.providers", ("ask", "ask_async", "ask_stream", "ask_stream_async")),
    ("evidencepack.integrations.langchain", ("cited_chain",)),
    ("evidencepack.integrations.llamaindex", ("EvidencePackQueryEngine.from_args",)),
    ("evidencepack.integrations.haystack", ("CitationValidator.__init__",)),
])
def test_every_entry_point_takes_severities(module: str, names: tuple[str, ...]) -> None:
    mod = pytest.importorskip(module)
    for name in names:
        obj = mod
        for part in name.split("."):
            obj = getattr(obj, part)
        assert "severities" in inspect.signature(obj).parameters, name


def test_langchain_chain_carries_the_levels() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.runnables import RunnableLambda

    from evidencepack.integrations.langchain import cited_chain

    chain = cited_chain(RunnableLambda(lambda _: "x"), as_of="2026-06-01", severities={"stale_value": "warn"})
    assert chain.policy.severities.stale_value == "warn" and chain.policy.severities.stale_only == "error"
