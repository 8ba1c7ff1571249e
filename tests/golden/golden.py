"""Golden outputs: what users see, recorded before a refactor and kept byte-identical through it.

`outputs()` renders every output the refactor promised not to move: the demo, the CLI JSON contract for a
spread of flag sets (fixed boundary key), and every trap prompt of every eval condition on both bundled trap
sets. `python tests/golden/golden.py` rewrites `expected.json`; do that only for a change meant to move output,
and say so in the commit.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "expected.json"
DATA = HERE.parent / "data"
KEY = "evidencepack-golden-not-a-secret"

#: CLI flag sets for `evidencepack assemble` on the demo records; each renders one contract JSON.
CLI_RUNS: dict[str, list[str]] = {
    "default": [],
    "flat": ["--format", "flat", "--order", "edges"],
    "text-reference": ["--format", "text", "--profile", "reference", "--order", "ranked"],
    "xml-minimal": ["--format", "xml", "--profile", "minimal", "--order", "alternate"],
    "markdown-stable": ["--format", "markdown", "--order", "stable", "--clearance", "confidential"],
    "json-fields": ["--format", "json", "--profile", "doc,section,authority", "--window", "2048"],
    "exclude": ["--exclude-expired", "--exclude-superseded", "--max-records", "3"],
    "resolve": ["--conflict-policy", "resolve", "--abstain", "if-unanswered", "--no-notice"],
    "notice": ["--notice-placement", "question", "--notice-style", "directive", "--reminder", "--conflict-policy",
               "surface", "--no-answer-form"],
    "forms": ["--conflict-form", "--example", "--conflict-policy", "surface"],
    "structured": ["--conflict-policy", "surface", "--no-answer-form"],  # the earlier default: "default" before
    "scaffold": ["--scaffold", "--marking", "datamark", "--injection-threshold", "0.5"],
    "tight": ["--window", "1400", "--output-reserve", "300", "--safety-margin", "20", "--fill-gaps",
              "--on-invalid", "drop", "--lazy"],
}


def _cli(argv: list[str], stdin: str | None = None) -> str:
    from evidencepack.cli import main

    out = io.StringIO()
    old_in = sys.stdin
    try:
        if stdin is not None:
            sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8")), encoding="utf-8")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = main(argv)
    finally:
        sys.stdin = old_in
    return f"exit {code}\n{out.getvalue()}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def outputs() -> dict[str, str]:
    """Name -> output (long outputs as their SHA-256)."""
    from evidencepack.eval.datasets import load_traps
    from evidencepack.eval.experiments import TRAP_CONDITIONS, TrapRun

    old = os.environ.get("EVIDENCEPACK_BOUNDARY_KEY")
    os.environ["EVIDENCEPACK_BOUNDARY_KEY"] = KEY
    try:
        out: dict[str, Any] = {"demo": _cli(["demo"])}
        records = _cli(["demo", "--records"]).split("\n", 1)[1]
        for name, flags in CLI_RUNS.items():
            text = _cli(["assemble", "-", "-q", "Does unused PTO carry over?", "--as-of", "2026-06-01", "--json",
                         *flags], stdin=records)
            out[f"cli/{name}"] = text
            assembly = text.split("\n", 1)[1]
            answer = "No, unused PTO does not carry over [S1]. A manager once said otherwise [S2] [S9]."
            path = HERE / ".answer.txt"
            path.write_text(answer, encoding="utf-8")
            try:
                out[f"validate/{name}"] = _cli(["validate", "-", str(path), "--json", "--attribute", "--notes"],
                                               stdin=assembly)
            finally:
                path.unlink()
        from evidencepack.data import corpus

        sets = {"hr": (None, list(corpus())),
                "holdout": (DATA / "holdout_it_traps.jsonl", _corpus(DATA / "holdout_it_corpus.jsonl"))}
        for set_name, (path_, records_) in sets.items():
            traps = load_traps(path_, corpus=records_)
            run = TrapRun(backend=None, traps=traps, corpus=records_, sampling=None)  # type: ignore[arg-type]
            for condition in TRAP_CONDITIONS:
                for trap in traps:
                    a = run.assembly(trap, condition)
                    out[f"trap/{set_name}/{condition}/{trap.id}"] = _digest(a.to_json())
    finally:
        if old is None:
            del os.environ["EVIDENCEPACK_BOUNDARY_KEY"]
        else:
            os.environ["EVIDENCEPACK_BOUNDARY_KEY"] = old
    return out


def _corpus(path: Path) -> list[Any]:
    from evidencepack.records.jsonl import load_jsonl

    return list(load_jsonl(path))


if __name__ == "__main__":
    EXPECTED.write_text(json.dumps(outputs(), indent=1, sort_keys=True, ensure_ascii=False) + "\n", "utf-8")
    print(f"wrote {EXPECTED}")
