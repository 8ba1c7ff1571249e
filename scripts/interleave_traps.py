#!/usr/bin/env python3
"""Ask a model the trap questions with several conditions question by question, into a shared answer cache.

    python scripts/interleave_traps.py --cache DIR --max-tokens 200 structured+reminder structured+scaffold …

`evidencepack eval traps` asks every question of one condition before the next. Variants that only add text
after the question (`reminder`, `scaffold`) or a second turn (`guard`) share the whole prompt up to the
question with their base, and a llama.cpp server keeps the last prompt's KV cache: asked right after the
base, they cost only their own tail. This driver asks each question under every listed condition in turn;
then `evidencepack eval traps --conditions …` with the same cache writes the report from cache hits. The
prompts and sampling are exactly the CLI's (same `TrapRun`), only the order of calls differs. The endpoint
comes from $EVIDENCEPACK_BASE_URL and $EVIDENCEPACK_MODEL.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from evidencepack.data import corpus
from evidencepack.eval import AnswerCache, HTTPBackend, Sampling, TrapRun, load_traps
from evidencepack.eval.experiments import default_validator


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("conditions", nargs="+")
    p.add_argument("--cache", required=True)
    p.add_argument("--max-tokens", type=int, default=200)
    p.add_argument("--timeout", type=float, default=900)
    p.add_argument("--reverse", action="store_true",
                   help="questions from the last to the first: a second server sharing the cache works from the "
                        "other end, and the two meet in the middle")
    args = p.parse_args()
    backend = HTTPBackend(base_url=os.environ["EVIDENCEPACK_BASE_URL"], model=os.environ["EVIDENCEPACK_MODEL"],
                          timeout=args.timeout)
    run = TrapRun(backend, load_traps(), corpus(), Sampling(max_tokens=args.max_tokens), AnswerCache(args.cache),
                  tuple(args.conditions), validator=default_validator())
    for c in args.conditions:
        from evidencepack.eval.experiments import condition_options

        condition_options(c)
    start = time.monotonic()
    traps = list(reversed(run.traps)) if args.reverse else list(run.traps)
    for i, trap in enumerate(traps, 1):
        for c in args.conditions:
            row = run.one(trap, c)
            print(f"{time.monotonic() - start:6.0f}s {i}/{len(run.traps)} {trap.id} {c}: {row.get('status')} "
                  f"{row.get('verdict')} {'(cached)' if row.get('cached') else ''}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
