"""Precision and recall of `transplanted_value` against trap answers labelled by hand.

    PYTHONPATH=src python scripts/transplant_precision.py [--show] [--json]

Positives are the answers to questions no record answers that `docs/eval-results/unanswerable-by-hand.jsonl`
marks `"transplant": true` (a figure a source states about another subject given as the answer). Negatives
are every other labelled answer: the rest of the unanswerable ones (abstained, or invented without a
transplanted figure), and the answers to answerable questions read by hand (`decide-by-hand.jsonl`,
`quote-by-hand.jsonl`, `specific-datamark-by-hand.jsonl`); an answer judged `current` by hand that the check
flags is a false positive on a correct answer. Each row's assembly is rebuilt from its trap set, its corpus
and its condition (`TrapRun.assembly`); the row is kept when the rebuilt manifest is the recorded one (the
sources and the question are then the ones the model saw; later prompt-wording changes alter the prompt hash,
which is counted). The answer is validated with `transplanted_value` on and every other kind off.

The rule's constant (`transplant.GROUNDED_MAX`) was chosen on the freight half (the freight unanswerable set
and the freight answerable set, holdout3) and is reported on the IT half (and on the HR set, which has no
unanswerable questions: false positives only).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evidencepack.citations import validate_citations
from evidencepack.citations.severities import Severities
from evidencepack.data import corpus as bundled_corpus
from evidencepack.eval.backends import Sampling
from evidencepack.eval.cache import prompt_hash
from evidencepack.eval.datasets import load_traps
from evidencepack.eval.experiments import TrapRun
from evidencepack.records.jsonl import load_jsonl

RESULTS = Path("docs/eval-results")
DATA = Path("tests/data")
ONLY = Severities.from_mapping({k: ("warn" if k == "transplanted_value" else "off") for k in Severities.kinds()})
LABELS = ("unanswerable-by-hand", "decide-by-hand", "quote-by-hand", "specific-datamark-by-hand")
#: trap set -> (trap file, corpus file, half); None: the bundled HR set.
SETS: dict[str, tuple[str | None, str | None, str]] = {
    "hr": (None, None, "hr (answerable only)"),
    "freight": ("holdout3_traps.jsonl", "holdout3_corpus.jsonl", "tune: freight"),
    "it": ("holdout_it_traps.jsonl", "holdout_it_corpus.jsonl", "report: IT"),
    "freight-unanswerable": ("unanswerable_freight_traps.jsonl", "holdout3_corpus.jsonl", "tune: freight"),
    "it-unanswerable": ("unanswerable_it_traps.jsonl", "holdout_it_corpus.jsonl", "report: IT"),
}
#: the `run` of a label -> (results file stem, trap set).
RUNS: dict[str, tuple[str, str]] = {
    **{f"hr-{m}": (f"decide-hr-qwen2.5-coder-{m}", "hr") for m in ("0.5b", "1.5b")},
    **{f"h3-{m}": (f"decide-holdout3-qwen2.5-coder-{m}", "freight") for m in ("0.5b", "1.5b")},
    **{f"it-{m}": (f"decide-holdout-it-qwen2.5-coder-{m}", "it") for m in ("0.5b", "1.5b")},
    **{f"rf-h3-{m}": (f"decide-rule-form-holdout3-qwen2.5-coder-{m}", "freight") for m in ("0.5b", "1.5b")},
    **{f"rf-it-{m}": (f"decide-rule-form-holdout-it-qwen2.5-coder-{m}", "it") for m in ("0.5b", "1.5b")},
    "quote-hr-1.5b": ("quote-hr-qwen2.5-coder-1.5b", "hr"),
    "quote-holdout3-1.5b": ("quote-holdout3-qwen2.5-coder-1.5b", "freight"),
    "quote-holdout-it-1.5b": ("quote-holdout-it-qwen2.5-coder-1.5b", "it"),
    "spec-holdout3-0.5b": ("specific-datamark-holdout3-qwen2.5-coder-0.5b", "freight"),
    "spec-holdout3-1.5b": ("specific-holdout3-qwen2.5-coder-1.5b", "freight"),
    "spec-holdout-it-0.5b": ("specific-datamark-holdout-it-qwen2.5-coder-0.5b", "it"),
    "spec-holdout-it-1.5b": ("specific-holdout-it-qwen2.5-coder-1.5b", "it"),
    "dm-holdout3-1.5b": ("datamark-holdout3-qwen2.5-coder-1.5b", "freight"),
    "dm-holdout-it-1.5b": ("datamark-holdout-it-qwen2.5-coder-1.5b", "it"),
    **{f"unans-freight-{m}": (f"unanswerable-freight-qwen2.5-coder-{m}", "freight-unanswerable")
       for m in ("0.5b", "1.5b")},
    **{f"unans-it-{m}": (f"unanswerable-it-qwen2.5-coder-{m}", "it-unanswerable") for m in ("0.5b", "1.5b")},
    "spec-unans-freight-1.5b": ("unanswerable-specific-freight-qwen2.5-coder-1.5b", "freight-unanswerable"),
    "spec-unans-it-1.5b": ("unanswerable-specific-it-qwen2.5-coder-1.5b", "it-unanswerable"),
}


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _runs() -> dict[str, tuple[TrapRun, dict[str, Any]]]:
    out = {}
    for name, (traps_file, corpus_file, _) in SETS.items():
        records = load_jsonl(DATA / corpus_file) if corpus_file else bundled_corpus()
        traps = {t.id: t for t in load_traps(DATA / traps_file if traps_file else None, corpus=records)}
        out[name] = (TrapRun(None, list(traps.values()), records, Sampling()), traps)  # type: ignore[arg-type]
    return out


def findings() -> list[dict[str, Any]]:
    """Every labelled answer with the `transplanted_value` findings it earns against its rebuilt assembly."""
    runs = _runs()
    results = {run: {(r["condition"], r["question"]): r for r in _jsonl(RESULTS / f"{stem}.jsonl")}
               for run, (stem, _) in RUNS.items()}
    out = []
    for labels in LABELS:
        for lab in _jsonl(RESULTS / f"{labels}.jsonl"):
            stem, trap_set = RUNS[lab["run"]]
            row = results[lab["run"]][(lab["condition"], lab["question"])]
            if row.get("answer") is None:
                continue
            run, traps = runs[trap_set]
            assembly = run.assembly(traps[lab["question"]], lab["condition"])
            verdict = validate_citations(row["answer"], assembly, severities=ONLY)
            out.append({"run": lab["run"], "condition": lab["condition"], "question": lab["question"],
                        "half": SETS[trap_set][2], "unanswerable": trap_set.endswith("unanswerable"),
                        "hand": lab["hand"], "transplant": bool(lab.get("transplant")),
                        "rebuilt": [m.id for m in assembly.manifest] == row["included"],
                        "same_prompt": prompt_hash(assembly.messages) == row["prompt_hash"],
                        "answer": row["answer"], "fired": bool(verdict.findings),
                        "messages": [f.message for f in verdict.findings]})
    return out


def confusion(pairs: Sequence[tuple[bool, bool]]) -> dict[str, Any]:
    """(predicted, label) pairs -> counts, precision and recall."""
    tp = sum(p and y for p, y in pairs)
    fp = sum(p and not y for p, y in pairs)
    fn = sum(y and not p for p, y in pairs)
    return {"n": len(pairs), "tp": tp, "fp": fp, "fn": fn, "tn": len(pairs) - tp - fp - fn,
            "precision": tp / (tp + fp) if tp + fp else None, "recall": tp / (tp + fn) if tp + fn else None}


def measure(found: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per half: the unanswerable answers alone, the answerable answers judged current by hand (every flag a
    false positive on a correct answer), the other answerable ones, and all labelled answers together."""
    out: dict[str, dict[str, Any]] = {}
    for half in dict.fromkeys(x["half"] for x in found):
        rows = [x for x in found if x["half"] == half and x["rebuilt"]]
        scopes = (("unanswerable questions", lambda x: x["unanswerable"]),
                  ("answerable, current by hand", lambda x: not x["unanswerable"] and x["hand"] == "current"),
                  ("answerable, other verdicts", lambda x: not x["unanswerable"] and x["hand"] != "current"),
                  ("all labelled answers", lambda x: True))
        for scope, keep in scopes:
            pairs = [(x["fired"], x["transplant"]) for x in rows if keep(x)]
            if pairs:
                out[f"{half} | {scope}"] = confusion(pairs)
    return out


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{100 * v:.0f} %"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--show", action="store_true", help="print every answer the check fires on, and every miss")
    ap.add_argument("--json", action="store_true", help="print the measures and every row as JSON")
    args = ap.parse_args(argv)
    found = findings()
    result = measure(found)
    if args.json:
        print(json.dumps({"measures": result, "rows": found}, indent=1, ensure_ascii=False))
        return 0
    skipped = sum(not x["rebuilt"] for x in found)
    changed = sum(x["rebuilt"] and not x["same_prompt"] for x in found)
    print(f"{len(found)} labelled answers ({skipped} whose manifest did not rebuild, left out; {changed} kept whose "
          "prompt wording changed since, same sources and question); label = transplant by hand\n")
    print("| half | scope | answers | TP | FP | FN | TN | precision | recall |\n|---|---|---|---|---|---|---|---|---|")
    for name, c in result.items():
        print(f"| {name} | {c['n']} | {c['tp']} | {c['fp']} | {c['fn']} | {c['tn']} | {_pct(c['precision'])} "
              f"| {_pct(c['recall'])} |")
    if args.show:
        for title, keep in (("Fired", lambda x: x["fired"]), ("Missed", lambda x: x["transplant"] and not x["fired"])):
            print(f"\n{title}:")
            for x in found:
                if keep(x) and x["rebuilt"]:
                    label = "transplant" if x["transplant"] else f"not ({x['hand']})"
                    print(f"- {x['run']} {x['question']} / {x['condition']} [{label}]: "
                          + ("; ".join(x["messages"]) or " ".join(x["answer"].split())[:160]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
