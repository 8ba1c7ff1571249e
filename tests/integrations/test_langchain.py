"""The LangChain components against the real langchain-core, with a scripted chat model (no network)."""

from __future__ import annotations

import asyncio
import json

import pytest

lc_core = pytest.importorskip("langchain_core")

from langchain_core.documents import Document  # noqa: E402
from langchain_core.language_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, SystemMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult  # noqa: E402
from langchain_core.prompts import ChatPromptTemplate  # noqa: E402
from langchain_core.runnables import RunnableLambda, RunnablePassthrough  # noqa: E402

from evidencepack import Layout  # noqa: E402
from evidencepack.errors import EvidencepackError  # noqa: E402
from evidencepack.integrations.common import Delta, Done, Flagged  # noqa: E402
from evidencepack.integrations.langchain import AssembledPrompt, EvidencePrompt, cited_chain  # noqa: E402
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


class Scripted(BaseChatModel):
    """Replies in order (the last repeats) and keeps every message list it was sent."""

    replies: list[str]
    seen: list = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _next(self, messages):
        self.seen.append(messages)
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self._next(messages)))])

    def _stream(self, messages, stop=None, run_manager=None, **kwargs):
        for piece in pieces(self._next(messages)):
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))


def documents():
    return [Document(page_content=r["text"], id=r["id"],
                     metadata={k: v for k, v in r.items() if k not in ("id", "text")}) for r in RECORDS]


def test_prompt_runnable_gives_messages_and_the_assembly():
    prompt = EvidencePrompt(as_of=AS_OF, layout=RANKED).invoke({"documents": documents(), "question": QUESTION})
    assert isinstance(prompt, AssembledPrompt)
    system, user = prompt.to_messages()
    assert isinstance(system, SystemMessage) and isinstance(user, HumanMessage)
    assert user.content == prompt.assembly.user and [m.id for m in prompt.assembly.manifest] == [
        "hb-2025", "hb-2024", "slack-2023"]


def test_braces_in_a_record_reach_the_model_unchanged():
    llm = Scripted(replies=[GOOD], seen=[])
    chain = {"documents": RunnableLambda(lambda q: documents()), "question": RunnablePassthrough()} | \
        EvidencePrompt(as_of=AS_OF) | llm
    assert chain.invoke(QUESTION).content == GOOD
    sent = llm.seen[0][1].content
    assert "{question} and it carries over }" in sent
    # the trap this avoids: the same messages through a template re-parse the braces
    with pytest.raises((KeyError, ValueError)):
        ChatPromptTemplate.from_messages([("system", "x"), ("human", sent)]).invoke({})


def test_forgiving_by_default_and_every_document_reported():
    docs = documents() + [Document(page_content="   ", id="blank"), documents()[0]]
    prompt = EvidencePrompt(as_of=AS_OF).invoke({"documents": docs, "question": QUESTION})
    fate = {(o.id, o.reason) for o in prompt.assembly.report.records if o.decision == "dropped"}
    assert ("blank", "empty_text") in fate and ("hb-2025", "duplicate") in fate
    assert len(prompt.assembly.report.records) == len(docs)


def test_cited_chain_regenerates_and_resolves_sources():
    # the default repair withholds, but only a stale-only answer has sources to withhold: an unknown handle
    # still gets the repair turn (the answer, then what was wrong)
    llm = Scripted(replies=[UNKNOWN, GOOD], seen=[])
    chain = cited_chain(llm, retriever=RunnableLambda(lambda q: documents()), as_of=AS_OF, layout=RANKED)
    result = chain.invoke(QUESTION)
    assert result.answer == GOOD and result.attempts == 1 and result.verdict.valid
    assert [s.id for s in result.sources] == ["hb-2025"]
    repair = llm.seen[1]
    assert repair[-2].content == UNKNOWN and "[S9] was not in the prompt" in repair[-1].content


def test_cited_chain_streams_flags_then_regenerates():
    llm = Scripted(replies=[UNKNOWN, GOOD], seen=[])
    chain = cited_chain(llm, as_of=AS_OF, layout=RANKED)
    events = list(chain.stream({"documents": documents(), "question": QUESTION}))
    assert "".join(e.text for e in events if isinstance(e, Delta) and e.attempt == 0) == UNKNOWN
    assert [e.finding.kind for e in events if isinstance(e, Flagged)] == ["unknown_handle"]
    assert isinstance(events[-1], Done) and events[-1].result.answer == GOOD


def test_cited_chain_async():
    async def run():
        llm = Scripted(replies=[UNKNOWN, GOOD, GOOD], seen=[])
        chain = cited_chain(llm, retriever=RunnableLambda(lambda q: documents()), as_of=AS_OF, layout=RANKED)
        result = await chain.ainvoke(QUESTION)
        events = [e async for e in chain.astream(QUESTION)]
        return result, events

    result, events = asyncio.run(run())
    assert result.answer == GOOD and result.attempts == 1
    assert isinstance(events[-1], Done) and events[-1].result.verdict.valid


def test_bad_input_is_a_clear_error():
    with pytest.raises(EvidencepackError, match="documents"):
        EvidencePrompt(as_of=AS_OF).invoke("just a question")
    with pytest.raises(EvidencepackError, match="retriever"):
        cited_chain(Scripted(replies=["x"], seen=[]), as_of=AS_OF).invoke("q")


def test_attribute_flags_an_uncited_stale_answer_in_invoke_and_stream():
    data = {"documents": documents(), "question": QUESTION}
    off = cited_chain(Scripted(replies=[UNCITED_STALE], seen=[]), as_of=AS_OF, layout=RANKED).invoke(data)
    assert off.verdict.valid and off.verdict.to_dict()["attributed_ids"] == []
    chain = cited_chain(Scripted(replies=[UNCITED_STALE], seen=[]), as_of=AS_OF, layout=RANKED, attribute=True,
                        attempts=0)
    on = chain.invoke(data)
    assert not on.verdict.valid and attributed_stale(on.to_dict()["verdict"])
    assert "(attributed: [S2: Handbook 2024" in on.resolved()
    streamed = list(chain.stream(data))[-1].result
    assert streamed.verdict == on.verdict  # the streaming check uses the same options
    # with attempts left and the repair turn chosen, the attributed stale claim is sent back with what was wrong
    llm = Scripted(replies=[UNCITED_STALE, GOOD], seen=[])
    again = cited_chain(llm, as_of=AS_OF, layout=RANKED, attribute=True, repair="ask").invoke(data)
    assert again.answer == GOOD and again.attempts == 1 and "S2" in llm.seen[1][-1].content


def test_unsupported_value_level_reaches_the_check():
    data = {"documents": documents(), "question": QUESTION}

    def kinds(level):
        chain = cited_chain(Scripted(replies=[WRONG_DATE], seen=[]), as_of=AS_OF, unsupported_value=level,
                            attempts=0)
        return [(f.kind, f.severity) for f in chain.invoke(data).verdict.findings]

    assert kinds("off") == [] and kinds("error") == [("unsupported_value", "error")]
    with pytest.raises(EvidencepackError):
        cited_chain(Scripted(replies=["x"], seen=[]), as_of=AS_OF, unsupported_value="loud")


def test_cited_chain_withholds_the_stale_document_and_asks_afresh_by_default():
    old_rule = RECORDS[1]["text"]
    llm = Scripted(replies=[UNCITED_STALE, GOOD], seen=[])
    chain = cited_chain(llm, retriever=RunnableLambda(lambda q: documents()), as_of=AS_OF, layout=RANKED,
                        attribute=True)
    assert chain.policy.repair == "withhold"
    result = chain.invoke(QUESTION)
    first, second = llm.seen
    assert old_rule in first[1].content
    assert [type(m) for m in second] == [SystemMessage, HumanMessage] and old_rule not in second[1].content
    assert result.withheld == ("hb-2024",) and result.answer == GOOD and result.verdict.valid
    assert second[1].content == result.assembly.user  # same question and options, one document fewer
    assert [m.id for m in result.assembly.manifest] == ["hb-2025", "slack-2023"]
    assert result.with_notes().endswith("Note: " + result.withheld_note()) and "Handbook 2024" in result.withheld_note()
    # the stream, and the repair turn when chosen, on the same script
    llm = Scripted(replies=[UNCITED_STALE, GOOD], seen=[])
    data = {"documents": documents(), "question": QUESTION}
    done = list(cited_chain(llm, as_of=AS_OF, layout=RANKED, attribute=True).stream(data))[-1]
    assert done.result.withheld == ("hb-2024",) and len(llm.seen[1]) == 2
    llm = Scripted(replies=[UNCITED_STALE, GOOD], seen=[])
    asked = cited_chain(llm, as_of=AS_OF, layout=RANKED, attribute=True, repair="ask").invoke(data)
    assert asked.withheld == () and len(llm.seen[1]) == 4
    with pytest.raises(EvidencepackError, match="repair"):
        cited_chain(llm, as_of=AS_OF, repair="again")


def test_cited_chain_withholds_in_ainvoke_and_astream():
    async def run():
        llm = Scripted(replies=[UNCITED_STALE, GOOD, UNCITED_STALE, GOOD], seen=[])
        chain = cited_chain(llm, retriever=RunnableLambda(lambda q: documents()), as_of=AS_OF, layout=RANKED,
                            attribute=True)
        result = await chain.ainvoke(QUESTION)
        events = [e async for e in chain.astream(QUESTION)]
        return llm, result, events[-1].result

    llm, result, streamed = asyncio.run(run())
    assert result.withheld == streamed.withheld == ("hb-2024",) and streamed.answer == GOOD
    assert [len(m) for m in llm.seen] == [2, 2, 2, 2]


@pytest.mark.parametrize("kind", ["uncited", "unsupported_value"])
def test_other_findings_still_get_the_repair_turn_by_default(kind):
    # with nothing stale to withhold, a finding the caller chose to act on is sent back as a second turn
    first = {"uncited": "Unused PTO does not carry over.", "unsupported_value": WRONG_DATE}[kind]
    llm = Scripted(replies=[first, GOOD], seen=[])
    chain = cited_chain(llm, as_of=AS_OF, layout=RANKED, regenerate_on=[kind], **{kind: "error"})
    result = chain.invoke({"documents": documents(), "question": QUESTION})
    assert result.answer == GOOD and result.attempts == 1 and result.withheld == ()
    retry = llm.seen[1]
    assert [type(m) for m in retry] == [SystemMessage, HumanMessage, AIMessage, HumanMessage]
    assert retry[2].content == first
    assert ("such as [S1]" if kind == "uncited" else "give only values the sources state") in retry[3].content
    assert retry[1].content == llm.seen[0][1].content  # the same assembly: nothing was left out


# -- issue 26, item 3: like any Runnable (schema, graph, callback events, with_config) ------------------------


def _chain():
    return {"documents": RunnableLambda(lambda q: documents()), "question": RunnablePassthrough()} \
        | EvidencePrompt(as_of=AS_OF, layout=RANKED) | Scripted(replies=[GOOD], seen=[])


def test_schema_and_graph_work_as_for_langchains_own_prompt_templates():
    prompt = EvidencePrompt(as_of=AS_OF)
    schema = prompt.get_input_jsonschema()
    assert schema["$defs"]["ChainInput"]["required"] == ["documents", "question"]
    assert prompt.get_output_jsonschema()["title"] == "AssembledPrompt"
    ours = _chain().get_graph()
    theirs = ({"documents": RunnableLambda(lambda q: documents()), "question": RunnablePassthrough()}
              | ChatPromptTemplate.from_messages([("human", "{question} {documents}")])
              | Scripted(replies=[GOOD], seen=[])).get_graph()
    assert len(ours.nodes) == len(theirs.nodes) == 7
    assert "EvidencePrompt" in {n.name for n in ours.nodes.values()}


def test_callback_events_show_the_prompt_step_start_and_end():
    async def events(runnable, value):
        return [(e["event"], e["name"]) async for e in runnable.astream_events(value, version="v2")]

    seen = asyncio.run(events(_chain(), QUESTION))
    assert ("on_prompt_start", "EvidencePrompt") in seen and ("on_prompt_end", "EvidencePrompt") in seen
    named = EvidencePrompt(as_of=AS_OF).with_config(run_name="pack", tags=["ep"])
    seen = asyncio.run(events(named, {"documents": documents(), "question": QUESTION}))
    assert seen == [("on_prompt_start", "pack"), ("on_prompt_end", "pack")]


def test_the_cited_chain_is_one_traced_run_with_the_model_inside():
    from langchain_core.tracers.base import BaseTracer

    class Collect(BaseTracer):
        def __init__(self):
            super().__init__()
            self.runs = []

        def _persist_run(self, run):
            self.runs.append(run)

    tracer = Collect()
    chain = cited_chain(Scripted(replies=[UNKNOWN, GOOD], seen=[]), retriever=RunnableLambda(lambda q: documents()),
                        as_of=AS_OF, layout=RANKED)
    assert chain.invoke(QUESTION, {"callbacks": [tracer], "run_name": "cited"}).answer == GOOD
    (root,) = tracer.runs
    assert root.name == "cited" and root.run_type == "chain"
    kinds = [child.run_type for child in root.child_runs]
    assert kinds.count("llm") == 2 and kinds[0] == "chain"  # the retriever lambda, then two model calls


def test_a_streamed_cited_chain_is_one_traced_run_in_astream_events():
    def chain():
        return cited_chain(Scripted(replies=[UNKNOWN, GOOD], seen=[]), retriever=RunnableLambda(lambda q: documents()),
                           as_of=AS_OF, layout=RANKED)

    events = list(chain().stream(QUESTION))
    assert isinstance(events[-1], Done) and events[-1].result.answer == GOOD and events[-1].result.attempts == 1

    async def collect():
        return [e async for e in chain().with_config(run_name="cited").astream_events(QUESTION, version="v2")]

    seen = asyncio.run(collect())
    mine = [e for e in seen if e["name"] == "cited"]
    assert mine[0]["event"] == "on_chain_start" and mine[-1]["event"] == "on_chain_end"
    assert isinstance(mine[-1]["data"]["output"], Done)
    assert sum(e["event"] == "on_chat_model_start" for e in seen) == 2
    assert any(e["event"] == "on_chain_stream" and isinstance(e["data"]["chunk"], Delta) for e in mine)


def test_the_prompt_serialises_as_langchains_prompt_templates_do():
    import warnings

    from langchain_core.load import dumps, loads

    secret = "a-boundary-key-that-must-not-leak"
    prompt = EvidencePrompt(as_of=AS_OF, layout=Layout(order="stable", format="text"), boundary_key=secret)
    text = dumps(prompt)
    assert secret not in text and '"order": "stable"' in text
    assert ChatPromptTemplate.from_messages([("human", "{q}")]).to_json()["type"] == prompt.to_json()["type"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # loads is marked beta
        loaded = loads(text, valid_namespaces=["evidencepack"], allowed_objects=[EvidencePrompt])
    value = {"documents": documents(), "question": QUESTION}
    again = EvidencePrompt(as_of=AS_OF, options=json.loads(text)["kwargs"]["options"], boundary_key=secret)
    assert again.invoke(value).to_messages() == prompt.invoke(value).to_messages()  # the key given again
    reloaded, original = loaded.invoke(value).assembly, prompt.invoke(value).assembly
    assert [m.id for m in reloaded.manifest] == [m.id for m in original.manifest] and reloaded.format == "text"
