"""The HTML summary of `evidencepack batch-check`, in the inspector's style (its shell, escaping and
stylesheet), with each of the worst answers linked to its own inspector page (answer over assembly)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import EvidencepackError
from ..inspector.html import attr, esc, page, table
from ..inspector.page import inspector_html

if TYPE_CHECKING:
    from .check import AssemblyIndex, CheckSettings


def _pct(value: Any) -> str:
    return "–" if value is None else f"{value:.1%}"


def summary_html(summary: Mapping[str, Any], links: Mapping[str, str]) -> str:
    """The page body for a summary (`check.summary`); `links` maps a worst answer's id to its page."""
    s = summary
    lede = (f"{s['checked']} answers checked of {s['answer_lines']} answer lines: {s['valid']} valid "
            f"({_pct(s['valid_rate'])}), mean coverage {_pct(s['coverage'])}.")
    head = f'<header>\n<h1>Batch check</h1>\n<p class="lede">{esc(lede)}</p>\n</header>'
    figures = [("valid", s["valid"], s["valid_rate"]),
               ("resting only on weak sources", s["weak_only"]["answers"], s["weak_only"]["rate"]),
               ("delivered a conflict", s["conflicts_delivered"]["answers"], s["conflicts_delivered"]["rate"])]
    rows = [(esc(name), esc(n), esc(_pct(rate))) for name, n, rate in figures]
    if s["attributed_coverage"] is not None:
        rows.append((esc("attributed coverage (mean)"), "", esc(_pct(s["attributed_coverage"]))))
    rows.append((esc("valid, among answers that were delivered a conflict"), "",
                 esc(_pct(s["conflicts_delivered"]["valid_rate"]))))
    parts = [head, '<section id="figures"><h2>Figures</h2>', table(("", "answers", "rate"), rows), "</section>"]
    frows = [(f"<code>{esc(k)}</code>", esc(v["answers"]), esc(_pct(v["rate"])), esc(v["findings"]))
             for k, v in s["findings"].items()]
    parts += ['<section id="findings"><h2>Findings</h2>',
              table(("kind", "answers with it", "rate", "findings"), frows), "</section>"]
    prows = [(esc(k.replace("_", " ")), esc(v["count"]), esc(", ".join(map(str, v["shown"][:10]))
                                                           + (" …" if v["count"] > 10 else "")))
             for k, v in s["problems"].items() if v["count"]]
    parts += ['<section id="problems"><h2>Lines not checked</h2>',
              table(("problem", "count", "ids or lines (first 10)"), prows) if prows
              else "<p>None: every answer line named an assembly and carried an answer.</p>", "</section>"]
    wrows = []
    for w in s["worst"]:
        rid = str(w["id"])
        name = f'<a href="{attr(links[rid])}">{esc(rid)}</a>' if rid in links else esc(rid)
        verdict = '<span class="badge ok">valid</span>' if w["valid"] else '<span class="badge bad">invalid</span>'
        wrows.append((name, verdict, esc(w["errors"]), esc(w["warnings"]), esc(_pct(w["coverage"]))))
    parts += ['<section id="worst"><h2>Worst answers</h2>',
              table(("id", "verdict", "errors", "warnings", "coverage"), wrows) if wrows else "<p>None checked.</p>",
              "</section>",
              "<footer><p>Written by evidencepack batch-check. This page loads nothing from the network and runs "
              "no script.</p></footer>"]
    return page("Batch check: evidencepack", "\n".join(parts))


def write_pages(path: Path, summary: Mapping[str, Any], worst: Sequence[Mapping[str, Any]], index: AssemblyIndex,
                settings: CheckSettings) -> None:
    """The summary page at `path`, and one inspector page per worst answer in `<stem>-answers/`."""
    folder = path.with_name(path.stem + "-answers")
    links: dict[str, str] = {}
    for n, w in enumerate(worst, start=1):
        rid = str(w["id"])
        try:
            html = inspector_html(index.read(rid), w["answer"], severities=settings.severities,
                                  attribute=settings.attribute, title=f"Answer {rid}: evidencepack inspector")
        except (EvidencepackError, ValueError):
            continue
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{n:04d}.html"  # never the id: an id is not a safe file name
        (folder / name).write_text(html, encoding="utf-8")
        links[rid] = f"{folder.name}/{name}"
    path.write_text(summary_html(summary, links), encoding="utf-8")
