"""`evidencepack batch` and `evidencepack batch-check`: argument parsing only; the work is in `run`, `job`,
`emit` and `check`. Registered on the main parser by `add_parsers`; the assembly flags are the ones
`evidencepack assemble` generates from the option metadata, so every assembly option applies to a run."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..errors import UsageError
from ..render.prompts import BOUNDARY_KEY_ENV, checked_boundary_key

if TYPE_CHECKING:
    from ..citations.severities import Severities
    from .job import Job

BATCH_EXAMPLES = f"""examples:
  evidencepack batch requests.jsonl -o assemblies.jsonl --as-of 2026-06-01
  evidencepack batch requests.jsonl --corpus corpus.jsonl -o assemblies.jsonl --resume
  EVIDENCEPACK_BOUNDARY_KEY=$(cat key) evidencepack batch requests.jsonl -o a.jsonl --workers 2 \\
      --model gpt-4o-mini --emit openai-batch

A request line: {{"id": "q1", "question": "…", "as_of": "2026-06-01", "records": [{{…}}, "record-id"],
"options": {{"order": "edges"}}}} (records inline, or ids into --corpus; options: settings keys, docs/options.md).
An output line is what `assemble --json` prints, with the request id first; a bad request gives
{{"id", "line", "error": {{"field", "message"}}}} and the run goes on (exit 1 at the end).
--workers N > 1 needs one boundary key for every process: ${BOUNDARY_KEY_ENV} or --boundary-key-file."""

CHECK_EXAMPLES = """examples:
  evidencepack batch-check assemblies.jsonl answers.jsonl -o verdicts.jsonl --html check.html
  evidencepack batch-check assemblies.jsonl openai-output.jsonl -o verdicts.jsonl --attribute --notes

Answers: OpenAI Batch output lines, Anthropic Message Batches result lines, or {"id", "answer"}.
The summary (JSON) goes to --summary (default: VERDICTS with .summary.json) and is printed on stdout."""


def add_parsers(sub: Any, *, assembly_flags: Callable[[argparse.ArgumentParser], None],
                assembly_kwargs: Callable[[argparse.Namespace], dict[str, Any]],
                severity_flags: Callable[[argparse.ArgumentParser], None],
                severities: Callable[[argparse.Namespace], Severities]) -> None:
    """Register both commands. The main CLI passes its own flag generators (and their readers), so `batch`
    offers exactly `assemble`'s options and `batch-check` exactly `validate`'s severities."""
    p = sub.add_parser("batch", help="assemble a JSONL file of requests (streaming, resumable, N processes)",
                       epilog=BATCH_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("requests", help="JSONL file of requests, one per line ('-' for stdin)")
    p.add_argument("-o", "--output", required=True, help="the assemblies JSONL to write")
    p.add_argument("--corpus", metavar="FILE", help="JSONL records that request lines name by id")
    assembly_flags(p)
    p.add_argument("--workers", type=int, default=1, help="local processes (default 1); output order and bytes "
                                                          "do not depend on it")
    p.add_argument("--resume", action="store_true", help="keep the output's complete lines and skip their ids")
    p.add_argument("--overwrite", action="store_true", help="start the output afresh")
    p.add_argument("--emit", choices=("openai-batch", "anthropic-batch", "chat-jsonl"),
                   help="also write the provider's batch request file (one line per assembled request)")
    p.add_argument("--emit-output", metavar="FILE", help="where --emit writes (default: OUTPUT with .FORMAT.jsonl)")
    p.add_argument("--emit-model", metavar="NAME", help="the model name in the request lines (default --model)")
    p.add_argument("--boundary-key-file", metavar="FILE",
                   help=f"read the boundary key from this file (instead of ${BOUNDARY_KEY_ENV}); the assemblies "
                        "are then sealed with it")
    p.add_argument("--quiet", action="store_true", help="no progress line (it is shown only on a terminal)")
    p.set_defaults(func=cmd_batch, assembly_kwargs=assembly_kwargs)

    p = sub.add_parser("batch-check", help="check a JSONL file of answers against a batch's assemblies",
                       epilog=CHECK_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("assemblies", help="the JSONL `evidencepack batch` wrote")
    p.add_argument("answers", help="answers JSONL: provider batch results or {id, answer} ('-' for stdin)")
    p.add_argument("-o", "--output", required=True, help="the verdicts JSONL to write (one line per answer)")
    p.add_argument("--summary", metavar="FILE", help="the summary JSON (default: OUTPUT with .summary.json)")
    p.add_argument("--html", metavar="PAGE", help="also write the summary page, the worst answers linked")
    p.add_argument("--worst", type=int, default=20, help="how many worst answers to list and link (default 20)")
    severity_flags(p)
    p.add_argument("--attribute", action="store_true",
                   help="give each uncited stating sentence the sources its content matches, and check them too")
    p.add_argument("--notes", action="store_true", help="add conflict notes and the ids to withhold per answer")
    p.add_argument("--boundary-key-file", metavar="FILE", help="verify the assemblies' seals with this key")
    p.set_defaults(func=cmd_batch_check, severities=severities)


def _key_file(path: str | None) -> bytes | None:
    if path is None:
        return None
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"--boundary-key-file: file not found: {path}")
    return checked_boundary_key(file.read_bytes().strip())


def _derived(output: Path, suffix: str) -> Path:
    name = output.name.removesuffix(".jsonl")
    return output.with_name(f"{name}{suffix}")


def _open_input(path: str) -> IO[bytes]:
    if path == "-":
        return sys.stdin.buffer
    if not Path(path).is_file():
        raise UsageError(f"file not found: {path}")
    return open(path, "rb")


def _check_batch_args(args: argparse.Namespace, output: Path) -> None:
    """Usage mistakes, found before any request is read."""
    if args.resume and args.overwrite:
        raise UsageError("give --resume or --overwrite, not both")
    if output.exists() and output.stat().st_size and not (args.resume or args.overwrite):
        raise UsageError(f"{output} exists: --resume skips the ids it holds, --overwrite starts afresh")
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    if args.corpus is not None and not Path(args.corpus).is_file():
        raise UsageError(f"--corpus: file not found: {args.corpus}")


def _job(args: argparse.Namespace) -> Job:
    """What every process needs from the flags (plain data: it pickles)."""
    from .emit import NEEDS_MODEL
    from .job import Job

    emit_model = args.emit_model or args.model
    if args.emit in NEEDS_MODEL and not emit_model:
        raise UsageError(f"--emit {args.emit} needs a model name: --model or --emit-model")
    kwargs = args.assembly_kwargs(args)
    kwargs["as_of"] = str(kwargs["as_of"])  # a date from the clock read once here, as text (it pickles)
    job = Job(kwargs, corpus=args.corpus, emit=args.emit, emit_model=emit_model,
              boundary_key=_key_file(args.boundary_key_file))
    if job.boundary_key is None and not os.environ.get(BOUNDARY_KEY_ENV):
        print(f"evidencepack: note: no boundary key (${BOUNDARY_KEY_ENV} or --boundary-key-file): the boundary "
              "codes are drawn for this process, so another run (or --resume) gives other bytes",
              file=sys.stderr)
    return job


def cmd_batch(args: argparse.Namespace) -> int:
    from .run import run_batch, tty_progress

    output = Path(args.output)
    _check_batch_args(args, output)
    job = _job(args)
    emit_path = None
    if args.emit:
        emit_path = Path(args.emit_output) if args.emit_output else _derived(output, f".{args.emit}.jsonl")
    progress = None if args.quiet else tty_progress()
    with _open_input(args.requests) as requests:
        counts = run_batch(requests, output, job, workers=args.workers, resume=args.resume, emit_path=emit_path,
                           progress=progress)
    if progress is not None:
        print(file=sys.stderr)
    print(f"evidencepack: batch: {counts.written} lines written ({counts.errors} errors), {counts.skipped} "
          f"already in {output.name}" + (f"; requests for the provider in {emit_path}" if emit_path else ""),
          file=sys.stderr)
    return 1 if counts.errors else 0


def cmd_batch_check(args: argparse.Namespace) -> int:
    from .check import CheckSettings, run_check

    assemblies = Path(args.assemblies)
    if not assemblies.is_file():
        raise UsageError(f"assemblies file not found: {args.assemblies}")
    if args.worst < 0:
        raise UsageError("--worst must be 0 or more")
    settings = CheckSettings(args.severities(args), args.attribute, args.notes, _key_file(args.boundary_key_file),
                             args.worst)
    output = Path(args.output)
    with _open_input(args.answers) as answers, output.open("w", encoding="utf-8") as verdicts:
        summary = run_check(assemblies, answers, verdicts, settings, Path(args.html) if args.html else None)
    text = json.dumps(summary, ensure_ascii=False, indent=2)
    (Path(args.summary) if args.summary else _derived(output, ".summary.json")).write_text(text + "\n", "utf-8")
    print(text)
    return 0
