"""On-disk answer cache: an interrupted run resumes, and a rerun (or a re-judge) does not pay twice.

Keyed by (backend, model, prompt hash, sampling settings). One small JSON file per answer, written
atomically, so concurrent workers and a killed process never leave a half-written entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .backends import Backend, Completion, Messages, Sampling


def prompt_hash(messages: Messages) -> str:
    """A stable hash of the exact messages sent (roles and contents)."""
    blob = json.dumps(messages, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def cache_key(backend_name: str, model: str, messages: Messages, sampling: Sampling) -> str:
    blob = json.dumps([backend_name, model, prompt_hash(messages), sampling.to_dict()], sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class AnswerCache:
    """A directory of answers. Errors are never cached; truncated answers are (they are the model's
    answer at that output limit, and a larger limit is a different key)."""

    def __init__(self, directory: str | Path) -> None:
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.hits = 0
        self.misses = 0

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> Completion | None:
        p = self._path(key)
        try:
            data: dict[str, Any] = json.loads(p.read_text("utf-8"))
        except (OSError, json.JSONDecodeError):
            return None
        data["cached"] = True
        return Completion(**data)

    def put(self, key: str, completion: Completion) -> None:
        p = self._path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        data = completion.to_dict()
        data["cached"] = False
        fd, tmp = tempfile.mkstemp(dir=p.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False)
        os.replace(tmp, p)


def cached_complete(backend: Backend, messages: Messages, sampling: Sampling, cache: AnswerCache | None
                    ) -> Completion:
    """Answer from the cache when present, else call the backend and store the answer."""
    if cache is None:
        return backend.complete(messages, sampling)
    key = cache_key(backend.name, backend.model, messages, sampling)
    hit = cache.get(key)
    if hit is not None:
        cache.hits += 1
        return hit
    cache.misses += 1
    result = backend.complete(messages, sampling)
    cache.put(key, result)
    return result
