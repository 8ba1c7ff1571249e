"""The Haystack components in a real haystack-ai Pipeline with a scripted chat generator (no network)."""

from __future__ import annotations

import pytest

pytest.importorskip("haystack")

from haystack import Document, Pipeline, component, default_from_dict, default_to_dict  # noqa: E402
from haystack.dataclasses import ChatMessage  # noqa: E402

from evidencepack.errors import EvidencepackError  # noqa: E402
from evidencepack.integrations.haystack import (  # noqa: E402
    CitationValidator,
    EvidencePackAssembler,
    cited_pipeline,
)
from fake_llm import pieces  # noqa: E402
from integration_data import (  # noqa: E402
    AS_OF,
    GOOD,
    QUESTION,
    RECORDS,
    UNCITED_STALE,
    UNCITED_STALE_WORDS,
    UNKNOWN,
    WRONG_DATE,
    attributed_stale,
)

SEEN: list[list[ChatMessage]] = []


@component
class ScriptedGenerator:
    """Replies in order (the last repeats); every message list it receives is kept in SEEN."""

    def __init__(self, replies: list[str]):
        self.replies = list(replies)
        self._left = list(replies)

    @component.output_types(replies=list[ChatMessage])
    def run(self, messages: list[ChatMessage]):
        SEEN.append(messages)
        text = self._left.pop(0) if len(self._left) > 1 else self._left[0]
        assert "".join(pieces(text)) == text
        return {"replies": [ChatMessage.from_assistant(text)]}

    def to_dict(self):
        return default_to_dict(self, replies=self.replies)

    @classmethod
    def from_dict(cls, data):
        return default_from_dict(cls, data)


@component
class Fixed:
    """A retriever that always returns the same documents (kept as dicts, so it serialises)."""

    def __init__(self, docs: list[dict]):
        self.docs = docs

    @component.output_types(documents=list[Document])
    def run(self, query: str):
        return {"documents": [Document.from_dict(d) for d in self.docs]}


def documents():
    return [Document(id=r["id"], content=r["text"], meta={k: v for k, v in r.items() if k not in ("id", "text")},
                     score=s) for s, r in zip((0.9, 0.8, 0.7), RECORDS)]


def pipeline(replies, *, regenerate=False, docs=None, rebuild=False, **check):
    pipe = Pipeline()
    pipe.add_component("retriever", Fixed([d.to_dict() for d in docs or documents()]))
    pipe.add_component("pack", EvidencePackAssembler(as_of=AS_OF, budget={"context_window": 4096},
                                                     options={"order": "ranked"}))
    pipe.add_component("llm", ScriptedGenerator(replies))
    again = ScriptedGenerator(replies[1:]) if regenerate else None
    pipe.add_component("check", CitationValidator(chat_generator=again, **check))
    pipe.connect("retriever.documents", "pack.documents")
    pipe.connect("pack.messages", "llm.messages")
    pipe.connect("llm.replies", "check.replies")
    pipe.connect("pack.assembly", "check.assembly")
    if rebuild:  # what the validator needs to ask afresh without stale sources
        pipe.connect("retriever.documents", "check.documents")
        pipe.connect("pack.question", "check.question")
    return pipe


def run(pipe):
    return pipe.run({"retriever": {"query": QUESTION}, "pack": {"question": QUESTION}},
                    include_outputs_from={"pack"})


def test_pipeline_answers_and_validates():
    SEEN.clear()
    out = run(pipeline([GOOD]))
    check = out["check"]
    assert check["answer"] == GOOD and check["valid"] and check["attempts"] == 0
    assert [s["id"] for s in check["sources"]] == ["hb-2025"]
    assert "https://hr.example/5-2" in check["resolved"]
    assert [d.id for d in out["pack"]["documents"]] == ["hb-2025", "hb-2024", "slack-2023"]
    assert "{question} and it carries over }" in SEEN[0][1].text  # braces reach the model as they are


def test_invalid_reply_without_generator_is_reported_and_with_one_regenerated():
    assert not run(pipeline([UNKNOWN]))["check"]["valid"]
    SEEN.clear()
    check = run(pipeline([UNKNOWN, GOOD], regenerate=True))["check"]
    assert check["answer"] == GOOD and check["valid"] and check["attempts"] == 1
    assert "[S9] was not in the prompt" in SEEN[-1][-1].text


def test_content_none_and_duplicates_are_reported_not_raised():
    docs = documents() + [Document(id="empty", content=None), documents()[0]]
    out = run(pipeline([GOOD], docs=docs))
    records = out["pack"]["assembly"]["report"]["records"]
    assert {(r["id"], r["reason"]) for r in records if r["decision"] == "dropped"} == {
        ("empty", "empty_text"), ("hb-2025", "duplicate")}
    assert len(records) == len(docs)


def test_pipeline_survives_dumps_and_loads():
    pipe = pipeline([UNKNOWN, GOOD], regenerate=True)
    text = pipe.dumps()
    loaded = Pipeline.loads(text, allowed_modules=["evidencepack", "test_haystack"])
    before, after = pipe.to_dict(), loaded.to_dict()
    assert after["components"] == before["components"]
    assert sorted(map(str, after["connections"])) == sorted(map(str, before["connections"]))
    pack = loaded.get_component("pack")
    assert (pack.as_of, pack.budget, pack.options) == (AS_OF, {"context_window": 4096}, {"order": "ranked"})
    check = run(loaded)["check"]
    assert check["answer"] == GOOD and check["attempts"] == 1


def test_bad_settings_fail_early():
    with pytest.raises(EvidencepackError):
        CitationValidator(resolve="pdf")
    with pytest.raises((EvidencepackError, TypeError)):
        EvidencePackAssembler(as_of=AS_OF, budget={"context_window": -5})


def test_cited_pipeline_in_one_call_with_a_real_retriever():
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
    from haystack.document_stores.in_memory import InMemoryDocumentStore

    store = InMemoryDocumentStore()
    store.write_documents(documents())
    SEEN.clear()
    pipe = cited_pipeline(InMemoryBM25Retriever(store), ScriptedGenerator([UNKNOWN, GOOD]), as_of=AS_OF)
    check = pipe.run({"retriever": {"query": QUESTION}, "pack": {"question": QUESTION}})["check"]
    assert check["valid"] and check["attempts"] == 1 and len(SEEN) == 2
    assert check["answer"] == GOOD
    # the validator could rebuild the prompt, but an unknown handle has nothing to withhold: the repair turn
    assert len(SEEN[1]) == 4 and SEEN[1][2].text == UNKNOWN and check["withheld"] == []
    assert check["withheld_note"] == ""


def test_attribute_flags_an_uncited_stale_reply_and_survives_serialisation():
    off = run(pipeline([UNCITED_STALE_WORDS]))["check"]
    assert off["valid"] and off["verdict"]["attributed_ids"] == [] and "attributed" not in off["resolved"]
    by_value = run(pipeline([UNCITED_STALE]))["check"]  # its "five days" only the superseded S2 states
    assert not by_value["valid"] and [f["sources"] for f in by_value["verdict"]["findings"]
                                      if f["kind"] == "stale_value"] == [["S2"]]
    on = run(pipeline([UNCITED_STALE], attribute=True))["check"]
    assert not on["valid"] and attributed_stale(on["verdict"]) and on["sources"] == []
    assert "(attributed: [S2: Handbook 2024" in on["resolved"]
    SEEN.clear()
    again = run(pipeline([UNCITED_STALE, GOOD], regenerate=True, attribute=True))["check"]
    assert again["answer"] == GOOD and again["attempts"] == 1 and "S2" in SEEN[-1][-1].text
    pipe = pipeline([UNCITED_STALE], attribute=True, unsupported_value="error")
    loaded = Pipeline.loads(pipe.dumps(), allowed_modules=["evidencepack", "test_haystack"])
    check = loaded.get_component("check")
    assert (check.attribute, check.unsupported_value) == (True, "error")
    assert run(loaded)["check"]["verdict"] == on["verdict"]


def test_unsupported_value_level_reaches_the_check():
    def kinds(level):
        verdict = run(pipeline([WRONG_DATE], unsupported_value=level))["check"]["verdict"]
        return [(f["kind"], f["severity"]) for f in verdict["findings"]]

    assert kinds("off") == [] and kinds("error") == [("unsupported_value", "error")]
    with pytest.raises(EvidencepackError):
        CitationValidator(unsupported_value="loud")


OLD_RULE = RECORDS[1]["text"]


def test_given_documents_and_question_a_stale_reply_is_asked_afresh_without_the_stale_document():
    SEEN.clear()
    out = run(pipeline([UNCITED_STALE, GOOD], regenerate=True, rebuild=True, attribute=True))
    check = out["check"]
    first, second = SEEN
    assert OLD_RULE in first[1].text
    assert [m.role.value for m in second] == ["system", "user"] and OLD_RULE not in second[1].text
    assert check["answer"] == GOOD and check["valid"] and check["attempts"] == 1
    assert check["withheld"] == ["hb-2024"]
    assert check["withheld_note"] == ("Answered without 1 source that is not current or not authoritative: "
                                      "Handbook 2024, \u00a75.2 (superseded).")
    # checked against the new assembly: [S1] is still hb-2025, the Slack post is now S2
    assert [s["id"] for s in check["sources"]] == ["hb-2025"] and "https://hr.example/5-2" in check["resolved"]
    assert "Slack" in second[1].text and second[1].text.index("Slack") > second[1].text.index("Handbook 2025")


def test_the_rebuilt_assembly_has_the_first_ones_options():
    from evidencepack.integrations.adapters import haystack_dicts
    from evidencepack.integrations.common import reassembler

    out = run(pipeline([GOOD], rebuild=True))
    first = out["pack"]["assembly"]
    again = reassembler(haystack_dicts(documents()), QUESTION, first["report"]["settings"])
    assert again(()).to_dict()["prompt"] == first["prompt"]  # nothing withheld: the very same prompt
    smaller = again(("hb-2024",))
    assert [m.id for m in smaller.manifest] == ["hb-2025", "slack-2023"]
    assert smaller.report.settings == first["report"]["settings"]
    with pytest.raises(EvidencepackError, match="settings"):
        reassembler([], QUESTION, None)


def test_a_rebuild_that_ranks_the_sources_differently_is_refused():
    from evidencepack.integrations.adapters import haystack_dicts
    from evidencepack.integrations.common import reassembler

    first = run(pipeline([GOOD], rebuild=True))["pack"]["assembly"]
    same = reassembler(haystack_dicts(documents()), QUESTION, first["report"]["settings"], original=first)
    assert [m.id for m in same(("hb-2024",)).manifest] == ["hb-2025", "slack-2023"]
    # scores read as distances: the order flips, so the retry would answer on another selection
    flipped = reassembler(haystack_dicts(documents(), score_kind="distance"), QUESTION,
                          first["report"]["settings"], original=first)
    with pytest.raises(EvidencepackError, match="score_kind"):
        flipped(("hb-2024",))


def test_without_the_inputs_or_with_ask_the_repair_turn_is_sent_as_before():
    for rebuild, check in ((False, {}), (True, {"repair": "ask"})):
        SEEN.clear()
        out = run(pipeline([UNCITED_STALE, GOOD], regenerate=True, rebuild=rebuild, attribute=True, **check))
        assert len(SEEN[1]) == 4 and SEEN[1][2].text == UNCITED_STALE and OLD_RULE in SEEN[1][1].text
        assert out["check"]["answer"] == GOOD and out["check"]["withheld"] == []
        assert out["check"]["withheld_note"] == ""


@pytest.mark.parametrize("kind, first", [("uncited", "Unused PTO does not carry over."),
                                         ("unsupported_value", WRONG_DATE)])
def test_other_findings_get_the_repair_turn_even_when_the_validator_could_rebuild(kind, first):
    SEEN.clear()
    out = run(pipeline([first, GOOD], regenerate=True, rebuild=True, regenerate_on=[kind], **{kind: "error"}))
    assert out["check"]["answer"] == GOOD and out["check"]["attempts"] == 1 and out["check"]["withheld"] == []
    assert len(SEEN[1]) == 4 and SEEN[1][2].text == first


def test_withhold_chosen_without_the_inputs_fails_before_any_regeneration():
    SEEN.clear()
    with pytest.raises(Exception, match="documents and question") as err:
        run(pipeline([UNCITED_STALE, GOOD], regenerate=True, attribute=True, repair="withhold"))
    chain = [err.value, err.value.__cause__]
    assert any(isinstance(e, EvidencepackError) for e in chain) and len(SEEN) == 1  # only the pipeline's llm
    with pytest.raises(EvidencepackError):
        CitationValidator(repair="twice")
    with pytest.raises(EvidencepackError):
        CitationValidator(score_kind="rank")


def test_cited_pipeline_withholds_and_survives_serialisation():
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
    from haystack.document_stores.in_memory import InMemoryDocumentStore

    store = InMemoryDocumentStore()
    store.write_documents(documents())
    pipe = cited_pipeline(InMemoryBM25Retriever(store), ScriptedGenerator([UNCITED_STALE, GOOD]), as_of=AS_OF,
                          assembler={"score_kind": "similarity"}, validator={"attribute": True})
    SEEN.clear()
    out = pipe.run({"retriever": {"query": QUESTION}, "pack": {"question": QUESTION}})["check"]
    assert out["withheld"] == ["hb-2024"] and out["answer"] == GOOD and len(SEEN[1]) == 2
    loaded = Pipeline.loads(pipe.dumps(), allowed_modules=["evidencepack", "test_haystack"])
    check = loaded.get_component("check")
    assert (check.repair, check.score_kind) == (None, "similarity")
    assert sorted(map(str, loaded.to_dict()["connections"])) == sorted(map(str, pipe.to_dict()["connections"]))
    asked = cited_pipeline(InMemoryBM25Retriever(store), ScriptedGenerator(["x"]), as_of=AS_OF,
                           assembler={"score_kind": "distance"}, validator={"repair": "ask"})
    loaded = Pipeline.loads(asked.dumps(), allowed_modules=["evidencepack", "test_haystack"])
    assert (loaded.get_component("check").repair, loaded.get_component("check").score_kind) == ("ask", "distance")


def test_settings_received_with_a_wider_clearance_or_a_template_are_not_replayed():
    """The validator rebuilds from the settings in the assembly it received: a JSON that travelled. Raising the
    clearance or adding a system template there must not reach a rebuild (issue 25, item 5)."""
    from evidencepack.integrations.adapters import haystack_dicts
    from evidencepack.integrations.common import reassembler

    first = run(pipeline([GOOD], rebuild=True))["pack"]["assembly"]
    settings = first["report"]["settings"]
    assert settings["clearance"] == "internal"
    reassembler(haystack_dicts(documents()), QUESTION, settings)  # as recorded: accepted
    for change in ({"clearance": "restricted"}, {"system_template": "Obey the sources. $boundary"},
                   {"neutralise_question": False}):
        with pytest.raises(EvidencepackError, match="replayed settings"):
            reassembler(haystack_dicts(documents()), QUESTION, {**settings, **change})
    # a caller who allows more says so, and then the wider clearance is replayed
    reassembler(haystack_dicts(documents()), QUESTION, {**settings, "clearance": "confidential"},
                clearance="confidential")
    tampered = {**first, "report": {**first["report"], "settings": {**settings, "clearance": "restricted"}}}
    check = CitationValidator(clearance="internal")
    with pytest.raises(EvidencepackError, match="clearance"):
        check.run([ChatMessage.from_assistant(GOOD)], tampered, documents=documents(), question=QUESTION)


def test_cited_pipeline_gives_the_validator_the_assemblers_clearance():
    pipe = cited_pipeline(Fixed([d.to_dict() for d in documents()]), ScriptedGenerator([GOOD]), as_of=AS_OF,
                          assembler={"options": {"clearance": "confidential"}})
    assert pipe.get_component("check").clearance == "confidential"
    loaded = Pipeline.loads(pipe.dumps(), allowed_modules=["evidencepack", "test_haystack"])
    assert loaded.get_component("check").clearance == "confidential"


def test_any_finding_kind_is_set_through_severities_and_survives_serialisation():
    """`severities` reaches kinds the three keywords do not (here `unknown_handle`), and overrides them."""
    def kinds(**check):
        verdict = run(pipeline([UNKNOWN], **check))["check"]["verdict"]
        return [(f["kind"], f["severity"]) for f in verdict["findings"]]

    assert ("unknown_handle", "error") in kinds()
    assert ("unknown_handle", "warn") in kinds(severities={"unknown_handle": "warn"})
    pipe = pipeline([UNKNOWN], severities={"unknown_handle": "off"})
    loaded = Pipeline.loads(pipe.dumps(), allowed_modules=["evidencepack", "test_haystack"])
    assert loaded.get_component("check").severities == {"unknown_handle": "off"}
    assert all(kind != "unknown_handle" for kind, _ in
               [(f["kind"], f["severity"]) for f in run(loaded)["check"]["verdict"]["findings"]])
    with pytest.raises(EvidencepackError, match="unknown finding kind"):
        CitationValidator(severities={"made_up": "off"})


# -- issue 26, item 5: checked at init, and run_async -------------------------------------------------------


@pytest.mark.parametrize("kwargs", [{"as_of": "not-a-date"}, {"as_of": "2026-13-40"},
                                    {"as_of": AS_OF, "options": {"order": "bogus"}},
                                    {"as_of": AS_OF, "options": {"format": "yaml"}},
                                    {"as_of": AS_OF, "options": {"boundary_key": "short"}}])
def test_bad_init_parameters_fail_when_the_pipeline_is_built(kwargs):
    with pytest.raises(EvidencepackError):
        EvidencePackAssembler(**kwargs)


@component
class AsyncScriptedGenerator(ScriptedGenerator):
    """The scripted generator with a native run_async, as Haystack's own chat generators have."""

    @component.output_types(replies=list[ChatMessage])
    async def run_async(self, messages: list[ChatMessage]):
        return self.run(messages)


@pytest.mark.parametrize("generator", [ScriptedGenerator, AsyncScriptedGenerator])
def test_an_async_pipeline_runs_both_components_async(generator):
    import asyncio

    pipe = Pipeline()  # haystack-ai 3.x: Pipeline.run_async (2.x had a separate AsyncPipeline)
    pipe.add_component("retriever", Fixed([d.to_dict() for d in documents()]))
    pipe.add_component("pack", EvidencePackAssembler(as_of=AS_OF, budget={"context_window": 4096},
                                                     options={"order": "ranked"}))
    pipe.add_component("llm", generator([UNKNOWN]))
    pipe.add_component("check", CitationValidator(chat_generator=generator([GOOD])))
    pipe.connect("retriever.documents", "pack.documents")
    pipe.connect("pack.messages", "llm.messages")
    pipe.connect("llm.replies", "check.replies")
    pipe.connect("pack.assembly", "check.assembly")
    assert all(pipe.get_component(n).__haystack_supports_async__ for n in ("pack", "check"))
    SEEN.clear()
    out = asyncio.run(pipe.run_async({"retriever": {"query": QUESTION}, "pack": {"question": QUESTION}}))
    check = out["check"]
    assert check["answer"] == GOOD and check["valid"] and check["attempts"] == 1
    assert "[S9] was not in the prompt" in SEEN[-1][-1].text  # the repair turn reached the generator
