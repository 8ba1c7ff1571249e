"""Ray Data: `evidencepack batch` and `batch-check` across a cluster. Ray distributes the work; each actor holds
what one `evidencepack batch` process holds (a `batch.job.Worker`), so a line comes out with the same bytes
as on the single-process path.

    import ray, ray.data
    from evidencepack.batch.job import Job
    from evidencepack.integrations.ray import AssembleBatch, read_requests

    ds = read_requests("requests.jsonl")                       # columns: line, text
    out = ds.map_batches(AssembleBatch, fn_constructor_kwargs={"job": Job({"as_of": "2026-06-01"})},
                         compute=ray.data.ActorPoolStrategy(size=8), batch_size=64)

Output columns: `id`, `assembly` (the line `evidencepack batch` writes), `request` (the `--emit` line, or
""), `error` (True for an error line). Give every actor one boundary key (`$EVIDENCEPACK_BOUNDARY_KEY` in the
workers' environment, or `Job(boundary_key=...)`): otherwise each draws its own and the bytes differ.
`CheckBatch` does the same for `batch-check` on rows that carry an answer line and its assembly line.

What the single-process driver adds is not here: repeated request ids across batches are not refused, and
resuming is the pipeline's business. Needs `pip install 'evidencepack[ray]'`; `ray` is imported only by
`read_requests` and by Ray itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..batch.check import CheckSettings, verdict_line
from ..batch.job import Job, Worker
from . import require

require("ray", "ray", "ray")

__all__ = ["AssembleBatch", "CheckBatch", "read_requests"]


def _text(value: Any) -> bytes:
    """A line as bytes: `read_requests` gives bytes (any byte sequence survives Arrow as binary); a `str`
    column (`ray.data.read_text`) is encoded back."""
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    return str(value).encode("utf-8", "surrogatepass")


class AssembleBatch:
    """A callable class for `Dataset.map_batches`: request lines in (`text`, and `line`, their numbers in the
    file, for the error lines; 0 when absent), one output row per request."""

    def __init__(self, job: Job | Mapping[str, Any] | None = None) -> None:
        self.worker = Worker(job if isinstance(job, Job) else Job(dict(job or {})))

    def __call__(self, batch: Mapping[str, Sequence[Any]]) -> dict[str, list[Any]]:
        texts = list(batch["text"])
        numbers = [int(n) for n in batch["line"]] if "line" in batch else [0] * len(texts)
        results = self.worker.run([(n, _text(t), None) for n, t in zip(numbers, texts)])
        return {"id": [r[0] or "" for r in results], "assembly": [r[1] for r in results],
                "request": [r[2] or "" for r in results], "error": [r[3] for r in results]}


class CheckBatch:
    """A callable class for `Dataset.map_batches`: rows with `answer` (an answer line: OpenAI or Anthropic batch
    output, or `{id, answer}`) and `assembly` (the `evidencepack batch` line of its request), joined by id
    beforehand; out: `id` and `verdict` (the line `batch-check` writes; `line` is the row's `line` or 0)."""

    def __init__(self, settings: CheckSettings | None = None) -> None:
        self.settings = settings or CheckSettings()

    def __call__(self, batch: Mapping[str, Sequence[Any]]) -> dict[str, list[Any]]:
        answers, assemblies = list(batch["answer"]), list(batch["assembly"])
        numbers = [int(n) for n in batch["line"]] if "line" in batch else [0] * len(answers)
        verdicts = [verdict_line(_text(a), [_text(s)], self.settings, n)
                    for a, s, n in zip(answers, assemblies, numbers)]
        ids = [_id(v) for v in verdicts]
        return {"id": ids, "verdict": verdicts}


def _id(verdict: str) -> str:
    import json

    value = json.loads(verdict).get("id")
    return value if isinstance(value, str) else ""


def read_requests(path: str | Path, **kwargs: Any) -> Any:
    """A Ray dataset of the file's request lines with their numbers (`line`, `text`), blank lines left out. The
    lines are numbered as the file is read here (the driver holds them once); pass `ray.data.read_text` output
    with no `line` column to stream instead (error lines then say line 0)."""
    import ray.data

    rows = []
    with Path(path).open("rb") as f:
        for number, raw in enumerate(f, start=1):
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if raw.strip():
                rows.append({"line": number, "text": raw})
    return ray.data.from_items(rows, **kwargs)
