"""Time assembly of 20 / 100 / 1,000 / 10,000 candidates (~300 tokens each, 8k budget), cold and warm,
beside the time to merely tokenize the records the assembler considered.

    python benchmarks/bench_assemble.py [--repeat N]

Cold clears every cache (token counts, neutralised text, dedup fingerprints); warm reuses them, as a
server does when the same chunks recur across requests. Prints one table. Figures are medians over N
runs in one process; compare ratios, not absolute times, since machines here are shared and noisy.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from evidencepack import Budget, assemble, get_tokenizer
from evidencepack.passes.dedup import clear_fingerprint_cache
from evidencepack.render import _neutralised_text
from evidencepack.tokens.tokenizers import CountCache

WORDS = (
    "policy", "employee", "leave", "manager", "approval", "days", "year", "carry", "over", "benefit", "plan",
    "payroll", "office", "remote", "travel", "expense", "receipt", "claim", "deadline", "handbook", "section",
    "notice", "review", "eligible", "weeks", "paid", "unpaid", "request", "portal", "team", "shift", "overtime",
    "rate", "limit", "annual", "monthly", "hours", "salary", "bonus",
)


def make_records(n: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    return [{"id": f"r{i}", "text": " ".join(rng.choice(WORDS) for _ in range(290)) + f" ref {i}.",
             "doc": f"Doc {i % 50}", "section": f"{i % 9}.{i % 7}", "date": "2025-01-01",
             "authority": "authoritative", "source_system": "handbook"} for i in range(n)]


def timed(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    repeat = ap.parse_args().repeat
    tok = get_tokenizer("o200k_base")
    budget = Budget(context_window=8192 + 1024 + 128 + 400)  # ~8k tokens for sources
    print(f"{'candidates':>10} {'selected':>8} {'considered':>10} {'cold ms':>9} {'warm ms':>9} "
          f"{'tokenize considered ms':>22} {'cold/tokenize':>13}")
    for n in (20, 100, 1_000, 10_000):
        records = make_records(n)
        question = "What is the leave policy?"

        def run(cache: CountCache, records: list[dict] = records, question: str = question):
            return assemble(records, question, as_of="2026-01-01", budget=budget, count_cache=cache,
                            boundary_key=b"bench-key-0123456789")

        def cold(run=run) -> None:
            _neutralised_text.cache_clear()
            clear_fingerprint_cache()
            run(CountCache())

        warm_cache = CountCache()
        run(warm_cache)
        a = run(CountCache())
        selected = len(a.manifest)
        considered = selected + sum(1 for o in a.report.records if o.detail and "left" in o.detail)
        texts = [r["text"] for r in records[:considered]]
        cold_s = timed(cold, repeat)
        warm_s = timed(lambda run=run, cache=warm_cache: run(cache), repeat)
        tok_s = timed(lambda texts=texts: [tok.count(t) for t in texts], repeat)
        print(f"{n:>10} {selected:>8} {considered:>10} {cold_s * 1e3:>9.2f} {warm_s * 1e3:>9.2f} "
              f"{tok_s * 1e3:>22.2f} {cold_s / tok_s:>13.1f}")


if __name__ == "__main__":
    main()
