#!/usr/bin/env python3
"""Re-judge the published trap results (docs/eval-results/*.jsonl) with today's rule judge, in place.

    python scripts/rejudge_published.py [--dry-run]

Each row's `verdict`, `judgement`, `refused` (and the delivered answer's verdict, when the row has one) are
judged again from its stored answer; the report beside it (`<name>.md`) is rebuilt from the rows. Prints, per
file, how many verdicts moved and from what to what, so a judge change is published with its effect. The
answers themselves never change.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "eval"))

from test_published_results import TRAP_REPORTS, _meta, _notes, _rows, _traps_for  # noqa: E402

from evidencepack.eval.datasets import TrapQuestion  # noqa: E402
from evidencepack.eval.judge import judge  # noqa: E402
from evidencepack.eval.report import trap_report  # noqa: E402


def rejudge(row: dict[str, Any], traps: dict[str, TrapQuestion]) -> tuple[str | None, str | None]:
    """Judge one row again; (old verdict, new verdict)."""
    if row.get("status") != "ok":
        return None, None
    trap = traps[row["question"]]
    j = judge(row["answer"], trap)
    old = row["verdict"]
    row["verdict"], row["judgement"], row["refused"] = j.verdict, j.to_dict(), j.refused
    delivered = row.get("delivered")
    if delivered and delivered.get("notes"):
        d = judge(row["answer"].rstrip() + "\n\n" + "\n".join(f"Note: {t}" for t in delivered["notes"]), trap)
        delivered["verdict"], delivered["conflict_named"] = d.verdict, d.conflict_named
    elif delivered:
        delivered["verdict"], delivered["conflict_named"] = j.verdict, j.conflict_named
    return old, j.verdict


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dry-run", action="store_true", help="print what moves; write nothing")
    args = ap.parse_args()
    for md in TRAP_REPORTS:
        text = md.read_text(encoding="utf-8")
        traps = _traps_for(text)
        rows = _rows(md)
        moved: Counter[tuple[str, str]] = Counter()
        for row in rows:
            old, new = rejudge(row, traps)
            if old != new and old is not None and new is not None:
                moved[(old, new)] += 1
        print(f"{md.name}: {sum(moved.values())} of {sum(r.get('status') == 'ok' for r in rows)} verdicts moved"
              + "".join(f"; {o}->{n} {k}" for (o, n), k in sorted(moved.items())))
        if args.dry_run:
            continue
        md.with_suffix(".jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                            encoding="utf-8")
        md.write_text(trap_report(rows, _meta(text), _notes(text, True)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
