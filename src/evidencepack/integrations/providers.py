"""The OpenAI and Anthropic SDKs in one call: send the assembly, validate the answer's citations,
regenerate on the findings you choose, and get the answer back with its verdict and resolved sources.

    from evidencepack.integrations.providers import ask
    result = ask(OpenAI(), assembly, model="gpt-4o-mini")      # or Anthropic(), model="claude-…"
    result.answer, result.verdict.valid, result.sources, result.resolved("footnotes")

`ask_async` takes `AsyncOpenAI` / `AsyncAnthropic`; `ask_stream` / `ask_stream_async` yield `Delta`,
`Flagged` and a final `Done` (see `evidencepack.integrations.common`). The client is recognised by its
shape, so an OpenAI-compatible server (vLLM, llama.cpp, Ollama) works through `OpenAI(base_url=…)`.
Needs `pip install 'evidencepack[openai]'` or `'evidencepack[anthropic]'`.
"""

from __future__ import annotations

import importlib.util
import inspect
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from ..assemble import Assembly
from ..citations.severities import Severities, Severity
from ..errors import MissingExtraError, ProviderError
from ..report import user_blocks
from .common import (
    REGENERATE_ON,
    Answered,
    ChatMessage,
    Event,
    Policy,
    Reassemble,
    Repair,
    answer,
    answer_async,
    answer_stream,
    answer_stream_async,
    default_repair,
    severities_of,
)

if importlib.util.find_spec("openai") is None and importlib.util.find_spec("anthropic") is None:
    raise MissingExtraError("evidencepack.integrations.providers needs the openai or anthropic SDK: "
                            "pip install 'evidencepack[openai]' or 'evidencepack[anthropic]'")

if TYPE_CHECKING:
    from anthropic import Anthropic, AsyncAnthropic
    from anthropic.types import MessageParam, TextBlockParam
    from openai import AsyncOpenAI, OpenAI
    from openai.types.chat import (
        ChatCompletionAssistantMessageParam,
        ChatCompletionMessageParam,
        ChatCompletionSystemMessageParam,
        ChatCompletionUserMessageParam,
    )

    SyncClient = OpenAI | Anthropic
    AsyncClient = AsyncOpenAI | AsyncAnthropic

__all__ = ["AnthropicRequest", "ProviderError", "anthropic_request", "ask", "ask_async", "ask_stream",
           "ask_stream_async", "openai_messages"]


class AnthropicRequest(TypedDict):
    """`client.messages.create(**request, model=…, max_tokens=…)`: Anthropic takes the system prompt apart."""

    system: str | list[TextBlockParam]
    messages: list[MessageParam]


def openai_messages(assembly: Assembly) -> list[ChatCompletionMessageParam]:
    """The assembly as the OpenAI SDK's own message type (`a.messages` is the same data, untyped)."""
    return _openai(_chat(assembly))


def anthropic_request(assembly: Assembly) -> AnthropicRequest:
    """The assembly as keyword arguments typed for the Anthropic SDK, with `cache_control` breakpoints after
    the system prompt and after the sources (as `Assembly.anthropic()`)."""
    return _anthropic(_chat(assembly), assembly)


def _chat(assembly: Assembly) -> list[ChatMessage]:
    return [{"role": "system", "content": assembly.system}, {"role": "user", "content": assembly.user}]


def _openai(messages: Sequence[ChatMessage]) -> list[ChatCompletionMessageParam]:
    out: list[ChatCompletionMessageParam] = []
    for m in messages:
        if m["role"] == "system":
            system: ChatCompletionSystemMessageParam = {"role": "system", "content": m["content"]}
            out.append(system)
        elif m["role"] == "assistant":
            said: ChatCompletionAssistantMessageParam = {"role": "assistant", "content": m["content"]}
            out.append(said)
        else:
            user: ChatCompletionUserMessageParam = {"role": "user", "content": m["content"]}
            out.append(user)
    return out


def _anthropic(messages: Sequence[ChatMessage], assembly: Assembly | None = None) -> AnthropicRequest:
    """Anthropic's request; the assembly's own system prompt and user message get cache breakpoints (the
    system prompt, then the sources before the question), so a repair turn or a second question over the
    same records is billed at the cached rate."""
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    turns: list[MessageParam] = []
    for m in messages:
        if m["role"] == "assistant":
            turns.append({"role": "assistant", "content": m["content"]})
        elif m["role"] == "user" and assembly is not None and m["content"] == assembly.user:
            turns.append({"role": "user", "content": _user_blocks(assembly)})
        elif m["role"] == "user":
            turns.append({"role": "user", "content": m["content"]})
    if assembly is not None and system == assembly.system:
        return {"system": [_cached(system)], "messages": turns}
    return {"system": system, "messages": turns}


def _cached(text: str) -> TextBlockParam:
    return {"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}


def _user_blocks(assembly: Assembly) -> list[TextBlockParam]:
    """`report.user_blocks`, typed for the SDK."""
    out: list[TextBlockParam] = []
    for block in user_blocks(assembly.user, assembly.cache_split):
        out.append(_cached(block["text"]) if "cache_control" in block else {"type": "text", "text": block["text"]})
    return out


# -- one call ---------------------------------------------------------------------------------------------


def ask(client: SyncClient, assembly: Assembly, *, model: str, attempts: int = 2,
        regenerate_on: Iterable[str] = REGENERATE_ON, uncited: Severity = "warn", stale_only: Severity = "error",
        unsupported_value: Severity = "warn", severities: Severities | Mapping[str, Severity] | None = None,
        attribute: bool = False, repair: Repair | None = None, reassemble: Reassemble | None = None,
        max_tokens: int | None = None, **create: Any) -> Answered:
    """Send, validate, regenerate (at most `attempts` times, only on `regenerate_on` findings).

    For a model that rarely writes handles, `attribute=True` checks what its uncited sentences rest on, and
    `unsupported_value="error"` with `"unsupported_value"` in `regenerate_on` asks again when a sentence
    states a number its sources do not. Given `reassemble` (withheld record ids -> a new `Assembly` of the same
    records without them), a stale-only answer's question is asked afresh without the weak sources it rested
    on (`repair="withhold"`, the default when `reassemble` is given) instead of with a repair turn (`"ask"`,
    the default without it; other findings always get the repair turn). `max_tokens` defaults to the
    assembly's output reserve for Anthropic (which requires it); extra keyword arguments go to the SDK's
    create call unchanged.
    """
    call = _Call(client, assembly, model, max_tokens, create, want_async=False)
    policy = _policy(attempts, regenerate_on, severities, uncited, stale_only, unsupported_value, attribute, repair,
                     reassemble)
    return answer(assembly, call.complete, policy=policy, reassemble=reassemble)


async def ask_async(client: AsyncClient, assembly: Assembly, *, model: str, attempts: int = 2,
                    regenerate_on: Iterable[str] = REGENERATE_ON, uncited: Severity = "warn",
                    stale_only: Severity = "error", unsupported_value: Severity = "warn",
                    severities: Severities | Mapping[str, Severity] | None = None, attribute: bool = False,
                    repair: Repair | None = None, reassemble: Reassemble | None = None, max_tokens: int | None = None,
                    **create: Any) -> Answered:
    """`ask` with `AsyncOpenAI` or `AsyncAnthropic` (`reassemble` stays a plain function)."""
    call = _Call(client, assembly, model, max_tokens, create, want_async=True)
    policy = _policy(attempts, regenerate_on, severities, uncited, stale_only, unsupported_value, attribute, repair,
                     reassemble)
    return await answer_async(assembly, call.acomplete, policy=policy, reassemble=reassemble)


def ask_stream(client: SyncClient, assembly: Assembly, *, model: str, attempts: int = 2,
               regenerate_on: Iterable[str] = REGENERATE_ON, uncited: Severity = "warn",
               stale_only: Severity = "error", unsupported_value: Severity = "warn",
               severities: Severities | Mapping[str, Severity] | None = None, attribute: bool = False,
               repair: Repair | None = None, reassemble: Reassemble | None = None, max_tokens: int | None = None,
               **create: Any) -> Iterator[Event]:
    """`ask`, streamed: `Delta` text, `Flagged` findings as soon as a bad handle closes, then `Done`."""
    call = _Call(client, assembly, model, max_tokens, create, want_async=False)
    policy = _policy(attempts, regenerate_on, severities, uncited, stale_only, unsupported_value, attribute, repair,
                     reassemble)
    return answer_stream(assembly, call.stream, policy=policy, reassemble=reassemble)


def ask_stream_async(client: AsyncClient, assembly: Assembly, *, model: str, attempts: int = 2,
                     regenerate_on: Iterable[str] = REGENERATE_ON, uncited: Severity = "warn",
                     stale_only: Severity = "error", unsupported_value: Severity = "warn",
                     severities: Severities | Mapping[str, Severity] | None = None, attribute: bool = False,
                     repair: Repair | None = None, reassemble: Reassemble | None = None, max_tokens: int | None = None,
                     **create: Any) -> AsyncIterator[Event]:
    """`ask_stream` with an async client: `async for event in ask_stream_async(...)`."""
    call = _Call(client, assembly, model, max_tokens, create, want_async=True)
    policy = _policy(attempts, regenerate_on, severities, uncited, stale_only, unsupported_value, attribute, repair,
                     reassemble)
    return answer_stream_async(assembly, call.astream, policy=policy, reassemble=reassemble)


def _policy(attempts: int, regenerate_on: Iterable[str], severities: Severities | Mapping[str, Severity] | None,
            uncited: Severity, stale_only: Severity, unsupported_value: Severity, attribute: bool,
            repair: Repair | None, reassemble: Reassemble | None) -> Policy:
    """The loop's policy from the keywords every `ask*` entry point takes (one place, four entry points)."""
    return Policy(attempts=attempts, regenerate_on=tuple(regenerate_on),
                  severities=severities_of(severities, uncited=uncited, stale_only=stale_only,
                                           unsupported_value=unsupported_value),
                  attribute=attribute, repair=repair or default_repair(reassemble))


class _Call:
    """One provider's create call, shaped into the loop's `messages -> text` (or text chunks)."""

    def __init__(self, client: Any, assembly: Assembly, model: str, max_tokens: int | None,
                 create: dict[str, Any], *, want_async: bool) -> None:
        self.flavour = _flavour(client)
        create_fn = client.chat.completions.create if self.flavour == "openai" else client.messages.create
        if inspect.iscoroutinefunction(inspect.unwrap(create_fn)) != want_async:
            raise ProviderError("an async client needs ask_async / ask_stream_async" if not want_async
                                else "a sync client needs ask / ask_stream")
        if "stream" in create or "messages" in create or "system" in create:
            raise ProviderError("messages, system and stream are set by evidencepack; pass other options only")
        self.create = create_fn
        self.assembly = assembly
        self.kwargs: dict[str, Any] = {"model": model, **create}
        if self.flavour == "anthropic":
            self.kwargs["max_tokens"] = max_tokens or assembly.report.budget["output_reserve"]
        elif max_tokens is not None:
            self.kwargs["max_tokens"] = max_tokens

    def _request(self, messages: list[ChatMessage]) -> dict[str, Any]:
        if self.flavour == "openai":
            return {**self.kwargs, "messages": _openai(messages)}
        return {**self.kwargs, **_anthropic(messages, self.assembly)}

    def complete(self, messages: list[ChatMessage]) -> str:
        return _text(self.flavour, self.create(**self._request(messages)))

    async def acomplete(self, messages: list[ChatMessage]) -> str:
        return _text(self.flavour, await self.create(**self._request(messages)))

    def stream(self, messages: list[ChatMessage]) -> Iterator[str]:
        for event in self.create(**self._request(messages), stream=True):
            yield _delta(self.flavour, event)

    async def astream(self, messages: list[ChatMessage]) -> AsyncIterator[str]:
        async for event in await self.create(**self._request(messages), stream=True):
            yield _delta(self.flavour, event)


def _flavour(client: Any) -> Literal["openai", "anthropic"]:
    if hasattr(getattr(getattr(client, "chat", None), "completions", None), "create"):
        return "openai"
    if hasattr(getattr(client, "messages", None), "create"):
        return "anthropic"
    raise ProviderError(f"not an OpenAI or Anthropic client: {type(client).__name__}")


def _text(flavour: str, response: Any) -> str:
    if flavour == "openai":
        return str(response.choices[0].message.content or "") if response.choices else ""
    return "".join(block.text for block in response.content if getattr(block, "type", None) == "text")


def _delta(flavour: str, event: Any) -> str:
    if flavour == "openai":
        return str(event.choices[0].delta.content or "") if event.choices else ""
    if getattr(event, "type", None) == "content_block_delta" and getattr(event.delta, "type", None) == "text_delta":
        return str(event.delta.text)
    return ""
