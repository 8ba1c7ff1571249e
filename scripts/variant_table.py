#!/usr/bin/env python3
"""Print the published variant table (markdown) from an eval run's results.jsonl.

    python scripts/variant_table.py eval-runs/rep15/results.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evidencepack.eval.report import fmt_rate, trap_metrics


def short(r: dict | None) -> str:
    """'k/n = p % [lo, hi]' as in the reports; n/a when not measured."""
    return fmt_rate(r)


def main() -> int:
    text = Path(sys.argv[1]).read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    m = trap_metrics(rows)
    print("| condition | stale answer | current-correct | conflict surfaced | names a conflict | cites a handle | "
          "handle written or attributed | refuses (misses) | not judged | mean prompt tokens |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for cond in dict.fromkeys(r["condition"] for r in rows):
        x = m[cond]
        miss = x["refusal_miss"]["k"]
        print(f"| {cond} | {short(x['stale'])} | {short(x['current_correct'])} | {short(x['surfaced'])} | "
              f"{short(x['conflict_named'])} | {short(x['with_citation'])} | {short(x['written_or_attributed'])} | "
              f"{x['refused']['k']}/{x['refused']['n']} ({miss}) | {x['truncated'] + x['errors']} | "
              f"{x['mean_prompt_tokens']:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
