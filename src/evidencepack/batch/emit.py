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
    if fmt == "openai-batch":
        body: dict[str, Any] = {"model": model, "messages": assembly.messages, "max_completion_tokens": max_tokens}
        return {"custom_id": request_id, "method": "POST", "url": "/v1/chat/completions", "body": body}
    if fmt == "anthropic-batch":
        if not ANTHROPIC_ID.fullmatch(request_id):
            raise EmitError("Anthropic's custom_id takes 1 to 64 letters, digits, '_' or '-'")
        return {"custom_id": request_id, "params": {"model": model, "max_tokens": max_tokens, **assembly.anthropic()}}
    if fmt == "chat-jsonl":
        out: dict[str, Any] = {"id": request_id, "messages": assembly.messages}
        if model is not None:
            out["model"] = model
        out["max_tokens"] = max_tokens
        return out
    raise EmitError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
