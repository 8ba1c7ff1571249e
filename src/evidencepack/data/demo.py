"""`evidencepack demo`: the PTO question from the bundled HR corpus, flattened and then structured."""

# corpus and traps are re-exported for callers of the earlier layout.

from __future__ import annotations

import json

from ..assemble import assemble
from ..citations import conflict_notes
from ..records.record import Record
from ..render.layout import Layout
from ..report import report_table
from . import corpus, traps

__all__ = ["DEMO_KEY", "corpus", "demo_records", "run_demo", "traps"]

DEMO_TRAP = "pto-carryover"
# A fixed, public key keeps the demo's output byte-identical across runs. Real deployments set their own
# secret in $EVIDENCEPACK_BOUNDARY_KEY (or get a random per-process key).
DEMO_KEY = b"evidencepack-demo-not-a-secret"


def demo_records() -> tuple[list[Record], str]:
    """What a retriever returned for the PTO question: the trap set's fixed ranking, plus a PDF copy of
    the handbook page (a near-duplicate) and a confidential record the caller may not see."""
    by_id = {r.id: r for r in corpus()}
    trap = next(t for t in traps() if t["id"] == DEMO_TRAP)
    ids = list(trap["records"])
    extras = [i for i in by_id if i.startswith(trap["gold"]) and i != trap["gold"]]
    extras += [next(r.id for r in by_id.values() if r.sensitivity == "confidential")]
    ids[2:2] = extras
    return [by_id[i] for i in ids], trap["question"]


def run_demo(as_of: str = "2026-06-01") -> str:
    records, question = demo_records()
    # The failing pipeline knows nothing of metadata: plain edges seating, not the authority-aware default.
    flat = assemble(records, question, as_of=as_of, layout=Layout.preset("flat"), boundary_key=DEMO_KEY)
    structured = assemble(records, question, as_of=as_of, boundary_key=DEMO_KEY)
    rule = "=" * 100
    return "\n".join([
        rule, f"Question: {question}    (validity judged as of {as_of})", rule,
        "", "1. FLATTENED: the failing pipeline (texts joined by newlines, no metadata)", "-" * 100,
        flat.prompt, "", f"   {flat.report.budget['prompt_tokens']} prompt tokens", "",
        "2. STRUCTURED: evidencepack (handles, metadata headers, instructions; the conflict decided from metadata: "
        "the stale records withheld, the rule asked for before the answer)", "-" * 100,
        structured.prompt, "", "3. REPORT: every retrieved record, accounted once", "-" * 100,
        report_table(structured), "",
        "Conflicts found from metadata: " + json.dumps([c.to_dict() for c in structured.report.conflicts]), "",
        "4. NOTE TO THE READER: delivered with whatever the model answers (built from metadata, never record text)",
        "-" * 100, *(f"Note: {note.text}" for note in conflict_notes("", structured)),
    ])
