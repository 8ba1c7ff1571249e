"""Tokenizers: count with the target model's real tokenizer, offline.

tiktoken downloads its encoding files on first use, which fails on a machine without internet. evidencepack
ships the two OpenAI encodings it supports (`o200k_base`, `cl100k_base`) as package data, byte-identical to
the files OpenAI publishes (their SHA-256 is checked on load against the hashes tiktoken itself pins), and
builds the tiktoken `Encoding` from them, so counts are tiktoken's own.
"""

from __future__ import annotations

import binascii
import gzip
import hashlib
import unicodedata
from collections.abc import Callable, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..errors import TokenizerError

DEFAULT_TOKENIZER = "o200k_base"


@runtime_checkable
class Tokenizer(Protocol):
    """What the assembler needs from a tokenizer. `name` keys the count cache."""

    name: str

    def encode(self, text: str) -> Sequence[int]: ...

    def count(self, text: str) -> int: ...


# Published by OpenAI; pinned by tiktoken (tiktoken_ext/openai_public.py). Checked on every load.
_ENCODINGS = {
    "cl100k_base": {
        "sha256": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        "pat_str": r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",  # noqa: E501
        "special_tokens": {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                           "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276},
    },
    "o200k_base": {
        "sha256": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "pat_str": "|".join([
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",  # noqa: E501
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",  # noqa: E501
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]),
        "special_tokens": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    },
}
class TiktokenTokenizer:
    """An OpenAI BPE encoding. Special-token strings in text are counted as plain text, never as control."""

    def __init__(self, encoding_name: str) -> None:
        self.name = encoding_name
        self._encoding = _load_encoding(encoding_name)
        ranks = self._encoding._mergeable_ranks
        #: No token covers more characters than this (a character is at least one byte): a text longer
        #: than budget × this cannot fit, which lets the budget pass reject it before tokenizing it.
        self.max_token_chars = max(map(len, ranks))
        #: Every string of 1 to 3 ASCII digits is one token, and the pre-tokenizer cuts digit runs into
        #: groups of 3: replacing digits by other digits never changes a count (see `count_joined`).
        self.digit_invariant = all(len(self.encode(str(i))) == 1 and len(self.encode(f"{i:03d}")) == 1
                                   for i in range(1000))

    def encode(self, text: str) -> list[int]:
        ids: list[int] = self._encoding.encode_ordinary(text)
        return ids

    def count(self, text: str) -> int:
        return len(self._encoding.encode_ordinary(text))


@cache
def _load_encoding(name: str) -> Any:  # a tiktoken.Encoding; tiktoken is imported lazily
    import tiktoken

    spec = _ENCODINGS[name]
    blob = gzip.decompress(resources.files("evidencepack.tokens.tokenizer_data").joinpath(f"{name}.tiktoken.gz")
                           .read_bytes())
    digest = hashlib.sha256(blob).hexdigest()
    if digest != spec["sha256"]:
        raise TokenizerError(f"bundled {name} file is corrupt (sha256 {digest})")
    # "token rank" per line: the same mapping as tiktoken's `load_tiktoken_bpe`, read in C-speed bulk steps
    # (split, map) rather than a call of `base64.b64decode` per token: a quarter of the first call's load time
    words = blob.split()
    ranks = dict(zip(map(binascii.a2b_base64, words[0::2]), map(int, words[1::2])))
    special: dict[str, int] = spec["special_tokens"]  # type: ignore[assignment]
    return tiktoken.Encoding(name=name, pat_str=str(spec["pat_str"]), mergeable_ranks=ranks, special_tokens=special)


def joins_cleanly(left: str, right: str) -> bool:
    """True when the GPT-style pre-tokenizer of the bundled encodings must cut between `left` and `right`:
    `left` ends in newlines after a character that is neither space, letter nor digit (the punctuation-run
    pattern takes those newlines and stops), and `right` starts with a character that cannot extend that
    run (not space, not `/`). BPE never merges across a pre-token cut, so the count of `left + right` is
    then the sum of their counts (checked by a property test on both encodings)."""
    body = left.rstrip("\n")
    if len(body) == len(left) or not body or not right:
        return False
    last, first = body[-1], right[0]
    return (not last.isspace() and unicodedata.category(last)[0] not in "LNZ"
            and not first.isspace() and first != "/")


def count_joined(tokenizer: Tokenizer, cache: CountCache, pieces: Sequence[str], *,
                 exact_parts: bool = True) -> int:
    """Exact tokens of `"".join(pieces)`. For the bundled encodings, when every join is clean, the sum of
    the pieces' cached counts (a new question over a known corpus then tokenizes only the question);
    otherwise the whole string is counted once."""
    if (exact_parts and isinstance(tokenizer, TiktokenTokenizer)
            and all(joins_cleanly(a, b) for a, b in zip(pieces, pieces[1:]))):
        return sum(cache.count(tokenizer, piece) for piece in pieces)
    return tokenizer.count("".join(pieces))


class HuggingFaceTokenizer:
    """A Hugging Face `tokenizers` model read from a local `tokenizer.json` (extra: `evidencepack[hf]`).

    Added tokens (`<|im_start|>` and the like) in the text are recognised as the tokens they are, as a
    server that tokenizes the rendered chat template recognises them."""

    def __init__(self, path: str | Path) -> None:
        HFTokenizer = require_tokenizers("reading tokenizer.json").Tokenizer
        try:
            self._tokenizer = HFTokenizer.from_file(str(path))
        except Exception as err:  # the Rust side raises its own exception type
            raise TokenizerError(f"cannot load tokenizer file {path}: {err}") from None
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]
        self.name = f"hf:{Path(path).name}:{digest}"

    @classmethod
    def wrap(cls, tokenizer: object, name: str) -> HuggingFaceTokenizer:
        """Wrap a `tokenizers.Tokenizer` built in memory (e.g. from a GGUF file's vocabulary)."""
        self = cls.__new__(cls)
        self._tokenizer = tokenizer
        self.name = name
        return self

    def encode(self, text: str) -> list[int]:
        ids: list[int] = self._tokenizer.encode(text, add_special_tokens=False).ids
        return ids

    def count(self, text: str) -> int:
        return len(self.encode(text))


class CallableTokenizer:
    """Wrap any `text -> token ids` (or `text -> count`) function, e.g. a provider's counting endpoint."""

    def __init__(self, fn: Callable[[str], Sequence[int] | int], name: str) -> None:
        self._fn = fn
        self.name = name

    def encode(self, text: str) -> Sequence[int]:
        result = self._fn(text)
        if isinstance(result, int):
            raise TokenizerError(f"tokenizer {self.name!r} only counts; it cannot encode")
        return result

    def count(self, text: str) -> int:
        result = self._fn(text)
        return result if isinstance(result, int) else len(result)


def require_tokenizers(purpose: str) -> Any:  # the `tokenizers` module, imported lazily
    """Import the optional `tokenizers` package, or say which extra brings it."""
    try:
        import tokenizers
    except ImportError:
        raise TokenizerError(f"{purpose} needs the `tokenizers` package: pip install 'evidencepack[hf]'") from None
    return tokenizers


def openai_encoding(model: str) -> str | None:
    """The bundled encoding an OpenAI model name uses, by tiktoken's own offline model map (exact names and
    prefixes such as `gpt-4o-2024-08-06`); None when tiktoken does not know the name. A known model whose
    encoding is not bundled (`text-davinci-003` uses p50k_base) is an error, never a substitute."""
    from tiktoken.model import encoding_name_for_model

    try:
        encoding = encoding_name_for_model(model)
    except KeyError:
        return None
    if encoding not in _ENCODINGS:
        raise TokenizerError(f"model {model!r} uses the {encoding} encoding, which evidencepack does not bundle "
                             f"(bundled: {', '.join(_ENCODINGS)}); pass a tokenizer object for it instead")
    return encoding


def get_tokenizer(spec: str | Tokenizer | None = None) -> Tokenizer:
    """Resolve a tokenizer: an encoding (`o200k_base`), an OpenAI model name (`gpt-4o`, `gpt-4.1-mini`), a
    path to a `tokenizer.json`, or a `Tokenizer` object (returned as is). `None` means `o200k_base`."""
    if spec is None:
        spec = DEFAULT_TOKENIZER
    if not isinstance(spec, str):
        if isinstance(spec, Tokenizer):
            return spec
        raise TokenizerError(f"not a tokenizer: {spec!r}")
    if spec in _ENCODINGS:
        return _cached_tiktoken(spec)
    if spec.endswith(".json") or Path(spec).is_file():
        if not Path(spec).is_file():
            raise TokenizerError(f"tokenizer file not found: {spec}")
        return HuggingFaceTokenizer(spec)
    encoding = openai_encoding(spec)
    if encoding is not None:
        return _cached_tiktoken(encoding)
    raise TokenizerError(f"unknown tokenizer {spec!r}; use {' or '.join(_ENCODINGS)}, an OpenAI model name "
                         "tiktoken knows (gpt-4o, gpt-4.1-mini, o3-mini, …), or a path to tokenizer.json")


BUNDLED_ENCODINGS = tuple(_ENCODINGS)


@cache
def _cached_tiktoken(name: str) -> TiktokenTokenizer:
    return TiktokenTokenizer(name)


class CountCache:
    """Token counts keyed by (tokenizer name, content hash): the same chunk recurs across requests.

    Bounded; a plain dict with FIFO eviction keeps lookups cheap on the hot path.
    """

    def __init__(self, max_entries: int = 200_000) -> None:
        self._counts: dict[tuple[str, bytes], int] = {}
        self._max = max_entries
        self.hits = 0
        self.misses = 0

    def count(self, tokenizer: Tokenizer, text: str) -> int:
        key = (tokenizer.name, hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest())
        found = self._counts.get(key)
        if found is not None:
            self.hits += 1
            return found
        self.misses += 1
        n = tokenizer.count(text)
        if len(self._counts) >= self._max:
            self._counts.pop(next(iter(self._counts)))
        self._counts[key] = n
        return n

    def clear(self) -> None:
        self._counts.clear()
        self.hits = self.misses = 0


#: The process-wide cache `assemble` uses unless given another.
DEFAULT_CACHE = CountCache()
