"""The assembly inspector: one self-contained HTML page that shows what the model saw, and why.

It reads only the CLI's JSON contract (`Assembly.to_dict()`, see the README), never the passes' classes, so
it keeps working while they change; nothing in the passes knows about HTML. The page shows the budget as
one bar, the blocks in seat order with their header and text as sent, every dropped record grouped by
reason, the conflict groups with the notice as sent, and, given an answer, each sentence marked by its
citation finding with every citation linked to its block. Records above the caller's clearance appear as
the report shows them: id and reason. All text is escaped (see `_html.esc`); the page has no script.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Mapping
from itertools import takewhile
from pathlib import Path
from typing import Any

from ..citations import Verdict, validate_citations
from ..citations.severities import Severities, Severity, severities_of
from ..errors import AssemblyFormatError
from ..render import read_blocks
from .html import anchor, attr, esc, page, pre, safe_url, table

# (css key, label) of the budget bar, left to right: what is spent before the sources, the sources, what is
# held back for the answer, what is left.
SEGMENTS: tuple[tuple[str, str], ...] = (
    ("system", "system prompt"), ("question", "question"), ("sources", "sources"), ("notice", "conflict notice"),
    ("output", "output reserve"), ("margin", "safety margin"), ("unused", "unused"),
)

DROP_REASONS: dict[str, str] = {
    "above_clearance": "above the caller's clearance: only the id is shown, as in the report",
    "expired_excluded": "expired at the as-of date, and expired records were excluded",
    "not_yet_valid_excluded": "not yet valid at the as-of date, and such records were excluded",
    "superseded_excluded": "authority superseded, and superseded records were excluded",
    "injection_suspected": "injection score above the threshold",
    "duplicate": "collapsed into a higher-ranked copy",
    "over_budget": "did not fit the retrieval budget",
    "larger_than_budget": "larger than the whole retrieval budget",
    "max_records": "beyond the maximum number of records",
}

_STATUS = {"current": ("ok", "\u2713 current"), "expired": ("bad", "\u2717 expired"),
           "not_yet_valid": ("warn", "\u25f7 not yet valid")}
_AUTHORITY = {"authoritative": ("ok", "\u2713 authoritative"), "informal": ("warn", "! informal"),
              "superseded": ("bad", "\u2717 superseded"), "unknown": ("none", "? unknown authority")}
_FINDING_LABEL = {"unknown_handle": "unknown handle", "record_id": "record id, not a handle",
                  "excluded_source": "dropped source", "uncited": "uncited", "stale_only": "stale only",
                  "unsupported_value": "value not in its sources"}


def load_assembly(path: str | Path) -> dict[str, Any]:
    """Read the JSON `evidencepack assemble --json` printed; a wrong file is an `AssemblyFormatError`."""
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except json.JSONDecodeError as err:
        raise AssemblyFormatError(f"{path} is not JSON: {err.msg} (line {err.lineno})") from None
    if not isinstance(data, dict):
        raise AssemblyFormatError(f"{path} is not an evidencepack assembly")
    return data


def inspector_html(assembly: Any, answer: str | None = None, *,
                   severities: Severities | Mapping[str, Severity] | None = None, title: str | None = None,
                   attribute: bool = False, uncited: Severity | None = None, stale_only: Severity | None = None,
                   unsupported_value: Severity | None = None) -> str:
    """The inspector page for an assembly (an `Assembly` or its `to_dict()`), optionally with an answer
    whose citations are validated against it at `severities` (as `validate_citations` takes them; the per-kind
    keywords warn, as there); with `attribute=True`, uncited sentences are shown with the sources attributed
    to them. Deterministic: same input, same bytes."""
    levels = severities_of(severities, uncited=uncited, stale_only=stale_only, unsupported_value=unsupported_value)
    data = assembly if isinstance(assembly, Mapping) else assembly.to_dict()
    verdict = None
    if answer is not None:  # checks the manifest and report first: AssemblyFormatError when malformed
        verdict = validate_citations(answer, data, severities=levels, attribute=attribute)
    try:
        return _page(_View.of(data), answer, verdict, title)
    except (KeyError, TypeError, AttributeError, ValueError) as err:  # a hand-edited or foreign JSON file
        raise AssemblyFormatError(f"not an evidencepack assembly (missing or malformed {err})") from None


def _page(view: _View, answer: str | None, verdict: Verdict | None, title: str | None) -> str:
    cited = _cited_by(verdict, view) if verdict else {}
    parts = [_summary(view, verdict)]
    if answer is not None and verdict is not None:
        parts.append(_answer(view, answer, verdict))
    parts += [_budget(view), _blocks(view, cited), _conflicts(view), _dropped(view), _prompt(view)]
    parts.append(f'<footer><p>Written by evidencepack from an assembly of schema {esc(view.schema)}. '
                 "This page loads nothing from the network and runs no script.</p></footer>")
    return page(title or "What the model saw: evidencepack inspector", "\n".join(parts))


def write_inspector(path: str | Path, assembly: Any, answer: str | None = None, *,
                    severities: Severities | Mapping[str, Severity] | None = None, title: str | None = None,
                    attribute: bool = False) -> Path:
    """Write the page (UTF-8) and return its path."""
    out = Path(path)
    page = inspector_html(assembly, answer, severities=severities, title=title, attribute=attribute)
    out.write_text(page, encoding="utf-8")
    return out


# ------------------------------------------------------------------------------------------------- model


class _View:
    """The assembly's JSON, indexed for rendering (a plain holder; nothing here mutates `data`)."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data = data
        self.schema = data.get("schema", "?")
        self.report = data["report"]
        self.budget: Mapping[str, int] = self.report["budget"]
        self.tokens: Mapping[str, Any] = self.report.get("tokens") or {}
        self.settings: Mapping[str, Any] = self.report.get("settings") or {}
        self.manifest: list[Mapping[str, Any]] = sorted(data["manifest"], key=lambda m: m.get("position") or 0)
        self.outcomes: list[Mapping[str, Any]] = list(self.report["records"])
        self.handle_of = {m["id"]: m["handle"] for m in self.manifest}
        self.by_id = {m["id"]: m for m in self.manifest}
        self.format = str(data.get("format") or self.settings.get("format") or "text")
        self.boundary = str(data.get("boundary") or "")
        messages = data.get("messages") or []
        self.messages: list[Mapping[str, Any]] = [m for m in messages if isinstance(m, Mapping)]
        self.user = next((str(m.get("content", "")) for m in reversed(self.messages) if m.get("role") == "user"),
                         str(data.get("prompt") or ""))
        self.blocks = self._blocks()

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> _View:
        for key in ("manifest", "report"):
            if key not in data:
                raise KeyError(key)
        for key in ("records", "budget"):
            if key not in data["report"]:
                raise KeyError(f"report.{key}")
        return cls(data)

    def _blocks(self) -> dict[str, tuple[str, str]]:
        """handle -> (header as sent, text as sent), read back from the user message."""
        if self.format == "flat" or not self.boundary:
            return {}
        try:
            return {b.handle: (b.header, b.text) for b in read_blocks(self.user, self.boundary, self.format)}
        except (ValueError, KeyError):  # a format this version cannot read back: show the prompt instead
            return {}

    @property
    def question(self) -> str | None:
        i = self.user.rfind("\n\nQuestion: ")
        return self.user[i + len("\n\nQuestion: "):] if i >= 0 else None

    @property
    def notice(self) -> str:
        """The conflict notice exactly as it sits above the sources (empty when there is none)."""
        if not self.tokens.get("notice"):
            return ""
        m = re.search(r"^Notice: ", self.user, re.MULTILINE)
        if not m:
            return ""
        lines = self.user[m.start():].split("\n")
        return "\n".join([lines[0], *takewhile(lambda s: s.startswith("- "), lines[1:])])


def _cited_by(verdict: Verdict, view: _View) -> dict[str, list[int]]:
    """handle -> sentence indexes that cite it (validly)."""
    out: dict[str, list[int]] = defaultdict(list)
    for c in verdict.citations:
        h = view.handle_of.get(c.record_id) if c.record_id else None
        if h and c.sentence not in out[h]:
            out[h].append(c.sentence)
    return dict(out)


# ------------------------------------------------------------------------------------------------- parts


def _summary(view: _View, verdict: Verdict | None) -> str:
    s = view.settings
    included = sum(o.get("decision") == "included" for o in view.outcomes)
    b = view.budget
    nav = ['<a href="#answer">Answer</a>'] if verdict is not None else []
    nav += ['<a href="#budget">Budget</a>', '<a href="#sources">Sources</a>', '<a href="#conflicts">Conflicts</a>',
            '<a href="#dropped">Dropped</a>', '<a href="#prompt">Prompt as sent</a>']
    rows = [("as of", s.get("as_of")), ("tokenizer", s.get("tokenizer")), ("format", view.format),
            ("order", s.get("order")), ("profile", s.get("profile")), ("clearance", s.get("clearance")),
            ("conflict policy", s.get("conflict_policy")), ("marking", s.get("marking")),
            ("boundary code", view.boundary or None)]
    kv = "".join(f"<div><dt>{esc(k)}</dt><dd>{esc(_plain(v))}</dd></div>" for k, v in rows if v not in (None, ""))
    q = view.question
    return (
        "<header>\n<h1>What the model saw</h1>\n"
        f'<p class="lede">evidencepack assembly inspector: {len(view.outcomes)} records in, {included} included, '
        f"{len(view.outcomes) - included} dropped; prompt {esc(b.get('prompt_tokens', '?'))} tokens of a "
        f"{esc(b.get('context_window', '?'))}-token window.</p>\n"
        + (f'<p class="question"><strong>Question:</strong> {esc(q)}</p>\n' if q is not None else "")
        + f'<dl class="chips">{kv}</dl>\n'
        f'<nav aria-label="Sections"><p>{" · ".join(nav)}</p></nav>\n</header>'
    )


def _plain(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return ", ".join(map(str, v))
    return str(v)


def budget_segments(data: Mapping[str, Any]) -> list[tuple[str, str, int]]:
    """(key, label, tokens) of the budget bar. They sum to the context window; should a report ever not
    add up, the gap shows as its own segment ("unaccounted") rather than being hidden."""
    b = data["report"]["budget"]
    notice = int((data["report"].get("tokens") or {}).get("notice") or 0)
    values = {"system": b["system_prompt"], "question": b["question"], "sources": b["used"] - notice,
              "notice": notice, "output": b["output_reserve"], "margin": b["safety_margin"],
              "unused": max(b["left"], 0)}
    segs = [(k, label, int(values[k])) for k, label in SEGMENTS]
    gap = int(b["context_window"]) - sum(t for _, _, t in segs)
    if gap:
        segs.append(("other", "unaccounted" if gap > 0 else "over the window", gap))
    return segs


def _budget(view: _View) -> str:
    b = view.budget
    window = int(b["context_window"])
    segs = budget_segments(view.data)
    bar = []
    rows = []
    for key, label, tokens in segs:
        share = 100 * max(tokens, 0) / window if window else 0
        bar.append(f'<div class="seg s-{key}" style="width:{share:.4f}%" data-segment="{key}" '
                   f'data-tokens="{tokens}" title="{attr(label)}: {tokens} tokens ({share:.1f} %)">'
                   f"{esc(label) if share >= 7 else ''}</div>")
        rows.append((f'<span class="swatch s-{key}"></span>{esc(label)}', f"{tokens:,}", f"{share:.1f} %"))
    rows.append(("<strong>context window</strong>", f"<strong>{window:,}</strong>", "100 %"))
    described = "; ".join(f"{label} {tokens}" for _, label, tokens in segs)
    warn = ""
    if any(k == "other" for k, _, _ in segs):
        warn = ('<p class="badge bad">\u2717 the report\'s budget does not add up to the window; the difference '
                "is shown as its own segment</p>")
    t = view.tokens
    fields = t.get("fields") or {}
    breakdown = ""
    if t:
        breakdown = (
            f"<p>Source tokens: {esc(t.get('blocks', '?'))} in blocks = {esc(t.get('text', '?'))} record text + "
            f"{esc(t.get('headers_and_delimiters', '?'))} headers and delimiters; conflict notice "
            f"{esc(t.get('notice', 0))}. Retrieval budget {esc(b.get('retrieval_budget', '?'))}: used "
            f"{esc(b.get('used', '?'))}, left {esc(b.get('left', '?'))}.</p>"
        )
    fields_table = ""
    if fields:
        fields_table = table(["header field", "tokens"], [(esc(k), esc(v)) for k, v in fields.items()],
                             caption="Header fields, all blocks", cls="fields")
    return (
        '<section aria-labelledby="budget"><h2 id="budget">Budget</h2>\n'
        f'<div class="bar" role="img" data-window="{window}" aria-label="Context window of {window} tokens: '
        f'{attr(described)}">{"".join(bar)}</div>\n{warn}'
        + '<div class="cols">' + table(["part", "tokens", "share"], rows, caption="The bar, left to right",
                                       cls="budget")
        + fields_table + "</div>" + breakdown + "</section>"
    )


def _badges(entry: Mapping[str, Any], sensitivity: bool = True) -> str:
    out = []
    status = entry.get("status")
    if status:
        cls, text = _STATUS.get(status, ("none", str(status)))
        out.append(f'<span class="badge {cls}">status: {esc(text)}</span>')
    auth = entry.get("authority")
    if auth:
        cls, text = _AUTHORITY.get(auth, ("none", str(auth)))
        out.append(f'<span class="badge {cls}">authority: {esc(text)}</span>')
    if sensitivity and entry.get("sensitivity"):
        out.append(f'<span class="badge info">sensitivity: {esc(entry["sensitivity"])}</span>')
    return "".join(out)


def _blocks(view: _View, cited: Mapping[str, list[int]]) -> str:
    if not view.manifest:
        return ('<section aria-labelledby="sources"><h2 id="sources">Sources in seat order</h2>'
                "<p>No record was included: the model saw no sources.</p></section>")
    out = ['<section aria-labelledby="sources"><h2 id="sources">Sources in seat order</h2>',
           f"<p>{len(view.manifest)} blocks, first seat first, each as the model read it. Rank is the retriever's "
           "order (1 = best); the seat is where the block sits in the prompt.</p>"]
    for m in view.manifest:
        handle = str(m["handle"])
        classes = ["block", f"st-{_cls(m.get('status'))}", f"au-{_cls(m.get('authority'))}"]
        if handle in cited:
            classes.append("cited")
        kv = "".join(f"<div><dt>{esc(k)}</dt><dd>{v}</dd></div>" for k, v in _block_fields(view, m, cited))
        out.append(
            f'<article class="{" ".join(classes)}" id="{anchor("block", handle)}" data-handle="{attr(handle)}">'
            f"<details open><summary><h3>[{esc(handle)}] {esc(m.get('doc') or m.get('id'))}</h3></summary>"
            f'<p class="meta"><span class="badge info">seat {esc(m.get("position"))}</span>'
            f'<span class="badge none">rank {esc(m.get("rank"))}</span>'
            f'<span class="badge none">{esc(m.get("tokens"))} tokens</span>{_badges(m)}</p>'
            f'<dl class="chips">{kv}</dl>{_block_body(view, handle)}</details></article>'
        )
    out.append("</section>")
    return "\n".join(out)


def _block_fields(view: _View, m: Mapping[str, Any], cited: Mapping[str, list[int]]) -> list[tuple[str, str]]:
    """The chips of one block: (label, HTML) for each field it has."""
    handle = str(m["handle"])
    neutralised = view.report.get("neutralised") or {}
    scores = view.report.get("injection_scores") or {}
    url = safe_url(m.get("url"))
    fields = [("record id", f"<code>{esc(m.get('id'))}</code>")]
    for key, label in (("doc", "doc"), ("section", "section"), ("date", "date"),
                       ("source_system", "source"), ("topic", "topic")):
        if m.get(key) not in (None, ""):
            fields.append((label, esc(m[key])))
    if m.get("url"):
        fields.append(("url", f'<a href="{attr(url)}" rel="noreferrer noopener">{esc(url)}</a>' if url
                       else f"{esc(m['url'])} (not a web link)"))
    absorbed = m.get("absorbed") or []
    if absorbed:
        fields.append(("absorbed duplicates", ", ".join(
            f'<a href="#{anchor("rec", a)}"><code>{esc(a)}</code></a>' for a in absorbed)))
    rid = m.get("id")
    if neutralised.get(rid):
        fields.append(("neutralised", '<span class="badge warn">! ' + esc(", ".join(
            f"{k} \u00d7{v}" for k, v in neutralised[rid].items() if v)) + "</span>"))
    if rid in scores:
        fields.append(("injection score", esc(f"{scores[rid]:.2f}" if isinstance(scores[rid], float)
                                              else scores[rid])))
    if handle in cited:
        fields.append(("cited in the answer", ", ".join(
            f'<a href="#{anchor("sentence", i + 1)}">sentence {i + 1}</a>' for i in cited[handle])))
    return fields


def _block_body(view: _View, handle: str) -> str:
    """The header and text of a block as sent, when the format lets them be read back."""
    sent = view.blocks.get(handle)
    if sent is None:
        return ('<p class="meta">This format has no delimited blocks to read back; the text is in '
                '<a href="#prompt">the prompt as sent</a>.</p>')
    header, text = sent
    return ((f'<p class="meta">Header as sent:</p>{pre(header, "header")}' if header else "")
            + f'<p class="meta">Text as sent:</p>{pre(text, "text")}')


def _cls(value: Any) -> str:
    return re.sub(r"[^a-z_]", "", str(value or "none").lower()) or "none"


def _handle_link(view: _View, handle: str) -> str:
    if handle in view.handle_of.values():
        return f'<a href="#{anchor("block", handle)}">{esc(handle)}</a>'
    return esc(handle)


def _conflicts(view: _View) -> str:
    groups = view.report.get("conflicts") or []
    out = ['<section aria-labelledby="conflicts"><h2 id="conflicts">Conflicts</h2>']
    if not groups:
        out.append("<p>No conflict groups: no topic had a current authoritative record beside stale or informal "
                   "ones.</p>")
    for g in groups:
        current = ", ".join(_handle_link(view, h) for h in g.get("current") or [])
        others = "".join(f"<li>{_handle_link(view, o.get('handle'))}: "
                         + ", ".join(f'<span class="badge warn">{esc(r)}</span>' for r in o.get("reasons") or [])
                         + "</li>" for o in g.get("others") or [])
        topic = g.get("topic")
        out.append(f'<h3>Topic {esc(topic) if topic else "(grouped by embedding)"}</h3>'
                   f'<p><span class="badge ok">\u2713 current and authoritative</span> {current}</p>'
                   f'<ul class="plain">{others}</ul>')
    notice = view.notice
    if notice:
        out.append(f'<p>The notice as the model saw it, above the sources ({esc(view.tokens.get("notice"))} '
                   f'tokens):</p>{pre(notice, "notice")}')
    elif groups:
        out.append("<p>No notice was put above the sources for these groups.</p>")
    out.append("</section>")
    return "\n".join(out)


def _dropped(view: _View) -> str:
    dropped = [o for o in view.outcomes if o.get("decision") != "included"]
    out = ['<section aria-labelledby="dropped"><h2 id="dropped">Dropped records</h2>']
    if not dropped:
        out.append("<p>Every record was included.</p></section>")
        return "\n".join(out)
    by: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for o in dropped:
        by[str(o.get("reason"))].append(o)
    order = [r for r in DROP_REASONS if r in by] + sorted(r for r in by if r not in DROP_REASONS)
    out.append(f"<p>{_count(len(dropped), 'record')} never reached the model, by reason:</p>")
    for reason in order:
        items = []
        for o in by[reason]:
            rid = o.get("id")
            line = f"<code>{esc(rid)}</code>"
            if reason != "above_clearance":  # id and reason only, as the report shows it
                line += f' <span class="badge none">rank {esc(o.get("rank"))}</span>'
                kept = o.get("duplicate_of")
                if kept:
                    h = view.handle_of.get(kept)
                    target = (f'<a href="#{anchor("block", h)}"><code>{esc(kept)}</code> [{esc(h)}]</a>' if h
                              else f'<a href="#{anchor("rec", kept)}"><code>{esc(kept)}</code></a>')
                    line += f" duplicate of {target}"
                if o.get("detail"):
                    line += f" ({esc(o['detail'])})"
            items.append(f'<li id="{anchor("rec", rid)}" data-record-id="{attr(rid)}">{line}</li>')
        out.append(f'<h3><span class="badge bad">\u2717 {esc(reason)}</span> {len(by[reason])}</h3>'
                   f'<p class="meta">{esc(DROP_REASONS.get(reason, "reason given by the assembler"))}</p>'
                   f'<ul class="plain">{"".join(items)}</ul>')
    out.append("</section>")
    return "\n".join(out)


# ------------------------------------------------------------------------------------------------- answer


def _answer(view: _View, answer: str, verdict: Verdict) -> str:
    status = ('<span class="badge ok">\u2713 valid</span>' if verdict.valid
              else '<span class="badge bad">\u2717 INVALID</span>')
    summary = (f"<p>{status} coverage {verdict.coverage:.0%} of stating sentences; "
               f"{_count(len(verdict.citations), 'citation')}; {_count(len(verdict.findings), 'finding')}.</p>")
    legend = ('<p class="meta">Sentences: <span class="sent f-ok">\u2713 cited</span> '
              '<span class="sent f-warn">! warning</span> <span class="sent f-error">\u2717 error</span> '
              "(unmarked: nothing to check, such as a greeting). Each citation links to its block.</p>")
    rows = [(f'<a href="#{anchor("sentence", f.sentence + 1)}">{f.sentence + 1}</a>',
             f'<span class="badge {"bad" if f.severity == "error" else "warn"}">{esc(f.severity)}</span>',
             esc(_FINDING_LABEL.get(f.kind, f.kind)), esc(f.message)) for f in verdict.findings]
    findings = (table(["sentence", "severity", "kind", "message"], rows, cls="findings") if rows
                else "<p>No findings.</p>")
    return (
        '<section aria-labelledby="answer"><h2 id="answer">Answer</h2>\n' + summary + legend
        + f'<div class="answer">{_AnswerMarkup(view, answer, verdict).html()}</div>\n'
        + '<h3 class="sub">Findings</h3>' + findings
        + '<h3 class="sub">Resolved sources</h3>' + _resolved_sources(view, verdict)
        + (f"<p class=\"meta\">Attributed by content (the model cited nothing there): "
           f"{esc(', '.join(verdict.attributed_ids)) or 'none'}; attributed coverage "
           f"{verdict.attributed_coverage:.0%}.</p>" if verdict.attributed_coverage is not None else
           "<p class=\"meta\">Uncited sentences are not attributed here (run with --attribute).</p>")
        + "</section>"
    )


def _resolved_sources(view: _View, verdict: Verdict) -> str:
    resolved = []
    for rid in verdict.cited_ids:
        h = view.handle_of.get(rid)
        entry = view.by_id.get(rid, {})
        url = safe_url(entry.get("url"))
        label = esc(entry.get("doc") or rid) + (f", \u00a7{esc(entry['section'])}" if entry.get("section") else "")
        link = f' <a href="{attr(url)}" rel="noreferrer noopener">{esc(url)}</a>' if url else ""
        resolved.append(f'<li>{_handle_link(view, h) if h else ""} <code>{esc(rid)}</code>: {label}{link} '
                        f"{_badges(entry, sensitivity=False)}</li>")
    return (f'<ul class="plain">{"".join(resolved)}</ul>' if resolved
            else "<p>The answer cites no source that was sent.</p>")


class _AnswerMarkup:
    """The answer as HTML: each sentence marked by its findings, each citation group linked to its block."""

    def __init__(self, view: _View, answer: str, verdict: Verdict) -> None:
        self.view, self.answer, self.verdict = view, answer, verdict
        self.by_sentence: dict[int, list[Any]] = defaultdict(list)
        for f in verdict.findings:
            self.by_sentence[f.sentence].append(f)
        self.groups: dict[tuple[int, int], list[Any]] = defaultdict(list)
        for c in verdict.citations:
            self.groups[(c.start, c.end)].append(c)
        self.spans = sorted(self.groups)
        self.valid_sentences = {c.sentence for c in verdict.citations if c.record_id}
        self.guessed = {x.sentence: x.handles for x in verdict.support if not x.written and x.handles}
        self.bad_spans = {(f.start, f.end): f for f in verdict.findings
                          if f.kind in ("unknown_handle", "record_id", "excluded_source")}

    def html(self) -> str:
        parts, pos = [], 0
        for s in self.verdict.sentences:
            parts.append(self.span(pos, s.start))
            parts.append(self.sentence(s.index, s.start, s.end))
            pos = s.end
        parts.append(self.span(pos, len(self.answer)))
        return "".join(parts)

    def sentence(self, index: int, start: int, end: int) -> str:
        fs = self.by_sentence.get(index, [])
        if any(f.severity == "error" for f in fs):
            cls = "f-error"
        elif fs:
            cls = "f-warn"
        elif index in self.valid_sentences:
            cls = "f-ok"
        else:
            cls = "f-none"
        tags = "".join(_tag(f.severity, _FINDING_LABEL.get(f.kind, f.kind))
                       for f in fs if f.kind in ("uncited", "stale_only", "unsupported_value"))
        if cls == "f-ok":
            tags += '<span class="tag ok">\u2713 cited</span>'
        if index in self.guessed:
            tags += f'<span class="tag warn">\u2248 attributed: {esc(", ".join(self.guessed[index]))}</span>'
        return (f'<span class="sent {cls}" id="{anchor("sentence", index + 1)}" '
                f'data-sentence="{index + 1}"><sup class="sn">{index + 1}</sup>'
                f"{self.span(start, end)}{tags}</span>")

    def cite(self, start: int, end: int) -> str:
        members = self.groups[(start, end)]
        text = esc(self.answer[start:end])
        if len(members) == 1:
            return _cite_one(self.view, members[0], text, self.bad_spans)
        links = ", ".join(_cite_one(self.view, c, esc(c.handle), self.bad_spans) for c in members)
        return f'<span class="cite-group">{text}</span> <small>({links})</small>'

    def span(self, a: int, b: int) -> str:
        """answer[a:b] with the citation groups that lie wholly inside it linked."""
        out, pos = [], a
        for s, e in self.spans[bisect_left(self.spans, (a, -1)):]:
            if s >= b:
                break
            if s >= pos and e <= b:
                out.append(esc(self.answer[pos:s]))
                out.append(self.cite(s, e))
                pos = e
        out.append(esc(self.answer[pos:b]))
        return "".join(out)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _tag(severity: str, label: str) -> str:
    cls, mark = ("bad", "\u2717") if severity == "error" else ("warn", "!")
    return f'<span class="tag {cls}">{mark} {esc(label)}</span>'


def _cite_one(view: _View, c: Any, text: str, bad_spans: Mapping[tuple[int, int], Any]) -> str:
    h = view.handle_of.get(c.record_id) if c.record_id else None
    if h:
        return (f'<a class="cite" href="#{anchor("block", h)}" data-cites="{attr(h)}" '
                f'title="{attr(c.handle)} resolves to {attr(c.record_id)}">{text}</a>')
    f = bad_spans.get((c.start, c.end))
    why = f.message if f else "does not resolve"
    label = _FINDING_LABEL.get(f.kind, "unresolved") if f else "unresolved"
    target = ""
    if f is not None and f.kind == "excluded_source":
        target = f' <a href="#{anchor("rec", c.handle)}">see dropped</a>'
    return (f'<span class="cite-bad" title="{attr(why)}">{text}</span>'
            f'<span class="tag bad">\u2717 {esc(label)}</span>{target}')


def _prompt(view: _View) -> str:
    parts = []
    for m in view.messages:
        parts.append(f'<h3 class="sub">{esc(m.get("role"))}</h3>{pre(m.get("content"), "message")}')
    if not parts:
        parts.append(f'{pre(view.data.get("prompt", ""), "message")}')
    chars = sum(len(str(m.get("content", ""))) for m in view.messages)
    return (
        '<section aria-labelledby="prompt"><h2 id="prompt">The prompt as sent</h2>\n'
        f'<details class="more"><summary>Show the {len(view.messages)} messages ({chars:,} characters)</summary>'
        + "".join(parts) + "</details></section>"
    )
