"""Shared pieces of evidencepack's HTML pages: escaping, the page shell and its stylesheet.

The pages show untrusted text (record text, metadata, model answers), so every value goes through `esc`,
which HTML-escapes it and turns invisible or control characters into visible markers: an inspector that
hid a zero-width space or a bidi override would not show what the model saw. The shell carries a
Content-Security-Policy that forbids scripts and every network load, so even a bug in escaping could not
run code or phone home. No page reads a clock: same input, same bytes.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable

# Characters a reader cannot see, or that change how the text around them is shown: controls, format
# characters (zero-width, bidi overrides, tags, soft hyphen), lone surrogates, line and paragraph
# separators. Tab and line breaks stay as they are.
HIDDEN_CATEGORIES = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))


def _hidden(ch: str) -> bool:
    return ch not in "\t\n\r" and unicodedata.category(ch) in HIDDEN_CATEGORIES


CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"


def esc(value: object) -> str:
    """HTML-escape any value (quotes too, so it is safe in attributes); hidden characters become markers."""
    text = "" if value is None else str(value)
    # the common case, nothing hidden (isprintable is stricter than _hidden, and fast)
    if text.replace("\n", " ").replace("\t", " ").replace("\r", " ").isprintable():
        return html.escape(text, quote=True)
    out: list[str] = []
    run: list[str] = []
    for ch in text:
        if _hidden(ch):
            out.append(html.escape("".join(run), quote=True))
            run = []
            code = f"U+{ord(ch):04X}"
            out.append(f'<span class="ctl" title="invisible character {code}">\u27e6{code}\u27e7</span>')
        else:
            run.append(ch)
    out.append(html.escape("".join(run), quote=True))
    return "".join(out)


def attr(value: object) -> str:
    """A value for an attribute: escaped, hidden characters replaced by their code (no markup inside)."""
    text = "" if value is None else str(value)
    return html.escape("".join(f"U+{ord(c):04X}" if _hidden(c) else c for c in text), quote=True)


def anchor(prefix: str, key: object) -> str:
    """A stable, safe fragment id for any string (record ids may hold anything)."""
    text = str(key)
    safe = re.sub(r"[^A-Za-z0-9_-]", lambda m: f".{ord(m.group(0)):x}.", text)
    return f"{prefix}-{safe}"


def pre(text: object, cls: str = "") -> str:
    """Preformatted text, exactly: the newline after `<pre>` is one the parser drops, so a text that
    itself starts with a newline keeps it."""
    klass = f' class="{cls}"' if cls else ""
    return f"<pre{klass}>\n{esc(text)}</pre>"


def safe_url(url: object) -> str | None:
    """Only plain http(s) URLs ever become links."""
    if isinstance(url, str) and re.match(r"^https?://[^\s<>()\[\]\"'`\\]+$", url):
        return url
    return None


def table(head: Iterable[str], rows: Iterable[Iterable[str]], caption: str = "", cls: str = "") -> str:
    """A table from cells that are already HTML (escape before calling)."""
    cap = f"<caption>{caption}</caption>" if caption else ""
    th = "".join(f'<th scope="col">{h}</th>' for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    klass = f' class="{cls}"' if cls else ""
    return f'<div class="scroll"><table{klass}>{cap}<thead><tr>{th}</tr></thead><tbody>{body}</tbody></table></div>'


def page(title: str, body: str, *, generator: str = "evidencepack") -> str:
    """A complete, self-contained document: inline CSS, no script, no external resource."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="{attr(generator)}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<link rel="icon" href="data:,">\n'
        f"<title>{esc(title)}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n"
        '<a class="skip" href="#main">Skip to content</a>\n'
        f'<main id="main">\n{body}\n</main>\n</body>\n</html>\n'
    )


STYLE = """\
:root { --fg: #1b1b1f; --muted: #555a64; --line: #c9ccd3; --bg: #fff; --soft: #f4f5f7;
  --ok: #1d6b35; --ok-bg: #e3f4e8; --warn: #7a4a00; --warn-bg: #fff1d6; --bad: #9b1c1c; --bad-bg: #fde6e6;
  --info: #1f4e8c; --info-bg: #e3edfb; --none: #4a4f59; --none-bg: #eceef1; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; color: var(--fg); background: var(--bg);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1.25rem 3rem; }
h1, h2, h3, h4, summary { overflow-wrap: anywhere; }
h1 { font-size: 1.6rem; margin: .5rem 0 .25rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .5rem; padding-bottom: .2rem; border-bottom: 2px solid var(--line); }
h3 { font-size: 1.05rem; margin: 1rem 0 .25rem; }
.block h3 { display: inline; margin: 0; }
a { color: #0b57d0; }
a:focus-visible, summary:focus-visible { outline: 3px solid #0b57d0; outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: .5rem; top: .5rem; background: #fff; padding: .25rem .5rem; }
.lede { color: var(--muted); margin: 0 0 1rem; }
.question { font-size: 1.1rem; background: var(--soft); border-left: 4px solid var(--info); padding: .5rem .75rem;
  overflow-wrap: anywhere; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .5rem 0; }
dl.kv dt { color: var(--muted); }
dl.kv dd { margin: 0; overflow-wrap: anywhere; min-width: 0; }
dl.chips { display: flex; flex-wrap: wrap; gap: .15rem 1.4rem; margin: .4rem 0; }
dl.chips > div { display: flex; gap: .4rem; min-width: 0; max-width: 100%; }
dl.chips dt { color: var(--muted); white-space: nowrap; }
dl.chips dd { margin: 0; overflow-wrap: anywhere; min-width: 0; }
.cols { display: flex; flex-wrap: wrap; gap: 0 2rem; align-items: flex-start; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: .5rem 0; font-size: .95rem; }
th, td { border: 1px solid var(--line); padding: .25rem .5rem; text-align: left; vertical-align: top;
  overflow-wrap: break-word; }
th { background: var(--soft); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
caption { text-align: left; color: var(--muted); padding: .25rem 0; }
pre, code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace;
  font-size: .9rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--soft); padding: .6rem .75rem;
  border: 1px solid var(--line); border-radius: 4px; margin: .5rem 0; }
.ctl { background: #ffe066; color: #000; border: 1px dotted #000; font-size: .75em; padding: 0 .1em; }
.badge { display: inline-block; border: 1px solid currentColor; border-radius: 3px; padding: 0 .4em;
  font-size: .85rem; font-weight: 600; margin: .1rem .15rem .1rem 0; max-width: 100%; overflow-wrap: break-word; }
.ok { color: var(--ok); background: var(--ok-bg); }
.warn { color: var(--warn); background: var(--warn-bg); }
.bad { color: var(--bad); background: var(--bad-bg); }
.info { color: var(--info); background: var(--info-bg); }
.none { color: var(--none); background: var(--none-bg); }
/* the budget bar */
.bar { display: flex; width: 100%; height: 2.6rem; border: 1px solid var(--fg); margin: .75rem 0 .25rem;
  overflow: hidden; }
.seg { flex: none; height: 100%; min-width: 0; padding: 0; overflow: hidden; white-space: nowrap; font-size: .75rem;
  line-height: 2.6rem; text-indent: .25rem; color: #000; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
.seg + .seg { box-shadow: inset 1px 0 0 var(--fg); }
.swatch { display: inline-block; width: 1rem; height: 1rem; vertical-align: -.15rem; border: 1px solid var(--fg);
  margin-right: .35rem; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
.s-system { background: #b9c7e6; }
.s-question { background: #7fa3de; }
.s-sources { background: #8fd19e; }
.s-notice { background: #f5c26b; }
.s-output { background: #d7b8ee; }
.s-margin { background: repeating-linear-gradient(45deg, #ddd 0 4px, #fff 4px 8px); }
.s-unused { background: #fff; }
.s-other { background: #f08a8a; }
/* source blocks */
.block { border: 1px solid var(--line); border-left: 6px solid var(--none); border-radius: 4px; margin: .75rem 0;
  padding: .4rem .75rem; break-inside: avoid-page; }
.block.st-current.au-authoritative { border-left-color: var(--ok); }
.block.st-expired, .block.au-superseded { border-left-color: var(--bad); }
.block.au-informal, .block.st-not_yet_valid { border-left-color: var(--warn); }
.block summary { cursor: pointer; padding: .2rem 0; }
.block .meta { margin: .2rem 0; }
.block.cited { box-shadow: 0 0 0 2px var(--info-bg); }
:target { outline: 3px solid #0b57d0; outline-offset: 2px; }
/* the answer */
.answer { white-space: pre-wrap; overflow-wrap: anywhere; border: 1px solid var(--line); padding: .75rem;
  border-radius: 4px; line-height: 1.9; }
.sent { border-radius: 3px; padding: .05rem .1rem; -webkit-box-decoration-break: clone; box-decoration-break: clone;
  -webkit-print-color-adjust: exact; print-color-adjust: exact; }
.sent.f-error { background: var(--bad-bg); border-bottom: 2px solid var(--bad); }
.sent.f-warn { background: var(--warn-bg); border-bottom: 2px dashed var(--warn); }
.sent.f-ok { background: var(--ok-bg); }
.tag { font-size: .72rem; font-weight: 700; vertical-align: .15em; border: 1px solid currentColor; border-radius: 3px;
  padding: 0 .25em; margin-left: .2em; white-space: nowrap; }
.cite-bad { color: var(--bad); font-weight: 700; text-decoration: line-through; }
ul.plain { padding-left: 1.2rem; }
ul.plain li { margin: .15rem 0; overflow-wrap: anywhere; }
details.more > summary { cursor: pointer; color: var(--muted); }
.verdict-list article { border-top: 1px solid var(--line); padding: .5rem 0; }
.verdict-list h4 { font-size: 1rem; margin: .25rem 0; }
.notes { white-space: pre-wrap; overflow-wrap: anywhere; }
figure { margin: 1rem 0; }
figure img { max-width: 100%; height: auto; border: 1px solid var(--line); }
figcaption { color: var(--muted); font-size: .9rem; }
footer { margin-top: 3rem; color: var(--muted); font-size: .85rem; }
@media (max-width: 40rem) {
  main { padding: .5rem .6rem 2rem; }
  dl.kv { grid-template-columns: 1fr; }
  dl.kv dt { margin-top: .3rem; }
  .seg { font-size: 0; }
}
@media print {
  .skip { display: none; }
  a { color: inherit; }
  details::details-content { content-visibility: visible; display: contents; }
  .bar, .block, pre { break-inside: avoid; }
  h2 { break-after: avoid; }
}
"""
