"""Provider helpers against the real OpenAI and Anthropic SDKs, talking to a scripted server on 127.0.0.1."""

from __future__ import annotations

import asyncio

import pytest

from evidencepack import Layout, assemble
from evidencepack.integrations.common import Delta, Done, Flagged
from fake_llm import FakeLLM
from integration_data import AS_OF, GOOD, QUESTION, RECORDS, STALE, UNKNOWN

providers = pytest.importorskip("evidencepack.integrations.providers")


@pytest.fixture(scope="module")
def assembly():
    return assemble(RECORDS, QUESTION, as_of=AS_OF, layout=Layout(order="ranked"))


def openai_client(url, *, async_=False):
    openai = pytest.importorskip("openai")
    cls = openai.AsyncOpenAI if async_ else openai.OpenAI
    return cls(base_url=f"{url}/v1", api_key="test", max_retries=0)


def anthropic_client(url, *, async_=False):
    anthropic = pytest.importorskip("anthropic")
    cls = anthropic.AsyncAnthropic if async_ else anthropic.Anthropic
    return cls(base_url=url, api_key="test", max_retries=0)


CLIENTS = [pytest.param(openai_client, id="openai"), pytest.param(anthropic_client, id="anthropic")]


def _text(content):
    """A message's text: a string, or Anthropic content blocks (cache breakpoints split a message in two)."""
    return content if isinstance(content, str) else "".join(block["text"] for block in content)


def sent_text(request):
    """What the model was shown, for either wire format."""
    parts = [_text(m["content"]) for m in request["messages"]]
    return "\n".join([_text(request.get("system", ""))] + parts)


def test_anthropic_requests_carry_cache_breakpoints(assembly):
    with FakeLLM([GOOD]) as server:
        providers.ask(anthropic_client(server.url), assembly, model="m")
    [request] = server.requests
    assert request["system"] == [{"type": "text", "text": assembly.system, "cache_control": {"type": "ephemeral"}}]
    sources, question = request["messages"][0]["content"]
    assert sources["cache_control"] == {"type": "ephemeral"} and sources["text"] + question["text"] == assembly.user
    assert "Question:" in question["text"] and "Question:" not in sources["text"]


@pytest.mark.parametrize("make", CLIENTS)
def test_ask_valid_answer_first_time(make, assembly):
    with FakeLLM([GOOD]) as server:
        result = providers.ask(make(server.url), assembly, model="m")
    assert result.answer == GOOD and result.verdict.valid and result.attempts == 0
    assert [s.id for s in result.sources] == ["hb-2025"]
    assert "https://hr.example/5-2" in result.resolved("links")
    [request] = server.requests
    assert assembly.user in sent_text(request) and assembly.system in sent_text(request)


@pytest.mark.parametrize("make", CLIENTS)
def test_ask_regenerates_on_unknown_handle_with_the_findings(make, assembly):
    with FakeLLM([UNKNOWN, GOOD]) as server:
        result = providers.ask(make(server.url), assembly, model="m")
    assert result.answer == GOOD and result.attempts == 1 and result.verdict.valid
    retry = server.requests[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": UNKNOWN}
    assert "[S9] was not in the prompt" in retry[-1]["content"]


@pytest.mark.parametrize("make", CLIENTS)
def test_regenerate_only_on_chosen_findings(make, assembly):
    with FakeLLM([STALE, GOOD]) as server:
        kept = providers.ask(make(server.url), assembly, model="m", regenerate_on=("unknown_handle",))
    assert kept.answer == STALE and kept.attempts == 0 and not kept.verdict.valid
    # S3 (the Slack post) states no "five days": the value check warns about that too
    assert [f.kind for f in kept.verdict.findings] == ["stale_only", "unsupported_value"]
    with FakeLLM([STALE, STALE, STALE]) as server:
        tried = providers.ask(make(server.url), assembly, model="m", attempts=2)
    assert tried.attempts == 2 and len(server.requests) == 3 and not tried.verdict.valid


@pytest.mark.parametrize("make", CLIENTS)
def test_stream_flags_a_bad_handle_as_it_arrives_then_regenerates(make, assembly):
    with FakeLLM([UNKNOWN, GOOD]) as server:
        events = list(providers.ask_stream(make(server.url), assembly, model="m"))
    first = "".join(e.text for e in events if isinstance(e, Delta) and e.attempt == 0)
    second = "".join(e.text for e in events if isinstance(e, Delta) and e.attempt == 1)
    assert (first, second) == (UNKNOWN, GOOD)
    flagged = [i for i, e in enumerate(events) if isinstance(e, Flagged)]
    assert [events[i].finding.kind for i in flagged] == ["unknown_handle"]
    # flagged while attempt 0 was still streaming: some of its text came after the flag
    assert any(isinstance(e, Delta) and e.attempt == 0 for e in events[flagged[0]:])
    assert isinstance(events[-1], Done) and events[-1].result.verdict.valid


@pytest.mark.parametrize("make", CLIENTS)
def test_async_ask_and_stream(make, assembly):
    async def run(url):
        client = make(url, async_=True)
        result = await providers.ask_async(client, assembly, model="m")
        events = [e async for e in providers.ask_stream_async(client, assembly, model="m")]
        return result, events

    with FakeLLM([UNKNOWN, GOOD]) as server:
        result, events = asyncio.run(run(server.url))
    assert result.answer == GOOD and result.attempts == 1
    assert isinstance(events[-1], Done) and events[-1].result.answer == GOOD


def test_sync_and_async_clients_are_not_mixed(assembly):
    with FakeLLM([GOOD]) as server, pytest.raises(providers.ProviderError, match="async"):
        providers.ask(openai_client(server.url, async_=True), assembly, model="m")
    with pytest.raises(providers.ProviderError, match="not an OpenAI or Anthropic client"):
        providers.ask(object(), assembly, model="m")


def test_anthropic_max_tokens_defaults_to_the_output_reserve(assembly):
    with FakeLLM([GOOD]) as server:
        providers.ask(anthropic_client(server.url), assembly, model="m")
    assert server.requests[0]["max_tokens"] == assembly.report.budget["output_reserve"]


def test_typed_messages_carry_the_assembly(assembly):
    msgs = providers.openai_messages(assembly)
    assert msgs == assembly.messages
    req = providers.anthropic_request(assembly)
    assert req == assembly.anthropic()


UNCITED_STALE = "Up to five days of PTO carry over into the next year."
UNCITED_STALE_WORDS = "Unused PTO carries over into the next year."  # the same rule with no value in it


@pytest.mark.parametrize("make", CLIENTS)
def test_attribution_lets_the_guard_act_on_an_answer_without_handles(make, assembly):
    with FakeLLM([UNCITED_STALE_WORDS]) as server:
        plain = providers.ask(make(server.url), assembly, model="m")
    assert plain.verdict.valid and plain.attempts == 0  # nothing cited, no value: nothing for the guard to act on
    with FakeLLM([UNCITED_STALE_WORDS, GOOD]) as server:
        checked = providers.ask(make(server.url), assembly, model="m", attribute=True)
    assert checked.attempts == 1 and checked.answer == GOOD and checked.verdict.valid
    first = server.requests[1]["messages"][-1]["content"]
    assert "expired, superseded or informal" in first and "attributed" in first


@pytest.mark.parametrize("make", CLIENTS)
def test_a_value_only_stale_sources_state_triggers_the_guard_without_attribution(make, assembly):
    with FakeLLM([UNCITED_STALE, GOOD]) as server:
        checked = providers.ask(make(server.url), assembly, model="m")
    assert checked.attempts == 1 and checked.answer == GOOD and checked.verdict.valid
    retry = server.requests[1]["messages"][-1]["content"]
    assert "'five days'" in retry and "stated only by expired, superseded or informal sources (S2)" in retry


def rebuild(withheld):
    """`reassemble` for the tests: the same records without the withheld ones, the same options."""
    return assemble([r for r in RECORDS if r["id"] not in withheld], QUESTION, as_of=AS_OF,
                    layout=Layout(order="ranked"))


def fresh_conversation(request):
    """The request is a new two-message conversation (system + user), in either wire format."""
    roles = [m["role"] for m in request["messages"]]
    return roles == ["system", "user"] or (roles == ["user"] and bool(request.get("system")))


OLD_RULE = RECORDS[1]["text"]


@pytest.mark.parametrize("make", CLIENTS)
def test_withhold_asks_afresh_without_the_stale_record(make, assembly):
    with FakeLLM([UNCITED_STALE, GOOD]) as server:
        result = providers.ask(make(server.url), assembly, model="m", attribute=True, repair="withhold",
                               reassemble=rebuild)
    first, second = server.requests
    assert OLD_RULE in sent_text(first) and OLD_RULE not in sent_text(second) and fresh_conversation(second)
    assert result.withheld == ("hb-2024",) and result.attempts == 1 and result.answer == GOOD
    assert result.verdict.valid and result.assembly.user in sent_text(second)
    assert [m.id for m in result.assembly.manifest] == ["hb-2025", "slack-2023"]
    # nothing to withhold: the repair turn as before
    with FakeLLM([UNKNOWN, GOOD]) as server:
        kept = providers.ask(make(server.url), assembly, model="m", repair="withhold", reassemble=rebuild)
    assert kept.withheld == () and kept.answer == GOOD
    assert server.requests[1]["messages"][-2] == {"role": "assistant", "content": UNKNOWN}


@pytest.mark.parametrize("make", CLIENTS)
def test_withhold_streams_and_async(make, assembly):
    with FakeLLM([UNCITED_STALE, GOOD]) as server:
        events = list(providers.ask_stream(make(server.url), assembly, model="m", attribute=True,
                                           repair="withhold", reassemble=rebuild))
        assert fresh_conversation(server.requests[1]) and OLD_RULE not in sent_text(server.requests[1])
    assert "".join(e.text for e in events if isinstance(e, Delta) and e.attempt == 1) == GOOD
    assert events[-1].result.withheld == ("hb-2024",)

    async def run(url):
        client = make(url, async_=True)
        options = {"model": "m", "attribute": True, "repair": "withhold", "reassemble": rebuild}
        result = await providers.ask_async(client, assembly, **options)
        streamed = [e async for e in providers.ask_stream_async(client, assembly, **options)]
        return result, streamed[-1].result

    with FakeLLM([UNCITED_STALE, GOOD, UNCITED_STALE, GOOD]) as server:
        result, streamed = asyncio.run(run(server.url))
        assert [fresh_conversation(r) for r in server.requests] == [True] * 4
    assert result.withheld == streamed.withheld == ("hb-2024",) and streamed.answer == GOOD


@pytest.mark.parametrize("make", CLIENTS)
def test_reassemble_makes_withhold_the_default_and_ask_stays_available(make, assembly):
    with FakeLLM([UNCITED_STALE, GOOD]) as server:
        default = providers.ask(make(server.url), assembly, model="m", attribute=True, reassemble=rebuild)
        assert fresh_conversation(server.requests[1])
    assert default.withheld == ("hb-2024",) and default.answer == GOOD
    with FakeLLM([UNCITED_STALE, GOOD]) as server:
        asked = providers.ask(make(server.url), assembly, model="m", attribute=True, repair="ask",
                              reassemble=rebuild)
        assert not fresh_conversation(server.requests[1]) and OLD_RULE in sent_text(server.requests[1])
    assert asked.withheld == () and asked.answer == GOOD


def test_withhold_without_reassemble_is_an_option_error_before_any_request(assembly):
    from evidencepack.errors import OptionError

    with FakeLLM([GOOD]) as server:
        with pytest.raises(OptionError, match="reassemble="):
            providers.ask(openai_client(server.url), assembly, model="m", repair="withhold")
        with pytest.raises(OptionError, match="reassemble="):
            providers.ask_stream(openai_client(server.url), assembly, model="m", repair="withhold")
        with pytest.raises(OptionError, match="ask, withhold"):
            providers.ask(openai_client(server.url), assembly, model="m", repair="twice", reassemble=rebuild)
    assert server.requests == []
