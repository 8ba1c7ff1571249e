"""Time the dedup pass over 1,000 / 2,000 / 4,000 / 8,000 candidates: the exact scan (every new record compared
with every kept one that has the same numbers and negations) beside the default (that exact scan up to 64
kept records, banded MinHash above).

    python benchmarks/bench_dedup.py [--repeat N] [--exact-max N] [--compare OLD_DEDUP.py]

`--compare` also times a second copy of `dedup.py` loaded from a file, e.g. the one before this work:

    git show 39bd4bd:src/evidencepack/dedup.py > /tmp/dedup_before.py
    python benchmarks/bench_dedup.py --compare /tmp/dedup_before.py

Two corpora of ~2,000-character records with 10 % exact and 10 % near duplicates (a few words changed):
- numbered: 290 words from a 40-word vocabulary plus a unique reference number, as in bench_assemble.py
  (the number guard rejects most pairs cheaply, so the exact scan is cheap per pair);
- plain: 300 words from a 5,000-word vocabulary, no numbers (every pair of similar size reaches the Jaccard
  computation in the exact scan).
Fingerprint caches are cleared before each run, so both columns include shingling. Growth is each time
divided by the time at half the candidates (2.0 is linear, 4.0 quadratic). Figures are medians of N runs in
one process; read ratios, not milliseconds (the machine is shared). The drops of both methods are compared.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import string
import time
from types import ModuleType

from evidencepack import Record
from evidencepack.passes.dedup import clear_fingerprint_cache, dedup
from evidencepack.records.candidates import Candidate, Dropped

SMALL_VOCAB = ("policy", "employee", "leave", "manager", "approval", "days", "year", "carry", "over", "benefit",
               "plan", "payroll", "office", "remote", "travel", "expense", "receipt", "claim", "deadline",
               "handbook", "section", "notice", "review", "eligible", "weeks", "paid", "unpaid", "request",
               "portal", "team", "shift", "overtime", "rate", "limit", "annual", "monthly", "hours", "salary",
               "bonus", "office")


def corpus(kind: str, n: int, seed: int = 7) -> list[Candidate]:
    rng = random.Random(seed)
    if kind == "numbered":
        vocab: tuple[str, ...] | list[str] = SMALL_VOCAB
    else:
        vocab = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 9))) for _ in range(5000)]
    texts: list[str] = []
    for i in range(n):
        roll = rng.random()
        if texts and roll < 0.1:
            text = rng.choice(texts)
        elif texts and roll < 0.2:
            words = rng.choice(texts).split()
            for _ in range(3):
                words[rng.randrange(len(words) - 3)] = rng.choice(vocab)  # keep the trailing reference
            text = " ".join(words)
        else:
            body = " ".join(rng.choice(vocab) for _ in range(290 if kind == "numbered" else 300))
            text = f"{body} ref {i}." if kind == "numbered" else body + "."
        texts.append(text)
    return [Candidate(Record(id=f"r{i}", text=t), i + 1) for i, t in enumerate(texts)]


def load(path: str) -> ModuleType:
    """Another dedup.py, imported inside the package so its relative imports resolve."""
    spec = importlib.util.spec_from_file_location("evidencepack._dedup_compare", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(cands: list[Candidate], limit: int | None, module: ModuleType | None = None
        ) -> tuple[float, list[tuple[str, str | None]]]:
    if module is not None:
        getattr(module, "clear_fingerprint_cache", getattr(module._fingerprint, "cache_clear", None))()
        start = time.perf_counter()
        out = list(module.dedup(cands))
        return time.perf_counter() - start, [(o.id, getattr(o, "duplicate_of", None)) for o in out]
    clear_fingerprint_cache()
    start = time.perf_counter()
    out = list(dedup(cands) if limit is None else dedup(cands, exact_scan_limit=limit))
    elapsed = time.perf_counter() - start
    return elapsed, [(o.id, o.duplicate_of if isinstance(o, Dropped) else None) for o in out]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--exact-max", type=int, default=2_000,
                    help="largest N to time the exact scan (and --compare) at on the plain corpus")
    ap.add_argument("--compare", help="path to another dedup.py to time side by side")
    args = ap.parse_args()
    compare = load(args.compare) if args.compare else None
    print(f"{'corpus':<9} {'candidates':>10} {'dropped':>7} {'exact s':>8} {'growth':>6} {'default s':>9} "
          f"{'growth':>6} {'exact/default':>13} {'same drops':>10}" + (f" {'before s':>9} {'growth':>6}"
                                                                         if compare else ""))
    for kind in ("numbered", "plain"):
        prev_exact = prev_default = prev_before = None
        for n in (1_000, 2_000, 4_000, 8_000):
            cands = corpus(kind, n)
            default_runs = [run(cands, None) for _ in range(args.repeat)]
            default_s = statistics.median(t for t, _ in default_runs)
            drops = default_runs[0][1]
            exact_s = same = None
            slow_ok = kind == "numbered" or n <= args.exact_max
            if slow_ok:
                exact_runs = [run(cands, 10**9) for _ in range(args.repeat)]
                exact_s = statistics.median(t for t, _ in exact_runs)
                same = exact_runs[0][1] == drops
            before_s = None
            if compare is not None and slow_ok:
                before_runs = [run(cands, None, compare) for _ in range(args.repeat)]
                before_s = statistics.median(t for t, _ in before_runs)
                same = same and before_runs[0][1] == drops
            fmt = lambda v: f"{v:.2f}" if v is not None else "-"  # noqa: E731
            grow = lambda v, p: f"{v / p:.2f}" if v is not None and p is not None else "-"  # noqa: E731
            print(f"{kind:<9} {n:>10,} {sum(d is not None for _, d in drops):>7} {fmt(exact_s):>8} "
                  f"{grow(exact_s, prev_exact):>6} {default_s:>9.2f} {grow(default_s, prev_default):>6} "
                  f"{grow(exact_s, default_s):>13} {str(same) if same is not None else '-':>10}"
                  + (f" {fmt(before_s):>9} {grow(before_s, prev_before):>6}" if compare else ""), flush=True)
            prev_exact, prev_default, prev_before = exact_s, default_s, before_s


if __name__ == "__main__":
    main()
