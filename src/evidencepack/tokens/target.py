"""A target model: its tokenizer and its chat framing (OpenAI's per-message rule, or a chat template
rendered in Jinja's immutable sandbox), so `request_tokens` is the number a server reports as prompt tokens.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..errors import TokenizerError
from .tokenizers import (
    Tokenizer,
)

Messages = Sequence[Mapping[str, str]]


# OpenAI's documented count for chat messages: the cookbook "How to count tokens with tiktoken"
# (https://cookbook.openai.com/examples/how_to_count_tokens_with_tiktoken, `num_tokens_from_messages`, the
# rule for gpt-4o, gpt-4o-mini and gpt-4/gpt-3.5-turbo since 0613): each message costs 3 tokens of framing
# plus the tokens of every value in it (the role too), a `name` costs 1 more, and every reply is primed with
# 3 (<|start|>assistant<|message|>).
OPENAI_TOKENS_PER_MESSAGE = 3


OPENAI_TOKENS_PER_NAME = 1


OPENAI_REPLY_PRIMING = 3


@dataclass(frozen=True)
class OpenAIFraming:
    """OpenAI's documented per-message framing (see the constants above)."""

    description = "OpenAI's documented per-message framing (3 per message + role, 3 to prime the reply)"

    def count(self, messages: Messages, tokenizer: Tokenizer) -> int:
        total = OPENAI_REPLY_PRIMING
        for message in messages:
            total += OPENAI_TOKENS_PER_MESSAGE
            for key, value in message.items():
                total += tokenizer.count(value)
                if key == "name":
                    total += OPENAI_TOKENS_PER_NAME
        return total


@dataclass(frozen=True)
class ChatTemplate:
    """A Jinja chat template, rendered as llama.cpp and Hugging Face render it, then tokenized whole.

    `add_bos` / `add_eos` follow the GGUF metadata (llama.cpp's tokenizer adds BOS/EOS when the model says
    so, once: a template that already emits BOS does not get a second one)."""

    source: str
    variables: Mapping[str, Any] = field(default_factory=dict)
    bos_id: int | None = None
    eos_id: int | None = None
    add_bos: bool = False
    add_eos: bool = False
    _compiled: Any = field(default=None, compare=False, repr=False)

    description = "the model's chat template, rendered with the generation prompt"

    def __post_init__(self) -> None:
        object.__setattr__(self, "_compiled", _compile_template(self.source))

    def render(self, messages: Messages) -> str:
        """The exact text the server feeds its tokenizer."""
        from jinja2 import TemplateError

        try:
            rendered: str = self._compiled.render(messages=[dict(m) for m in messages],
                                                  add_generation_prompt=True, **self.variables)
            return rendered
        except (TemplateError, ValueError, TypeError) as err:  # a filter may raise ValueError
            raise TokenizerError(f"chat template failed: {err}") from None

    def token_ids(self, messages: Messages, tokenizer: Tokenizer) -> list[int]:
        ids = list(tokenizer.encode(self.render(messages)))
        if self.add_bos and self.bos_id is not None and (not ids or ids[0] != self.bos_id):
            ids.insert(0, self.bos_id)
        if self.add_eos and self.eos_id is not None and (not ids or ids[-1] != self.eos_id):
            ids.append(self.eos_id)
        return ids

    def count(self, messages: Messages, tokenizer: Tokenizer) -> int:
        if self.add_bos or self.add_eos:
            return len(self.token_ids(messages, tokenizer))
        return tokenizer.count(self.render(messages))  # count-only tokenizers work here too


def _refuse_clock(*_: Any) -> str:
    raise TokenizerError("this chat template reads the clock (strftime_now); evidencepack never reads a clock "
                         "while assembling: pass the date the template expects in template_vars "
                         "(e.g. {'date_string': '26 Jul 2024'})")


def _raise_exception(message: str) -> str:
    raise TokenizerError(message)


def _tojson(value: Any, ensure_ascii: bool = False, indent: int | None = None,
            separators: tuple[str, str] | None = None, sort_keys: bool = False) -> str:
    """Transformers' `tojson` (no HTML escaping, non-ASCII kept), which llama-cpp-python also uses."""
    import json

    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


@lru_cache(maxsize=32)
def _compile_template(source: str) -> Any:
    """Compile once in the immutable sandbox, with the extensions and filters Transformers and llama-cpp-python
    give templates: a template cannot touch Python objects or mutate its input."""
    try:
        from jinja2 import TemplateSyntaxError, nodes
        from jinja2.ext import Extension, loopcontrols
        from jinja2.sandbox import ImmutableSandboxedEnvironment
    except ImportError:
        raise TokenizerError("rendering a chat template needs the `jinja2` package: "
                             "pip install 'evidencepack[templates]'") from None

    class GenerationTags(Extension):
        """`{% generation %}…{% endgeneration %}` (Transformers' assistant-mask marker) renders its body."""

        tags = {"generation"}

        def parse(self, parser: Any) -> list[nodes.Node]:
            parser.stream.skip(1)
            body: list[nodes.Node] = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return body

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[GenerationTags, loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals.update(raise_exception=_raise_exception, strftime_now=_refuse_clock)
    try:
        return env.from_string(source)
    except TemplateSyntaxError as err:
        raise TokenizerError(f"chat template does not parse: {err}") from None


@dataclass(frozen=True)
class TargetModel:
    """The model a prompt is for: its tokenizer and how its chat requests are framed.

    `exact` is False when the framing is unknown (a bare tokenizer): `request_tokens` is then the content
    tokens only, and the real request is longer by the model's framing."""

    name: str
    tokenizer: Tokenizer
    exact: bool
    source: str  # "openai" | "gguf" | "huggingface" | "tokenizer"
    framing: OpenAIFraming | ChatTemplate | None = None
    #: The name or path it was resolved from (None for an object): what `report.settings["model"]` records,
    #: so an assembly can be re-run from its settings.
    origin: str | None = None
    #: The model's context window in tokens, when known (GGUF `<arch>.context_length`, HF config
    #: `max_position_embeddings`, the kept table of OpenAI windows), and where the figure comes from: a budget
    #: without a window of its own is this window (issue 26).
    context_window: int | None = None
    window_source: str | None = None

    @property
    def additive_framing(self) -> bool:
        """True when the framing does not depend on the text (none, or OpenAI's per-message rule): the request
        is then the content tokens plus a constant, and content counts (cached, piecewise) suffice."""
        return not isinstance(self.framing, ChatTemplate)

    def request_tokens(self, messages: Messages) -> int:
        """Prompt tokens the model receives for these chat messages, framing and generation prompt included."""
        _check_messages(messages)
        if self.framing is None:
            return sum(self.tokenizer.count(m["content"]) for m in messages)
        return self.framing.count(messages, self.tokenizer)

    def framing_tokens(self, messages: Messages) -> int:
        """What the framing adds to the content tokens (0 when the framing is unknown)."""
        return self.request_tokens(messages) - sum(self.tokenizer.count(m["content"]) for m in messages)

    def render(self, messages: Messages) -> str | None:
        """The templated request text, when the model has a template."""
        if isinstance(self.framing, ChatTemplate):
            _check_messages(messages)
            return self.framing.render(messages)
        return None

    def describe(self) -> dict[str, Any]:
        """For the assembly report: who counted, and whether the count is the model's own."""
        framing = self.framing.description if self.framing is not None else "unknown (content tokens only)"
        return {"model": self.name, "source": self.source, "tokenizer": self.tokenizer.name, "exact": self.exact,
                "framing": framing}


def _check_messages(messages: Messages) -> None:
    for i, m in enumerate(messages):
        if not isinstance(m, Mapping) or not isinstance(m.get("role"), str) or not isinstance(m.get("content"), str):
            raise TokenizerError(f"message {i} must be a mapping with string 'role' and 'content'")


def count_settings(target: TargetModel | None, tokenizer: Tokenizer) -> dict[str, Any]:
    """For `report.budget`: whether `prompt_tokens` is the model's own count, and one sentence on who counted."""
    if target is None:
        from .tokenizers import DEFAULT_TOKENIZER

        who = (f"the default tokenizer {DEFAULT_TOKENIZER}" if tokenizer.name == DEFAULT_TOKENIZER
               else f"tokenizer {tokenizer.name}")
        return {"exact": False, "count_note": f"counted with {who}, without chat framing: no model was named, so "
                                              "the target model's count may differ (name it with model=)"}
    if target.exact:
        note = f"counted as {target.name} ({target.source}) receives it: {target.describe()['framing']}"
    else:
        note = (f"counted with the tokenizer of {target.name} ({target.source}); its chat framing is unknown, so "
                "the request is longer than counted")
    return {"exact": target.exact, "count_note": note}
