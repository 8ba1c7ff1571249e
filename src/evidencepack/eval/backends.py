"""Model backends: any OpenAI-compatible HTTP endpoint (stdlib only), a local GGUF via llama-cpp-python,
and a scripted backend for tests.

Every call returns a `Completion` with the finish reason and token counts, because a truncated answer must
be reported as truncated and never judged as if it were the model's whole answer.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, cast

from ..errors import BackendError as BackendError  # re-exported from its old home

Messages = list[dict[str, str]]
T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Sampling:
    """The settings that change an answer; part of the cache key."""

    max_tokens: int = 300
    temperature: float = 0.0
    seed: int | None = 0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Completion:
    text: str
    finish_reason: str | None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float = 0.0
    cached: bool = False
    raw_model: str | None = None

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


class Backend(Protocol):
    name: str  # "http" | "llama" | "scripted"
    model: str
    is_model: bool  # False for the scripted backend: its results are never reported as a model's

    def complete(self, messages: Messages, sampling: Sampling) -> Completion: ...


# ---------------------------------------------------------------- HTTP


@dataclass
class HTTPBackend:
    """OpenAI-compatible `POST {base_url}/chat/completions` (OpenAI, vLLM, Ollama, LM Studio, llama.cpp).

    Retries 429 and 5xx responses, connection errors and timeouts with exponential backoff (honouring a
    short Retry-After); other 4xx are the caller's mistake and fail at once.
    """

    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    timeout: float = 120.0
    retries: int = 4
    backoff: float = 1.0
    max_backoff: float = 30.0
    extra_body: dict[str, Any] = field(default_factory=dict)
    name: str = "http"
    is_model: bool = True

    def __post_init__(self) -> None:
        self.base_url = (self.base_url or os.environ.get("EVIDENCEPACK_BASE_URL") or "").rstrip("/")
        self.model = self.model or os.environ.get("EVIDENCEPACK_MODEL") or ""
        self.api_key = self.api_key or os.environ.get("OPENAI_API_KEY")
        if not self.base_url:
            raise BackendError("no base URL: pass --base-url or set EVIDENCEPACK_BASE_URL "
                               "(e.g. http://127.0.0.1:8765/v1)")
        if not self.model:
            raise BackendError("no model name: pass --model or set EVIDENCEPACK_MODEL")

    def complete(self, messages: Messages, sampling: Sampling) -> Completion:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "max_tokens": sampling.max_tokens,
                                "temperature": sampling.temperature, **self.extra_body}
        if sampling.seed is not None:
            body["seed"] = sampling.seed
        data = json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        url = f"{self.base_url}/chat/completions"
        last = ""
        for attempt in range(self.retries + 1):
            wait = min(self.max_backoff, self.backoff * (2 ** attempt))
            start = time.monotonic()
            try:
                req = urllib.request.Request(url, data=data, headers=headers, method="POST")
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    payload = json.loads(resp.read().decode("utf-8"))
                return _parse_openai(payload, time.monotonic() - start)
            except urllib.error.HTTPError as err:
                detail = err.read()[:300].decode("utf-8", "replace")
                last = f"HTTP {err.code}: {detail}"
                if err.code != 429 and err.code < 500:
                    raise BackendError(f"{url}: {last}") from None
                retry_after = err.headers.get("Retry-After") if err.headers else None
                if retry_after and retry_after.strip().isdigit():
                    wait = min(self.max_backoff, float(retry_after))
            except (urllib.error.URLError, TimeoutError, ConnectionError) as err:
                last = f"{type(err).__name__}: {getattr(err, 'reason', err)}"
            except (json.JSONDecodeError, KeyError, IndexError, TypeError) as err:
                last = f"malformed response: {err}"
            if attempt < self.retries:
                time.sleep(wait)
        raise BackendError(f"{url}: gave up after {self.retries + 1} attempts ({last})")


def _parse_openai(payload: dict[str, Any], seconds: float) -> Completion:
    choice = payload["choices"][0]
    usage = payload.get("usage") or {}
    return Completion(
        text=(choice.get("message") or {}).get("content") or "",
        finish_reason=choice.get("finish_reason"),
        prompt_tokens=usage.get("prompt_tokens"), completion_tokens=usage.get("completion_tokens"),
        seconds=round(seconds, 3), raw_model=payload.get("model"),
    )


# ---------------------------------------------------------------- llama-cpp-python


@dataclass
class LlamaBackend:
    """A local GGUF model in-process through llama-cpp-python (`pip install evidencepack[llama]`)."""

    model_path: str
    n_ctx: int = 4096
    n_threads: int | None = None
    name: str = "llama"
    is_model: bool = True
    model: str = ""
    _llm: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.model = self.model or os.path.basename(self.model_path)
        if not os.path.isfile(self.model_path):
            raise BackendError(f"model file not found: {self.model_path}")

    def _load(self) -> Any:
        if self._llm is None:
            try:
                from llama_cpp import Llama  # lazy: optional extra
            except ImportError:
                raise BackendError("the llama backend needs llama-cpp-python: pip install 'evidencepack[llama]'"
                                   ) from None
            self._llm = Llama(model_path=self.model_path, n_ctx=self.n_ctx, n_threads=self.n_threads,
                              verbose=False)
        return self._llm

    def complete(self, messages: Messages, sampling: Sampling) -> Completion:
        with self._lock:  # one model, one context: calls are serialised
            llm = self._load()
            start = time.monotonic()
            out = llm.create_chat_completion(messages=messages, max_tokens=sampling.max_tokens,
                                             temperature=sampling.temperature, seed=sampling.seed)
        return _parse_openai(out, time.monotonic() - start)


# ---------------------------------------------------------------- scripted (tests only)

Rule = Callable[[Messages], "str | tuple[str, str]"]


@dataclass
class ScriptedBackend:
    """Deterministic answers from a rule, for tests and dry runs. Marked `is_model = False`: reports say
    SCRIPTED and never present its numbers as a model's. A rule returns the text, or (text, finish_reason)."""

    rule: Rule | None = None
    model: str = "scripted-reader"
    name: str = "scripted"
    is_model: bool = False
    calls: int = 0

    def complete(self, messages: Messages, sampling: Sampling) -> Completion:
        self.calls += 1
        out = (self.rule or careful_reader)(messages)
        text, finish = out if isinstance(out, tuple) else (out, "stop")
        words = text.split()
        if len(words) > sampling.max_tokens:
            text, finish = " ".join(words[: sampling.max_tokens]), "length"
        prompt_tokens = sum(len(m["content"].split()) for m in messages)
        return Completion(text, finish, prompt_tokens, min(len(words), sampling.max_tokens))


_BLOCK = re.compile(r"\[(S\d+)\] \(([^)]*)\)\n(.*?)\n<<<", re.S)
_COMPACT_BLOCK = re.compile(r"BEGIN (S\d+)>>> ([^\n]*)\n(.*?)\n<<<", re.S)  # the `compact` format
_KEY = re.compile(r'key "([^"]+)"')
_BAD = ("EXPIRED", "superseded", "informal", "not yet valid")


def careful_reader(messages: Messages) -> str:
    """The default scripted rule: answers from the first source whose header is not marked expired,
    superseded or informal, citing it; with no headers (flat) it answers from the first line of context.
    A repair turn makes it answer from the first clean source. For key-value questions it returns the value
    of the named key if present. Enough behaviour to exercise every path of the harness."""
    user = next(m["content"] for m in messages if m["role"] == "user")
    key = _KEY.search(user)
    if key:
        hit = re.search(r'"' + re.escape(key.group(1)) + r'": "([^"]+)"', user)
        return hit.group(1) if hit else "I do not know."
    blocks = _BLOCK.findall(user) or _COMPACT_BLOCK.findall(user)
    if blocks:
        clean = [(h, t) for h, meta, t in blocks if not any(b in meta for b in _BAD)]
        handle, text = clean[0] if clean else blocks[0][0::2]
        return f"{text.split('. ')[0].rstrip('.')}. [{handle}]"
    if "Context:\n" in user:
        context = user.split("Context:\n", 1)[1].strip().splitlines()
        return context[0].split(". ")[0].rstrip(".") + "." if context else "I do not know."
    return "I do not know."


# ---------------------------------------------------------------- running many calls


def run_parallel(fn: Callable[[T], R], items: Sequence[T], *, concurrency: int = 1,
                 progress: Callable[[int, int], None] | None = None) -> list[R]:
    """Map `fn` over `items` with at most `concurrency` calls in flight; results keep input order."""
    total = len(items)
    done = 0
    lock = threading.Lock()

    def tick(item: T) -> R:
        nonlocal done
        result = fn(item)
        with lock:
            done += 1
            if progress:
                progress(done, total)
        return result

    if concurrency <= 1:
        return [tick(i) for i in items]
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        return list(pool.map(tick, items))


NOT_CACHED = "not in the answer cache (--cache-only)"


@dataclass
class CacheOnlyBackend:
    """Stands in for a backend when reports are rebuilt from the answer cache alone: same name and model (so
    the cache keys match), and every call it would have to make fails with `NOT_CACHED` instead."""

    name: str
    model: str
    is_model: bool = True

    def complete(self, messages: Messages, sampling: Sampling) -> Completion:
        raise BackendError(NOT_CACHED)


def make_backend(kind: str, *, base_url: str | None = None, model: str | None = None,
                 model_path: str | None = None, api_key: str | None = None, timeout: float = 300.0,
                 n_ctx: int = 4096, n_threads: int | None = None, rule: Rule | None = None) -> Backend:
    """The CLI's factory."""
    if kind == "http":
        # an unnamed model is sent as the server's default; the protocol reads it as a string
        return cast(Backend, HTTPBackend(base_url=base_url, model=model, api_key=api_key, timeout=timeout))
    if kind == "llama":
        path = model_path or os.environ.get("EVIDENCEPACK_MODEL_PATH")
        if not path:
            raise BackendError("the llama backend needs --model-path (or EVIDENCEPACK_MODEL_PATH)")
        return LlamaBackend(path, n_ctx=n_ctx, n_threads=n_threads)
    if kind == "scripted":
        return ScriptedBackend(rule=rule)
    raise BackendError(f"unknown backend {kind!r} (http, llama or scripted)")
