"""Whole logs at once: assemble a JSONL file of requests (`run`), write the request files of the providers'
batch APIs (`emit`), and check a JSONL file of answers against the assemblies (`check`).

One module per job; `evidencepack batch` and `evidencepack batch-check` (`batch.cli`) only wire them. Every
job streams: memory follows one chunk of requests (plus the set of ids seen), never the whole file.
"""

from __future__ import annotations

from .requests import Request, RequestError, load_corpus, parse_request

__all__ = ["Request", "RequestError", "load_corpus", "parse_request"]
