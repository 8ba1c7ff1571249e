"""Time what caller-supplied embeddings cost: the conflict grouping (single-link at cosine >= 0.9 among the
records without a `topic`) inside a whole `assemble`, the grouping alone, and the dedup pass.

    python benchmarks/bench_embeddings.py [--repeat N] [--only assemble,group,dedup] [--sizes 100x1536,...]

Corpus: n records of ~40 words, each with a unique reference number (so the dedup pass's number guard keeps
its embedding comparisons few, as with real chunks that carry numbers), and an embedding of `dim` dimensions:
records come in clusters of 5 around random directions, two members of a cluster at cosine ~0.92 (above the
0.9 conflict threshold, below dedup's 0.95 cutoff), so about n/5 groups exist; in each cluster the first
member is authoritative, the second informal, so every group is a conflict the notice reports.

- assemble: `assemble(records, question, as_of=..., budget=Budget(context_window=1_000_000))` with every
  other option at its default (order `edges-authority`, conflict notice on): every record is selected.
  Records are `Record` objects built beforehand. `--warmup` untimed calls (default 1), then the median of N
  calls. (The "before" run on main used --warmup 0 --repeat 1: a call took minutes, tokenizing a few ms.)
- group: the grouping alone over the n candidates, uncached (`_cluster` on a checkout that predates
  `group_embeddings`). Median of N.
- dedup: the dedup pass alone over n candidates whose texts carry no numbers or negations (so every kept
  record is in one guard group and embeddings are compared with the first and latest 64 kept records, the
  worst case), with and without the embedding cutoff; fingerprints warm. Median of N.

Growth is each time divided by the time at the previous size (2.0 is linear, 4.0 quadratic). Figures are
wall clock in one process on a shared machine: compare ratios within one run, not milliseconds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from evidencepack import Budget, Record, assemble
from evidencepack.passes import conflicts as _conflicts
from evidencepack.passes.dedup import dedup
from evidencepack.records.candidates import Candidate

WORDS = (
    "policy", "employee", "leave", "manager", "approval", "days", "year", "carry", "over", "benefit", "plan",
    "payroll", "office", "remote", "travel", "expense", "receipt", "claim", "deadline", "handbook", "section",
    "notice", "review", "eligible", "weeks", "paid", "unpaid", "request", "portal", "team", "shift", "overtime",
    "rate", "limit", "annual", "monthly", "hours", "salary", "bonus",
)
CLUSTER = 5
AS_OF = "2026-01-01"


def embeddings(n: int, dim: int, seed: int = 11) -> list[tuple[float, ...]]:
    """Clusters of CLUSTER vectors around random unit directions; members at cosine ~0.92 to each other."""
    rng = random.Random(seed)
    out: list[tuple[float, ...]] = []
    sigma = 0.295  # noise norm relative to the centre: cos ~ 1 / (1 + sigma**2) ~ 0.92
    centre: list[float] = []
    for i in range(n):
        if i % CLUSTER == 0:
            centre = [rng.gauss(0.0, 1.0) for _ in range(dim)]
            norm = sum(x * x for x in centre) ** 0.5
            centre = [x / norm for x in centre]
        noise = [rng.gauss(0.0, sigma / dim ** 0.5) for _ in range(dim)]
        out.append(tuple(c + e for c, e in zip(centre, noise)))
    return out


def make_records(n: int, dim: int, *, numbered: bool = True, seed: int = 7) -> list[Record]:
    rng = random.Random(seed)
    vectors = embeddings(n, dim)
    records = []
    for i, vec in enumerate(vectors):
        text = " ".join(rng.choice(WORDS) for _ in range(40)) + (f" ref {i}." if numbered else ".")
        authority = "authoritative" if i % CLUSTER == 0 else "informal" if i % CLUSTER == 1 else "unknown"
        records.append(Record(id=f"r{i}", text=text, score=1.0 - i / (n + 1), authority=authority,
                              embedding=vec))
    return records


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def grouping() -> Callable[[list[Candidate], float], object]:
    """The uncached grouping of this checkout."""
    group = getattr(_conflicts, "group_embeddings", None)
    if group is not None:
        return lambda cands, t: group([c.record.embedding for c in cands], t)
    return lambda cands, t: _conflicts._cluster([(str(i), c) for i, c in enumerate(cands)], t)


def growth(times: list[float], i: int) -> str:
    return f"x{times[i] / times[i - 1]:.2f}" if i and times[i - 1] > 0 else ""


def bench_assemble(sizes: list[tuple[int, int]], repeat: int, warmup: int, numbered: bool = True) -> None:
    print(f"{'records':>7} {'dim':>5} {'selected':>8} {'conflicts':>9} {'assemble ms':>12} {'growth':>7}")
    times: list[float] = []
    for i, (n, dim) in enumerate(sizes):
        records = make_records(n, dim, numbered=numbered)
        budget = Budget(context_window=1_000_000)

        def run(records: list[Record] = records, budget: Budget = budget) -> object:
            return assemble(records, "What is the leave policy?", as_of=AS_OF, budget=budget)

        for _ in range(warmup):  # token counts cached
            run()
        results: list[object] = []
        times.append(median_time(lambda run=run, results=results: results.append(run()), repeat))
        result = results[-1]
        report = result.report  # type: ignore[attr-defined]
        manifest = result.manifest  # type: ignore[attr-defined]
        print(f"{n:>7} {dim:>5} {len(manifest):>8} {len(report.conflicts):>9} "
              f"{times[-1] * 1000:>12.1f} {growth(times, i) if sizes[i - 1][1] == dim else '':>7}", flush=True)


def bench_group(sizes: list[tuple[int, int]], repeat: int) -> None:
    print(f"{'records':>7} {'dim':>5} {'group ms':>10} {'growth':>7}")
    group = grouping()
    times: list[float] = []
    for i, (n, dim) in enumerate(sizes):
        cands = [Candidate(r, k + 1) for k, r in enumerate(make_records(n, dim))]
        times.append(median_time(lambda cands=cands: group(cands, 0.9), repeat))
        print(f"{n:>7} {dim:>5} {times[-1] * 1000:>10.1f} "
              f"{growth(times, i) if sizes[i - 1][1] == dim else '':>7}", flush=True)


def bench_dedup(sizes: list[tuple[int, int]], repeat: int) -> None:
    print(f"{'records':>7} {'dim':>5} {'kept':>5} {'dedup ms':>9} {'growth':>7} {'text only ms':>12}")
    times: list[float] = []
    for i, (n, dim) in enumerate(sizes):
        cands = [Candidate(r, k + 1) for k, r in enumerate(make_records(n, dim, numbered=False))]
        kept = sum(isinstance(c, Candidate) for c in dedup(cands))  # warms the fingerprints
        times.append(median_time(lambda cands=cands: list(dedup(cands)), repeat))
        text = median_time(lambda cands=cands: list(dedup(cands, embedding_cutoff=None)), repeat)
        print(f"{n:>7} {dim:>5} {kept:>5} {times[-1] * 1000:>9.1f} "
              f"{growth(times, i) if sizes[i - 1][1] == dim else '':>7} {text * 1000:>12.1f}", flush=True)


def parse_sizes(text: str) -> list[tuple[int, int]]:
    return [(int(n), int(d)) for n, d in (part.split("x") for part in text.split(","))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1, help="untimed assemble calls before the timed ones")
    ap.add_argument("--plain", action="store_true",
                    help="assemble texts without numbers: dedup compares embeddings (see the dedup section)")
    ap.add_argument("--only", default="assemble,group,dedup")
    ap.add_argument("--sizes", default="100x1536,200x1536,500x1536,1000x1536,4000x64")
    ap.add_argument("--dedup-sizes", default="500x1536,1000x1536,2000x1536")
    args = ap.parse_args()
    only = set(args.only.split(","))
    if "assemble" in only:
        print("# whole assemble (warm), 1,000,000-token window, default options"
              + (", texts without numbers" if args.plain else ""))
        bench_assemble(parse_sizes(args.sizes), args.repeat, args.warmup, numbered=not args.plain)
    if "group" in only:
        print("\n# conflict grouping alone (cosine >= 0.9, single link), uncached")
        bench_group(parse_sizes(args.sizes), args.repeat)
    if "dedup" in only:
        print("\n# dedup pass alone, texts without numbers (one guard group), embedding cutoff 0.95 vs none")
        bench_dedup(parse_sizes(args.dedup_sizes), args.repeat)


if __name__ == "__main__":
    main()
