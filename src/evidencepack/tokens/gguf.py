"""A GGUF file's tokenizer and chat template, from its metadata (extras: `evidencepack[gguf]`).

The vocabulary, merges, pre-tokenizer, special tokens and the model's context length are read from the
file's header by a small plain reader (no `gguf` package, nothing past the key-value section) and rebuilt with
Hugging Face `tokenizers`, splitting text the way llama.cpp splits it for that pre-tokenizer.
"""

from __future__ import annotations

import hashlib
import mmap
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import TokenizerError
from .target import ChatTemplate, TargetModel
from .tokenizers import (
    HuggingFaceTokenizer,
    require_tokenizers,
)

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
    window = {"context_window": meta["context_length"], "window_source": meta["window_source"]} \
        if meta["context_length"] else {}
    if template is None:
        return TargetModel(name, tok, exact=False, source="gguf", **window)
    tokens = meta["tokens"]
    variables = {"bos_token": _id_text(tokens, meta["bos_id"]), "eos_token": _id_text(tokens, meta["eos_id"]),
                 **(template_vars or {})}
    framing = ChatTemplate(template, variables, bos_id=meta["bos_id"], eos_id=meta["eos_id"],
                           add_bos=meta["add_bos"], add_eos=meta["add_eos"])
    return TargetModel(name, tok, exact=True, source="gguf", framing=framing, **window)


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
            "add_bos": pre.add_bos if add_bos is None else bool(add_bos), "add_eos": bool(add_eos),
            "context_length": meta.get("context_length"),
            "window_source": f"GGUF metadata {meta.get('general.architecture')}.context_length"}
    return name, HuggingFaceTokenizer.wrap(hf, name), info


def read_gguf_metadata(path: str | Path) -> dict[str, Any]:
    """The tokenizer keys of a GGUF file (and the architecture and its context length), as Python values.

    A plain reader of the header (issue 26): the key-value section precedes the tensor data, so only it is
    read, and keys we do not need are skipped without decoding their values. `gguf.GGUFReader` maps the whole
    file and decodes every field (seconds for a large vocabulary); this reads a 0.5B model's metadata in
    about a tenth of a second. Versions 2 and 3, little-endian (what llama.cpp writes)."""
    try:
        with open(path, "rb") as fh:
            return _read_kv(fh)
    except TokenizerError:
        raise
    except (OSError, ValueError, struct.error, UnicodeDecodeError, MemoryError) as err:
        raise TokenizerError(f"cannot read GGUF file {path}: {err}") from None


# GGUF value types: (struct code, size) for the scalars; 8 is a string, 9 an array.
_SCALARS = {0: ("B", 1), 1: ("b", 1), 2: ("H", 2), 3: ("h", 2), 4: ("I", 4), 5: ("i", 4), 6: ("f", 4),
            7: ("?", 1), 10: ("Q", 8), 11: ("q", 8), 12: ("d", 8)}
_STRING, _ARRAY = 8, 9
_U32, _U64 = struct.Struct("<I"), struct.Struct("<Q")


class _Header:
    """A little-endian reader over the file's key-value section (a memory map: only the pages read are loaded)."""

    def __init__(self, buf: mmap.mmap) -> None:
        self.buf, self.pos = buf, 0

    def take(self, n: int) -> bytes:
        end = self.pos + n
        if n < 0 or end > len(self.buf):
            raise ValueError("unexpected end of file in the metadata")
        data, self.pos = self.buf[self.pos:end], end
        return data

    def u32(self) -> int:
        value = _U32.unpack_from(self.buf, self.pos)[0]
        self.pos += 4
        return int(value)

    def u64(self) -> int:
        value = _U64.unpack_from(self.buf, self.pos)[0]
        self.pos += 8
        return int(value)

    def string(self) -> bytes:
        return self.take(self.u64())

    def strings(self, count: int) -> list[bytes]:
        """`count` strings in a row: the vocabulary and the merges (hundreds of thousands), in one tight loop."""
        buf, pos, size, out = self.buf, self.pos, len(self.buf), []
        unpack = _U64.unpack_from
        for _ in range(count):
            n = unpack(buf, pos)[0]
            pos += 8
            if pos + n > size:
                raise ValueError("unexpected end of file in the metadata")
            out.append(buf[pos:pos + n])
            pos += n
        self.pos = pos
        return out

    def value(self, vtype: int, keep: bool) -> Any:
        if vtype in _SCALARS:
            code, size = _SCALARS[vtype]
            raw = self.take(size)
            return struct.unpack("<" + code, raw)[0] if keep else None
        if vtype == _STRING:
            raw = self.string()
            return raw.decode("utf-8") if keep else None
        if vtype == _ARRAY:
            return self.array(keep)
        raise ValueError(f"unknown GGUF value type {vtype}")

    def array(self, keep: bool) -> Any:
        item, count = self.u32(), self.u64()
        if item in _SCALARS:
            code, size = _SCALARS[item]
            raw = self.take(size * count)
            return list(struct.unpack(f"<{count}{code}", raw)) if keep else None
        if item == _STRING:
            out = self.strings(count)
            return [b.decode("utf-8") for b in out] if keep else None
        if item == _ARRAY:
            nested = [self.array(keep) for _ in range(count)]
            if keep:
                raise TokenizerError("nested arrays in GGUF tokenizer metadata are not supported")
            return nested
        raise ValueError(f"unknown GGUF array item type {item}")


def _read_kv(fh: BinaryIO) -> dict[str, Any]:
    with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        return _parse_kv(_Header(buf))


def _parse_kv(h: _Header) -> dict[str, Any]:
    if h.take(4) != b"GGUF":
        raise ValueError("not a GGUF file (bad magic)")
    version = h.u32()
    if version not in (2, 3):
        raise ValueError(f"GGUF version {version} is not supported (2 and 3 are)")
    h.u64()  # tensor count
    wanted = set(_GGUF_KEYS) | {"general.architecture"}
    out: dict[str, Any] = {}
    for _ in range(h.u64()):
        key = h.string().decode("utf-8")
        vtype = h.u32()
        keep = key in wanted or key.endswith(".context_length")
        value = h.value(vtype, keep)
        if keep:
            out[key] = value
    arch = out.get("general.architecture")
    length = out.get(f"{arch}.context_length")
    out = {k: v for k, v in out.items() if not k.endswith(".context_length")}
    if isinstance(length, int) and not isinstance(length, bool) and length > 0:
        out["context_length"] = length
    return out


def _merge_pairs(merges: Sequence[str]) -> list[tuple[str, str]]:
    """Each merge line as its two parts. llama.cpp splits at the first space after the first character; a
    byte-level vocabulary never starts a line with a space (spaces are `Ġ`), so the common case is a plain
    split, about twice as fast over 150,000 merges."""
    if any(line.startswith(" ") for line in merges):
        pairs: list[tuple[str, ...]] = []
        for line in merges:
            cut = line.find(" ", 1)
            pairs.append((line[:cut], line[cut + 1:]) if cut >= 0 else (line,))
    else:
        pairs = [tuple(line.split(" ", 1)) for line in merges]
    bad = next((line for line, pair in zip(merges, pairs) if len(pair) != 2), None)
    if bad is not None:
        raise TokenizerError(f"malformed merge {bad!r} in GGUF metadata")
    return pairs  # type: ignore[return-value]  # every pair has two parts (checked above)


def _build_bpe(tokens: Sequence[str], types: Sequence[int], merges: Sequence[str], pre: _PreTokenizer) -> Any:
    """Byte-level BPE from a GGUF vocabulary, split as llama.cpp splits: its regexes applied in turn, each
    keeping matches and the text between them, then bytes mapped to the GPT-2 alphabet. No normaliser:
    llama.cpp applies none."""
    tk = require_tokenizers("a GGUF tokenizer")
    from tokenizers import AddedToken, Regex, decoders, models, pre_tokenizers

    vocab = {text: i for i, text in enumerate(tokens)}  # a repeated text maps to its last id, as in llama.cpp
    pairs = _merge_pairs(merges)
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
