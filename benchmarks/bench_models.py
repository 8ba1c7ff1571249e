"""What naming the target model costs: loading a GGUF tokenizer once, and each assembly afterwards.

    .venv/bin/python benchmarks/bench_models.py MODEL.gguf [--repeat 9]

Prints the time to read the GGUF metadata (the `gguf` package) and to build the tokenizer, then the median
time of a warm `assemble` of every bundled trap question without a model, with `model="gpt-4o"` and with the
GGUF model, and the ratios measured in this one run. Needs the `gguf` extra.
"""

from __future__ import annotations

import argparse
import statistics
import time

from evidencepack import assemble
from evidencepack.data.demo import corpus, traps
from evidencepack.tokens.gguf import _build_bpe, read_gguf_metadata
from evidencepack.tokens.models import resolve_model


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("gguf")
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()

    t0 = time.perf_counter()
    meta = read_gguf_metadata(args.gguf)
    t1 = time.perf_counter()
    from evidencepack.tokens.gguf import GGUF_PRE_TOKENIZERS

    _build_bpe(meta["tokenizer.ggml.tokens"], meta["tokenizer.ggml.token_type"], meta["tokenizer.ggml.merges"],
               GGUF_PRE_TOKENIZERS[meta["tokenizer.ggml.pre"]])
    t2 = time.perf_counter()
    print(f"read GGUF metadata: {t1 - t0:.2f} s; build tokenizer: {t2 - t1:.2f} s "
          f"({len(meta['tokenizer.ggml.tokens'])} tokens, {len(meta['tokenizer.ggml.merges'])} merges)")

    by_id = {r.id: r for r in corpus()}
    jobs = [([by_id[i] for i in t["records"]], t["question"], t["as_of"]) for t in traps()]
    models = {"none (o200k_base)": None, "gpt-4o": resolve_model("gpt-4o"), "gguf": resolve_model(args.gguf)}
    medians = {}
    for label, model in models.items():
        for recs, q, as_of in jobs:  # warm the count caches
            assemble(recs, q, as_of=as_of, model=model)
        runs = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            for recs, q, as_of in jobs:
                assemble(recs, q, as_of=as_of, model=model)
            runs.append((time.perf_counter() - start) / len(jobs))
        medians[label] = statistics.median(runs)
    base = medians["none (o200k_base)"]
    print("| model | ms per assembly (warm) | ratio to no model |")
    print("|---|---:|---:|")
    for label, m in medians.items():
        print(f"| {label} | {m * 1000:.1f} | {m / base:.2f} |")


if __name__ == "__main__":
    main()
