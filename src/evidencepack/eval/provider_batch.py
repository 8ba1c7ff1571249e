"""A whole evaluation through a provider's batch API, at a fraction of the price of live calls.

    evidencepack eval traps … --model gpt-x --emit openai-batch --out run/   # writes run/batch-requests.jsonl
    # submit it to the provider's batch runner; download the results file
    evidencepack eval traps … --model gpt-x --import-answers results.jsonl --cache-only --out run/

`--emit` runs the experiment without calling anything: every prompt whose answer is not in the answer cache
becomes one request line, its `custom_id` the answer-cache key (backend, model, prompt, sampling), so an answer
that comes back lands exactly where the live run would have stored it. `--import-answers` puts a results file
(OpenAI or Anthropic batch output, vLLM's `run_batch`, or plain `{id, answer}` lines) into the cache; the rerun
then judges from the cache like any other run. A condition with a second call (the guard) takes two rounds:
its second prompt depends on the first answer, so the rerun after the first import emits it.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..batch.answers import read_answer
from ..batch.emit import NEEDS_MODEL, emit_messages
from ..errors import BackendError, DatasetError
from .backends import Completion, Messages, Sampling
from .cache import AnswerCache, cache_key

#: The error a deferred call leaves on its row (the row is left out of the report, as a cache miss is).
DEFERRED = "deferred to the provider's batch (--emit)"
#: An answer-cache key: what a `custom_id` must be to be imported (it names a file in the cache).
_KEY = re.compile(r"[0-9a-f]{64}")


@dataclass
class DeferredBackend:
    """Stands in for the backend under `--emit`: same name and model (so the keys are the live run's), and
    every call it would make is recorded as a request and fails with `DEFERRED`."""

    name: str
    model: str
    is_model: bool = True
    requests: dict[str, tuple[Messages, Sampling]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def complete(self, messages: Messages, sampling: Sampling) -> Completion:
        key = cache_key(self.name, self.model, messages, sampling)
        with self._lock:
            self.requests.setdefault(key, (messages, sampling))
        raise BackendError(DEFERRED)


def write_requests(path: Path, fmt: str, backend: DeferredBackend) -> int:
    """Every deferred prompt as one request line of `fmt`, in the order the run asked for them."""
    if fmt in NEEDS_MODEL and not backend.model:
        raise DatasetError(f"--emit {fmt} needs --model: the provider's request names the model")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for key, (messages, sampling) in backend.requests.items():
            extra = {"temperature": sampling.temperature, **({"seed": sampling.seed} if sampling.seed is not None
                                                              else {})}
            line = emit_messages(fmt, key, messages, model=backend.model or None, max_tokens=sampling.max_tokens,
                                 sampling=extra)
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    return len(backend.requests)


@dataclass(frozen=True)
class Imported:
    answers: int
    failures: tuple[str, ...]  # one line each: where, and why the line brought no answer


def import_answers(paths: Iterable[str | Path], cache: AnswerCache) -> Imported:
    """Put every answer of the results files into `cache` under its `custom_id`. A line without an answer
    (the provider's error, an unreadable line, an id that is not a cache key) is listed, never stored."""
    stored, failures = 0, []
    for path in paths:
        with Path(path).open(encoding="utf-8") as fh:
            for number, raw in enumerate(fh, start=1):
                if not raw.strip():
                    continue
                where = f"{path}:{number}"
                try:
                    data = json.loads(raw)
                except json.JSONDecodeError as err:
                    failures.append(f"{where}: not valid JSON ({err.msg})")
                    continue
                answer = read_answer(data)
                if answer.id is None or not _KEY.fullmatch(answer.id):
                    failures.append(f"{where}: the id is not a request this harness emitted")
                elif answer.text is None:
                    failures.append(f"{where}: {answer.failure}")
                else:
                    cache.put(answer.id, Completion(answer.text, None, raw_model=_model(data)))
                    stored += 1
    return Imported(stored, tuple(failures))


def _model(data: Any) -> str | None:
    """The model the provider says answered (OpenAI: response.body.model; Anthropic: result.message.model)."""
    for path in (("response", "body", "model"), ("result", "message", "model")):
        node: Any = data
        for step in path:
            node = node.get(step) if isinstance(node, dict) else None
        if isinstance(node, str):
            return node
    return None
