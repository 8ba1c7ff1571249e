"""The request files the providers' batch runners take, one line per assembled request, the request id
carried through as `custom_id` (`id` for `chat-jsonl`) so answers come back to their assembly.

- `openai-batch`: OpenAI's Batch API (`/v1/chat/completions`); vLLM's `run_batch` reads the same format.
- `anthropic-batch`: Anthropic's Message Batches (`params` as `messages.create` takes them; `system` apart).
- `chat-jsonl`: `{"id", "messages"}` (and `model`, `max_tokens`), for a home-grown runner.

`max_tokens` is the output the budget reserved (`report.budget.output_reserve`): what the window left for
the answer, so the request fits the model's window as counted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..report import Assembly

FORMATS = ("openai-batch", "anthropic-batch", "chat-jsonl")
#: Formats whose lines must name a model.
NEEDS_MODEL = frozenset({"openai-batch", "anthropic-batch"})
#: Anthropic's rule for `custom_id`; OpenAI takes any string.
ANTHROPIC_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class EmitError(ValueError):
    """This request cannot be written in the chosen format (the request id is the field at fault)."""


def emit_line(fmt: str, request_id: str, assembly: Assembly, *, model: str | None) -> dict[str, Any]:
    """One request line of `fmt` for `assembly`."""
    max_tokens = int(assembly.report.budget["output_reserve"])
    if fmt == "anthropic-batch":  # the assembly's own blocks carry its cache breakpoints
        return _anthropic_line(request_id, {"model": model, "max_tokens": max_tokens, **assembly.anthropic()})
    return emit_messages(fmt, request_id, assembly.messages, model=model, max_tokens=max_tokens)


def emit_messages(fmt: str, request_id: str, messages: list[dict[str, str]], *, model: str | None,
                  max_tokens: int, sampling: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One request line of `fmt` for chat messages as sent (the evaluation harness's prompts, which may carry
    more than an assembly: a reminder after the question, a second call). `sampling` (`temperature`, `seed`)
    goes where each API takes it; Anthropic has no seed."""
    sampling = dict(sampling or {})
    if fmt == "openai-batch":
        body: dict[str, Any] = {"model": model, "messages": messages, "max_completion_tokens": max_tokens, **sampling}
        return {"custom_id": request_id, "method": "POST", "url": "/v1/chat/completions", "body": body}
    if fmt == "anthropic-batch":
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        rest = [m for m in messages if m["role"] != "system"]
        params: dict[str, Any] = {"model": model, "max_tokens": max_tokens, **({"system": system} if system else {}),
                                  "messages": rest}
        if "temperature" in sampling:
            params["temperature"] = sampling["temperature"]
        return _anthropic_line(request_id, params)
    if fmt == "chat-jsonl":
        out: dict[str, Any] = {"id": request_id, "messages": messages}
        if model is not None:
            out["model"] = model
        return {**out, "max_tokens": max_tokens, **sampling}
    raise EmitError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")


def _anthropic_line(request_id: str, params: dict[str, Any]) -> dict[str, Any]:
    if not ANTHROPIC_ID.fullmatch(request_id):
        raise EmitError("Anthropic's custom_id takes 1 to 64 letters, digits, '_' or '-'")
    return {"custom_id": request_id, "params": params}
