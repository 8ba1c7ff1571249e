"""The LlamaIndex query engine against the real llama-index-core, with a scripted LLM (no network)."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.base.base_retriever import BaseRetriever  # noqa: E402
from llama_index.core.base.response.schema import Response  # noqa: E402
from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata  # noqa: E402
from llama_index.core.schema import NodeRelationship, NodeWithScore, RelatedNodeInfo, TextNode  # noqa: E402

from evidencepack import Layout  # noqa: E402
from evidencepack.integrations.common import Delta, Done, Flagged  # noqa: E402
from evidencepack.integrations.llamaindex import EvidencePackQueryEngine  # noqa: E402
from fake_llm import pieces  # noqa: E402
from integration_data import (  # noqa: E402
    AS_OF,
    GOOD,
    QUESTION,
    RECORDS,
    UNCITED_STALE,
    UNKNOWN,
    WRONG_DATE,
    attributed_stale,
)

RANKED = Layout(order="ranked")


class Scripted(CustomLLM):
    replies: list[str]
    prompts: list = []

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="scripted")

    def _next(self, prompt):
        self.prompts.append(prompt)
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]

    def complete(self, prompt, formatted=False, **kwargs):
        return CompletionResponse(text=self._next(prompt))

    def stream_complete(self, prompt, formatted=False, **kwargs):
        text, so_far = self._next(prompt), ""
        for piece in pieces(text):
            so_far += piece
            yield CompletionResponse(text=so_far, delta=piece)


class Fixed(BaseRetriever):
    def __init__(self, nodes):
        super().__init__()
        self.nodes = nodes

    def _retrieve(self, query_bundle):
        return list(self.nodes)


def nodes(extra=()):
    out = []
    for score, r in zip((0.9, 0.8, 0.7), RECORDS):
        meta = {k: v for k, v in r.items() if k not in ("id", "text")}
        node = TextNode(id_=r["id"], text=r["text"], metadata=meta,
                        relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=f"file-{r['id']}")})
        out.append(NodeWithScore(node=node, score=score))
    return out + list(extra)


def engine(replies, found=None, **kw):
    return EvidencePackQueryEngine.from_args(retriever=Fixed(found or nodes()), llm=Scripted(replies=replies),
                                             as_of=AS_OF, layout=RANKED, **kw)


def test_query_returns_response_with_included_source_nodes_and_verdict():
    response = engine([GOOD]).query(QUESTION)
    assert isinstance(response, Response) and response.response == GOOD
    assert [n.node.node_id for n in response.source_nodes] == ["hb-2025", "hb-2024", "slack-2023"]
    meta = response.metadata
    assert meta["valid"] and meta["verdict"]["valid"] and meta["cited_ids"] == ["hb-2025"]
    assert meta["handles"]["S1"] == "hb-2025"


def test_regenerates_and_dropped_nodes_are_reported_not_raised():
    blank = NodeWithScore(node=TextNode(id_="blank", text=""), score=0.1)
    e = engine([UNKNOWN, GOOD], found=nodes([blank]))
    response = e.query(QUESTION)
    assert response.response == GOOD and response.metadata["attempts"] == 1
    assert "[S9] was not in the prompt" in e.llm.prompts[1]
    dropped = {(o["id"], o["reason"]) for o in response.metadata["report"]["records"] if o["decision"] == "dropped"}
    assert dropped == {("blank", "empty_text")}
    assert "blank" not in [n.node.node_id for n in response.source_nodes]
    # LlamaIndex's retrievers already drop a repeated node; nodes handed over directly can repeat
    twice = e.assemble(nodes([nodes()[0]]), QUESTION)
    assert ("hb-2025", "duplicate") in {(o.id, o.reason) for o in twice.report.records}


def test_stream_query_and_async():
    events = list(engine([UNKNOWN, GOOD]).stream_query(QUESTION))
    assert [e.finding.kind for e in events if isinstance(e, Flagged)] == ["unknown_handle"]
    assert "".join(e.text for e in events if isinstance(e, Delta) and e.attempt == 1) == GOOD
    assert isinstance(events[-1], Done)

    async def run():
        response = await engine([UNKNOWN, GOOD]).aquery(QUESTION)
        streamed = [e async for e in engine([GOOD]).astream_query(QUESTION)]
        return response, streamed

    response, streamed = asyncio.run(run())
    assert response.response == GOOD and response.metadata["attempts"] == 1
    assert streamed[-1].result.verdict.valid


def test_attribute_flags_an_uncited_stale_answer_in_query_and_stream():
    off = engine([UNCITED_STALE]).query(QUESTION).metadata
    assert off["valid"] and off["attributed_ids"] == [] and off["verdict"]["attribution"] is False
    e = engine([UNCITED_STALE], attribute=True, attempts=0)
    on = e.query(QUESTION).metadata
    assert not on["valid"] and attributed_stale(on["verdict"]) and on["attributed_ids"] == ["hb-2024"]
    assert on["cited_ids"] == []  # attributed ids are never reported as cited
    assert list(e.stream_query(QUESTION))[-1].result.verdict == on["answered"].verdict
    again = engine([UNCITED_STALE, GOOD], attribute=True, repair="ask").query(QUESTION)
    assert again.response == GOOD and again.metadata["attempts"] == 1


def test_unsupported_value_level_reaches_the_check():
    def kinds(level):
        verdict = engine([WRONG_DATE], unsupported_value=level, attempts=0).query(QUESTION).metadata["verdict"]
        return [(f["kind"], f["severity"]) for f in verdict["findings"]]

    assert kinds("off") == [] and kinds("error") == [("unsupported_value", "error")]


def test_withhold_asks_afresh_without_the_stale_node_by_default():
    old_rule = RECORDS[1]["text"]
    e = engine([UNCITED_STALE, GOOD], attribute=True)
    assert e.policy.repair == "withhold"
    response = e.query(QUESTION)
    first, second = e.llm.prompts
    assert old_rule in first and old_rule not in second and "assistant: Up to" not in second
    meta = response.metadata
    assert response.response == GOOD and meta["valid"] and meta["attempts"] == 1
    assert meta["withheld"] == ["hb-2024"] and meta["handles"] == {"S1": "hb-2025", "S2": "slack-2023"}
    assert meta["withheld_note"] == meta["answered"].withheld_note() and "Handbook 2024" in meta["withheld_note"]
    assert [n.node.node_id for n in response.source_nodes] == ["hb-2025", "slack-2023"]
    assert meta["report"] == meta["answered"].assembly.report.to_dict()  # the assembly the answer was checked on
    done = list(engine([UNCITED_STALE, GOOD], attribute=True).stream_query(QUESTION))[-1]
    assert done.result.withheld == ("hb-2024",) and done.result.verdict.valid

    async def run():
        response = await engine([UNCITED_STALE, GOOD], attribute=True).aquery(QUESTION)
        events = [x async for x in engine([UNCITED_STALE, GOOD], attribute=True).astream_query(QUESTION)]
        return response, events[-1].result

    response, streamed = asyncio.run(run())
    assert response.metadata["withheld"] == ["hb-2024"] and streamed.withheld == ("hb-2024",)
    # "ask" sends a second turn that replays the first answer
    asked = engine([UNCITED_STALE, GOOD], attribute=True, repair="ask")
    assert asked.query(QUESTION).metadata["withheld"] == [] and f"assistant: {UNCITED_STALE}" in asked.llm.prompts[1]


def test_a_directly_built_engine_withholds_too_and_other_findings_get_the_repair_turn():
    direct = EvidencePackQueryEngine(retriever=Fixed(nodes()), llm=Scripted(replies=[GOOD]), as_of=AS_OF)
    assert direct.policy.repair == "withhold"
    for kind, first in (("uncited", "Unused PTO does not carry over."), ("unsupported_value", WRONG_DATE)):
        e = engine([first, GOOD], regenerate_on=[kind], **{kind: "error"})
        meta = e.query(QUESTION).metadata
        assert meta["valid"] and meta["attempts"] == 1 and meta["withheld"] == []
        assert f"assistant: {first}" in e.llm.prompts[1]  # a second turn on the same assembly


# -- issue 26, item 4: a node postprocessor, the prompt mixin, LlamaIndex's own streaming ----------------------


def test_the_postprocessor_works_inside_the_users_own_query_engine():
    from llama_index.core import get_response_synthesizer
    from llama_index.core.query_engine import RetrieverQueryEngine

    from evidencepack import validate_citations
    from evidencepack.integrations.llamaindex import EvidencePackPostprocessor

    stale = TextNode(id_="old", text="Up to five days of PTO carry over.", metadata={"valid_until": "2024-12-31"})
    found = nodes([NodeWithScore(node=stale, score=0.6), nodes()[0]])  # + an expired node and a duplicate
    post = EvidencePackPostprocessor(as_of=AS_OF, layout=RANKED)
    llm = Scripted(replies=["Unused PTO does not carry over."], prompts=[])
    qe = RetrieverQueryEngine.from_args(Fixed(found), llm=llm, node_postprocessors=[post],
                                        response_synthesizer=get_response_synthesizer(llm=llm))
    response = qe.query(QUESTION)
    kept = [n.node.node_id for n in response.source_nodes]
    assert kept == [m.id for m in post.last_assembly.manifest] == ["hb-2025", "hb-2024", "slack-2023", "old"]
    assert [m.status for m in post.last_assembly.manifest] == ["current", "current", "expired", "expired"]
    post.postprocess_nodes(found, query_str=QUESTION)  # the engine passed no repeat on; given one, it is dropped
    report = {o.id: o.reason for o in post.last_assembly.report.records if o.decision == "dropped"}
    assert report == {"hb-2025": "duplicate"}
    assert all(n in found for n in response.source_nodes)  # the same node objects, text untouched
    assert "Context information is below" in str(llm.prompts[0])  # the user's synthesizer wrote the prompt
    assert validate_citations("It does not carry over [S1].", post.last_assembly).valid
    clearance = EvidencePackPostprocessor(as_of=AS_OF, layout=Layout(order="stable"))
    secret = NodeWithScore(node=TextNode(id_="pay", text="Band L4 pays 70,000.",
                                         metadata={"sensitivity": "restricted"}), score=0.95)
    assert [n.node.node_id for n in clearance.postprocess_nodes([secret, *nodes()], query_str=QUESTION)] == [
        "hb-2024", "hb-2025", "slack-2023"]


def test_bad_postprocessor_options_fail_at_construction():
    from evidencepack.errors import EvidencepackError
    from evidencepack.integrations.llamaindex import EvidencePackPostprocessor

    with pytest.raises(EvidencepackError):
        EvidencePackPostprocessor(as_of="not-a-date")
    with pytest.raises(EvidencepackError):
        EvidencePackPostprocessor(as_of=AS_OF, layout=Layout(order="bogus"))


def test_prompts_are_exposed_and_replaceable_through_the_prompt_mixin():
    from evidencepack.integrations.llamaindex import EvidencePackPostprocessor

    qe = engine([GOOD])
    prompts = qe.get_prompts()
    assert set(prompts) == {"system_prompt"} and "$boundary" in prompts["system_prompt"].get_template()
    qe.update_prompts({"system_prompt": "Use only the sources. Code $boundary. Cite as [${prefix}1]."})
    response = qe.query(QUESTION)
    assert response.metadata["valid"]
    assert qe.llm.prompts[-1].startswith("system: Use only the sources. Code ep")
    post = EvidencePackPostprocessor(as_of=AS_OF)
    assert "$boundary" in post.get_prompts()["system_prompt"].get_template()


def test_streaming_the_llamaindex_way():
    from llama_index.core.base.response.schema import StreamingResponse

    qe = engine([UNKNOWN, GOOD], streaming=True)
    response = qe.query(QUESTION)
    assert isinstance(response, StreamingResponse)
    streamed = "".join(response.response_gen)
    assert streamed == UNKNOWN + GOOD  # the flagged answer streamed, then its regeneration
    assert str(response) == GOOD and response.get_response().response == GOOD
    assert response.metadata["valid"] and response.metadata["attempts"] == 1
    assert [n.node.node_id for n in response.source_nodes] == ["hb-2025", "hb-2024", "slack-2023"]


def test_async_streaming_the_llamaindex_way():
    from llama_index.core.base.response.schema import AsyncStreamingResponse

    async def run():
        response = await engine([GOOD], streaming=True).aquery(QUESTION)
        assert isinstance(response, AsyncStreamingResponse)
        streamed = "".join([t async for t in response.async_response_gen()])
        return streamed, await response.get_response()

    streamed, final = asyncio.run(run())
    assert streamed == GOOD and final.response == GOOD and final.metadata["valid"]
