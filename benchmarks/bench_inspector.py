"""Time the inspector page for assemblies of 5 / 50 / 500 included records, beside the assembly itself,
and print the page size.

    python benchmarks/bench_inspector.py [--repeat N]

The records are ~300-token blocks in a window large enough to include them all, with an answer of one cited
sentence per block, validated with the default checks and again with the value check off. Figures are
medians over N runs in one process; compare the ratio (page time / assembly time) rather than absolute times,
since machines here are shared and noisy.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench_assemble import make_records

from evidencepack import Budget, assemble
from evidencepack.inspector.page import inspector_html

#: At least 16 bytes: the assembler refuses shorter boundary keys.
KEY = b"bench-boundary-key"


def median_seconds(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print("| included | assemble (ms) | page (ms) | page with answer (ms) | the same, value check off (ms) "
          "| page / assemble | page size (KB) |")
    print("|---|---|---|---|---|---|---|")
    for n in (5, 50, 500):
        records = make_records(n)
        budget = Budget(context_window=400 * n + 4000)
        a = assemble(records, "What applies?", as_of="2026-01-01", budget=budget, boundary_key=KEY)
        assert len(a.manifest) == n
        data = a.to_dict()
        answer = " ".join(f"Rule {i} applies [S{i + 1}]." for i in range(n))
        t_asm = median_seconds(lambda r=records, b=budget: assemble(r, "What applies?", as_of="2026-01-01",
                                                                    budget=b, boundary_key=KEY), args.repeat)
        t_page = median_seconds(lambda d=data: inspector_html(d), args.repeat)
        t_ans = median_seconds(lambda d=data, s=answer: inspector_html(d, s), args.repeat)
        off = {"unsupported_value": "off"}
        t_off = median_seconds(lambda d=data, s=answer, o=off: inspector_html(d, s, severities=o), args.repeat)
        size = len(inspector_html(data, answer).encode("utf-8")) / 1024
        print(f"| {n} | {1000 * t_asm:.1f} | {1000 * t_page:.1f} | {1000 * t_ans:.1f} | {1000 * t_off:.1f} "
              f"| {t_page / t_asm:.2f} | "
              f"{size:.0f} |")


if __name__ == "__main__":
    main()
