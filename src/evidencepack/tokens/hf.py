"""A local Hugging Face model directory or `tokenizer.json`, with its chat template (extra: `evidencepack[hf]`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import TokenizerError
from .target import ChatTemplate, TargetModel
from .tokenizers import (
    HuggingFaceTokenizer,
)


def load_hf(path: str | Path, *, chat_template: str | None = None,
            template_vars: Mapping[str, Any] | None = None) -> TargetModel:
    """A local Hugging Face model directory or `tokenizer.json`; the template comes from `chat_template.jinja`,
    `chat_template.json` or `tokenizer_config.json` beside it. The rendered request is tokenized without
    adding special tokens, as `apply_chat_template(tokenize=True)` and vLLM do (the template emits BOS)."""
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    tokenizer_file = folder / "tokenizer.json" if path.is_dir() else path
    if not tokenizer_file.is_file():
        raise TokenizerError(f"no tokenizer.json in {folder}")
    tok = HuggingFaceTokenizer(tokenizer_file)
    config = _read_json(folder / "tokenizer_config.json")
    template = chat_template if chat_template is not None else _hf_template(folder, config)
    name = folder.name if path.is_dir() else f"{folder.name}/{path.name}"
    window = _window(folder)
    if template is None:
        return TargetModel(name, tok, exact=False, source="huggingface", **window)
    variables = {"bos_token": _token_text(config.get("bos_token")), "eos_token": _token_text(config.get("eos_token")),
                 **(template_vars or {})}
    return TargetModel(name, tok, exact=True, source="huggingface", framing=ChatTemplate(template, variables),
                       **window)


def _window(folder: Path) -> dict[str, Any]:
    """The model's context window from `config.json` beside the tokenizer (`max_position_embeddings`, or GPT-2's
    `n_positions`), when there is one."""
    config = _read_json(folder / "config.json")
    for key in ("max_position_embeddings", "n_positions"):
        value = config.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return {"context_window": value, "window_source": f"config.json {key}"}
    return {}


def _read_json(path: Path) -> dict[str, Any]:
    import json

    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise TokenizerError(f"{path} is not valid JSON: {err}") from None
    return data if isinstance(data, dict) else {}


def _hf_template(folder: Path, config: Mapping[str, Any]) -> str | None:
    jinja = folder / "chat_template.jinja"
    if jinja.is_file():
        return jinja.read_text("utf-8")
    template = _read_json(folder / "chat_template.json").get("chat_template", config.get("chat_template"))
    if isinstance(template, list):  # named templates: the default one serves plain chat
        named = {t.get("name"): t.get("template") for t in template if isinstance(t, dict)}
        template = named.get("default") or next(iter(named.values()), None)
    if template is not None and not isinstance(template, str):
        raise TokenizerError(f"chat_template in {folder} is not a string")
    return template


def _token_text(value: Any) -> str:
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else ""
