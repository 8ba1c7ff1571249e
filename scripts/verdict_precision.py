"""Precision and recall of `verdict_against_rule` against trap answers read by hand.

    PYTHONPATH=src python scripts/verdict_precision.py [--show]

Labels: `docs/eval-results/shown-by-hand.jsonl` (both models; the HR, IT, third and fourth sets; every condition
of the 2026-12-03 runs) and `docs/eval-results/fifth-by-hand.jsonl` (the fifth set: the "No" shape and the
lead-ins were designed on the 1.5B's answers; the 0.5B's were read after that, so they are the out-of-sample
rows), `docs/eval-results/sixth-by-hand.jsonl` (the sixth set, written and read after the change: out of
sample for both models) and `docs/eval-results/seventh-by-hand.jsonl` (the seventh set, read with the check's code
unchanged since the sixth: out of sample for every shape, the grant included) and `eighth-by-hand.jsonl` (the eighth
set, read after the verdict came to be read on a form's Answer line wherever its lead lines end: out of sample) and
`ninth-by-hand.jsonl` (the ninth set, written after every change: out of sample) and `tenth-by-hand.jsonl` (the
tenth set, written after the default changed: out of sample) and `eleventh-by-hand.jsonl` (likewise) and
`twelfth-by-hand.jsonl` (written after the check came to read a form's modal Answer line: out of sample) and
`thirteenth-by-hand.jsonl` (written after the check and the judge came to read one first sentence: out of sample).
Positives are answers read as
`stale`; false alarms are answers read as `current` or `surfaced` that the check flags. Each row's assembly is
rebuilt from its trap set, its corpus and its condition (`TrapRun.assembly`), and the answer is validated with
`verdict_against_rule` on and every other kind off.
The marker list (`verdict.RESTRICTS`) was chosen after trying three lists on the first file's labels (see
docs/evaluation.md), so its figures are in-sample, and so are the earlier sets' for the "No" shape (its first
version's false alarms there decided its final form).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from evidencepack.citations import validate_citations
from evidencepack.citations.severities import Severities
from evidencepack.data import corpus as bundled_corpus
from evidencepack.eval.backends import Sampling
from evidencepack.eval.datasets import load_traps
from evidencepack.eval.experiments import TrapRun
from evidencepack.records.jsonl import load_jsonl

RESULTS = Path("docs/eval-results")
DATA = Path("tests/data")
ONLY = Severities.from_mapping({k: ("warn" if k == "verdict_against_rule" else "off") for k in Severities.kinds()})
#: set -> (results file stem, trap file, corpus file); None: the bundled HR set.
SETS: dict[str, tuple[str, str | None, str | None]] = {
    "hr": ("shown-hr", None, None),
    "third": ("shown-holdout3", "holdout3_traps.jsonl", "holdout3_corpus.jsonl"),
    "it": ("shown-holdout-it", "holdout_it_traps.jsonl", "holdout_it_corpus.jsonl"),
    "fourth": ("fourth", "holdout4_traps.jsonl", "holdout4_corpus.jsonl"),
    "fifth": ("fifth", "holdout5_traps.jsonl", "holdout5_corpus.jsonl"),
    "sixth": ("sixth", "holdout6_traps.jsonl", "holdout6_corpus.jsonl"),
    "seventh": ("seventh", "holdout7_traps.jsonl", "holdout7_corpus.jsonl"),
    "eighth": ("eighth", "holdout8_traps.jsonl", "holdout8_corpus.jsonl"),
    "ninth": ("ninth", "holdout9_traps.jsonl", "holdout9_corpus.jsonl"),
    "tenth": ("tenth", "holdout10_traps.jsonl", "holdout10_corpus.jsonl"),
    "eleventh": ("eleventh", "holdout11_traps.jsonl", "holdout11_corpus.jsonl"),
    "twelfth": ("twelfth", "holdout12_traps.jsonl", "holdout12_corpus.jsonl"),
    "thirteenth": ("thirteenth", "holdout13_traps.jsonl", "holdout13_corpus.jsonl"),
}
#: The sets written after the check's shapes (out of sample for both models), and what their row says of them.
LATER = {"sixth": "written and read after the change: out of sample", "seventh": "out of sample for every shape",
         "eighth": "out of sample", "ninth": "out of sample", "tenth": "out of sample",
         "eleventh": "out of sample", "twelfth": "out of sample, the modal Answer-line reading included",
         "thirteenth": "out of sample, read with one first sentence for the judge and the check"}
LABELS = ("shown-by-hand.jsonl", "fifth-by-hand.jsonl", "sixth-by-hand.jsonl", "seventh-by-hand.jsonl",
          "eighth-by-hand.jsonl", "ninth-by-hand.jsonl", "tenth-by-hand.jsonl",
          "eleventh-by-hand.jsonl", "twelfth-by-hand.jsonl", "thirteenth-by-hand.jsonl")


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def rows() -> list[dict[str, Any]]:
    """Every labelled answer of an answerable question, with whether the check fired."""
    runs, results = {}, {}
    for name, (stem, traps_file, corpus_file) in SETS.items():
        records = load_jsonl(DATA / corpus_file) if corpus_file else bundled_corpus()
        traps = {t.id: t for t in load_traps(DATA / traps_file if traps_file else None, corpus=records)}
        runs[name] = (TrapRun(None, list(traps.values()), records, Sampling()), traps)  # type: ignore[arg-type]
        for model in ("qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b"):
            for r in _jsonl(RESULTS / f"{stem}-{model}.jsonl"):
                results[(model, name, r["condition"], r["question"])] = r
    out = []
    for lab in (lab for name in LABELS for lab in _jsonl(RESULTS / name)):
        row = results.get((lab["model"], lab["set"], lab["condition"], lab["question"]))
        if lab["set"] not in runs or row is None or row.get("answer") is None:
            continue
        run, traps = runs[lab["set"]]
        verdict = validate_citations(row["answer"], run.assembly(traps[lab["question"]], lab["condition"]),
                                     severities=ONLY)
        out.append({"set": lab["set"], "model": lab["model"], "condition": lab["condition"],
                    "question": lab["question"], "hand": lab["hand"], "fired": bool(verdict.findings),
                    "answer": row["answer"], "messages": [f.message for f in verdict.findings]})
    return out


def _shape(message: str) -> str:
    """Which shape of the check a finding's message reports."""
    return "grant" if "granting" in message else "no" if 'with "No"' in message else "yes"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--show", action="store_true", help="print every false alarm")
    args = ap.parse_args()
    found = rows()
    print("| labels | stale answers flagged | by an opening \"Yes\" / a grant / \"No\" | answers read as right flagged "
          "(false alarms) | precision |")
    print("|---|---|---|---|---|")
    blocks = [r for r in found if not r["condition"].startswith(("flat", "small"))]
    earlier = [r for r in blocks if r["set"] not in ("fifth", *LATER)]
    groups = [*((n, [r for r in found if r["set"] == n]) for n in SETS),
              ("earlier sets, layouts with blocks (flat ones have no handles to read; in-sample)", earlier),
              ("1.5B fifth set, layouts with blocks (the No shape and the lead-ins were designed on them)",
               [r for r in blocks if r["set"] == "fifth" and r["model"].endswith("1.5b")]),
              ("0.5B fifth set, layouts with blocks (read after the change: out of sample)",
               [r for r in blocks if r["set"] == "fifth" and r["model"].endswith("0.5b")]),
              *((f"{n} set, both models, layouts with blocks ({why})", [r for r in blocks if r["set"] == n])
                for n, why in LATER.items())]
    for name, mine in groups:
        c = Counter((r["hand"] == "stale", r["hand"] in ("current", "surfaced"), r["fired"]) for r in mine)
        tp, fp = c[(True, False, True)], c[(False, True, True)]
        stale, right = tp + c[(True, False, False)], fp + c[(False, True, False)]
        fired = sum(r["fired"] for r in mine)
        shapes = Counter(_shape(r["messages"][0]) for r in mine if r["fired"] and r["hand"] == "stale")
        print(f"| {name} | {tp}/{stale} | {shapes['yes']} / {shapes['grant']} / {shapes['no']} | {fp}/{right} "
              f"| {tp}/{fired} |")
    if args.show:
        for r in found:
            if r["fired"] and r["hand"] != "stale":
                print(f"\n{r['model']} {r['set']} {r['condition']} {r['question']} ({r['hand']}): "
                      f"{r['answer'][:200]!r}")


if __name__ == "__main__":
    main()
