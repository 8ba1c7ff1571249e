"""Bundled data: the HR policy corpus of a fictional 2,000-person company and its trap questions.

Reached through these functions by the demo, the evaluation harness and the tests, so nothing imports the
CLI or the demo to get at data.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from ..records.jsonl import parse_jsonl_bytes
from ..records.record import Record


def corpus() -> tuple[Record, ...]:
    """The bundled HR policy corpus (89 records, validated)."""
    return parse_jsonl_bytes(resources.files(__name__).joinpath("hr_corpus.jsonl").read_bytes())


def traps() -> list[dict[str, Any]]:
    """The bundled trap questions, as raw JSON objects (see `evidencepack.eval.datasets.load_traps`)."""
    raw = resources.files(__name__).joinpath("hr_traps.jsonl").read_text("utf-8")
    return [json.loads(line) for line in raw.splitlines() if line.strip()]
