"""The HTTP backend against a real OpenAI-compatible server on 127.0.0.1, the cache, and bounded concurrency."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from evidencepack.eval.backends import (
    BackendError,
    HTTPBackend,
    Sampling,
    ScriptedBackend,
    make_backend,
    run_parallel,
)
from evidencepack.eval.cache import AnswerCache, cache_key, cached_complete, prompt_hash

MSGS = [{"role": "system", "content": "sys"}, {"role": "user", "content": "What is 2+2?"}]


class FakeOpenAI(ThreadingHTTPServer):
    """Serves /v1/chat/completions from a queue of planned responses: (status, body | "sleep:<s>")."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.plan: list[tuple[int, object]] = []
        self.requests: list[dict] = []
        self.headers_seen: list[dict] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


def ok(text: str = "4", finish: str = "stop", prompt: int = 12, completion: int = 1) -> dict:
    return {"model": "fake", "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                          "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion}}


class Handler(BaseHTTPRequestHandler):
    server: FakeOpenAI

    def log_message(self, *args: object) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        self.server.headers_seen.append(dict(self.headers))
        status, payload = self.server.plan.pop(0) if self.server.plan else (200, ok())
        if isinstance(payload, str) and payload.startswith("sleep:"):
            time.sleep(float(payload.split(":")[1]))
            status, payload = 200, ok("late")
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    srv = FakeOpenAI()
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def backend(srv: FakeOpenAI, **kw: object) -> HTTPBackend:
    return HTTPBackend(base_url=srv.url, model="fake-model", api_key="sk-test", backoff=0.01, **kw)


def test_http_request_shape_and_usage(server: FakeOpenAI) -> None:
    c = backend(server).complete(MSGS, Sampling(max_tokens=50, temperature=0.0, seed=7))
    assert (c.text, c.finish_reason, c.prompt_tokens, c.completion_tokens) == ("4", "stop", 12, 1)
    req = server.requests[0]
    assert req["model"] == "fake-model" and req["messages"] == MSGS
    assert (req["max_tokens"], req["temperature"], req["seed"]) == (50, 0.0, 7)
    assert server.headers_seen[0]["Authorization"] == "Bearer sk-test"


def test_http_retries_429_and_5xx_then_succeeds(server: FakeOpenAI) -> None:
    server.plan = [(429, {"error": "slow down"}), (500, {"error": "boom"}), (503, {"error": "busy"}), (200, ok("ok"))]
    c = backend(server, retries=4).complete(MSGS, Sampling())
    assert c.text == "ok" and len(server.requests) == 4


def test_http_gives_up_after_retries(server: FakeOpenAI) -> None:
    server.plan = [(500, {"error": "down"})] * 3
    with pytest.raises(BackendError, match="gave up after 3 attempts"):
        backend(server, retries=2).complete(MSGS, Sampling())


def test_http_client_error_is_not_retried(server: FakeOpenAI) -> None:
    server.plan = [(400, {"error": "bad request"})]
    with pytest.raises(BackendError, match="HTTP 400"):
        backend(server, retries=3).complete(MSGS, Sampling())
    assert len(server.requests) == 1


def test_http_timeout_is_retried(server: FakeOpenAI) -> None:
    server.plan = [(200, "sleep:0.6"), (200, ok("fast"))]
    c = backend(server, timeout=0.2, retries=2).complete(MSGS, Sampling())
    assert c.text == "fast"


def test_http_length_finish_is_truncated(server: FakeOpenAI) -> None:
    server.plan = [(200, ok("The value is 3f2a", finish="length", completion=5))]
    c = backend(server).complete(MSGS, Sampling(max_tokens=5))
    assert c.truncated and c.finish_reason == "length"


def test_http_needs_url_and_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVIDENCEPACK_BASE_URL", raising=False)
    monkeypatch.delenv("EVIDENCEPACK_MODEL", raising=False)
    with pytest.raises(BackendError, match="base URL"):
        HTTPBackend(model="m")
    with pytest.raises(BackendError, match="model"):
        HTTPBackend(base_url="http://127.0.0.1:1/v1")
    monkeypatch.setenv("EVIDENCEPACK_BASE_URL", "http://127.0.0.1:1/v1/")
    monkeypatch.setenv("EVIDENCEPACK_MODEL", "m2")
    b = HTTPBackend()
    assert (b.base_url, b.model) == ("http://127.0.0.1:1/v1", "m2")


def test_llama_backend_errors_are_clear(tmp_path) -> None:
    with pytest.raises(BackendError, match="--model-path"):
        make_backend("llama")
    with pytest.raises(BackendError, match="not found"):
        make_backend("llama", model_path=str(tmp_path / "missing.gguf"))
    with pytest.raises(BackendError, match="unknown backend"):
        make_backend("nope")


def test_scripted_backend_is_marked_and_truncates() -> None:
    b = ScriptedBackend(rule=lambda m: "one two three four five")
    assert b.is_model is False
    c = b.complete(MSGS, Sampling(max_tokens=3))
    assert c.truncated and c.text == "one two three"


def test_cache_resumes_and_keys_on_sampling(tmp_path, server: FakeOpenAI) -> None:
    cache = AnswerCache(tmp_path / "cache")
    b = backend(server)
    first = cached_complete(b, MSGS, Sampling(max_tokens=50), cache)
    again = cached_complete(b, MSGS, Sampling(max_tokens=50), AnswerCache(tmp_path / "cache"))
    assert again.cached and not first.cached and again.text == first.text
    assert len(server.requests) == 1
    cached_complete(b, MSGS, Sampling(max_tokens=60), cache)  # other settings: a new call
    assert len(server.requests) == 2
    assert cache_key("http", "m", MSGS, Sampling()) != cache_key("http", "other", MSGS, Sampling())
    assert prompt_hash(MSGS) == prompt_hash([dict(m) for m in MSGS])


def test_errors_are_not_cached(tmp_path, server: FakeOpenAI) -> None:
    server.plan = [(400, {"error": "no"})]
    cache = AnswerCache(tmp_path)
    with pytest.raises(BackendError):
        cached_complete(backend(server), MSGS, Sampling(), cache)
    assert cached_complete(backend(server), MSGS, Sampling(), cache).text == "4"


def test_run_parallel_bounds_concurrency_and_keeps_order() -> None:
    live = 0
    peak = 0
    lock = threading.Lock()
    seen: list[int] = []

    def work(i: int) -> int:
        nonlocal live, peak
        with lock:
            live += 1
            peak = max(peak, live)
        time.sleep(0.02)
        with lock:
            live -= 1
        return i * i

    out = run_parallel(work, list(range(12)), concurrency=3, progress=lambda d, t: seen.append(d))
    assert out == [i * i for i in range(12)]
    assert peak <= 3 and sorted(seen) == list(range(1, 13))


def test_llama_backend_with_a_stand_in_module(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The llama-cpp-python backend is imported lazily; a stand-in module checks the call and the parsing."""
    import sys
    import types

    seen: dict = {}

    class FakeLlama:
        def __init__(self, **kw: object) -> None:
            seen["init"] = kw

        def create_chat_completion(self, **kw: object) -> dict:
            seen["call"] = kw
            return ok("v-123", finish="length", prompt=40, completion=9)

    monkeypatch.setitem(sys.modules, "llama_cpp", types.SimpleNamespace(Llama=FakeLlama))
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF")
    b = make_backend("llama", model_path=str(gguf), n_threads=2)
    c = b.complete(MSGS, Sampling(max_tokens=9, temperature=0.0, seed=1))
    assert (c.text, c.truncated, c.prompt_tokens) == ("v-123", True, 40)
    assert seen["init"]["model_path"] == str(gguf) and seen["init"]["n_threads"] == 2
    assert seen["call"]["max_tokens"] == 9 and b.model == "tiny.gguf"
