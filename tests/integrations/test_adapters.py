"""Adapters keep what the frameworks' loaders know; the lenient path reports every bad or repeated input."""

from datetime import date
from types import SimpleNamespace as NS

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidencepack import Layout, RecordError, assemble
from evidencepack.integrations.adapters import (
    coerce_date,
    from_haystack,
    from_langchain,
    from_llamaindex,
    haystack_dicts,
    langchain_dicts,
    llamaindex_dicts,
)
from evidencepack.integrations.common import assemble_lenient

AS_OF = "2026-01-01"


def lc(text, metadata=None, id=None):
    return NS(id=id, page_content=text, metadata=dict(metadata or {}))


def test_langchain_pdf_loader_keys_become_fields():
    [r] = from_langchain([lc("PTO does not carry over.", {"source": "handbook.pdf", "page": 3, "page_label": "4",
                                                          "creationdate": "D:20240305101500+01'00'"})])
    assert (r.doc, r.section) == ("handbook.pdf", "p. 4")
    assert r.date.isoformat() == "2024-03-05T10:15:00+01:00"
    assert r.metadata["source"] == "handbook.pdf" and r.metadata["page"] == 3  # loader keys stay available


def test_langchain_page_without_label_counts_from_zero_and_web_source_is_a_url():
    [pdf, web] = from_langchain([lc("a", {"source": "x.pdf", "page": 0}),
                                 lc("b", {"source": "https://hr.example/pto", "title": "PTO policy"})])
    assert pdf.section == "p. 1"
    assert (web.doc, web.url) == ("PTO policy", "https://hr.example/pto")


def test_explicit_field_in_metadata_wins_over_a_derived_one():
    [r] = from_langchain([lc("a", {"doc": "Handbook", "title": "ignored", "section": 5})])
    assert (r.doc, r.section) == ("Handbook", "5")  # an int section is read as text
    assert "doc" not in r.metadata and r.metadata["title"] == "ignored"


def test_langchain_ids_are_content_hashes_not_positions():
    docs = [lc("same text", {"source": "a.pdf"}), lc("same text", {"source": "b.pdf"}),
            lc("same text", {"source": "a.pdf"})]
    ids = [r.id for r in from_langchain(docs)]
    assert all(i.startswith("lc-") for i in ids)
    assert ids[0] != ids[1] and ids[0] == ids[2]  # another source differs; the same chunk twice matches
    assert from_langchain([lc("x", id="given")])[0].id == "given"
    assert from_langchain([lc("x", {"id": "from-meta"})])[0].id == "from-meta"


def test_reranker_relevance_score_ranks_a_reordered_list():
    docs = [lc("first in input", {"relevance_score": 0.2}, id="a"), lc("second", {"relevance_score": 0.9}, id="b")]
    a = assemble(from_langchain(docs), "q", as_of=AS_OF, layout=Layout(order="ranked"))
    assert [m.id for m in a.manifest] == ["b", "a"]


@pytest.mark.parametrize(("kind", "expected"), [("similarity", ["far", "near"]), ("distance", ["near", "far"])])
def test_score_pairs_and_declared_distance(kind, expected):
    pairs = [(lc("near text", id="near"), 0.1), (lc("far text", id="far"), 0.7)]
    records = from_langchain(pairs, score_kind=kind)
    a = assemble(records, "q", as_of=AS_OF, layout=Layout(order="ranked"))
    assert [m.id for m in a.manifest] == expected
    if kind == "distance":
        assert records[0].metadata["distance"] == 0.1


def test_unknown_score_kind_is_an_error():
    with pytest.raises(ValueError, match="score_kind"):
        langchain_dicts([lc("a")], score_kind="cosine")


def test_llamaindex_keys_ref_doc_id_and_embedding():
    node = NS(node_id="n1", get_content=lambda: "Text.", ref_doc_id="doc-7", embedding=[0.1, 0.2],
              metadata={"file_name": "handbook.pdf", "file_path": "/data/handbook.pdf", "page_label": "12",
                        "creation_date": "2024-02-01"})
    [r] = from_llamaindex([NS(node=node, score=0.5)])
    # creation_date is the file's time, not the document's (issue 25, item 7): never the record's date
    assert (r.id, r.doc, r.section, r.date, r.score) == ("n1", "handbook.pdf", "p. 12", None, 0.5)
    assert r.metadata["ref_doc_id"] == "doc-7" and r.embedding == (0.1, 0.2)
    assert r.url == "/data/handbook.pdf" and r.metadata["creation_date"] == "2024-02-01"


def test_haystack_page_number_file_path_embedding():
    d = NS(id="h1", content="Text.", meta={"file_path": "handbook.pdf", "page_number": 3, "source_id": "src"},
           score=0.4, embedding=[1.0, 0.0])
    [r] = from_haystack([d])
    assert (r.doc, r.section, r.score, r.embedding) == ("handbook.pdf", "p. 3", 0.4, (1.0, 0.0))
    assert r.metadata["source_id"] == "src"


def test_dates_coerced_only_when_they_read_one_way():
    assert coerce_date("2024/03/05") == "2024-03-05"
    assert coerce_date("March 5, 2024") == "2024-03-05"
    assert coerce_date("Tue, 05 Mar 2024 10:00:00 GMT") == "2024-03-05T10:00:00+00:00"
    assert coerce_date(date(2024, 3, 5)) == "2024-03-05"
    assert coerce_date("03/05/2024") == "03/05/2024"  # March or May: never guessed
    assert coerce_date(1709632800) == 1709632800


def test_strict_adapters_still_raise_on_what_they_cannot_read():
    with pytest.raises(RecordError, match="date"):
        from_langchain([lc("a", {"date": "03/05/2024"})])
    with pytest.raises(RecordError, match="text"):
        from_haystack([NS(id="h", content=None, meta={}, score=None, embedding=None)])


# -- the lenient path -------------------------------------------------------------------------------------


def outcomes(a):
    return {(o.id, o.decision, o.reason, o.duplicate_of) for o in a.report.records}


def test_lenient_reports_duplicates_blank_text_and_bad_values():
    docs = [NS(id="h1", content="Carry-over is capped at five days.", meta={"date": "03/05/2024"}, score=0.9,
               embedding=None),
            NS(id="h2", content=None, meta={}, score=0.8, embedding=None),
            NS(id="h1", content="Carry-over is capped at five days.", meta={}, score=0.7, embedding=None),
            NS(id="h3", content="   ", meta={}, score=0.6, embedding=None),
            NS(id="h4", content="Unscored record from a fusion retriever.", meta={}, score=None, embedding=None)]
    a = assemble_lenient(haystack_dicts(docs), "q", as_of=AS_OF)
    got = outcomes(a)
    assert ("h2", "dropped", "empty_text", None) in got and ("h3", "dropped", "empty_text", None) in got
    assert ("h1", "dropped", "duplicate", "h1") in got
    assert {m.id for m in a.manifest} == {"h1", "h4"}
    assert len(a.report.records) == len(docs)
    text = " ".join(str(o.detail) + " ".join(getattr(o, "notes", ())) for o in a.report.records)
    assert "'date'" in text and "score" in text  # the left-out date and the missing score are noted
    assert a.handle("S1").id == "h1" or a.handle("S2").id == "h1"


def test_lenient_raise_is_the_strict_core():
    with pytest.raises(RecordError):
        assemble_lenient([{"id": "a", "text": ""}], "q", as_of=AS_OF, on_invalid="raise")


def test_strict_core_unchanged_for_plain_dicts():
    with pytest.raises(RecordError, match="duplicate"):
        assemble([{"id": "a", "text": "x"}, {"id": "a", "text": "y"}], "q", as_of=AS_OF)


_values = st.one_of(st.none(), st.integers(-3, 3), st.text(max_size=6), st.sampled_from(["2024-01-01", "1/2/2024"]))
_item = st.fixed_dictionaries(
    {"id": st.one_of(st.sampled_from(["a", "b", "c", "", " "]), st.none(), st.integers(0, 3)),
     "text": st.one_of(st.none(), st.sampled_from(["", " ", "alpha beta", "gamma delta", "alpha beta"]))},
    optional={"score": st.one_of(st.none(), st.floats(allow_nan=True), st.text(max_size=2)),
              "section": _values, "date": _values, "authority": st.sampled_from(["informal", "bogus"]),
              "valid_until": _values},
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_item, max_size=7))
def test_lenient_never_raises_and_accounts_for_every_input(items):
    a = assemble_lenient(items, "q", as_of=AS_OF)
    assert len(a.report.records) == len(items)
    assert all(o.decision in ("included", "dropped") for o in a.report.records)
    assert all(o.reason for o in a.report.records if o.decision == "dropped")


def test_real_framework_objects():
    lc_docs = pytest.importorskip("langchain_core.documents")
    schema = pytest.importorskip("llama_index.core.schema")
    haystack = pytest.importorskip("haystack")
    [r] = from_langchain([lc_docs.Document(page_content="x", metadata={"source": "a.pdf", "page": 1})])
    assert (r.doc, r.section) == ("a.pdf", "p. 2") and r.id.startswith("lc-")
    node = schema.TextNode(text="y", metadata={"file_name": "b.pdf", "page_label": "iv"}, embedding=[0.5],
                           relationships={schema.NodeRelationship.SOURCE: schema.RelatedNodeInfo(node_id="doc-1")})
    [r] = from_llamaindex([schema.NodeWithScore(node=node, score=0.3)])
    assert (r.doc, r.section, r.metadata["ref_doc_id"], r.embedding, r.score) == ("b.pdf", "p. iv", "doc-1",
                                                                                   (0.5,), 0.3)
    [d] = llamaindex_dicts([schema.Document(text="z", metadata={"creation_date": "2024-05-06"})])
    assert "date" not in d  # a filesystem time is not the document's date
    [d] = llamaindex_dicts([schema.Document(text="z", metadata={"creation_date": "2024-05-06", "date": "2024-01-02"})])
    assert d["date"] == "2024-01-02"  # unless the caller maps it
    [r] = from_haystack([haystack.Document(content="w", meta={"file_path": "c.pdf", "page_number": 2})])
    assert (r.doc, r.section) == ("c.pdf", "p. 2")
