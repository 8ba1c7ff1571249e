"""Target models: count the request a model actually receives, with its own tokenizer and chat framing.

A budget is only as good as its count. The prompt a model reads is not the system and user strings: a chat
template wraps them in role markers and ends with the generation prompt, and the model's tokenizer may split
text very differently from OpenAI's. `resolve_model` names the model once and returns both halves:

- an OpenAI model name, mapped to its encoding by tiktoken's own offline table (no list kept here), with
  OpenAI's documented per-message framing;
- a GGUF file: vocabulary, merges, pre-tokenizer, special tokens and chat template from its metadata, read
  with the `gguf` package; the tokenizer is rebuilt with Hugging Face `tokenizers` to split text the way
  llama.cpp splits it for that pre-tokenizer;
- a Hugging Face model directory or `tokenizer.json` (+ `tokenizer_config.json` / `chat_template.jinja`);
- any `Tokenizer` object or callable, whose framing is unknown unless the caller gives a template.

Templates are rendered in Jinja's immutable sandbox with the settings the serving stacks use
(`trim_blocks`, `lstrip_blocks`, `add_generation_prompt=True`), and the rendered text is tokenized with the
model's special tokens recognised, so `request_tokens` is the number a server reports as prompt tokens.
The readers are extras (`evidencepack[gguf]`, `evidencepack[hf]`, `evidencepack[templates]`), imported only
when a model needs them.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import TokenizerError
from .gguf import load_gguf
from .hf import load_hf
from .target import ChatTemplate, OpenAIFraming, TargetModel
from .tokenizers import (
    BUNDLED_ENCODINGS,
    CallableTokenizer,
    Tokenizer,
    get_tokenizer,
    openai_encoding,
)
from .windows import openai_window

ACCEPTED = ("an OpenAI model name tiktoken maps offline (gpt-4o, gpt-4o-2024-08-06, gpt-4.1-mini, o3-mini, "
            "chatgpt-4o-latest, …), a .gguf file, a Hugging Face model directory or tokenizer.json, or a "
            "Tokenizer object or callable")


_CALLABLE_SEQ = itertools.count(1)


def resolve_model(
    model: str | os.PathLike[str] | Tokenizer | Callable[[str], Sequence[int] | int] | TargetModel,
    *,
    chat_template: str | None = None,
    template_vars: Mapping[str, Any] | None = None,
) -> TargetModel:
    """Name the target model; get its tokenizer and framing together. See the module docstring for what is
    accepted. `chat_template` overrides (or supplies) a template; `template_vars` are extra template variables
    (e.g. `date_string`). Anything else is an error listing what is accepted, never a silent fallback."""
    if isinstance(model, TargetModel):
        if chat_template is not None or template_vars:
            raise TokenizerError("chat_template/template_vars cannot change an already resolved TargetModel")
        return model
    if isinstance(model, os.PathLike):
        model = os.fspath(model)
    if isinstance(model, str):
        return _from_string(model, chat_template, template_vars)
    if isinstance(model, Tokenizer):
        tok: Tokenizer = model
    elif callable(model):
        label = getattr(model, "__qualname__", type(model).__name__)
        tok = CallableTokenizer(model, f"callable:{label}#{next(_CALLABLE_SEQ)}")  # unique: never a stale count
    else:
        raise TokenizerError(f"not a model: {model!r}; model= accepts {ACCEPTED}")
    template = None
    if chat_template is not None:
        template = ChatTemplate(chat_template, dict(template_vars or {}))
    return TargetModel(tok.name, tok, exact=template is not None, source="tokenizer", framing=template)


def _from_string(spec: str, chat_template: str | None, template_vars: Mapping[str, Any] | None) -> TargetModel:
    return replace(_resolve_string(spec, chat_template, template_vars), origin=spec)


def _resolve_string(spec: str, chat_template: str | None, template_vars: Mapping[str, Any] | None) -> TargetModel:
    path = Path(spec).expanduser()
    if path.is_dir():
        return load_hf(path, chat_template=chat_template, template_vars=template_vars)
    if path.is_file():
        if path.suffix.lower() == ".gguf" or _has_gguf_magic(path):
            return load_gguf(path, chat_template=chat_template, template_vars=template_vars)
        if path.suffix.lower() == ".json":
            return load_hf(path, chat_template=chat_template, template_vars=template_vars)
        raise TokenizerError(f"{spec}: neither a GGUF file nor a tokenizer.json")
    if spec in BUNDLED_ENCODINGS:
        raise TokenizerError(f"{spec!r} is an encoding, not a model: pass it as tokenizer= (framing unknown), "
                             "or name the model (e.g. gpt-4o) to count its chat framing too")
    encoding = openai_encoding(spec)
    if encoding is not None:
        if chat_template is not None:
            raise TokenizerError("OpenAI models are framed by OpenAI's documented rule; chat_template does not apply")
        window = openai_window(spec)
        if window is None and not _exact_tiktoken_name(spec):
            raise TokenizerError(
                f"unknown OpenAI model {spec!r}: tiktoken matches it only by its prefix (a guess at the {encoding} "
                f"encoding) and its context window is not known; name a known model (gpt-4o, gpt-4.1-mini, "
                f"o3-mini, a dated snapshot of one, …), or count with tokenizer={encoding!r} and give "
                "context_window= yourself")
        size, source = window if window is not None else (None, None)
        return TargetModel(spec, get_tokenizer(encoding), exact=True, source="openai", framing=OpenAIFraming(),
                           context_window=size, window_source=source)
    if os.sep in spec or "/" in spec or path.suffix.lower() in (".gguf", ".json"):
        raise TokenizerError(f"model file or directory not found: {spec}")
    raise TokenizerError(f"unknown model {spec!r}; model= accepts {ACCEPTED}")


def _exact_tiktoken_name(name: str) -> bool:
    """tiktoken knows the name itself, not only a prefix of it."""
    from tiktoken.model import MODEL_TO_ENCODING

    return name in MODEL_TO_ENCODING


def _has_gguf_magic(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(4) == b"GGUF"
