"""`evidencepack batch`: stream request lines through `job.Worker`s, in input order, into the output file.

- Memory: a bounded number of chunks are in flight; what stays is the set of request ids seen (to refuse a
  repeated id and to skip, on `resume`, the ids the output already holds), never an assembly.
- Order: results are written in input order whatever the number of workers, so the output of `workers=N`
  is byte-identical to `workers=1` (given one boundary key for the run: see `check_key`).
- Resume: the ids of the complete lines already in the output are skipped; a torn last line (the run was
  killed mid-write) is cut off first. The emit file is cut to the same ids.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..errors import UsageError
from ..render.prompts import BOUNDARY_KEY_ENV
from .job import Item, Job, Result, Worker, error_line, init_worker, run_chunk
from .requests import RequestError

CHUNK = 16  # requests per task: big enough to hide the pipe, small enough to keep every worker busy
_ID_FIRST = re.compile(rb'\s*\{\s*"id"\s*:\s*("(?:[^"\\\x00-\x1f]|\\.)*")')


@dataclass
class Counts:
    written: int = 0
    errors: int = 0
    skipped: int = 0  # already in the output (resume)


def check_key(job: Job, workers: int) -> None:
    """Several processes must share one boundary key, else each would draw its own and the boundary codes (and
    so the bytes) would depend on which process took a request."""
    if workers > 1 and job.boundary_key is None and not os.environ.get(BOUNDARY_KEY_ENV):
        raise UsageError(f"--workers {workers} needs one boundary key for every process: set ${BOUNDARY_KEY_ENV} "
                         "or give --boundary-key-file (a random 32-byte secret)")


def request_id(raw: bytes) -> str | None:
    """The request's id, read cheaply when it is the first key (as `evidencepack batch` writes it), else by
    parsing the line; None when the line has no readable string id."""
    m = _ID_FIRST.match(raw)
    try:
        if m:
            value: Any = json.loads(m.group(1))
        else:
            data = json.loads(raw)
            value = data.get("id") if isinstance(data, dict) else None
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, str) else None


@dataclass
class Done:
    """What an earlier output holds: the ids of its lines, and the input line numbers of its error lines
    (an unreadable line has no id, and a repeated id's error must not be written twice)."""

    ids: set[str]
    error_lines: set[int]


def done_lines(path: Path) -> Done:
    """Read an earlier output (its complete lines); a torn last line is cut off the file."""
    done = Done(set(), set())
    if not path.is_file():
        return done
    with path.open("r+b") as f:
        good = 0
        for raw in f:
            if not raw.endswith(b"\n"):
                break
            rid = request_id(raw)
            if rid is not None:
                done.ids.add(rid)
            line = is_error_line(raw)
            if line:
                done.error_lines.add(line)
            good += len(raw)
        f.truncate(good)
    return done


def is_error_line(raw: bytes) -> int | None:
    """The input line number an output error line names; None for an assembly (or anything else)."""
    if len(raw) > 8192 or b'"error": {' not in raw:
        return None  # an error line is short; an assembly that mentions the words is no error line
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if isinstance(data, dict) and "error" in data and "prompt" not in data and isinstance(data.get("line"), int):
        return int(data["line"])
    return None


def _cut_emit(path: Path, keep: set[str]) -> None:
    """Keep only the emit lines of requests the output holds (complete lines only)."""
    if not path.is_file():
        return
    tmp = path.with_name(path.name + ".tmp")
    with path.open("rb") as src, tmp.open("wb") as dst:
        for raw in src:
            if not raw.endswith(b"\n"):
                break
            try:
                data = json.loads(raw)
            except ValueError:
                continue
            rid = data.get("custom_id", data.get("id")) if isinstance(data, dict) else None
            if rid in keep:
                dst.write(raw)
    tmp.replace(path)


def read_lines(stream: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    """Non-blank lines with their numbers (from 1), a BOM on the first line dropped."""
    for number, raw in enumerate(stream, start=1):
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        if raw.strip():
            yield number, raw


def plan(lines: Iterable[tuple[int, bytes]], done: Done, counts: Counts) -> Iterator[Item]:
    """What to assemble: lines whose id is new; a repeated id becomes its error line here, so the workers
    never see it. On resume, a line is skipped when the output holds its id (first occurrence) or its error."""
    seen: dict[str, int] = {}
    for number, raw in lines:
        rid = request_id(raw)
        if number in done.error_lines or (rid is not None and rid in done.ids and rid not in seen):
            counts.skipped += 1
            if rid is not None:
                seen.setdefault(rid, number)
            continue
        if rid is not None and rid in seen:
            err = RequestError(f"request id repeated (first at line {seen[rid]})", line=number, request_id=rid,
                               field="id")
            yield number, b"", error_line(err)
            continue
        if rid is not None:
            seen[rid] = number
        yield number, raw, None


def chunks(items: Iterable[Item], size: int) -> Iterator[list[Item]]:
    chunk: list[Item] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def run_batch(requests: IO[bytes], output: Path, job: Job, *, workers: int = 1, resume: bool = False,
              emit_path: Path | None = None, progress: Callable[[Counts], None] | None = None,
              chunk: int = CHUNK) -> Counts:
    """Assemble every request line of `requests` into `output` (and `emit_path`), in input order."""
    check_key(job, workers)
    counts = Counts()
    done = done_lines(output) if resume else Done(set(), set())
    if emit_path is not None and resume:
        _cut_emit(emit_path, done.ids)
    mode = "ab" if resume else "wb"
    work = chunks(plan(read_lines(requests), done, counts), chunk)
    with output.open(mode) as out, (emit_path.open(mode) if emit_path else open(os.devnull, "wb")) as emit:
        def write(results: list[Result]) -> None:
            # the emit line first: after a kill, every output line has its emit line (resume cuts the rest)
            emit.write(b"".join(e.encode() + b"\n" for _, _, e, _ in results if e is not None))
            emit.flush()
            out.write(b"".join(line.encode() + b"\n" for _, line, _, _ in results))
            out.flush()
            counts.written += len(results)
            counts.errors += sum(failed for _, _, _, failed in results)
            if progress is not None:
                progress(counts)

        if workers <= 1:
            worker = Worker(job)
            for items in work:
                write(worker.run(items))
        else:
            _pool_run(work, job, workers, write)
    return counts


def _pool_run(work: Iterator[list[Item]], job: Job, workers: int, write: Callable[[list[Result]], None]) -> None:
    """Chunks to a pool of `workers` processes, at most two per process in flight, results in input order."""
    import multiprocessing

    with multiprocessing.get_context().Pool(workers, initializer=init_worker, initargs=(job,)) as pool:
        pending: deque[Any] = deque()
        for items in work:
            pending.append(pool.apply_async(run_chunk, (items,)))
            while len(pending) >= 2 * workers:
                write(pending.popleft().get())
        while pending:
            write(pending.popleft().get())


def tty_progress(stream: IO[str] | None = None) -> Callable[[Counts], None] | None:
    """A one-line counter on a terminal (stderr), else nothing: a log file gets no carriage returns."""
    out = stream or sys.stderr
    if not (hasattr(out, "isatty") and out.isatty()):
        return None
    import time

    start = time.monotonic()

    def show(c: Counts) -> None:
        secs = max(time.monotonic() - start, 1e-9)
        out.write(f"\rbatch: {c.written} written ({c.errors} errors, {c.skipped} skipped) "
                  f"{c.written / secs:7.1f} requests/s")
        out.flush()

    return show
