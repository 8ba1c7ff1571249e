from types import SimpleNamespace as NS

from evidencepack import assemble
from evidencepack.adapters import from_haystack, from_langchain, from_llamaindex


def test_langchain_documents():
    docs = [NS(id=None, page_content="PTO does not carry over.",
               metadata={"doc": "Handbook", "authority": "authoritative", "page": 4}),
            NS(id="x2", page_content="sure, just ask", metadata={"authority": "informal", "valid_until": "2024-01-01"})]
    records = from_langchain(docs)
    assert [r.id for r in records] == ["doc-1", "x2"]
    assert records[0].doc == "Handbook" and records[0].metadata == {"page": 4}
    a = assemble(records, "q", as_of="2026-01-01")
    assert "EXPIRED since 2024-01-01" in a.user


def test_llamaindex_nodes_keep_scores_as_rank():
    def node(id, text, score):
        return NS(node=NS(node_id=id, get_content=lambda: text, metadata={"topic": "pto"}), score=score)

    records = from_llamaindex([node("a", "low", 0.1), node("b", "high", 0.9)])
    assert [m.id for m in assemble(records, "q", as_of="2026-01-01", order="ranked").manifest] == ["b", "a"]


def test_haystack_documents():
    [r] = from_haystack([NS(id="h1", content="Text.", meta={"section": "5.2", "source_system": "wiki"},
                            score=None)])
    assert (r.id, r.section, r.source_system, r.score) == ("h1", "5.2", "wiki", None)
