"""The work of one process in `evidencepack batch`: request lines in, output lines out.

A `Job` is what every process needs to assemble alike: the run's `assemble` keyword arguments (from the
flags), the corpus path, the emit format. It is plain data (it pickles), so `--workers N` processes build the
same options from it; `run_chunk` is the function they run. Nothing here reads a clock or a random source:
with one boundary key for the run, the same request gives the same bytes in any process.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..assemble import assemble
from ..errors import EvidencepackError, OptionError, RecordError
from ..options import GROUPS, Options
from ..records.jsonl import Line
from ..seal import check_replayed_settings
from .emit import EmitError, emit_line
from .requests import Request, RequestError, load_corpus, parse_request

#: Settings a request's `options` may not change: they are the run's (`as_of` has its own request field).
RUN_ONLY = ("as_of", "model", "tokenizer", "boundary_key_given")


@dataclass(frozen=True)
class Job:
    kwargs: Mapping[str, Any]  # `assemble` keywords from the run's flags (as_of, groups, model or tokenizer)
    corpus: str | None = None  # path of the corpus JSONL, for records named by id
    emit: str | None = None  # a format of `emit.FORMATS`
    emit_model: str | None = None
    boundary_key: bytes | None = None  # from --boundary-key-file; None: $EVIDENCEPACK_BOUNDARY_KEY


#: One input line: (line number, raw bytes, a ready error line or None).
Item = tuple[int, bytes, str | None]
#: One output: (request id or None, the output line, the emit line or None, whether it is an error line).
Result = tuple[str | None, str, str | None, bool]


class Worker:
    """A process's state: the run's options built once, the corpus read once."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self.options = Options.build(**job.kwargs, boundary_key=job.boundary_key)
        settings = self.options.settings()
        self.base_settings = {k: v for k, v in settings.items() if k not in RUN_ONLY}
        self.clearance = self.options.admission.clearance
        self.corpus: Mapping[str, Line] | None = load_corpus(job.corpus) if job.corpus else None

    def run(self, items: Sequence[Item]) -> list[Result]:
        return [self.one(line, raw) if ready is None else (None, ready, None, True) for line, raw, ready in items]

    def one(self, line: int, raw: bytes) -> Result:
        try:
            request = parse_request(raw, line, self.corpus)
        except RequestError as err:
            return err.request_id, error_line(err), None, True
        try:
            return self.assemble(request)
        except RequestError as err:
            return request.id, error_line(err), None, True
        except Exception as err:  # noqa: BLE001 - a bug must not end a run of a million requests: say which one
            failed = RequestError(f"internal error ({type(err).__name__}); please report it with this request",
                                  line=line, request_id=request.id)
            return request.id, error_line(failed), None, True

    def assemble(self, request: Request) -> Result:
        groups = self.groups(request)
        try:
            result = assemble(request.records, request.question, options=self.options, as_of=request.as_of,
                              **groups)
        except RecordError as err:
            raise RequestError(str(err), line=request.line, request_id=request.id, field="records",
                               record_id=err.record_id) from None
        except OptionError as err:
            field = "as_of" if "as_of" in str(err) else "options"
            raise RequestError(str(err), line=request.line, request_id=request.id, field=field) from None
        except EvidencepackError as err:  # a budget that cannot hold the question, ...
            raise RequestError(str(err), line=request.line, request_id=request.id) from None
        emitted = None
        if self.job.emit is not None:
            try:
                emitted = _dumps(emit_line(self.job.emit, request.id, result, model=self.job.emit_model))
            except EmitError as err:
                raise RequestError(str(err), line=request.line, request_id=request.id, field="id") from None
        return request.id, _dumps({"id": request.id, **result.to_dict()}), emitted, False

    def groups(self, request: Request) -> dict[str, Any]:
        """The option groups for this request: the run's, with its `options` applied (checked as a replayed
        `report.settings` is: never wider than the run allows)."""
        given = request.options
        if not given:
            return {}
        try:
            fixed = [k for k in RUN_ONLY if k in given]
            if fixed:
                raise OptionError(f"{fixed[0]} is set for the whole run, not per request")
            check_replayed_settings({"clearance": given.get("clearance", self.clearance),
                                     "system_template": given.get("system_template"),
                                     "neutralise_question": given.get("neutralise_question")},
                                    clearance=self.clearance)
            kwargs = Options.kwargs_from_settings({**self.base_settings, **given})
            return {name: kwargs[name] for name, _ in GROUPS}
        except EvidencepackError as err:
            raise RequestError(str(err), line=request.line, request_id=request.id, field="options") from None


def error_line(err: RequestError) -> str:
    return _dumps({"id": err.request_id, "line": err.line, "error": err.to_dict()})


def _dumps(data: Mapping[str, Any]) -> str:
    """As `assemble --json` prints (no indent, UTF-8 kept)."""
    return json.dumps(data, ensure_ascii=False)


_WORKER: Worker | None = None


def init_worker(job: Job) -> None:
    """The pool's initializer: build this process's `Worker`."""
    global _WORKER
    _WORKER = Worker(job)


def run_chunk(items: Sequence[Item]) -> list[Result]:
    """What a pool process runs (after `init_worker`)."""
    assert _WORKER is not None, "init_worker was not called in this process"
    return _WORKER.run(items)
