"""Masking and streaming (issue 14.4, 14.3): code spans and fences mask citations as CommonMark does, the
incremental scanner equals a whole-text reference model however the text is split, and the stream validator
reports what batch validation finds at a cost linear in the text."""

import re
from datetime import date

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evidencepack import (
    Layout,
    assemble,
    validate_citations,
)
from evidencepack.citations import (
    StreamValidator,
)
from evidencepack.citations.handles import CLOSERS, OPENERS
from evidencepack.citations.markdown import Scanner

A = assemble([{"id": "hb", "text": "Unused PTO does not carry over.", "authority": "authoritative"},
              {"id": "old", "text": "Five days carry over.", "authority": "superseded"},
              {"id": "secret", "text": "Band L4 pays 70,000.", "sensitivity": "restricted"}],
             "Does PTO carry over?", as_of=date(2026, 1, 1), layout=Layout(order="ranked"), boundary_key="k" * 16)


@pytest.mark.parametrize("answer, hidden", [
    ("A ~~~ mid-line opens nothing [S9].", False),
    ("An unclosed ``` inline run hides nothing [S9].", False),
    ("`one` and [S9] and `two`", False),
    ("A `` span with ` inside [S9] `` hides it.", True),
    ("A `` run closed by a longer ``` run [S9] is not closed.", False),
    ("```\n[S9]\n```", True),
    ("~~~python\n[S9]\n~~~", True),
    ("  ```\n[S9]\n  ```", True),
    ("```\n[S9]\n~~~\nstill code [S9]", True),  # a tilde line does not close a backtick fence
    ("```\nnever closed\n[S9]", True),  # an unclosed fence runs to the end
    ("````\n```\n[S9]\n````", True),  # a shorter fence inside does not close it
    ("``` a ` b\n[S9]\n```", False),  # backtick in the info string: not a fence (the later ``` is literal)
    ("A span `opens\nand [S9] closes` on the next line.", True),
    ("A span `opens\n\nbut [S9] a blank line ends the paragraph`", False),
])
def test_masking(answer, hidden):
    found = [f.handle for f in validate_citations(answer, A).findings if f.kind == "unknown_handle"]
    assert found == ([] if hidden else ["S9"])


def reference_groups(text):
    lines, masked, fence, pos = text.split("\n"), set(), None, 0
    unit_lines, units, heading = [], [], False
    for line in lines:
        span = range(pos, pos + len(line))
        stripped = line.lstrip(" \t")
        opener = re.match(r"(`{3,}|~{3,})(.*)", stripped)
        # a backtick run with a backtick after it opens no fence: the line is text (and may end its unit)
        is_fence = bool(opener) and not (opener[1][0] == "`" and "`" in opener[2])
        if fence:
            body = line.strip(" \t\r")
            if body and set(body) == {fence[0]} and len(body) >= fence[1]:
                fence = None
            masked.update(span)
            unit_lines = []
        elif is_fence:
            fence = (opener[1][0], len(opener[1]))
            masked.update(span)
            unit_lines = []
        elif not line.strip():
            unit_lines, heading = [], False
        else:
            if (not unit_lines or heading or re.match(r"\s*(?:[-*+\u2022]|\d{1,3}[.)])\s+", line)
                    or line.lstrip().startswith("#")):
                unit_lines = []
                units.append(unit_lines)
            unit_lines.append((pos, line))
            heading = bool(re.match(r"\s*(?:#{1,6}[ \t]|\*\*[^*]+\*\*:?\s*$)|.*:\s*$", line))
        if fence is not None or is_fence:
            heading = False
        pos += len(line) + 1
    for unit in units:
        start = unit[0][0]
        joined = text[start: unit[-1][0] + len(unit[-1][1])]
        runs = [(m.start() + start, m.end() + start) for m in re.finditer("`+", joined)]
        i = 0
        while i < len(runs):
            n = runs[i][1] - runs[i][0]
            j = next((j for j in range(i + 1, len(runs)) if runs[j][1] - runs[j][0] == n), None)
            if j is None:
                i += 1
                continue
            masked.update(range(runs[i][0], runs[j][1]))
            i = j + 1
    pattern = f"[{re.escape(OPENERS)}][^{re.escape(OPENERS + CLOSERS)}`\n]*[{re.escape(CLOSERS)}]"
    return [(m.start(), m.group()) for m in re.finditer(pattern, text) if m.start() not in masked]


def scanned(text, cuts):
    out = []
    scanner = Scanner(lambda g: out.append((g.start, g.text)))
    last = 0
    for cut in sorted(set(cuts)) + [len(text)]:
        scanner.push(text[last:cut])
        last = cut
    scanner.finish()
    return out


markdownish = st.lists(st.sampled_from([
    "`", "``", "```", "~~~", "[S1]", "(S2)", "[", "]", "\n", "\n\n", " ", "x", "- ", "# ", ":", "**b**", "\t", "S1",
]), max_size=30).map("".join)


@settings(max_examples=500)
@given(markdownish, st.lists(st.integers(min_value=0, max_value=80), max_size=12))
@example("``` `[S1]` x", [])  # an opener that never closes, with a span after it
@example("`` [S1] ``` x\n```` y ``", [3, 9])
@example("```~~~`:\n[S1]`", [])  # not a fence (a backtick after the run): a text line ending with ":" ends its unit
def test_scanner_matches_the_reference_model_however_the_text_is_split(text, cuts):
    cuts = [c for c in cuts if c <= len(text)]
    assert scanned(text, cuts) == reference_groups(text)


answer_parts = st.lists(st.sampled_from([
    "It does not carry over [S1]. ", "Five days did [S2]. ", "Forged [S9]. ", "Look-alike [s1]. ", "`code [S7]` ",
    "``` ", "\n", "\n\n", "```\n", "~~~\n", "- bullet [S1]\n", "# Heading\n", "Id [hb]. ", "Dropped [secret]. ",
    "[S1, S9] ", "(S2-S4) ", "e.g. ", "1. ", "Thanks!\n",
]), max_size=25).map("".join)


@settings(max_examples=300)
@given(answer_parts, st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=40))
def test_stream_reports_what_batch_finds_and_closes_with_the_same_verdict(answer, sizes):
    batch = validate_citations(answer, A)
    sv = StreamValidator(A)
    streamed, pos, i = [], 0, 0
    while pos < len(answer):
        size = sizes[i % len(sizes)]
        streamed += sv.feed(answer[pos: pos + size])
        pos, i = pos + size, i + 1
    key = [(f.kind, f.start, f.end, f.handle, f.message) for f in batch.findings if f.sentence >= 0]
    got = [(f.kind, f.start, f.end, f.handle, f.message) for f in streamed]
    assert set(got) <= set(key) and len(got) == len(set(got))
    assert sv.close().to_dict() == batch.to_dict()
    # Once every unit is closed (a blank line), everything citation-level was reported while streaming.
    tail = StreamValidator(A)
    reported = [f for chunk in (answer, "\n\n") for f in tail.feed(chunk)]
    everything = validate_citations(answer + "\n\n", A)
    assert sorted((f.kind, f.start) for f in reported) == sorted(
        (f.kind, f.start) for f in everything.findings if f.kind in ("unknown_handle", "record_id", "excluded_source"))


@pytest.mark.parametrize("shape", [
    "Claim about policy [S1]. ",  # one long line
    "- item [S1]\n",  # many short lines
    "[S1, S1, S1, S1, ",  # a bracket group that never closes
    "`" * 7,  # one endless backtick run
    "``` open and then prose [S1] ",  # an inline run that never closes, on one line
    "text with `span` and [S9] ",
    " " * 9,  # leading whitespace that never ends
])
def test_streaming_work_is_linear_in_the_text_however_small_the_chunks(shape):
    text = shape * (6000 // len(shape))
    for chunk in (1, 3, 64):
        scanner = Scanner(lambda g: None)
        for i in range(0, len(text), chunk):
            scanner.push(text[i: i + chunk])
        scanner.finish()
        assert scanner.work <= 6 * len(text) + 100, (chunk, scanner.work)


def test_stream_reports_a_fenced_citation_never_and_a_held_one_when_its_unit_ends():
    sv = StreamValidator(A)
    assert sv.feed("```\n[S9]\n") == []
    assert sv.feed("```\nA ``` run then [S8]") == []  # held: the run may still close in this paragraph
    assert sv.feed(" more") == []
    [f] = sv.feed("\n\n")  # the paragraph ended without a closer: the run was literal
    assert f.handle == "S8"
