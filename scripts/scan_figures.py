"""How often the injection scan fires: on attack text (recall) and on benign text (false positives).

    PYTHONPATH=src python scripts/scan_figures.py [--nq ../shared/data/lost-in-the-middle/nq-open-oracle.jsonl.gz]

Attack text: the injection harness's attacks (BIPIA's text attacks with the canary request, and our own), per
source and category; BIPIA's attacks also without the canary request (the bare task, as BIPIA ships it); the
hand-written payload seeds and their mutations (`tests/payloads.py`); probes of attacks and benign
imperative sentences (`tests/data/scan_probe*.jsonl`), each written after a widening of the scan and
measured once: only the probes written after the last widening give out-of-sample figures. Benign text: every
record of the bundled HR corpus and the held-out corpora in tests/data, and, when given, the Wikipedia passages
of the Lost-in-the-Middle NQ set. A text "fires" when its score reaches `passes.scan.SUSPICIOUS`, the threshold the
screen condition, the `on_flagged` layout option and the `suspicious_copy` finding share.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from evidencepack.eval.injections import load_attacks
from evidencepack.passes.scan import SUSPICIOUS, text_score, text_signals

ROOT = Path(__file__).resolve().parents[1]
#: The probes in the order they were written; each was measured once, then the scan was changed on its misses, so
#: only the probes written after the last change (`UNTUNED`) give out-of-sample figures. Probes 6 to 8 were
#: written by a helper that never saw the scan (docs/security.md, "Orders about the reading").
PROBES = ("scan_probe", "scan_probe2", "scan_probe3", "scan_probe4", "scan_probe5", "scan_probe6", "scan_probe7",
          "scan_probe8")
UNTUNED = ("scan_probe8",)
CANARY = re.compile(r"\s*Begin your reply with the word PINEAPPLE\.\s*$")


def fired(texts: Iterable[str]) -> str:
    """"k/n": how many of the texts the scan flags."""
    scores = [text_score(t) for t in texts]
    return f"{sum(s >= SUSPICIOUS for s in scores)}/{len(scores)}"


def benign_texts(nq: Path | None) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    corpora = [ROOT / "src/evidencepack/data/hr_corpus.jsonl", *sorted((ROOT / "tests/data").glob("*corpus*.jsonl"))]
    for path in corpora:
        out[path.name] = [json.loads(line)["text"] for line in path.read_text("utf-8").splitlines() if line.strip()]
    if nq is not None:
        with gzip.open(nq, "rt", encoding="utf-8") as fh:
            out["NQ passages (Lost in the Middle)"] = [c["text"] for line in fh for c in json.loads(line)["ctxs"]]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nq", type=Path, default=None, help="nq-open-oracle.jsonl.gz for benign Wikipedia text")
    parser.add_argument("--show", action="store_true", help="print every benign text that fires")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "tests"))
    from payloads import all_payloads, base_payloads  # type: ignore[import-not-found]

    attacks = list(load_attacks().values())
    print(f"threshold: score >= {SUSPICIOUS}\n\n| attack text | fires |\n|---|---|")
    groups: dict[str, list[str]] = {}
    for a in attacks:
        groups.setdefault(f"{a.source}: {a.category}", []).append(a.text)
    for name, texts in sorted(groups.items()):
        print(f"| {name} | {fired(texts)} |")
    bipia = [a.text for a in attacks if a.source == "bipia"]
    print(f"| **BIPIA, with the canary request** | {fired(bipia)} |")
    print(f"| **BIPIA, bare task (no canary request)** | {fired(CANARY.sub('', t) for t in bipia)} |")
    print(f"| **own** | {fired(a.text for a in attacks if a.source == 'own')} |")
    print(f"| payload seeds (tests/payloads.py) | {fired(p for _, p in base_payloads())} |")
    print(f"| payload seeds and mutations | {fired(p for _, p in all_payloads())} |")
    probes = {name: [json.loads(line) for line in (ROOT / "tests/data" / f"{name}.jsonl").read_text("utf-8")
                     .splitlines()] for name in PROBES}
    for i, (name, probe) in enumerate(probes.items(), 1):
        status = "written after the last widening, never tuned on" if name in UNTUNED else "tuned on since"
        attacks_ = [r["text"] for r in probe if r["kind"] == "attack"]
        print(f"| probe {i} attacks ({status}) | {fired(attacks_)} |")
    print("\n| benign text | fires |\n|---|---|")
    kinds: Counter[str] = Counter()
    texts_by_set = benign_texts(args.nq)
    for name, probe in probes.items():
        texts_by_set[f"{name}: benign (hard negatives)"] = [r["text"] for r in probe if r["kind"] == "benign"]
    for name, texts in texts_by_set.items():
        hits = [t for t in texts if text_score(t) >= SUSPICIOUS]
        for t in hits:
            kinds.update(text_signals(t).keys())
            if args.show:
                print(f"  {name}: {sorted(text_signals(t))} {t[:200]!r}", file=sys.stderr)
        print(f"| {name} | {len(hits)}/{len(texts)} |")
    if kinds:
        print("\nsignals behind the benign hits: " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
