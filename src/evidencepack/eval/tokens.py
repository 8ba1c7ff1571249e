"""`evidencepack eval tokens`: does the assembly's token count equal what the server counts?

Every trap question is assembled with `model=` (the served model's GGUF file, or any model `resolve_model`
accepts) and sent to an OpenAI-compatible server with `max_tokens=1`; the server's `usage.prompt_tokens` must
equal `report.budget["prompt_tokens"]`. The default count (o200k_base, no chat framing) of the same messages is
shown beside it, to show what an unnamed model would have been budgeted with.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import BackendError, OptionError
from ..passes.budget import Budget
from ..records.record import Record
from ..tokens.target import TargetModel
from ..tokens.tokenizers import DEFAULT_TOKENIZER, get_tokenizer
from .backends import Backend, Sampling
from .datasets import TrapQuestion
from .experiments import TRAP_CONDITIONS, TrapRun

ONE_TOKEN = Sampling(max_tokens=1, temperature=0.0, seed=0)


@dataclass(frozen=True)
class TokenCheck:
    """One request: evidencepack's count, the server's, and the default tokenizer's for comparison."""

    question: str
    condition: str
    records: int
    counted: int
    server: int | None
    default: int
    error: str | None = None

    @property
    def difference(self) -> int | None:
        return None if self.server is None else self.server - self.counted

    @property
    def ok(self) -> bool:
        return self.difference == 0

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "difference": self.difference}


def check_token_counts(backend: Backend, traps: Sequence[TrapQuestion], corpus: Sequence[Record],
                       model: TargetModel, *, conditions: Sequence[str] = ("flat", "structured"),
                       budget: Budget | None = None,
                       progress: Callable[[int, int], None] | None = None) -> list[TokenCheck]:
    """Assemble each (question, condition) for `model` and compare the count with the server's usage."""
    unknown = [c for c in conditions if c not in TRAP_CONDITIONS]
    if unknown:
        raise OptionError(f"unknown condition(s) {', '.join(unknown)} (one of {', '.join(TRAP_CONDITIONS)})")
    run = TrapRun(backend, traps, corpus, ONE_TOKEN, model=model, budget=budget)
    default = get_tokenizer(DEFAULT_TOKENIZER)
    jobs = [(t, c) for c in conditions for t in traps]
    rows = []
    for done, (trap, condition) in enumerate(jobs, 1):
        a = run.assembly(trap, condition)
        server, error = None, None
        try:
            server = backend.complete(a.messages, ONE_TOKEN).prompt_tokens
            if server is None:
                error = "the server reported no usage.prompt_tokens"
        except BackendError as err:
            error = str(err)
        rows.append(TokenCheck(trap.id, condition, len(a.manifest), a.report.budget["prompt_tokens"], server,
                               sum(default.count(m["content"]) for m in a.messages), error))
        if progress:
            progress(done, len(jobs))
    return rows


def token_table(rows: Sequence[TokenCheck]) -> str:
    """A markdown table, one row per request, and a summary line."""
    lines = ["| question | condition | records | evidencepack | server | difference | o200k, no framing |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        server = str(r.server) if r.server is not None else f"error: {r.error}"
        diff = f"{r.difference:+d}" if r.difference is not None else "n/a"
        lines.append(f"| {r.question} | {r.condition} | {r.records} | {r.counted} | {server} | {diff} | {r.default} |")
    exact = sum(r.ok for r in rows)
    gaps = [r.server - r.default for r in rows if r.server is not None]
    lines.append("")
    lines.append(f"{exact} of {len(rows)} requests counted exactly" + (
        f"; server minus the default count (o200k_base, no framing): {min(gaps):+d} to {max(gaps):+d} tokens" if gaps
        else ""))
    return "\n".join(lines)
