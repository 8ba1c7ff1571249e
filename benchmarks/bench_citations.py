"""Adversarial-cost check for citation validation: does 10x the answer cost about 10x the time?

    python benchmarks/bench_citations.py [--repeat N] [--largest CHARS] [--chunk CHARS]

For each answer shape (ordinary prose, bullets, one endless paragraph, and shapes built to hit the old
quadratic paths: abbreviations that never end a sentence, an inline code run that never closes, a bracket
group that never closes, punctuation runs, backtick runs of every length) it times batch
`validate_citations` and `StreamValidator` fed in small chunks, at sizes growing 10x, and prints the growth
ratio between neighbouring sizes. Linear cost gives ratios near 10; the quadratic code this replaced gave
40-120 in batch and about 100 in streaming. Times are CPU seconds of this process, best of N, so that
other work on a shared machine disturbs them less; still, read the ratios as "near 10" or "near 100", not
to the decimal. Only the public API is used, so the same script runs against older versions too.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from evidencepack import assemble, validate_citations
from evidencepack.citations import StreamValidator

RECORDS = [
    {"id": "hb-2025", "text": "Unused PTO does not carry over.", "authority": "authoritative",
     "valid_from": "2025-01-01", "url": "https://hr.example/hb"},
    {"id": "hb-2024", "text": "Up to 5 days carry over.", "authority": "superseded"},
    {"id": "slack", "text": "Ask your manager.", "authority": "informal", "valid_until": "2024-01-01"},
]
SHAPES: dict[str, str] = {
    "prose": "Unused PTO does not carry over [S1]. The 2024 rule allowed 5 days [S2], but it expired. ",
    "paragraphs": "Unused PTO does not carry over [S1].\nIt used to, e.g. in 2024 [S2].\n\n",
    "bullets": "- Unused PTO does not carry over [S1]\n",
    "abbreviations": "See e.g. Dr. Smith, i.e. fig. 2 vs. no. 3 [S1] ",
    "unclosed inline code": "``` never closed, so nothing is hidden [S1] [S9] ",
    "unclosed bracket": "[S1, S2, S1, S2, ",
    "punctuation runs": "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!x ",
    "backtick runs": "` `` ``` ```` [S1] ",
}


def answer(shape: str, size: int) -> str:
    unit = SHAPES[shape]
    return (unit * (size // len(unit) + 1))[:size]


def cpu_seconds(fn: Callable[[], object], repeat: int) -> float:
    """Best of `repeat` runs, in CPU time of this process: other jobs on a shared machine inflate
    wall-clock time far more than they inflate this."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def stream(assembly: object, text: str, chunk: int) -> object:
    sv = StreamValidator(assembly)
    for i in range(0, len(text), chunk):
        sv.feed(text[i: i + chunk])
    return sv.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--largest", type=int, default=1_000_000, help="largest answer in characters")
    ap.add_argument("--chunk", type=int, default=4, help="streaming chunk size in characters")
    args = ap.parse_args()
    assembly = assemble(RECORDS, "Does PTO carry over?", as_of="2026-06-01", boundary_key="bench-boundary-key")
    sizes = [s for s in (1_000, 10_000, 100_000, 1_000_000, 10_000_000) if s <= args.largest]
    for mode in ("batch", "stream"):
        print(f"\n{mode}: CPU milliseconds (growth ratio for 10x the text)"
              + (f", chunks of {args.chunk} characters" if mode == "stream" else ""))
        print(f"{'shape':22}" + "".join(f"{s:>18,}" for s in sizes))
        worst = 0.0
        for shape in SHAPES:
            row, previous = [], None
            for size in sizes:
                text = answer(shape, size)
                if mode == "batch":
                    seconds = cpu_seconds(lambda text=text: validate_citations(text, assembly), args.repeat)
                else:
                    seconds = cpu_seconds(lambda text=text: stream(assembly, text, args.chunk),
                                             args.repeat)
                ratio = seconds / previous if previous else None
                if ratio and size > 10_000:  # below that, fixed costs dominate
                    worst = max(worst, ratio)
                row.append(f"{seconds * 1000:10.1f}" + (f" (x{ratio:4.1f})" if ratio else " " * 8))
                previous = seconds
            print(f"{shape:22}" + "".join(row))
        print(f"worst growth ratio above 10,000 characters: x{worst:.1f}")


if __name__ == "__main__":
    main()
