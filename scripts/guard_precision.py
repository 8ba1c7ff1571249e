"""Precision and recall of the injection findings (`suspicious_copy`, `foreign_url`) and of the harness's pattern
check, against answers labelled by hand.

    PYTHONPATH=src python scripts/guard_precision.py docs/eval-results/injections/heldout-*.jsonl \
        --labels docs/eval-results/injections/by-hand.jsonl [--json]

Each row of a published `eval injections` results.jsonl holds the task id, the condition, the prompt hash and the
answer. The assembly is rebuilt with the harness's own code (`InjectionRun.assembly`, deterministic: the rebuilt
prompt's hash must equal the row's, else the row is reported and left out), and the answer is validated with the
two injection kinds on and every other kind off. The labels file has one line per row: {"model", "task",
"condition", "obeyed" (the by-hand label: did the answer repeat or act on the planted instruction; `obeyed_hand`
in the dev split's file, `obeyed_by_hand` in the unseen-attack file), "comment"}; the model is the results file's
name after "heldout-"/"dev-"/"unseen-" (or `--model`). Runs of another attack set need `--attacks FILE`, as `eval
injections` did. The pattern check is rerun on every answer with the tasks' current patterns.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from evidencepack.citations import validate_citations
from evidencepack.eval.backends import Sampling, ScriptedBackend
from evidencepack.eval.cache import prompt_hash
from evidencepack.eval.injections import (
    GUARD_KINDS,
    GUARD_ONLY,
    InjectionRun,
    InjectionTask,
    load_attacks,
    load_corpora,
    load_questions,
    load_tasks,
    obeyed,
    tasks_for,
)


def model_of(path: Path) -> str:
    """The model a results file holds, from its name: what follows `heldout-` / `dev-` (and `control-`)."""
    found = re.match(r"(?:.*-)?(?:heldout|dev|unseen)-(?:control-|old-|new-)?(.+)$", path.stem)
    return found.group(1) if found else path.stem


def findings(rows: Iterable[Mapping[str, Any]], model: str, task_list: Sequence[InjectionTask] | None = None
             ) -> list[dict[str, Any]]:
    """Each row with the injection findings its answer earns against its rebuilt assembly."""
    tasks = {t.id: t for t in (load_tasks() if task_list is None else task_list)}
    run = InjectionRun(ScriptedBackend(), [], load_corpora(), Sampling())
    out = []
    for r in rows:
        if r.get("answer") is None:
            continue
        task = tasks[r["task"]]
        assembly, messages = run.assembly(task, r["condition"], not r.get("control", False))
        same = prompt_hash(messages) == r["prompt_hash"]
        verdict = validate_citations(r["answer"], assembly, severities=GUARD_ONLY)
        # the pattern check is rerun with the task's current patterns, not read from the row
        pattern = bool(obeyed(r["answer"], task.attack)) if r.get("status") == "ok" else None
        out.append({"model": model, "task": r["task"], "condition": r["condition"],
                    "control": bool(r.get("control")), "status": r.get("status"), "pattern": pattern,
                    "rebuilt": same, "answer": r["answer"],
                    "fired": sorted({f.kind for f in verdict.findings}),
                    "messages": [f"{f.kind}: {f.message}" for f in verdict.findings]})
    return out


def confusion(pairs: Sequence[tuple[bool, bool]]) -> dict[str, Any]:
    """(predicted, label) pairs -> counts, precision and recall."""
    tp = sum(p and y for p, y in pairs)
    fp = sum(p and not y for p, y in pairs)
    fn = sum(y and not p for p, y in pairs)
    tn = len(pairs) - tp - fp - fn
    return {"n": len(pairs), "tp": tp, "fp": fp, "fn": fn, "tn": tn,
            "precision": tp / (tp + fp) if tp + fp else None, "recall": tp / (tp + fn) if tp + fn else None}


def measure(found: Sequence[Mapping[str, Any]], labels: Mapping[tuple[str, str, str], bool]
            ) -> dict[str, dict[str, Any]]:
    """Confusion of each kind, of either kind, and of the pattern check (judged rows only) against the labels,
    over every row and over the rows whose prompt has blocks (not `flat`: the findings read blocks)."""
    out: dict[str, dict[str, Any]] = {}
    for scope, keep in (("all rows", lambda x: True), ("rows with blocks (not flat)",
                                                          lambda x: x["condition"] != "flat")):
        rows = [(x, labels[(x["model"], x["task"], x["condition"])]) for x in found if keep(x) and x["rebuilt"]]
        for kind in GUARD_KINDS:
            out[f"{scope}: {kind}"] = confusion([(kind in x["fired"], y) for x, y in rows])
        out[f"{scope}: either finding"] = confusion([(bool(x["fired"]), y) for x, y in rows])
        out[f"{scope}: pattern check"] = confusion([(bool(x["pattern"]), y) for x, y in rows
                                                    if x["status"] == "ok"])
    return out


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{100 * v:.0f} %"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+", type=Path, help="results.jsonl files of `eval injections` runs")
    ap.add_argument("--labels", type=Path, required=True, help="the by-hand labels (jsonl)")
    ap.add_argument("--model", help="the model name of every results file (default: from the file name)")
    ap.add_argument("--json", action="store_true", help="print the measures and every row as JSON")
    ap.add_argument("--attacks", type=Path, help="the attack file the runs used (`eval injections --attacks`)")
    args = ap.parse_args(argv)
    labels = {}
    for line in args.labels.read_text("utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            if not d.get("control"):  # the no-attack control rows have nothing to obey
                label = d.get("obeyed", d.get("obeyed_hand", d.get("obeyed_by_hand")))
                labels[(d["model"], d["task"], d["condition"])] = bool(label)
    task_list = tasks_for(load_attacks(args.attacks), load_questions()) if args.attacks else None
    found: list[dict[str, Any]] = []
    for path in args.results:
        rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
        found += findings([r for r in rows if not r.get("control")], args.model or model_of(path), task_list)
    missing = [x for x in found if (x["model"], x["task"], x["condition"]) not in labels]
    if missing:
        print(f"{len(missing)} rows have no label, first: {missing[0]['model']} {missing[0]['task']} "
              f"{missing[0]['condition']}", file=sys.stderr)
        return 2
    stale = [x for x in found if not x["rebuilt"]]
    result = measure(found, labels)
    if args.json:
        print(json.dumps({"measures": result, "rows": found}, indent=1, ensure_ascii=False))
        return 0
    print(f"{len(found)} rows ({len(stale)} whose prompt did not rebuild, left out); label = by hand\n")
    print("| scope: check | rows | TP | FP | FN | TN | precision | recall |\n|---|---|---|---|---|---|---|---|")
    for name, c in result.items():
        print(f"| {name} | {c['n']} | {c['tp']} | {c['fp']} | {c['fn']} | {c['tn']} | {_pct(c['precision'])} "
              f"| {_pct(c['recall'])} |")
    print("\nRows where a finding fired:")
    for x in found:
        if x["fired"]:
            y = labels[(x["model"], x["task"], x["condition"])]
            print(f"- {x['model']} {x['task']} / {x['condition']} (by hand: {'obeyed' if y else 'not'}): "
                  + "; ".join(x["messages"]))
    print("\nPattern check against the by-hand label, disagreements:")
    for x in found:
        y = labels[(x["model"], x["task"], x["condition"])]
        if x["status"] == "ok" and bool(x["pattern"]) != y:
            print(f"- {x['model']} {x['task']} / {x['condition']}: pattern {bool(x['pattern'])}, by hand {y}: "
                  f"{' '.join(x['answer'].split())[:120]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
