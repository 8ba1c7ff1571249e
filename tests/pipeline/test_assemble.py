"""The whole pass on examples: bookkeeping, budget, rendering. The invariants as hypothesis properties are in
tests/properties/test_pipeline_invariants.py."""

import json
import logging
from datetime import date

import pytest

from evidencepack import Budget, Layout, Record, assemble, get_tokenizer
from evidencepack.render import read_blocks

AS_OF = date(2026, 1, 15)
KEY = b"test-key-0123456789"
TOK = get_tokenizer("o200k_base")
PTO = [
    {"id": "hb", "text": "Unused paid time off does not carry over into the next calendar year.", "rank": 1,
     "doc": "Employee Handbook", "section": "5.2 Paid time off", "date": "2025-01-01", "source_system": "handbook",
     "authority": "authoritative", "valid_from": "2025-01-01", "topic": "pto", "url": "https://hr.example/5-2"},
    {"id": "slack", "text": "sure, unused PTO carries over, just ask me", "rank": 2, "doc": "Slack #team-ops",
     "date": "2023-11-02", "source_system": "slack", "authority": "informal", "valid_until": "2024-06-30",
     "topic": "pto"},
    {"id": "hb-copy", "text": "Unused  paid time off does not carry over into the next calendar year.", "rank": 3},
    {"id": "bands", "text": "Band L4: 70,000-82,000 EUR.", "rank": 4, "sensitivity": "restricted"},
]
#: The model is shown the stale Slack message and told of the conflict (the default withholds it).
SURFACE = Layout(conflict_policy="surface")


def test_every_record_accounted_with_reasons():
    for layout, slack in ((Layout(), ("dropped", "conflict_withheld", None)), (SURFACE, ("included", None, None))):
        a = assemble(PTO, "Does unused PTO carry over?", as_of=AS_OF, boundary_key=KEY, layout=layout)
        fate = {o.id: (o.decision, o.reason, o.duplicate_of) for o in a.report.records}
        assert fate == {"hb": ("included", None, None), "slack": slack,
                        "hb-copy": ("dropped", "duplicate", "hb"), "bands": ("dropped", "above_clearance", None)}
        assert [m.handle for m in a.manifest] == ["S1", "S2"][:2 if layout is SURFACE else 1]
        assert a.handle("S1").absorbed == ("hb-copy",)
        assert "70,000" not in a.to_json()


def test_header_shows_validity_status_not_raw_dates():
    a = assemble(PTO, "q", as_of=AS_OF, boundary_key=KEY, layout=SURFACE)
    # the default (compact) header: closed values first and unlabelled, the validity as a status at as_of,
    # free text quoted
    assert (f"<<<{a.boundary} BEGIN S2>>> informal · EXPIRED since 2024-06-30 · internal · "
            '"Slack #team-ops" · 2023-11-02 · "slack"\n') in a.user
    text = assemble(PTO, "q", as_of=AS_OF, boundary_key=KEY,
                    layout=Layout(format="text", conflict_policy="surface")).user
    assert "authority: informal" in text and "EXPIRED since 2024-06-30" in text
    assert "https://hr.example" not in a.prompt  # urls stay server-side by default
    assert a.handle("S1").url == "https://hr.example/5-2"


def test_conflict_notice_names_handles_from_metadata():
    a = assemble(PTO, "q", as_of=AS_OF, boundary_key=KEY, layout=SURFACE)
    [c] = a.report.conflicts
    assert c.topic == "pto" and c.current == ("S1",) and c.others[0][0] == "S2"
    assert "S2 is informal and EXPIRED since 2024-06-30; S1 is authoritative and current" in a.user
    assert "S2 is informal" not in assemble(PTO, "q", as_of=AS_OF,
                                            layout=Layout(conflict_notice=False, conflict_policy="surface")).user


def test_budget_arithmetic_is_reported():
    a = assemble(PTO, "q", as_of=AS_OF, budget=Budget(context_window=4000, output_reserve=500, safety_margin=100))
    b = a.report.budget
    assert b["retrieval_budget"] == 4000 - b["system_prompt"] - b["question"] - 500 - 100
    assert b["left"] == b["retrieval_budget"] - b["used"]
    assert TOK.count(a.system) + TOK.count(a.user) == b["prompt_tokens"]


def test_tight_budget_drops_from_the_bottom():
    a0 = assemble(PTO, "q", as_of=AS_OF, boundary_key=KEY, layout=SURFACE)
    window = a0.report.budget["prompt_tokens"] + 1024 + 128 - a0.handle("S2").tokens
    a = assemble(PTO, "q", as_of=AS_OF, boundary_key=KEY, budget=Budget(context_window=window), layout=SURFACE)
    assert [m.id for m in a.manifest] == ["hb"]
    assert {o.id: o.reason for o in a.report.records}["slack"] == "over_budget"


def test_log_line_has_ids_and_tokens_but_no_text(caplog):
    with caplog.at_level(logging.INFO, logger="evidencepack"):
        assemble(PTO, "q", as_of=AS_OF, layout=SURFACE)
    [line] = [json.loads(r.message) for r in caplog.records]
    assert [i["id"] for i in line["included"]] == ["hb", "slack"]
    assert "bands" not in caplog.text and "carry over" not in caplog.text


@pytest.mark.parametrize("fmt", ["compact", "text", "xml", "markdown", "json"])
def test_blocks_read_back_in_every_format(fmt):
    a = assemble(PTO, "q", as_of=AS_OF, boundary_key=KEY, layout=Layout(format=fmt, conflict_policy="surface"))
    blocks = read_blocks(a.user, a.boundary, fmt)
    assert [b.handle for b in blocks] == ["S1", "S2"]
    assert blocks[0].text == PTO[0]["text"]


def test_flat_baseline_is_texts_joined_by_newlines():
    a = assemble(PTO, "q", as_of=AS_OF, layout=Layout(format="flat", order="ranked", conflict_policy="surface"))
    assert a.system == "Answer the question using the context below."
    assert f"{PTO[0]['text']}\n{PTO[1]['text']}\n\nQuestion: q" in a.user
    assert "[S1]" not in a.prompt and "authority" not in a.prompt


def test_profiles_choose_header_fields():
    ref = assemble(PTO, "q", as_of=AS_OF, boundary_key=KEY,
                   layout=Layout(profile="reference", conflict_notice=False)).user
    assert "authority" not in ref and '§"5.2 Paid time off"' in ref
    minimal = assemble(PTO, "q", as_of=AS_OF, boundary_key=KEY, layout=Layout(profile="minimal"))
    assert f"<<<{minimal.boundary} BEGIN S1>>> \"Employee Handbook\"\n" in minimal.user  # compact, the default
    text = assemble(PTO, "q", as_of=AS_OF, boundary_key=KEY, layout=Layout(profile="minimal", format="text")).user
    assert '[S1] (doc: "Employee Handbook")' in text
    custom = assemble([{"id": "a", "text": "t", "metadata": {"owner": "HR Ops"}}], "q", as_of=AS_OF, boundary_key=KEY,
                      layout=Layout(profile=["doc", "owner"]))
    assert 'BEGIN S1>>> owner: "HR Ops"\n' in custom.user
    assert custom.report.tokens["fields"]["owner"] > 0


def test_conflict_policy_changes_the_instruction():
    surface = assemble(PTO, "q", as_of=AS_OF).system
    resolve = assemble(PTO, "q", as_of=AS_OF, layout=Layout(conflict_policy="resolve")).system
    assert "say so" in surface and "give one answer" in resolve


def test_records_accept_record_objects():
    a = assemble([Record(id="x", text="hello there")], "q", as_of=AS_OF)
    assert a.manifest[0].id == "x"
