#!/usr/bin/env python3
"""How good an alarm is `stale_value`? Re-validate the published trap answers and count, per judge verdict, the
answers on which it fires: without attribution and without any handle the model wrote, it should fire on
stale answers and stay quiet on current ones.

    python scripts/stale_value_alarm.py docs/eval-results/*.jsonl [--traps FILE --corpus FILE] [--show]

Each row's assembly is rebuilt from the trap set, the corpus and the row's condition (rows whose rebuilt
manifest differs from the one recorded are skipped and counted). Guarded conditions are left out: their first
answer is the unguarded condition's answer.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from evidencepack import validate_citations
from evidencepack.data import corpus as bundled_corpus
from evidencepack.eval.backends import Sampling
from evidencepack.eval.datasets import load_traps
from evidencepack.eval.experiments import TrapRun, is_guarded
from evidencepack.records.jsonl import load_jsonl


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+", help="results.jsonl files of `eval traps`")
    ap.add_argument("--traps", help="trap-set JSONL (default: the bundled HR set)")
    ap.add_argument("--corpus", help="records JSONL (default: the bundled HR corpus)")
    ap.add_argument("--show", action="store_true", help="print every answer it fires on")
    args = ap.parse_args()
    records = load_jsonl(args.corpus) if args.corpus else bundled_corpus()
    traps = {t.id: t for t in load_traps(args.traps, corpus=records)}
    run = TrapRun(None, list(traps.values()), records, Sampling())  # type: ignore[arg-type]  # never called
    fired: Counter[str] = Counter()
    total: Counter[str] = Counter()
    skipped = 0
    seen: set[tuple[str, str]] = set()
    for path in args.results:
        for line in Path(path).read_text("utf-8").splitlines():
            row = json.loads(line)
            cond, verdict = row.get("condition", ""), row.get("verdict")
            if row.get("experiment") != "traps" or cond.startswith("flat") or is_guarded(cond) or not verdict:
                continue
            if row["question"] not in traps or (row["prompt_hash"], row["answer"]) in seen:
                continue
            seen.add((row["prompt_hash"], row["answer"]))
            a = run.assembly(traps[row["question"]], cond)
            if [m.id for m in a.manifest] != row["included"]:
                skipped += 1
                continue
            v = validate_citations(row["answer"], a)
            hit = [f for f in v.findings if f.kind == "stale_value"]
            total[verdict] += 1
            fired[verdict] += bool(hit)
            if hit and args.show:
                print(f"[{verdict}] {row['question']} / {cond}: {hit[0].message}\n    {row['answer'][:300]!r}")
    print("| judge verdict | answers | stale_value fired |")
    print("|---|---|---|")
    for k in sorted(total):
        print(f"| {k} | {total[k]} | {fired[k]} |")
    alarms = sum(fired.values())
    print(f"\n{alarms} alarms, {fired['stale']} on stale answers, {fired['confused']} on confused, "
          f"{fired['current']} on current; {skipped} rows skipped (manifest differs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
