"""Answer lines as the batch runners return them, read into (request id, answer text or why there is none).

- OpenAI Batch API output (and vLLM's `run_batch`): `{"custom_id", "response": {"status_code", "body":
  {"choices": [{"message": {"content"}}]}}, "error"}`.
- Anthropic Message Batches results: `{"custom_id", "result": {"type": "succeeded", "message": {"content":
  [{"type": "text", "text"}]}}}` (or `errored`, `canceled`, `expired`).
- Plain: `{"id", "answer"}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Answer:
    id: str | None  # None: the line names no request
    text: str | None  # None: the runner returned no answer (`failure` says why) or the line is unreadable
    failure: str | None = None
    source: str = "plain"  # openai | anthropic | plain


def read_answer(data: Any) -> Answer:
    """The answer one line carries; never raises on a foreign shape (it becomes a failure)."""
    if not isinstance(data, Mapping):
        return Answer(None, None, "not a JSON object", "unknown")
    if "custom_id" in data and "result" in data:
        return _anthropic(data)
    if "custom_id" in data:
        return _openai(data)
    rid = data.get("id")
    rid = rid if isinstance(rid, str) else None
    text = data.get("answer")
    if not isinstance(text, str):
        return Answer(rid, None, "no string 'answer' (expected {id, answer}, an OpenAI or an Anthropic batch "
                                 "result line)", "plain")
    return Answer(rid, text, None, "plain")


def _cid(data: Mapping[str, Any]) -> str | None:
    value = data.get("custom_id")
    return value if isinstance(value, str) else None


def _openai(data: Mapping[str, Any]) -> Answer:
    rid = _cid(data)
    error = data.get("error")
    if error:
        message = error.get("message") if isinstance(error, Mapping) else None
        return Answer(rid, None, f"the provider reported an error: {str(message or error)[:200]}", "openai")
    response = data.get("response")
    if not isinstance(response, Mapping):
        return Answer(rid, None, "no 'response' object", "openai")
    status = response.get("status_code")
    if status is not None and status != 200:
        return Answer(rid, None, f"the request failed with HTTP status {status}", "openai")
    try:
        content = response["body"]["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return Answer(rid, None, "no response.body.choices[0].message.content", "openai")
    if not isinstance(content, str):
        return Answer(rid, None, "the message has no text content (a refusal or a tool call)", "openai")
    return Answer(rid, content, None, "openai")


def _anthropic(data: Mapping[str, Any]) -> Answer:
    rid = _cid(data)
    result = data.get("result")
    if not isinstance(result, Mapping):
        return Answer(rid, None, "no 'result' object", "anthropic")
    kind = result.get("type")
    if kind != "succeeded":
        error = result.get("error")
        detail = error.get("message") or error.get("type") if isinstance(error, Mapping) else None
        return Answer(rid, None, f"the request {kind}" + (f": {str(detail)[:200]}" if detail else ""), "anthropic")
    message = result.get("message")
    blocks = message.get("content") if isinstance(message, Mapping) else None
    if not isinstance(blocks, list):
        return Answer(rid, None, "no result.message.content", "anthropic")
    texts = [b["text"] for b in blocks if isinstance(b, Mapping) and b.get("type") == "text"
             and isinstance(b.get("text"), str)]
    if not texts:
        return Answer(rid, None, "the message has no text block", "anthropic")
    return Answer(rid, "".join(texts), None, "anthropic")
