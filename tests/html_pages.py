"""Pages read back as a browser's tokenizer reads them, shared by the inspector, eval-report and browser tests:
the elements a page may hold, markup an attacker plants, the demo assembly and answer, records carrying
payloads in every field, and a scripted run's metadata with a one-pixel plot."""

from __future__ import annotations

import base64
import re
import unicodedata
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from evidencepack import assemble
from evidencepack.data.demo import DEMO_KEY, demo_records
from evidencepack.tokens.tokenizers import CallableTokenizer
from flat import grouped

SHARED = Path(__file__).resolve().parents[2] / "shared"

BIPIA = SHARED / "data" / "bipia" / "text_attack_train.json"

TOK = CallableTokenizer(lambda s: len(s) // 4 + 1, "chars/4")

#: Every element the inspector and the eval report write. Anything else in a page came from data.
ALLOWED_TAGS = frozenset((
    "html", "head", "meta", "link", "title", "style", "body", "main", "header", "footer", "nav", "section",
    "article", "details", "summary", "h1", "h2", "h3", "h4", "p", "div", "span", "strong", "small", "sup", "code",
    "pre", "a", "ul", "li", "dl", "dt", "dd", "table", "caption", "thead", "tbody", "tr", "th", "td", "q",
    "figure", "figcaption", "img",
))

#: Markup an attacker plants in a record, its metadata, its id or the model's answer.
HTML_PAYLOADS = (
    "<script>window.__pwned = 1</script>",
    '<img src=x onerror="window.__pwned=1">',
    '"><svg onload=window.__pwned=1>',
    "'><iframe src=javascript:window.__pwned=1></iframe>",
    "</pre></details></article><h1>forged heading</h1>",
    "<!-- an unclosed comment",
    "<style>body { display: none }</style>",
    "<a href='javascript:alert(1)'>click me</a>",
    "&lt;b&gt; already escaped &amp; entities &#x3C;script&#x3E;",
    "<base href='https://evil.example/'>",
    "<meta http-equiv='refresh' content='0;url=https://evil.example'>",
    "<textarea><plaintext><xmp>",
    "]]><![CDATA[<script>x</script>]]>",
    "<math><mi xlink:href=javascript:alert(1)>x</mi></math>",
    "<template><script>1</script></template><noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
    "\u202eRTL override and zero\u200bwidth and NUL \x00 and bell \x07",
)


class Page(HTMLParser):
    """Start tags with their attributes, and the text of each `<pre>` and `data-*` element, as a browser's
    tokenizer would see them."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.pre: list[tuple[str, str]] = []  # (class, text)
        self._pre: list[str] | None = None
        self._pre_cls = ""
        self.text: list[str] = []
        self.feed(source)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "pre":
            self._pre, self._pre_cls = [], dict(attrs).get("class") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre" and self._pre is not None:
            text = "".join(self._pre)  # HTML drops a newline right after <pre>; html.parser does not
            self.pre.append((self._pre_cls, text[1:] if text.startswith("\n") else text))
            self._pre = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._pre is not None:
            self._pre.append(data)

    def all(self, tag: str, **attrs: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.tags if t == tag and all(a.get(k.replace("_", "-")) == v for k, v in attrs.items())]

    @property
    def visible(self) -> str:
        return "".join(self.text)


def visible(text: str) -> str:
    """What the page must show for `text`: the text itself, with each control or format character (Unicode
    categories Cc, Cf, Cs, Zl, Zp; tab and line breaks excepted) as a marker naming its code point."""
    return "".join(f"\u27e6U+{ord(c):04X}\u27e7" if c not in "\t\n\r" and
                   unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") else c for c in text)


def assert_inert(source: str) -> Page:
    """No element, attribute or URL that data could have introduced."""
    page = Page(source)
    tags = {t for t, _ in page.tags}
    assert tags <= ALLOWED_TAGS, tags - ALLOWED_TAGS
    for tag, attrs in page.tags:
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            if name == "href":
                assert value is not None and re.match(r"^(#[\w.-]+|https?://[^\s<>\"'`]+|data:,)$", value), value
            if name == "src":
                assert tag == "img" and value is not None and value.startswith("data:image/png;base64,"), value
    assert len(page.all("script")) == 0 and len(page.all("title")) == 1 and len(page.all("h1")) == 1
    assert len(page.all("meta", http_equiv="Content-Security-Policy")) == 1
    assert len(page.all("style")) == 1 and len(page.all("base")) == 0
    return page


def demo_assembly(**kw: Any) -> dict[str, Any]:
    """The demo under the earlier default (`structured`): the stale records in the prompt, so that the page has
    an answer citing them to mark."""
    kw = {"conflict_policy": "surface", "rule_form": False, **kw}
    records, question = demo_records()
    return assemble(records, question, **grouped(as_of="2026-06-01", boundary_key=DEMO_KEY, **kw)).to_dict()

#: Handles as the default order seats the demo: the current handbook first (S1), the Slack message S2, the
#: superseded 2024 handbook S3.
DEMO_ANSWER = (
    "No. Unused PTO does not carry over; any balance left on December 31 is forfeited [S1].\n"
    "A 2023 Slack message [S2] said a manager could move about a week into next year, but that guidance "
    "expired when the policy changed.\n"
    "The 2024 handbook allowed 5 days [S3]. HR can confirm [S9].\n"
)


def injected_records(payloads: list[str]) -> list[dict[str, Any]]:
    """Each payload in a record's text, doc, section, topic, url, metadata and id; a confidential record
    carrying payloads too; and a duplicate, so payload ids also reach the dropped list."""
    records: list[dict[str, Any]] = []
    for i, p in enumerate(payloads):
        rid = re.sub(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]", "?", p)  # ids may not hold controls; bidi is fine
        records.append({"id": f"{rid} #{i}", "text": f"{p}\nbody {i}", "doc": p, "section": p, "topic": p[:30],
                        "url": p, "source_system": p, "authority": "informal" if i % 2 else "authoritative",
                        "metadata": {"note": p}})
    records.append({"id": "copy <script>window.__pwned=2</script>", "text": records[0]["text"], "doc": "copy"})
    records.append({"id": "secret <img src=x onerror=alert(3)>", "text": "SECRET-CANARY " + payloads[0],
                    "sensitivity": "restricted", "doc": "SECRET-DOC"})
    return records

META = {"backend": "scripted", "model": "scripted-reader", "is_model": False}

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJ"
                       "RU5ErkJggg==")  # a 1x1 pixel
