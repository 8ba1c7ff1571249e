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

import hashlib
import itertools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from .errors import TokenizerError
from .tokenizers import (
    BUNDLED_ENCODINGS,
    CallableTokenizer,
    HuggingFaceTokenizer,
    Tokenizer,
    get_tokenizer,
    openai_encoding,
    require_tokenizers,
)

Messages = Sequence[Mapping[str, str]]

ACCEPTED = ("an OpenAI model name tiktoken maps offline (gpt-4o, gpt-4o-2024-08-06, gpt-4.1-mini, o3-mini, "
            "chatgpt-4o-latest, …), a .gguf file, a Hugging Face model directory or tokenizer.json, or a "
            "Tokenizer object or callable")

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
        except (TemplateError, ValueError, TypeError) as err:  # raise_exception in templates raises ValueError
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
    raise ValueError(message)


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
        return TargetModel(spec, get_tokenizer(encoding), exact=True, source="openai", framing=OpenAIFraming())
    if os.sep in spec or "/" in spec or path.suffix.lower() in (".gguf", ".json"):
        raise TokenizerError(f"model file or directory not found: {spec}")
    raise TokenizerError(f"unknown model {spec!r}; model= accepts {ACCEPTED}")


def _has_gguf_magic(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(4) == b"GGUF"


# ---------------------------------------------------------------- Hugging Face directory / tokenizer.json


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
    if template is None:
        return TargetModel(name, tok, exact=False, source="huggingface")
    variables = {"bos_token": _token_text(config.get("bos_token")), "eos_token": _token_text(config.get("eos_token")),
                 **(template_vars or {})}
    return TargetModel(name, tok, exact=True, source="huggingface", framing=ChatTemplate(template, variables))


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


# ---------------------------------------------------------------- GGUF

_QWEN2 = (r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
          r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_LLAMA3 = (r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
           r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"


@dataclass(frozen=True)
class _PreTokenizer:
    """One of llama.cpp's BPE pre-tokenizers (src/llama-vocab.cpp): the regexes it splits with, applied in
    turn, whether a word found whole in the vocabulary skips the merges, and whether BOS is added by default."""

    regexes: tuple[str, ...]
    ignore_merges: bool = False
    add_bos: bool = False


_LLAMA3_PRE = _PreTokenizer((_LLAMA3,), ignore_merges=True, add_bos=True)
_GPT2_PRE = _PreTokenizer((_GPT2,))
#: `tokenizer.ggml.pre` names, grouped as llama.cpp groups them.
GGUF_PRE_TOKENIZERS: dict[str, _PreTokenizer] = {
    **dict.fromkeys(("qwen2", "deepseek-r1-qwen"), _PreTokenizer((_QWEN2,))),
    **dict.fromkeys(("llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2"),
                    _LLAMA3_PRE),
    **dict.fromkeys(("gpt-2", "phi-2"), _GPT2_PRE),
    "default": _PreTokenizer((r"[\p{P}\$\+<=>\^~\|]+", _GPT2, r"\p{N}+", r"[0-9][0-9][0-9]")),
}
_GGUF_KEYS = ("tokenizer.ggml.model", "tokenizer.ggml.pre", "tokenizer.ggml.tokens", "tokenizer.ggml.token_type",
              "tokenizer.ggml.merges", "tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id",
              "tokenizer.ggml.add_bos_token", "tokenizer.ggml.add_eos_token", "tokenizer.chat_template",
              "general.name")
# Token types (gguf.TokenType): CONTROL and USER_DEFINED are matched in text before BPE (llama.cpp does with
# parse_special, as servers tokenize a rendered template), UNKNOWN likewise.
_SPECIAL_TYPES = {2, 3, 4}


def load_gguf(path: str | Path, *, chat_template: str | None = None,
              template_vars: Mapping[str, Any] | None = None) -> TargetModel:
    """Tokenizer and chat template from a GGUF file's metadata (extras: `gguf`, `hf`, `templates`).

    Reading a large vocabulary with the `gguf` package takes seconds, so the result is cached per file (path,
    size and modification time) for the life of the process."""
    path = Path(path)
    if not path.is_file():
        raise TokenizerError(f"GGUF file not found: {path}")
    stat = path.stat()
    _, tok, meta = _gguf_tokenizer(str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    name = path.name
    template = chat_template if chat_template is not None else meta["template"]
    if template is None:
        return TargetModel(name, tok, exact=False, source="gguf")
    tokens = meta["tokens"]
    variables = {"bos_token": _id_text(tokens, meta["bos_id"]), "eos_token": _id_text(tokens, meta["eos_id"]),
                 **(template_vars or {})}
    framing = ChatTemplate(template, variables, bos_id=meta["bos_id"], eos_id=meta["eos_id"],
                           add_bos=meta["add_bos"], add_eos=meta["add_eos"])
    return TargetModel(name, tok, exact=True, source="gguf", framing=framing)


def _id_text(tokens: Sequence[str], token_id: int | None) -> str:
    return tokens[token_id] if token_id is not None and 0 <= token_id < len(tokens) else ""


@lru_cache(maxsize=4)
def _gguf_tokenizer(path: str, size: int, mtime_ns: int) -> tuple[str, HuggingFaceTokenizer, dict[str, Any]]:
    del size, mtime_ns  # part of the cache key only
    meta = read_gguf_metadata(path)
    kind = meta.get("tokenizer.ggml.model")
    if kind != "gpt2":
        raise TokenizerError(f"{path}: tokenizer type {kind!r} is not supported (only byte-level BPE, "
                             "tokenizer.ggml.model = 'gpt2'); use the model's tokenizer.json instead")
    pre_name = meta.get("tokenizer.ggml.pre") or "default"  # llama.cpp's choice when the key is missing
    pre = GGUF_PRE_TOKENIZERS.get(pre_name)
    if pre is None:
        raise TokenizerError(f"{path}: pre-tokenizer {pre_name!r} is not supported (supported: "
                             f"{', '.join(GGUF_PRE_TOKENIZERS)}); use the model's tokenizer.json instead")
    tokens: list[str] = meta.get("tokenizer.ggml.tokens") or []
    types: list[int] = meta.get("tokenizer.ggml.token_type") or [1] * len(tokens)
    merges: list[str] = meta.get("tokenizer.ggml.merges") or []
    if not tokens or len(types) != len(tokens):
        raise TokenizerError(f"{path}: no usable tokenizer.ggml.tokens / token_type in the metadata")
    hf = _build_bpe(tokens, types, merges, pre)
    digest = hashlib.blake2b(digest_size=8)
    for part in (pre_name, "\n".join(tokens), "\n".join(merges), ",".join(map(str, types))):
        digest.update(part.encode("utf-8") + b"\0")
    label = meta.get("general.name") or Path(path).stem
    name = f"gguf:{label}:{digest.hexdigest()}"
    add_bos = meta.get("tokenizer.ggml.add_bos_token")
    add_eos = meta.get("tokenizer.ggml.add_eos_token")
    info = {"tokens": tokens, "template": meta.get("tokenizer.chat_template"),
            "bos_id": meta.get("tokenizer.ggml.bos_token_id"), "eos_id": meta.get("tokenizer.ggml.eos_token_id"),
            "add_bos": pre.add_bos if add_bos is None else bool(add_bos), "add_eos": bool(add_eos)}
    return name, HuggingFaceTokenizer.wrap(hf, name), info


def read_gguf_metadata(path: str | Path) -> dict[str, Any]:
    """The tokenizer keys of a GGUF file, as Python values, read with the `gguf` package."""
    try:
        import gguf
    except ImportError:
        raise TokenizerError("reading a GGUF file needs the `gguf` package: pip install 'evidencepack[gguf]'") from None
    try:
        reader = gguf.GGUFReader(str(path), "r")
    except Exception as err:  # the reader raises ValueError/struct errors on anything malformed
        raise TokenizerError(f"cannot read GGUF file {path}: {err}") from None
    out: dict[str, Any] = {}
    for key in _GGUF_KEYS:
        f = reader.fields.get(key)
        if f is not None:
            out[key] = _gguf_value(f, gguf.GGUFValueType)
    return out


def _gguf_value(f: Any, vt: Any) -> Any:
    def one(index: int, vtype: Any) -> Any:
        part = f.parts[index]
        return bytes(part).decode("utf-8") if vtype == vt.STRING else part.tolist()[0]

    if f.types[0] == vt.ARRAY:
        if len(f.types) > 2:
            raise TokenizerError("nested arrays in GGUF tokenizer metadata are not supported")
        item = f.types[-1] if len(f.types) > 1 else None
        if item == vt.STRING:
            return [bytes(f.parts[i]).decode("utf-8") for i in f.data]
        return [v for i in f.data for v in f.parts[i].tolist()]
    return one(f.data[0], f.types[0])


def _build_bpe(tokens: Sequence[str], types: Sequence[int], merges: Sequence[str], pre: _PreTokenizer) -> Any:
    """Byte-level BPE from a GGUF vocabulary, split as llama.cpp splits: its regexes applied in turn, each
    keeping matches and the text between them, then bytes mapped to the GPT-2 alphabet. No normaliser:
    llama.cpp applies none."""
    tk = require_tokenizers("a GGUF tokenizer")
    from tokenizers import AddedToken, Regex, decoders, models, pre_tokenizers

    vocab = {text: i for i, text in enumerate(tokens)}  # a repeated text maps to its last id, as in llama.cpp
    pairs = []
    for line in merges:
        cut = line.find(" ", 1)  # llama.cpp splits at the first space after the first character
        if cut < 0:
            raise TokenizerError(f"malformed merge {line!r} in GGUF metadata")
        pairs.append((line[:cut], line[cut + 1:]))
    try:
        model = models.BPE(vocab=vocab, merges=pairs, ignore_merges=pre.ignore_merges)
    except Exception as err:  # merges whose result is missing from the vocabulary
        raise TokenizerError(f"GGUF vocabulary and merges do not form a BPE model: {err}") from None
    hf = tk.Tokenizer(model)
    hf.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Split(Regex(r), behavior="isolated", invert=False) for r in pre.regexes]
        + [pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)])
    hf.decoder = decoders.ByteLevel()
    hf.add_special_tokens([AddedToken(tokens[i], special=True, normalized=False)
                           for i, t in enumerate(types) if t in _SPECIAL_TYPES and tokens[i]])
    return hf


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
