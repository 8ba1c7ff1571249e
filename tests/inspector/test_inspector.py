"""The inspector page (issue 13), read back with an HTML parser: every record accounted for, the budget bar
adding up, the answer marked by its findings, and untrusted text shown as text, never as markup.
The same checks in a real browser are in test_browser.py."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidencepack import AssemblyFormatError, Budget, Layout, assemble
from evidencepack.cli import main
from evidencepack.data.demo import DEMO_KEY, demo_records
from evidencepack.inspector.html import esc
from evidencepack.inspector.page import budget_segments, inspector_html
from evidencepack.render import read_blocks
from html_pages import (
    BIPIA,
    DEMO_ANSWER,
    HTML_PAYLOADS,
    TOK,
    Page,
    assert_inert,
    demo_assembly,
    injected_records,
    visible,
)
from payloads import all_payloads

# ------------------------------------------------------------------------------------------- accounting


def test_every_record_is_on_the_page_once_and_above_clearance_only_as_its_id() -> None:
    data = demo_assembly()
    page = assert_inert(inspector_html(data))
    blocks = {a["data-handle"]: a for a in page.all("article") if a.get("data-handle")}
    assert set(blocks) == {m["handle"] for m in data["manifest"]}
    for m in data["manifest"]:
        assert blocks[m["handle"]]["id"] == f"block-{m['handle']}"
    dropped = [o for o in data["report"]["records"] if o["decision"] == "dropped"]
    listed = [li["data-record-id"] for li in page.all("li") if li.get("data-record-id")]
    assert sorted(listed) == sorted(o["id"] for o in dropped) and len(dropped) == 2
    # the text as sent is shown for every block, exactly
    sent = {b.handle: b.text for b in read_blocks(data["messages"][1]["content"], data["boundary"], data["format"])}
    shown = [t for cls, t in page.pre if cls == "text"]
    assert shown == [sent[m["handle"]] for m in data["manifest"]]
    # the confidential record: its id and reason, nothing of its content
    secret = next(r for r in demo_records()[0] if r.sensitivity == "confidential")
    assert secret.id in listed
    assert secret.text[:40] not in page.visible and (secret.doc or "\0") not in page.visible
    # the duplicate points at the block it collapsed into
    dup = next(o for o in dropped if o["reason"] == "duplicate")
    kept = data["manifest"][[m["id"] for m in data["manifest"]].index(dup["duplicate_of"])]["handle"]
    assert f'href="#block-{kept}"' in inspector_html(data).split(f'data-record-id="{dup["id"]}"')[1][:400]


def test_conflict_notice_is_shown_as_the_model_saw_it() -> None:
    data = demo_assembly()
    page = Page(inspector_html(data))
    notice = [t for cls, t in page.pre if cls == "notice"]
    assert len(notice) == 1 and notice[0].startswith("Notice: ")
    assert notice[0] in data["messages"][1]["content"] and "S1 is authoritative and current" in notice[0]
    without = Page(inspector_html(demo_assembly(conflict_notice=False)))
    assert not [t for cls, t in without.pre if cls == "notice"]
    assert "pto-carryover" in without.visible  # the group is still listed


def test_same_input_same_bytes() -> None:
    data = demo_assembly()
    assert inspector_html(data, DEMO_ANSWER) == inspector_html(json.loads(json.dumps(data)), DEMO_ANSWER)


def test_an_assembly_object_and_its_json_give_the_same_page() -> None:
    records, question = demo_records()
    a = assemble(records, question, as_of="2026-06-01", boundary_key=DEMO_KEY)
    assert inspector_html(a) == inspector_html(json.loads(a.to_json()))


@pytest.mark.parametrize("fmt", ["text", "xml", "markdown", "json", "flat"])
def test_every_format(fmt: str) -> None:
    data = demo_assembly(format=fmt)
    page = assert_inert(inspector_html(data, DEMO_ANSWER))
    texts = [t for cls, t in page.pre if cls == "text"]
    if fmt == "flat":
        assert texts == [] and "no delimited blocks" in page.visible
    else:
        assert len(texts) == len(data["manifest"]) and all(texts)


def test_not_an_assembly_is_a_clear_error() -> None:
    with pytest.raises(AssemblyFormatError, match="manifest"):
        inspector_html({"report": {}})
    with pytest.raises(AssemblyFormatError, match="budget"):
        inspector_html({"manifest": [], "report": {"records": []}})
    edited = demo_assembly()
    del edited["report"]["budget"]["system_prompt"]
    with pytest.raises(AssemblyFormatError, match="system_prompt"):
        inspector_html(edited, DEMO_ANSWER)


# ------------------------------------------------------------------------------------------- budget bar


def bar(source: str) -> tuple[int, list[tuple[str, int, float]]]:
    page = Page(source)
    window = int(page.all("div", **{"class": "bar"})[0]["data-window"])
    segs = [(a["data-segment"], int(a["data-tokens"]), float(re.search(r"width:([\d.]+)%", a["style"]).group(1)))
            for a in page.all("div") if a.get("data-segment")]
    return window, segs


def test_budget_bar_is_the_report_part_by_part() -> None:
    data = demo_assembly()
    window, segs = bar(inspector_html(data))
    b = data["report"]["budget"]
    tokens = dict((k, t) for k, t, _ in segs)
    assert window == b["context_window"] == sum(tokens.values())
    assert tokens["system"] == b["system_prompt"] and tokens["question"] == b["question"]
    assert tokens["sources"] + tokens["notice"] == b["used"] and tokens["notice"] == data["report"]["tokens"]["notice"]
    assert tokens["output"] == b["output_reserve"] and tokens["unused"] == b["left"]
    assert [k for k, _, _ in segs] == ["system", "question", "sources", "notice", "output", "margin", "unused"]
    assert sum(w for _, _, w in segs) == pytest.approx(100, abs=0.01)


# The smallest window leaves the largest reserves room for the system prompt, the question and the default answer
# form (about 300 tokens); below that `assemble` rightly raises `BudgetError` (tests/pipeline/test_pipeline.py).
@given(window=st.integers(800, 20000), n=st.integers(0, 12), size=st.integers(1, 400),
       reserve=st.integers(0, 300), fill=st.booleans())
def test_budget_segments_always_add_up_to_the_window(window: int, n: int, size: int, reserve: int,
                                                     fill: bool) -> None:
    records = [{"id": f"r{i}", "text": "word " * (size * (i % 3 + 1)), "topic": "t",
                "authority": "informal" if i % 2 else "authoritative", "valid_until": "2020-01-01" if i % 2 else None}
               for i in range(n)]
    records = [{k: v for k, v in r.items() if v is not None} for r in records]
    data = assemble(records, "q?", as_of="2026-01-01", tokenizer=TOK,
                    budget=Budget(context_window=window, output_reserve=reserve, safety_margin=16,
                                  fill_gaps=fill)).to_dict()
    segs = budget_segments(data)
    assert sum(t for _, _, t in segs) == window
    assert all(t >= 0 for _, _, t in segs) and "other" not in [k for k, _, _ in segs]


def test_a_budget_that_does_not_add_up_is_shown_not_hidden() -> None:
    data = demo_assembly()
    data["report"]["budget"]["context_window"] += 100
    segs = budget_segments(data)
    assert segs[-1] == ("other", "unaccounted", 100)
    assert "does not add up" in Page(inspector_html(data)).visible


# ------------------------------------------------------------------------------------------- the answer


def sentence_classes(source: str) -> dict[int, str]:
    return {int(a["data-sentence"]): (a["class"] or "").split()[1] for a in Page(source).all("span")
            if a.get("data-sentence")}


def test_answer_sentences_are_marked_by_their_findings() -> None:
    data = demo_assembly()
    source = inspector_html(data, DEMO_ANSWER)
    page = assert_inert(source)
    classes = sentence_classes(source)
    assert classes == {1: "f-ok", 2: "f-ok", 3: "f-error", 4: "f-error"}
    assert "\u2717 stale only" in page.visible and "\u2717 unknown handle" in page.visible  # text, not colour alone
    links = {a["data-cites"]: a["href"] for a in page.all("a") if a.get("data-cites")}
    assert links == {"S1": "#block-S1", "S2": "#block-S2", "S3": "#block-S3"}
    cited_blocks = [a["data-handle"] for a in page.all("article") if "cited" in (a.get("class") or "").split()]
    assert sorted(cited_blocks) == ["S1", "S2", "S3"]
    # the answer is shown whole: its visible text (markers aside) is the answer
    answer_html = source.split('<div class="answer">')[1].split("</div>")[0]
    text = re.sub(r"<sup class=\"sn\">\d+</sup>|<span class=\"tag[^\"]*\">[^<]*</span>", "", answer_html)
    assert Page(text).visible == DEMO_ANSWER
    # resolved sources: the three cited records, by id
    assert all(i in page.visible for i in ("hb-pto-carryover-2025", "slack-pto-carryover-2023"))


def test_citing_a_dropped_record_by_id_links_to_its_drop_reason() -> None:
    data = demo_assembly(exclude_superseded=True)
    page = Page(inspector_html(data, "Five days carry over [hb-pto-carryover-2024]. The PDF says so "
                                     "[hb-pto-carryover-2025-pdf]."))
    classes = sentence_classes(inspector_html(data, "Five days carry over [hb-pto-carryover-2024]."))
    assert classes == {1: "f-error"}
    assert "#rec-hb-pto-carryover-2024" in [a.get("href") for a in page.all("a")]
    # a duplicate cited by id does not borrow the copy that was sent: only handles are citations
    assert not [a for a in page.all("a") if a.get("data-cites")]
    assert "\u2717 record id, not a handle" in page.visible
    # an id above the caller's clearance is prose, like an id that does not exist: nothing confirms it exists
    classes = sentence_classes(inspector_html(data, "Severance is generous [hb-severance-2022]."))
    assert classes == {1: "f-warn"}


def test_answer_with_markup_stays_text() -> None:
    answer = " ".join(HTML_PAYLOADS) + " Unused PTO is forfeited [S1]."
    page = assert_inert(inspector_html(demo_assembly(), answer))
    assert visible("<script>window.__pwned = 1</script>") in page.visible


# ------------------------------------------------------------------------------------------- injection




def check_injected(records: list[dict[str, Any]], fmt: str, answer: str | None = None) -> None:
    data = assemble(records, "What applies? <script>q()</script>", as_of="2026-01-01", tokenizer=TOK,
                    boundary_key=b"k" * 16, budget=Budget(context_window=10**7),
                    layout=Layout(format=fmt, profile=["doc", "section", "date", "source_system", "topic", "url",
                                                       "authority", "note"])).to_dict()
    source = inspector_html(data, answer)
    page = assert_inert(source)
    source.encode("utf-8")  # lone surrogates and the like cannot break writing the page
    handles = {a["data-handle"] for a in page.all("article") if a.get("data-handle")}
    assert handles == {m["handle"] for m in data["manifest"]}
    listed = [li["data-record-id"] for li in page.all("li") if li.get("data-record-id")]
    dropped = [o["id"] for o in data["report"]["records"] if o["decision"] == "dropped"]
    assert sorted(listed) == sorted(visible_attr(i) for i in dropped) and dropped
    if fmt != "flat":
        sent = {b.handle: b.text for b in read_blocks(data["messages"][1]["content"], data["boundary"], fmt)}
        assert [t for cls, t in page.pre if cls == "text"] == [visible(sent[m["handle"]]) for m in data["manifest"]]
    assert "SECRET-CANARY" not in page.visible and "SECRET-DOC" not in page.visible
    for m in data["manifest"]:
        assert visible(m["id"]) in page.visible


def visible_attr(text: str) -> str:
    return "".join(f"U+{ord(c):04X}" if c not in "\t\n\r" and unicodedata.category(c) in
                   ("Cc", "Cf", "Cs", "Zl", "Zp") else c for c in text)


@pytest.mark.parametrize("fmt", ["text", "xml", "markdown", "json", "flat"])
def test_html_payloads_in_every_field_are_text(fmt: str) -> None:
    check_injected(injected_records(list(HTML_PAYLOADS)), fmt, answer=" ".join(HTML_PAYLOADS) + " [S1].")


def test_payload_corpus_is_text() -> None:
    payloads = [p for _, p in all_payloads()[::7]]
    for start in range(0, len(payloads), 60):
        check_injected(injected_records(payloads[start:start + 60]), "text")


def bipia_attacks() -> list[str]:
    if not BIPIA.is_file():
        pytest.skip(f"BIPIA attack strings not found at {BIPIA} (../shared/ only exists in the project's "
                    "workspace, not in a user's clone)")
    data = json.loads(BIPIA.read_text("utf-8"))
    return [attack for attacks in data.values() for attack in attacks]


def test_bipia_attacks_are_text() -> None:
    attacks = bipia_attacks()
    assert len(attacks) == 75
    check_injected(injected_records(attacks), "text", answer=" ".join(attacks[:10]) + " [S1].")
    check_injected(injected_records([f"<b>{a}</b><script>{a}</script>" for a in attacks[::5]]), "markdown")


def test_esc_shows_hidden_characters() -> None:
    assert esc("a\u200bb") == 'a<span class="ctl" title="invisible character U+200B">\u27e6U+200B\u27e7</span>b'
    assert esc("<&>\"'") == "&lt;&amp;&gt;&quot;&#x27;"
    assert esc("line\nnext\ttab") == "line\nnext\ttab"
    assert "\ud800" not in esc("x\ud800y") and "U+D800" in esc("x\ud800y")


# ------------------------------------------------------------------------------------------- CLI


def test_cli_inspect_and_assemble_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "r.jsonl"
    records.write_text("".join(json.dumps(r.to_dict()) + "\n" for r in demo_records()[0]))
    page_a = tmp_path / "a.html"
    assert main(["assemble", str(records), "-q", "Can I carry PTO over?", "--as-of", "2026-06-01", "--json",
                 "--html", str(page_a)]) == 0
    assembly = tmp_path / "assembly.json"
    assembly.write_text(capsys.readouterr().out)
    answer = tmp_path / "answer.txt"
    answer.write_text(DEMO_ANSWER)
    page_b = tmp_path / "b.html"
    assert main(["inspect", str(assembly), str(answer), "-o", str(page_b)]) == 0
    a, b = page_a.read_text(), page_b.read_text()
    assert_inert(a), assert_inert(b)
    assert 'id="answer"' in b and 'id="answer"' not in a
    # the page of the JSON equals the page of the assembly the JSON came from (same boundary, same bytes)
    assert inspector_html(json.loads(assembly.read_text())) == a
    assert main(["inspect", str(assembly)]) == 0 and capsys.readouterr().out == a
    assert main(["inspect", str(answer), "-o", str(tmp_path / "x.html")]) == 2
    assert "is not JSON" in capsys.readouterr().err
    (tmp_path / "list.json").write_text("[]")
    assert main(["inspect", str(tmp_path / "list.json")]) == 2
    assert "not an evidencepack assembly" in capsys.readouterr().err
