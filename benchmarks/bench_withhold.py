"""`conflict_policy="withhold"` under a tight budget: assembly time and records included for N candidates, every
fifth pair in a topic group (an informal, authoritative or superseded member in turn), so the budget pass follows
what will be withheld (`passes.conflicts.Withholding`) on every candidate.

    python benchmarks/bench_withhold.py [--repeat N]

CPU time (`time.process_time`), medians of `--repeat` runs. Run it once with `PYTHONPATH=<base>/src` and once on
the current tree, one after the other, and compare the two: the machine is shared, only ratios from one sitting
mean anything.
"""

from __future__ import annotations

import argparse
import statistics
import time

from evidencepack import Budget, Layout, assemble


def records(n: int) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for i in range(n):
        r: dict[str, object] = {"id": f"r{i}", "authority": ["informal", "authoritative", "superseded"][i % 3],
                                "text": f"Record {i} says the rule number {i % 97} applies to site {i // 5} on "
                                        "weekdays and holidays alike."}
        if i % 5 < 2:
            r["topic"] = f"t{i // 5}"
        out.append(r)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    print("| N | fill_gaps | ms (median) | records included | conflict_withheld |")
    print("|---|---|---|---|---|")
    for n in (100, 1_000, 10_000):
        recs = records(n)
        for gaps in (False, True):
            times = []
            for _ in range(args.repeat):
                start = time.process_time()
                a = assemble(recs, "Which rule applies on holidays?", as_of="2026-06-01", boundary_key=b"k" * 16,
                             budget=Budget(context_window=4000, fill_gaps=gaps),
                             layout=Layout(conflict_policy="withhold"))
                times.append(time.process_time() - start)
            withheld = sum(o.reason == "conflict_withheld" for o in a.report.records)
            print(f"| {n:,} | {gaps} | {statistics.median(times) * 1000:.1f} | {len(a.manifest)} | {withheld} |")


if __name__ == "__main__":
    main()
