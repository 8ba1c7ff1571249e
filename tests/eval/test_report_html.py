"""`report.html` beside `report.md` (issue 13): the same numbers, plots inline, every answer beside its
verdict and one link away from the verdict table, model output escaped."""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import re
from pathlib import Path

import pytest

from evidencepack.data.demo import corpus
from evidencepack.eval.backends import Sampling, ScriptedBackend
from evidencepack.eval.cli import add_parser, run
from evidencepack.eval.datasets import load_traps
from evidencepack.eval.experiments import TrapRun, default_validator
from evidencepack.eval.report import fmt_rate, trap_metrics
from evidencepack.eval.report_html import sweep_report_html, trap_report_html
from html_pages import HTML_PAYLOADS, META, PNG, Page, assert_inert, visible


def cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="evidencepack")
    add_parser(parser.add_subparsers(dest="command", required=True))
    return run(parser.parse_args(["eval", *argv]))


def answer_links(page: Page) -> list[str]:
    return [a["href"][1:] for a in page.all("a") if (a.get("href") or "").startswith("#answer-")]


def test_traps_cli_writes_report_html_with_every_answer_beside_its_verdict(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert cli("traps", "--backend", "scripted", "--out", str(out), "--conditions", "flat,structured,structured+guard",
               "--limit", "5", "--no-plots", "--quiet") == 0
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    page = assert_inert((out / "report.html").read_text())
    articles = {a["id"]: a for a in page.all("article")}
    links = answer_links(page)
    assert len(links) == len(rows) == len(articles) and set(links) == set(articles)  # one click per answer
    assert "SCRIPTED BACKEND" in page.visible
    for r in rows:
        assert visible(r["answer"]) in page.visible
    # the rates are the report's own figures
    m = trap_metrics(rows)
    for cond in ("flat", "structured"):
        assert fmt_rate(m[cond]["stale"]) in page.visible and fmt_rate(m[cond]["current_correct"]) in page.visible


def test_each_verdict_badge_sits_with_its_answer() -> None:
    rows = TrapRun(ScriptedBackend(), load_traps()[:3], corpus(), Sampling(), None, ("flat", "structured")).run()
    source = trap_report_html(rows, META)
    for r in rows:
        article = source.split(f'<article id="answer-{r["question"]}.2e.{r["condition"]}">')[1].split("</article>")[0]
        assert re.search(rf'class="badge (ok|bad|warn|none)">[^<]*{r["verdict"]}</span>', article), r["verdict"]
        assert Page(article).visible.count(r["answer"]) == 1


def test_model_output_is_escaped_and_plots_are_inline() -> None:
    evil = " ".join(HTML_PAYLOADS) + " See [S9]."  # an unknown handle: the guard regenerates
    rows = TrapRun(ScriptedBackend(rule=lambda m: evil), load_traps()[:2], corpus(), Sampling(), None,
                   ("flat", "structured+guard"), validator=default_validator()).run()
    assert all(r["guard"]["regenerated"] for r in rows if r["condition"] == "structured+guard")
    source = trap_report_html(rows, META, notes="<script>notes()</script> judge audit",
                              plots=[("traps.png", PNG)])
    page = assert_inert(source)
    assert visible(evil) in page.visible and "<script>notes()</script> judge audit" in page.visible
    imgs = page.all("img")
    assert len(imgs) == 1 and imgs[0]["src"] == "data:image/png;base64," + base64.b64encode(PNG).decode()
    skipped = Page(trap_report_html(rows, META, plot_note="plots skipped: matplotlib is not installed"))
    assert not skipped.all("img") and "plots skipped" in skipped.visible


def test_positions_report_html(tmp_path: Path) -> None:
    data = tmp_path / "kv.jsonl.gz"
    pairs = [[f"0000-key-{i:02d}", f"value-{i:02d}"] for i in range(12)]
    with gzip.open(data, "wt") as fh:
        for n in range(2):
            fh.write(json.dumps({"ordered_kv_records": pairs, "key": pairs[n][0], "value": pairs[n][1]}) + "\n")
    out = tmp_path / "pos"
    assert cli("positions", "--backend", "scripted", "--data", str(data), "--k", "4", "--questions", "2",
               "--out", str(out), "--no-plots", "--quiet") == 0
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    page = assert_inert((out / "report.html").read_text())
    assert len(page.all("article")) == len(rows) and "k = 4 distractors" in page.visible
    assert page.visible.count("\u2713 correct") == sum(bool(r["correct"]) for r in rows)
    assert page.visible.count("\u2717 wrong") == sum(r["correct"] is False for r in rows)
    assert sweep_report_html(rows, META).count("<article") == len(rows)


@pytest.mark.parametrize("is_model", [True, False])
def test_scripted_banner_only_for_scripted_runs(is_model: bool) -> None:
    rows = TrapRun(ScriptedBackend(), load_traps()[:1], corpus(), Sampling(), None, ("flat",)).run()
    page = Page(trap_report_html(rows, {**META, "is_model": is_model}))
    assert ("SCRIPTED BACKEND" in page.visible) is (not is_model)
