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
