#!/usr/bin/env python3
"""Re-judge every answer listed in published trap reports (report.md) with the current judge and patterns.

    python scripts/rejudge_reports.py docs/eval-results/traps-*.md [--old-judge FILE] [--show]

A report lists each answer on one line (line breaks folded into spaces), so an answer is judged as listed; the
published verdict beside it is what the judge of that day said (after its audit). Prints, per report and
condition, how many verdicts moved and which, and the refusal and conflict-named counts the new judge finds.
`--old-judge FILE` loads another judge.py (e.g. `git show main:src/evidencepack/eval/judge.py > old.py`) to
separate what the judge change moved from what folding the line breaks moved.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

from evidencepack.eval.datasets import load_traps
from evidencepack.eval.judge import VERDICTS, judge

LINE = re.compile(r"^- \*\*(?P<q>[\w-]+) / (?P<c>[\w+-]+)\*\* → `(?P<v>\w+)`: (?P<a>.*?)"
                  r"(?: \(regenerated; first answer: .*\))?$")


def load(path: str) -> ModuleType:
    # Loaded as a sibling of the current judge, so its relative imports resolve.
    spec = importlib.util.spec_from_file_location("evidencepack.eval._old_judge", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("reports", nargs="+")
    p.add_argument("--old-judge")
    p.add_argument("--show", action="store_true", help="print every moved answer")
    args = p.parse_args()
    traps = {t.id: t for t in load_traps()}
    old = load(args.old_judge) if args.old_judge else None
    for report in args.reports:
        rows = [m.groupdict() for line in Path(report).read_text().splitlines() if (m := LINE.match(line))]
        print(f"## {report}: {len(rows)} answers")
        by: dict[str, Counter[str]] = {}
        for r in rows:
            c = by.setdefault(r["c"], Counter())
            c["answers"] += 1
            if r["v"] not in VERDICTS:
                c["not judged"] += 1
                continue
            j = judge(r["a"], traps[r["q"]])
            c[f"new {j.verdict}"] += 1
            c["refused"] += j.refused
            c["conflict named"] += j.conflict_named
            if old is not None:
                o = old.judge(r["a"], traps[r["q"]]).verdict
                c["old judge differs from published"] += o != r["v"]
                c["moved by the judge change"] += o != j.verdict
                if o != j.verdict and args.show:
                    print(f"  judge: {r['q']} / {r['c']}: {o} -> {j.verdict}: {r['a'][:300]}")
            if j.verdict != r["v"]:
                c["differs from published"] += 1
                if args.show:
                    print(f"  published {r['v']} -> now {j.verdict}: {r['q']} / {r['c']}: {r['a'][:300]}")
        for cond, c in by.items():
            print(f"  {cond}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
