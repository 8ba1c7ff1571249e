"""Precision of `citations.attribution.attribute` and `unsupported_value` on a labelled set of answer sentences.

Each line of the set names a bundled trap question (its records, assembled as the `structured` trap
condition assembles them, are the sources), a sentence, the record ids that support it (empty: nothing
does), the record ids the sentence cites (written as handles after it), and the values that should be
found unsupported. Attribution is measured on uncited sentences; value support on every sentence with
sources (cited ones against what they cite, uncited ones against their labelled support, so attribution
mistakes do not blur the value check).

    python -m evidencepack.eval.claims_eval tests/data/claims_labelled.jsonl
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..assemble import Assembly, assemble
from ..citations.attribution import attribute, sources_of
from ..citations.values import unsupported_in
from ..data import corpus, traps
from ..errors import DatasetError
from .experiments import EVAL_KEY, condition_options


def _assemblies() -> dict[str, Assembly]:
    by_id = {r.id: r for r in corpus()}
    return {t["id"]: assemble([by_id[i] for i in t["records"]], t["question"], as_of=t["as_of"],
                              boundary_key=EVAL_KEY, **condition_options("original")) for t in traps()}


def measure(path: str | Path) -> dict[str, Any]:
    """Counts and rates for attribution and value support over the labelled set."""
    items = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    built = _assemblies()
    att = {"sentences": 0, "assigned": 0, "correct": 0, "sentences_assigned": 0, "sentences_all_correct": 0,
           "supported": 0, "supported_found": 0, "unsupported": 0, "unsupported_assigned": 0}
    val = {"flagged": 0, "flagged_correct": 0, "labelled": 0, "labelled_found": 0}
    mistakes: list[dict[str, Any]] = []
    for it in items:
        a = built[it["trap"]]
        handle = {m.id: m.handle for m in a.manifest}
        missing = [i for i in (*it["support"], *it["cites"]) if i not in handle]
        if missing:
            raise DatasetError(f"{it['sentence']!r}: records {missing} are not in the {it['trap']} prompt")
        if not it["cites"]:
            _tally_attribution(it, a, att, mistakes)
        against = it["cites"] or it["support"]
        if against:
            _tally_values(it, a, [handle[i] for i in against], val, mistakes)
    return {"items": len(items), "attribution": {**att, **_rates(att)}, "values": {**val, **_value_rates(val)},
            "mistakes": mistakes}


def _tally_attribution(it: Mapping[str, Any], a: Assembly, att: dict[str, int],
                       mistakes: list[dict[str, Any]]) -> None:
    """One uncited sentence: the records `attribute` assigns it against the ones labelled as its support."""
    record = {m.handle: m.id for m in a.manifest}
    got = {record[h] for x in attribute(it["sentence"], a) for h in x.handles}
    gold = set(it["support"])
    att["sentences"] += 1
    att["assigned"] += len(got)
    att["correct"] += len(got & gold)
    att["sentences_assigned"] += bool(got)
    att["sentences_all_correct"] += bool(got) and got <= gold
    if gold:
        att["supported"] += 1
        att["supported_found"] += bool(got & gold)
    else:
        att["unsupported"] += 1
        att["unsupported_assigned"] += bool(got)
    if got - gold:
        mistakes.append({"kind": "attribution", "sentence": it["sentence"], "got": sorted(got),
                         "gold": sorted(gold)})


def _tally_values(it: Mapping[str, Any], a: Assembly, against: list[str], val: dict[str, int],
                  mistakes: list[dict[str, Any]]) -> None:
    """One sentence with sources (the handles it cites, else its labelled support): the values
    `unsupported_in` flags against the ones labelled unsupported."""
    texts = sources_of(a)
    question = a.user.rsplit("\nQuestion: ", 1)[-1]
    flagged = {v.key for v in unsupported_in(it["sentence"], [texts[h] for h in against], also_given=question)}
    labelled = set(it["unsupported"])
    val["flagged"] += len(flagged)
    val["flagged_correct"] += len(flagged & labelled)
    val["labelled"] += len(labelled)
    val["labelled_found"] += len(flagged & labelled)
    if flagged != labelled:
        mistakes.append({"kind": "value", "sentence": it["sentence"], "flagged": sorted(flagged),
                         "labelled": sorted(labelled)})


def _ratio(k: int, n: int) -> float | None:
    return k / n if n else None


def _rates(a: Mapping[str, int]) -> dict[str, float | None]:
    return {"precision": _ratio(a["correct"], a["assigned"]),
            "sentence_precision": _ratio(a["sentences_all_correct"], a["sentences_assigned"]),
            "recall": _ratio(a["supported_found"], a["supported"]),
            "false_attribution_on_unsupported": _ratio(a["unsupported_assigned"], a["unsupported"])}


def _value_rates(v: Mapping[str, int]) -> dict[str, float | None]:
    return {"precision": _ratio(v["flagged_correct"], v["flagged"]), "recall": _ratio(v["labelled_found"],
                                                                                       v["labelled"])}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    report = measure(args[0] if args else "tests/data/claims_labelled.jsonl")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
