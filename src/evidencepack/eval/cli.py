"""`evidencepack eval traps …`, `eval positions …`, `eval tokens …` and `eval injections …`.

`add_parser(subparsers)` registers the `eval` command on the main CLI; `python -m evidencepack.eval.cli`
runs it standalone. Output goes to `--out DIR`: results.jsonl, report.md, report.html (the same, as one page),
PNG plots and the answer cache.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..batch.emit import FORMATS as EMIT_FORMATS
from ..errors import DatasetError, EvidencepackError
from .backends import NOT_CACHED, Backend, CacheOnlyBackend, Sampling, make_backend
from .cache import AnswerCache
from .datasets import kv_questions, load_traps, nq_questions, sweep_items
from .experiments import (
    GUARD_KINDS,
    GUARD_REPAIRS,
    SWEEP_CONDITIONS,
    TRAP_BASES,
    TRAP_VARIANTS,
    SweepRun,
    TrapRun,
    default_validator,
    guard_kinds,
)
from .judge import LLMJudge
from .provider_batch import DEFERRED, DeferredBackend, import_answers, write_requests
from .report import plot_positions, plot_traps, sweep_report, trap_report
from .report_html import plots_from, sweep_report_html, trap_report_html


def progress_bar(label: str, stream: Any = None, width: int = 30) -> Callable[[int, int], None]:
    """A dependency-free progress bar on stderr (a line per step when stderr is not a terminal)."""
    out = stream or sys.stderr
    tty = hasattr(out, "isatty") and out.isatty()
    start = time.monotonic()

    def update(done: int, total: int) -> None:
        filled = int(width * done / max(total, 1))
        secs = time.monotonic() - start
        eta = secs / done * (total - done) if done else 0
        line = f"{label:<20} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {secs:5.0f}s eta {eta:4.0f}s"
        out.write(("\r" + line + ("\n" if done == total else "")) if tty else line + "\n")
        out.flush()

    return update


def _common(p: argparse.ArgumentParser, max_tokens: int) -> None:
    p.add_argument("--backend", choices=("http", "llama", "scripted"), default="http",
                   help="http: any OpenAI-compatible endpoint; llama: local GGUF; scripted: tests only")
    p.add_argument("--base-url", help="e.g. http://127.0.0.1:8765/v1 (default $EVIDENCEPACK_BASE_URL)")
    p.add_argument("--model", help="model name sent to the endpoint (default $EVIDENCEPACK_MODEL)")
    p.add_argument("--model-path", help="GGUF file for --backend llama")
    p.add_argument("--api-key", help="default $OPENAI_API_KEY")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per HTTP call (default 300)")
    p.add_argument("--out", default="eval-runs/latest", help="output folder (default eval-runs/latest)")
    p.add_argument("--cache", help="answer cache folder (default OUT/cache)")
    p.add_argument("--concurrency", type=int, default=1, help="calls in flight (default 1)")
    p.add_argument("--cache-only", action="store_true",
                   help="make no calls: report only the answers already in the cache and list what is missing")
    p.add_argument("--max-tokens", type=int, default=max_tokens, help=f"output limit (default {max_tokens})")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=0, help="sampling seed and sweep shuffle seed (default 0)")
    p.add_argument("--notes", help="a markdown file appended to report.md (e.g. the judge audit)")
    p.add_argument("--emit", choices=EMIT_FORMATS,
                   help="make no calls: write every prompt not in the answer cache to OUT/batch-requests.jsonl for "
                        "a provider's batch API (custom_id: the cache key), then rerun with --import-answers")
    p.add_argument("--import-answers", action="append", default=[], metavar="RESULTS",
                   help="put a batch results file (OpenAI, Anthropic, vLLM run_batch, or {id, answer} lines) into "
                        "the answer cache before the run (repeatable)")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--count-model", help="the model whose tokenizer and chat template count the prompt (a .gguf "
                                         "file, tokenizer.json or HF directory, or an OpenAI model name); "
                                         "default: o200k_base without framing")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `eval traps`, `eval positions` and `eval tokens` on an argparse subparsers object."""
    raw = argparse.RawDescriptionHelpFormatter
    ev: argparse.ArgumentParser = subparsers.add_parser(
        "eval", help="measure: stale-guidance traps and the position sweep, on any LLM",
                               formatter_class=raw, epilog="examples:\n  evidencepack eval traps --base-url "
                               "http://127.0.0.1:8765/v1 --model qwen --out eval-runs/traps\n  evidencepack eval "
                               "positions --task kv --k 9 19 --out eval-runs/positions")
    ev.set_defaults(func=run)  # the main CLI calls args.func(args)
    sub = ev.add_subparsers(dest="eval_command", required=True)
    t = sub.add_parser("traps", help="the trap set under flat / structured / default / +guard / +exclude",
                       formatter_class=raw, epilog="example:\n  evidencepack eval traps --base-url "
                       "http://127.0.0.1:8765/v1 --model qwen --limit 5 --out eval-runs/traps")
    _common(t, 300)
    t.add_argument("--traps", help="trap-set JSONL (default: the bundled HR set)")
    t.add_argument("--corpus", help="records JSONL the trap set refers to (default: the bundled HR corpus)")
    t.add_argument("--conditions", default="flat,structured,default",
                   help=f"comma-separated; each is {' or '.join(TRAP_BASES)} (default: the library's defaults, "
                        "whatever they are when you run it; structured: the earlier default, pinned; original: the "
                        "first structured layout, pinned), then any of "
                        f"{', '.join('+' + v for v in TRAP_VARIANTS)} (e.g. structured+reminder, original+compact; "
                        "flat takes only +exclude)")
    t.add_argument("--limit", type=int, help="only the first N questions")
    t.add_argument("--guard-on", default=",".join(GUARD_KINDS),
                   help="findings a +guard condition regenerates on, comma-separated (default "
                        f"{','.join(GUARD_KINDS)}; e.g. stale_only,unknown_handle,uncited,unsupported_value)")
    t.add_argument("--guard-attribute", choices=("auto", "on", "off"), default="on",
                   help="attribute uncited sentences for the guard's check, so stale_only also fires on answers "
                        "that cite nothing (default on; auto: only when --guard-on has uncited or "
                        "unsupported_value)")
    t.add_argument("--guard-repair", choices=GUARD_REPAIRS, default="withhold",
                   help="how a +guard condition asks again: withhold (the default: the question afresh, without "
                        "the sources a stale_only sentence rested on; ask when there are none) or ask (the repair "
                        "prompt as a second turn)")
    t.add_argument("--llm-judge", action="store_true", help="also grade with the same backend as an LLM judge")
    t.add_argument("--count-calls", action="store_true",
                   help="print how many distinct prompts the run would send, and exit (no calls)")
    t.set_defaults(eval_func=cmd_traps)
    s = sub.add_parser("positions", help="accuracy by gold position (ranked) vs edges/alternate vs closed book",
                       formatter_class=raw, epilog="example:\n  evidencepack eval positions --task kv --k 9 19 "
                       "--questions 10 --out eval-runs/positions")
    _common(s, 100)
    s.add_argument("--task", choices=("kv", "nq"), default="kv", help="key-value UUIDs or NaturalQuestions")
    s.add_argument("--data", help="the task's .jsonl.gz (default ../shared/data/lost-in-the-middle/…)")
    s.add_argument("--k", type=int, nargs="+", default=[9], help="distractor counts (default 9)")
    s.add_argument("--questions", type=int, default=10, help="questions per k (default 10)")
    s.add_argument("--seats", type=int, help="ranked: ask the gold record at this many seats, spread evenly and "
                                             "always including the first and last (default: every seat)")
    s.add_argument("--conditions", default=",".join(SWEEP_CONDITIONS), help=f"from {', '.join(SWEEP_CONDITIONS)}")
    s.set_defaults(eval_func=cmd_positions)
    k = sub.add_parser("tokens", help="compare evidencepack's prompt-token count with the server's usage, "
                                      "for every trap question (exit 1 on any difference)",
                       formatter_class=raw, epilog="example:\n  evidencepack eval tokens --count-model "
                       "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf --base-url http://127.0.0.1:8765/v1 --model qwen05")
    k.add_argument("--count-model", required=True,
                   help="the served model's .gguf file (or tokenizer.json / HF directory / OpenAI model name)")
    k.add_argument("--base-url", help="e.g. http://127.0.0.1:8765/v1 (default $EVIDENCEPACK_BASE_URL)")
    k.add_argument("--model", help="model name sent to the endpoint (default $EVIDENCEPACK_MODEL)")
    k.add_argument("--api-key", help="default $OPENAI_API_KEY")
    k.add_argument("--timeout", type=float, default=600.0, help="seconds per HTTP call (default 600)")
    k.add_argument("--traps", help="trap-set JSONL (default: the bundled HR set)")
    k.add_argument("--corpus", help="records JSONL the trap set refers to (default: the bundled HR corpus)")
    k.add_argument("--conditions", default="flat,structured", help="comma-separated trap conditions")
    k.add_argument("--limit", type=int, help="only the first N questions")
    k.add_argument("--window", type=int, default=8192, help="context window to assemble for (default 8192)")
    k.add_argument("--output-reserve", type=int, default=1024, help="tokens kept for the answer (default 1024)")
    k.add_argument("--json", action="store_true", help="print one JSON object per request instead of a table")
    k.add_argument("--quiet", action="store_true", help="no progress bar")
    k.set_defaults(eval_func=cmd_tokens)
    _injections_parser(sub, raw)
    return ev


def _injections_parser(sub: Any, raw: Any) -> None:
    from .injections import CORPUS_CHOICES, DEFAULT_CONDITIONS, INJECTION_PARTS, SCREEN_THRESHOLD

    i = sub.add_parser("injections", help="attack success rate and utility with instructions planted in records",
                       formatter_class=raw, epilog="example:\n  evidencepack eval injections --base-url "
                       "http://127.0.0.1:8765/v1 --model qwen --split dev --per-category 1 --out eval-runs/inj")
    _common(i, 200)
    i.add_argument("--split", choices=("dev", "heldout", "all"), default="dev",
                   help="tasks by hash of their id: dev (choose defaults here), heldout (report), all")
    i.add_argument("--per-category", type=int, help="at most N tasks per attack category, positions in turn "
                                                     "(default: every task of the split)")
    i.add_argument("--conditions", default=",".join(DEFAULT_CONDITIONS),
                   help="comma-separated: a trap condition (flat, structured, structured+withhold, "
                        "structured+datamark, structured+reminder, ...) or structured with any of "
                        f"{', '.join('+' + p for p in INJECTION_PARTS)} "
                        f"(screen: injection_threshold={SCREEN_THRESHOLD})")
    i.add_argument("--tasks", help="task JSONL (default: the bundled injection_tasks.jsonl, or with --attacks one "
                                   "task per attack and position over the bundled questions)")
    i.add_argument("--attacks", help="attacks to run instead of the bundled ones: JSONL rows (id, category, text, "
                                     "success regexes) or BIPIA's JSON (category -> strings; each gets the canary "
                                     "request and check)")
    i.add_argument("--corpus", choices=CORPUS_CHOICES, default="both",
                   help="the tasks of the bundled HR corpus, of the held-out IT corpus, or both (default both; a "
                        "selected corpus that cannot be read is an error, never skipped)")
    i.add_argument("--it-corpus", help="the IT corpus JSONL (default: tests/data/holdout_it_corpus.jsonl in the "
                                       "source tree)")
    i.add_argument("--control", action="store_true",
                   help="also ask every task's question with the same records and no attack inserted, per "
                        "condition: utility clean against under attack, and the success checks on clean answers")
    i.add_argument("--count-calls", action="store_true",
                   help="print how many distinct prompts the run would send, and exit (no calls)")
    i.set_defaults(eval_func=cmd_injections)


def cmd_injections(args: argparse.Namespace) -> int:
    from .injections import (
        InjectionRun,
        injection_report,
        load_attacks,
        load_corpora,
        load_questions,
        load_tasks,
        sample,
        tasks_for,
    )

    corpora = load_corpora(args.it_corpus, args.corpus)
    if args.attacks and not args.tasks:
        all_tasks = tasks_for(load_attacks(args.attacks), load_questions(), args.split)
    else:
        attacks = load_attacks(args.attacks) if args.attacks else None
        all_tasks = load_tasks(args.tasks, attacks=attacks, split=args.split)
    tasks = [t for t in all_tasks if t.question.corpus in corpora]
    tasks = sample(tasks, args.per_category)
    conditions = [c.strip() for c in args.conditions.split(",") if c.strip()]
    sampling = Sampling(max_tokens=args.max_tokens, temperature=args.temperature, seed=args.seed)
    if args.count_calls:
        from .backends import ScriptedBackend

        dry = InjectionRun(ScriptedBackend(), tasks, corpora, sampling, None, conditions, model=_count_model(args),
                           control=args.control)
        arms = " x 2 (attacked, control)" if args.control else ""
        n_rows = len(tasks) * len(conditions) * (2 if args.control else 1)
        print(f"{len(tasks)} tasks x {len(conditions)} conditions{arms} = {n_rows} rows; "
              f"{dry.distinct_prompts()} distinct prompts (the most calls with an empty cache)")
        return 0
    backend = _backend(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cache = _answer_cache(args, out)
    run = InjectionRun(backend, tasks, corpora, sampling, cache, conditions, args.concurrency,
                       None if args.quiet else lambda label: progress_bar(label), model=_count_model(args),
                       control=args.control)
    rows, left_out = _cached_rows(args, run.run())
    meta = _meta(args, backend, sampling, split=args.split, tasks=len(tasks), conditions=", ".join(conditions),
                 per_category=args.per_category or "all", corpora=", ".join(sorted(corpora)),
                 attacks=args.attacks or "bundled",
                 control="yes (every task also asked without the attack)" if args.control else "no",
                 cache=left_out or f"{cache.hits} hits, {cache.misses} calls")
    report = injection_report(rows, meta, _notes(args))
    _write(out, rows, report)
    (out / "report.html").write_text("<!doctype html><meta charset=utf-8><pre>" + html.escape(report) + "</pre>",
                                     encoding="utf-8")
    return _done(out, rows, cache, args, backend)


def _backend(args: argparse.Namespace) -> Backend:
    """The backend the run calls, or, under --emit or --cache-only, a stand-in with its name and model (the
    answer-cache keys) that calls nothing; an http stand-in needs no server URL."""
    emit, cache_only = getattr(args, "emit", None), getattr(args, "cache_only", False)
    if (emit or cache_only) and args.backend == "http":
        name, model, is_model = "http", args.model or os.environ.get("EVIDENCEPACK_MODEL") or "", True
    else:
        backend = make_backend(args.backend, base_url=args.base_url, model=args.model, model_path=args.model_path,
                               api_key=args.api_key, timeout=args.timeout)
        if not (emit or cache_only):
            return backend
        name, model, is_model = backend.name, backend.model, backend.is_model
    return DeferredBackend(name, model, is_model) if emit else CacheOnlyBackend(name, model, is_model)


def _answer_cache(args: argparse.Namespace, out: Path) -> AnswerCache:
    """The run's answer cache, with any batch results (--import-answers) put into it first."""
    cache = AnswerCache(args.cache or out / "cache")
    if args.import_answers:
        imported = import_answers(args.import_answers, cache)
        print(f"imported {imported.answers} answers into {cache.dir}"
              + (f"; {len(imported.failures)} lines brought none" if imported.failures else ""), file=sys.stderr)
        for failure in imported.failures[:10]:
            print(f"  {failure}", file=sys.stderr)
    return cache


def _cached_rows(args: argparse.Namespace, rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """With --cache-only or --emit, the rows whose answer was cached, and a note saying how many were left
    out."""
    if not (args.cache_only or args.emit):
        return rows, ""
    kept = [r for r in rows if r.get("error") not in (NOT_CACHED, DEFERRED)]
    missing = len(rows) - len(kept)
    return kept, f"{missing} of {len(rows)} prompts were not in the answer cache and are left out" if missing else ""


def _meta(args: argparse.Namespace, backend: Backend, sampling: Sampling, **extra: Any) -> dict[str, Any]:
    return {"backend": backend.name, "model": backend.model, "is_model": backend.is_model,
            "sampling": json.dumps(sampling.to_dict()),
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), **extra}


def _write(out: Path, rows: Sequence[dict[str, Any]], report: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with (out / "results.jsonl").open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    (out / "report.md").write_text(report, encoding="utf-8")


def _notes(args: argparse.Namespace) -> str:
    return Path(args.notes).read_text("utf-8") if args.notes else ""


def cmd_traps(args: argparse.Namespace) -> int:
    from ..data import corpus as bundled
    from ..records.jsonl import load_jsonl

    corpus = load_jsonl(args.corpus) if args.corpus else bundled()
    traps = load_traps(args.traps, corpus=corpus)[: args.limit or None]
    conditions = [c.strip() for c in args.conditions.split(",") if c.strip()]
    guard_on = guard_kinds(args.guard_on)
    sampling = Sampling(max_tokens=args.max_tokens, temperature=args.temperature, seed=args.seed)
    if args.count_calls:
        return _count_trap_calls(args, traps, corpus, conditions, sampling)
    backend = _backend(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cache = _answer_cache(args, out)
    run = TrapRun(backend, traps, corpus, sampling, cache, conditions, args.concurrency, default_validator(),
                  LLMJudge(backend, cache) if args.llm_judge else None,
                  None if args.quiet else lambda label: progress_bar(label), model=_count_model(args),
                  guard_on=guard_on, guard_attribute={"auto": None, "on": True, "off": False}[args.guard_attribute],
                  guard_repair=args.guard_repair)
    rows, left_out = _cached_rows(args, run.run())
    guard_meta = {}
    if any("+guard" in c for c in conditions):
        guard_meta["guard"] = (f"on {', '.join(guard_on)}; attribution {'on' if run.guard_attributes else 'off'}; "
                               f"repair: {args.guard_repair}")
    meta = _meta(args, backend, sampling, questions=len(traps), conditions=", ".join(conditions), **guard_meta,
                 trap_set=args.traps or "bundled hr_traps.jsonl", cache=left_out or f"{cache.hits} hits, "
                 f"{cache.misses} calls")
    notes = page_notes = _notes(args)
    skipped = None
    if not args.no_plots:
        skipped = plot_traps(rows, out / "traps.png", f"{Path(backend.model).name} · {len(traps)} trap questions")
        notes += f"\n\n{skipped}" if skipped else "\n\n![rates by condition](traps.png)"
    _write(out, rows, trap_report(rows, meta, notes))
    (out / "report.html").write_text(trap_report_html(
        rows, meta, page_notes, [] if args.no_plots else plots_from([out / "traps.png"]), skipped), encoding="utf-8")
    return _done(out, rows, cache, args, backend)


def _count_trap_calls(args: argparse.Namespace, traps: Sequence[Any], corpus: Sequence[Any],
                      conditions: Sequence[str], sampling: Sampling) -> int:
    """`eval traps --count-calls`: the prompts are assembled (so the set, the corpus and the conditions are all
    checked), nothing is sent."""
    from .backends import ScriptedBackend
    from .experiments import is_guarded

    dry = TrapRun(ScriptedBackend(), traps, corpus, sampling, None, conditions, model=_count_model(args))
    unanswerable = sum(t.unanswerable for t in traps)
    guarded = sum(is_guarded(c) for c in conditions)
    print(f"{len(traps)} questions ({unanswerable} unanswerable) x {len(conditions)} conditions = "
          f"{len(traps) * len(conditions)} rows; {dry.distinct_prompts()} distinct prompts (the most calls with an "
          "empty cache)" + (f", plus up to {guarded * len(traps)} second calls for +guard" if guarded else ""))
    return 0


def cmd_positions(args: argparse.Namespace) -> int:
    conditions = [c.strip() for c in args.conditions.split(",") if c.strip()]
    bad = [c for c in conditions if c not in SWEEP_CONDITIONS]
    if bad:
        raise DatasetError(f"unknown condition(s) {', '.join(bad)} (one of {', '.join(SWEEP_CONDITIONS)})")
    load = kv_questions if args.task == "kv" else nq_questions
    items = []
    for i, k in enumerate(args.k):
        qs = load(args.data, k=k, questions=args.questions, seed=args.seed)
        # closed book does not depend on k: ask it once
        conds = [c for c in conditions if c != "closed_book" or i == 0]
        items += sweep_items(qs, seed=args.seed, conditions=conds, seats=args.seats)
    backend = _backend(args)
    sampling = Sampling(max_tokens=args.max_tokens, temperature=args.temperature, seed=args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cache = _answer_cache(args, out)
    run = SweepRun(backend, items, sampling, cache, args.concurrency,
                   progress=None if args.quiet else progress_bar("positions"), model=_count_model(args))
    rows, left_out = _cached_rows(args, run.run())
    meta = _meta(args, backend, sampling, task=args.task, k=" ".join(map(str, args.k)), questions=args.questions,
                 seats=args.seats or "all",
                 conditions=", ".join(conditions), cache=left_out or f"{cache.hits} hits, {cache.misses} calls")
    notes = page_notes = _notes(args)
    skipped = None
    if not args.no_plots:
        title = f"{Path(backend.model).name} · {args.task}, k={' '.join(map(str, args.k))}"
        skipped = plot_positions(rows, out / "positions.png", title)
        notes += f"\n\n{skipped}" if skipped else "\n\n![accuracy by gold position](positions.png)"
    _write(out, rows, sweep_report(rows, meta, notes))
    (out / "report.html").write_text(sweep_report_html(
        rows, meta, page_notes, [] if args.no_plots else plots_from([out / "positions.png"]), skipped),
        encoding="utf-8")
    return _done(out, rows, cache, args, backend)


def _count_model(args: argparse.Namespace) -> Any:
    from ..tokens.models import resolve_model

    return resolve_model(args.count_model) if args.count_model else None


def cmd_tokens(args: argparse.Namespace) -> int:
    """Exit 0 when every request was counted exactly, 1 on any difference or failed call."""
    from ..data import corpus as bundled
    from ..passes.budget import Budget
    from ..records.jsonl import load_jsonl
    from .tokens import check_token_counts, token_table

    corpus = load_jsonl(args.corpus) if args.corpus else bundled()
    traps = load_traps(args.traps, corpus=corpus)[: args.limit or None]
    conditions = [c.strip() for c in args.conditions.split(",") if c.strip()]
    model = _count_model(args)
    backend = make_backend("http", base_url=args.base_url, model=args.model, api_key=args.api_key,
                           timeout=args.timeout)
    rows = check_token_counts(backend, traps, corpus, model, conditions=conditions,
                              budget=Budget(context_window=args.window, output_reserve=args.output_reserve),
                              progress=None if args.quiet else progress_bar("tokens"))
    if args.json:
        for r in rows:
            print(json.dumps(r.to_dict(), ensure_ascii=False))
    else:
        print(f"model: {model.name} ({model.describe()['framing']}); server: {backend.model}; "
              f"window {args.window}\n")
        print(token_table(rows))
    return 0 if all(r.ok for r in rows) else 1


def _done(out: Path, rows: Sequence[dict[str, Any]], cache: AnswerCache, args: argparse.Namespace,
          backend: Backend) -> int:
    """Under --emit, write the deferred prompts as a provider's batch file; else `_finish`."""
    if not isinstance(backend, DeferredBackend):
        return _finish(out, rows, cache, args.cache_only)
    n = write_requests(out / "batch-requests.jsonl", args.emit, backend)
    print(f"wrote {n} {args.emit} requests to {out}/batch-requests.jsonl ({cache.hits} answers already cached); "
          "submit them, then rerun with --import-answers RESULTS --cache-only")
    return 0


def _finish(out: Path, rows: Sequence[dict[str, Any]], cache: AnswerCache, cache_only: bool = False) -> int:
    """Say where the results are; exit 1 when calls failed, so a script notices a dead endpoint."""
    calls = f"cache only: {cache.misses} not cached" if cache_only else f"{cache.misses} calls"
    print(f"wrote {out}/results.jsonl, {out}/report.md and {out}/report.html ({calls}, {cache.hits} cached)")
    failed = [r for r in rows if r.get("status") == "error"]
    if failed:
        print(f"evidencepack eval: {len(failed)} of {len(rows)} calls failed; first: {failed[0]['error']}",
              file=sys.stderr)
        return 1
    return 0


def run(args: argparse.Namespace) -> int:
    """Dispatch with user errors as one line on stderr and exit code 2."""
    try:
        return int(args.eval_func(args))
    except (EvidencepackError, OSError) as err:
        print(f"evidencepack eval: {err}", file=sys.stderr)
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="evidencepack")
    add_parser(parser.add_subparsers(dest="command", required=True))
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
