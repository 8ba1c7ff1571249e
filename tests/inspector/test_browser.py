"""The inspector and the eval report in a real browser (issue 13): headless Chromium from the system's
packages loads each page and the test checks what a person sees. Skips, saying why, where Chromium is not
installed (`./scripts/install-browser` installs it on Debian and Ubuntu)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chromium import BrowserUnavailable, Chromium, Page
from evidencepack import Budget, Layout, assemble
from evidencepack.data.demo import corpus
from evidencepack.eval.backends import Sampling, ScriptedBackend
from evidencepack.eval.datasets import load_traps
from evidencepack.eval.experiments import TrapRun
from evidencepack.eval.report_html import trap_report_html
from evidencepack.inspector.page import inspector_html
from evidencepack.render import read_blocks
from html_pages import (
    ALLOWED_TAGS,
    BIPIA,
    DEMO_ANSWER,
    HTML_PAYLOADS,
    META,
    PNG,
    TOK,
    demo_assembly,
    injected_records,
    visible,
)

#: Everything a person could see or a page could do, measured in the page.
FACTS = """(() => {
  const box = (e) => e.getBoundingClientRect();
  const all = [...document.querySelectorAll('*')];
  const bar = document.querySelector('.bar');
  return {
    window: bar ? Number(bar.dataset.window) : null,
    barInner: bar ? bar.clientWidth : null,
    segs: bar ? [...bar.querySelectorAll('.seg')].map(s => ({key: s.dataset.segment, tokens: Number(s.dataset.tokens),
                                                             width: box(s).width})) : [],
    blocks: [...document.querySelectorAll('article.block')].map(a => ({
      handle: a.dataset.handle, height: box(a).height,
      text: a.querySelector('pre.text') ? a.querySelector('pre.text').innerText : null})),
    dropped: [...document.querySelectorAll('li[data-record-id]')].map(li => ({id: li.dataset.recordId,
                                                                          text: li.innerText, height: box(li).height})),
    tags: [...new Set(all.map(e => e.localName))],
    onAttrs: all.flatMap(e => [...e.attributes].filter(a => a.name.startsWith('on'))
                                               .map(a => e.localName + '@' + a.name)),
    scripts: document.scripts.length,
    pwned: typeof window.__pwned,
    h1: [...document.querySelectorAll('h1')].map(h => h.innerText),
    text: document.body.innerText,
    unlabelled: [...document.querySelectorAll('.badge, .tag')].filter(e => !e.innerText.trim()).length,
    flagged: [...document.querySelectorAll('.sent[data-sentence].f-error, .sent[data-sentence].f-warn')]
             .map(e => e.innerText),
    danglingLinks: [...document.querySelectorAll('a[href^="#"]')].map(a => a.getAttribute('href'))
                   .filter(h => !document.getElementById(h.slice(1))),
    images: [...document.images].map(i => ({src: i.src.slice(0, 22), loaded: i.complete && i.naturalWidth > 0})),
  };
})()"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    try:
        b = Chromium.launch()
    except BrowserUnavailable as err:
        pytest.skip(f"browser test skipped: {err}")
    yield b
    b.close()


def load(browser: Chromium, tmp_path: Path, name: str, source: str, width: int = 1100) -> tuple[Page, dict[str, Any]]:
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    page = browser.open(path, width=width)
    return page, page.evaluate(FACTS)


def check_page(page: Page, facts: dict[str, Any]) -> None:
    """What every page must satisfy: only our elements, nothing executable, no console error, every internal
    link lands somewhere, every badge and finding has words (not colour alone), readable at 360 px."""
    assert set(facts["tags"]) <= ALLOWED_TAGS, set(facts["tags"]) - ALLOWED_TAGS
    assert facts["onAttrs"] == [] and facts["scripts"] == 0 and facts["pwned"] == "undefined"
    assert len(facts["h1"]) == 1
    assert page.console_errors == []
    assert facts["danglingLinks"] == []
    assert facts["unlabelled"] == 0
    assert all(("\u2717" in t or "!" in t) for t in facts["flagged"])
    assert all(i["loaded"] and i["src"] == "data:image/png;base64," for i in facts["images"])
    page.resize(360)
    narrow = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert narrow[0] <= narrow[1], f"horizontal scrolling at 360 px: {narrow}"
    page.resize(1100)


def check_bar(facts: dict[str, Any]) -> None:
    segs = facts["segs"]
    assert sum(s["tokens"] for s in segs) == facts["window"]
    assert sum(s["width"] for s in segs) == pytest.approx(facts["barInner"], abs=1)
    for s in segs:  # each part is as wide as its share of the window
        assert s["width"] == pytest.approx(facts["barInner"] * s["tokens"] / facts["window"], abs=1), s


def test_demo_page_shows_what_the_model_saw(browser: Chromium, tmp_path: Path) -> None:
    data = demo_assembly()
    page, facts = load(browser, tmp_path, "demo.html", inspector_html(data, DEMO_ANSWER))
    check_page(page, facts)
    check_bar(facts)
    sent = {b.handle: b.text for b in read_blocks(data["messages"][1]["content"], data["boundary"], data["format"])}
    assert [b["handle"] for b in facts["blocks"]] == [m["handle"] for m in data["manifest"]]
    for b in facts["blocks"]:
        assert b["height"] > 0 and b["text"] == sent[b["handle"]]
    dropped = [o["id"] for o in data["report"]["records"] if o["decision"] == "dropped"]
    assert sorted(d["id"] for d in facts["dropped"]) == sorted(dropped)
    assert all(d["height"] > 0 and d["id"] in d["text"] for d in facts["dropped"])
    assert len(facts["flagged"]) == 2
    assert "stale only" in facts["flagged"][0] and "unknown handle" in facts["flagged"][1]
    assert "S1 is authoritative and current" in facts["text"]  # the notice as sent


def test_injected_markup_stays_text_in_the_browser(browser: Chromium, tmp_path: Path) -> None:
    payloads = list(HTML_PAYLOADS)
    if BIPIA.is_file():
        payloads += [a for attacks in json.loads(BIPIA.read_text("utf-8")).values() for a in attacks]
    records = injected_records(payloads)
    data = assemble(records, "What applies? <script>window.__pwned=1</script>", as_of="2026-01-01", tokenizer=TOK,
                    boundary_key=b"k" * 16, budget=Budget(context_window=10**7),
                    layout=Layout(profile=["doc", "section", "source_system", "topic", "url", "authority",
                                           "note"])).to_dict()
    page, facts = load(browser, tmp_path, "injected.html",
                       inspector_html(data, " ".join(HTML_PAYLOADS) + " It applies [S1]."))
    check_page(page, facts)
    check_bar(facts)
    sent = {b.handle: b.text for b in read_blocks(data["messages"][1]["content"], data["boundary"], data["format"])}
    assert [b["handle"] for b in facts["blocks"]] == [m["handle"] for m in data["manifest"]]
    for b in facts["blocks"]:
        assert b["text"] == visible(sent[b["handle"]])
    dropped = [o["id"] for o in data["report"]["records"] if o["decision"] == "dropped"]
    assert len(facts["dropped"]) == len(dropped) == 2
    assert "SECRET" not in facts["text"]  # the restricted record: id and reason only
    assert "<script>window.__pwned = 1</script>" in facts["text"]  # shown, as text
    if not BIPIA.is_file():
        pytest.skip(f"HTML payloads checked; BIPIA attacks not found at {BIPIA} (../shared/ is only in the "
                    "project's workspace)")


def test_eval_report_page(browser: Chromium, tmp_path: Path) -> None:
    evil = " ".join(HTML_PAYLOADS)
    rows = TrapRun(ScriptedBackend(), load_traps()[:3], corpus(), Sampling(), None, ("flat", "structured")).run()
    rows += TrapRun(ScriptedBackend(rule=lambda m: evil), load_traps()[3:4], corpus(), Sampling(), None,
                    ("flat",)).run()
    page, facts = load(browser, tmp_path, "report.html", trap_report_html(rows, META, plots=[("traps.png", PNG)]))
    check_page(page, facts)
    assert len(facts["images"]) == 1
    for r in rows:
        assert visible(r["answer"]).strip() in facts["text"]
    links = page.evaluate("[...document.querySelectorAll('a[href^=\"#answer-\"]')].length")
    assert links == len(rows)


def test_pages_print_everything(browser: Chromium, tmp_path: Path) -> None:
    """In print, collapsed sections (the prompt as sent, a guard's first answer) are printed too."""
    page, _ = load(browser, tmp_path, "print.html", inspector_html(demo_assembly(), DEMO_ANSWER))
    shown = "[document.querySelector('pre.message').checkVisibility(), " \
            "document.querySelector('section[aria-labelledby=prompt]').getBoundingClientRect().height]"
    on_screen = page.evaluate(shown)
    assert on_screen[0] is False  # collapsed on screen
    page.send("Emulation.setEmulatedMedia", media="print")
    printed = page.evaluate(shown)
    assert printed[0] is True and printed[1] > on_screen[1] + 200
    page.send("Emulation.setEmulatedMedia", media="")


def test_the_checks_can_fail(browser: Chromium, tmp_path: Path) -> None:
    """The same checks on a page that did NOT escape a record: they see the element and the blocked handler."""
    source = inspector_html(demo_assembly()).replace(
        "<h2 id=\"budget\">", '<img src="x" onerror="window.__pwned=1"><h2 id="budget">', 1)
    page, facts = load(browser, tmp_path, "unescaped.html", source)
    assert "img" in facts["tags"] and facts["onAttrs"] == ["img@onerror"]
    assert facts["pwned"] == "undefined"  # the Content-Security-Policy still stopped it
    assert page.console_errors, "a blocked inline handler is reported on the console"
    with pytest.raises(AssertionError):
        check_page(page, facts)
