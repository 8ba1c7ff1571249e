"""Context windows of hosted OpenAI models: a small kept table, and which names count as known.

tiktoken maps names to encodings (by exact name, else by prefix) but publishes no windows, and the libraries
that keep a window table (litellm's `model_prices_and_context_window.json`, for one) are far heavier than a
counter should depend on, so the few families evidencepack resolves are listed here with the page each figure
comes from. A dated snapshot (`gpt-4o-2024-08-06`, `gpt-4-0613`) or a fine-tune (`ft:gpt-4o-mini:org::id`)
takes its family's window. A name tiktoken matches only by prefix and that is not a family here
(`gpt-5-turbo-nonexistent`) is not a model we know: `resolve_model` refuses it rather than guess.

Figures are the total context window (input and output share it; `Budget.output_reserve` is carved out of it).
"""

from __future__ import annotations

import re

_MODELS = "https://platform.openai.com/docs/models/"

#: family -> (context window in tokens, the page that states it)
OPENAI_WINDOWS: dict[str, tuple[int, str]] = {
    "gpt-5": (400_000, _MODELS + "gpt-5"),
    "gpt-5-mini": (400_000, _MODELS + "gpt-5-mini"),
    "gpt-5-nano": (400_000, _MODELS + "gpt-5-nano"),
    "gpt-5-chat-latest": (128_000, _MODELS + "gpt-5-chat-latest"),
    "gpt-4.1": (1_047_576, _MODELS + "gpt-4.1"),
    "gpt-4.1-mini": (1_047_576, _MODELS + "gpt-4.1-mini"),
    "gpt-4.1-nano": (1_047_576, _MODELS + "gpt-4.1-nano"),
    "gpt-4.5-preview": (128_000, _MODELS + "gpt-4.5-preview"),
    "gpt-4o": (128_000, _MODELS + "gpt-4o"),
    "gpt-4o-mini": (128_000, _MODELS + "gpt-4o-mini"),
    "chatgpt-4o-latest": (128_000, _MODELS + "chatgpt-4o-latest"),
    "o1": (200_000, _MODELS + "o1"),
    "o1-mini": (128_000, _MODELS + "o1-mini"),
    "o1-preview": (128_000, _MODELS + "o1-preview"),
    "o3": (200_000, _MODELS + "o3"),
    "o3-mini": (200_000, _MODELS + "o3-mini"),
    "o4-mini": (200_000, _MODELS + "o4-mini"),
    "gpt-4-turbo": (128_000, _MODELS + "gpt-4-turbo"),
    "gpt-4-turbo-preview": (128_000, _MODELS + "gpt-4-turbo-preview"),
    "gpt-4": (8_192, _MODELS + "gpt-4"),
    "gpt-4-32k": (32_768, _MODELS + "gpt-4"),
    "gpt-3.5-turbo": (16_385, _MODELS + "gpt-3.5-turbo"),
    "gpt-3.5-turbo-16k": (16_385, _MODELS + "gpt-3.5-turbo"),
    "gpt-35-turbo": (16_385, _MODELS + "gpt-3.5-turbo"),  # Azure's spelling of the same model
}

#: Snapshot suffixes: a date (`-2024-08-06`), a four-digit snapshot (`-0613`), either followed by `-preview`.
_SNAPSHOT = re.compile(r"(?:-\d{4}-\d{2}-\d{2}|-\d{4})(?:-preview)?$")


def openai_family(name: str) -> str | None:
    """The family of an OpenAI model name in the table (the name itself, its snapshot's or its fine-tune's
    base); None for a name not in it."""
    base = name[3:].split(":", 1)[0] if name.startswith("ft:") else name
    if base in OPENAI_WINDOWS:
        return base
    stripped = _SNAPSHOT.sub("", base)
    return stripped if stripped != base and stripped in OPENAI_WINDOWS else None


def openai_window(name: str) -> tuple[int, str] | None:
    """(window, where the figure comes from) for a known OpenAI model name, else None."""
    family = openai_family(name)
    if family is None:
        return None
    window, url = OPENAI_WINDOWS[family]
    return window, f"evidencepack's table of OpenAI windows ({family}: {url})"
