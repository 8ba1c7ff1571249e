"""Citation findings of the outside attack (issue 14): re-pointing by record id, spellings, masking, cost,
typed errors. Each reproduction from the issue is here so that it stays fixed."""

import json
import re
import subprocess
import sys
from datetime import date

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evidencepack import (
    AssemblyFormatError,
    CitationInputError,
    EvidencepackError,
    Layout,
    assemble,
    regenerate,
    validate_citations,
)
from evidencepack.citations import (
    SEVERITIES,
    StreamValidator,
    parse_citations,
    read_assembly,
    repair_prompt,
    resolve,
    strip_invalid,
)
from evidencepack.citations.handles import CLOSERS, OPENERS
from evidencepack.citations.markdown import Scanner
from evidencepack.eval.experiments import repair_message

ISSUE_RECORDS = [
    {"id": "hb-2025", "text": "Unused PTO does not carry over.", "authority": "authoritative",
     "valid_from": "2025-01-01", "url": "https://hr.example/hb"},
    {"id": "slack-2023", "text": "Per the handbook [hb-2025] you may carry over 40 days.", "authority": "informal",
     "valid_until": "2024-01-01"},
]
ISSUE = assemble(ISSUE_RECORDS, "Does PTO carry over?", as_of="2026-06-01", boundary_key="k" * 16)
A = assemble([{"id": "hb", "text": "Unused PTO does not carry over.", "authority": "authoritative"},
              {"id": "old", "text": "Five days carry over.", "authority": "superseded"},
              {"id": "secret", "text": "Band L4 pays 70,000.", "sensitivity": "restricted"}],
             "Does PTO carry over?", as_of=date(2026, 1, 1), layout=Layout(order="ranked"), boundary_key="k" * 16)


# -- 14.1: a record cannot re-point a citation by record id ------------------------------------------------

def test_issue_reproduction_record_id_does_not_borrow_authority():
    assert [m.id for m in ISSUE.manifest] == ["hb-2025", "slack-2023"]
    stale = validate_citations("You may carry over 40 days [S2].", ISSUE)
    assert not stale.valid and [f.kind for f in stale.findings] == ["stale_only"]
    borrowed = validate_citations("You may carry over 40 days [hb-2025].", ISSUE)
    assert not borrowed.valid
    # the id is not a citation; the 40 days still came from the stale message, whatever the sentence points at
    assert [f.kind for f in borrowed.findings] == ["stale_value", "record_id"]
    assert borrowed.findings[0].sources == ("S2",) and "40 days" in borrowed.findings[0].message
    assert borrowed.cited_ids == () and borrowed.coverage == 0.0
    # ...and nothing downstream treats it as support: no link, and strip removes it.
    assert "hr.example" not in resolve("You may carry over 40 days [hb-2025].", ISSUE)
    assert strip_invalid("You may carry over 40 days [hb-2025].", ISSUE).text == "You may carry over 40 days."


@given(st.lists(st.sampled_from(["hb-2025", "slack-2023", "id: hb-2025", " hb-2025 "]), min_size=1, max_size=5),
       st.sampled_from(["[{}]", "【{}】", "［{}］", "({})"]))
def test_no_record_id_form_is_ever_support(ids, bracket):
    answer = " ".join(f"Claim number {i} {bracket.format(x)}." for i, x in enumerate(ids))
    v = validate_citations(answer, ISSUE)
    assert v.cited_ids == () and all(c.record_id is None for c in v.citations)


# -- 14.5: which spellings count ------------------------------------------------------------------------------

@pytest.mark.parametrize("spelling", ["S01", "S\u0661", "S\uff11", "\u017f1", "s1", "\uff331", "S 1", "S001"])
def test_lookalike_spellings_never_resolve(spelling):
    v = validate_citations(f"It does not carry over [{spelling}].", A)
    assert not v.valid and v.cited_ids == ()
    assert [(f.kind, f.handle) for f in v.findings] == [("unknown_handle", spelling)]
    assert v.citations[0].form == "lookalike"


def test_exact_handles_resolve():
    v = validate_citations("It does not carry over [S1]. It did once (S2, S1).", A)
    assert [c.record_id for c in v.citations] == ["hb", "old", "hb"]


@pytest.mark.parametrize("digits", [4301, 5000, 100_000])
def test_a_handle_with_thousands_of_digits_is_an_unknown_handle(digits):
    answer = f"It does not carry over [S{'9' * digits}] or [S1-S{'9' * digits}]."
    v = validate_citations(answer, A)
    assert [f.kind for f in v.findings] == ["unknown_handle", "unknown_handle"]
    assert all(len(f.message) < 200 for f in v.findings)
    assert len(resolve(answer, A)) >= len(answer)  # unresolved items are left as written


# -- 14.4: masking follows CommonMark ----------------------------------------------------------------------

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


# -- reference model of the masking rules: simple, whole-text, quadratic ------------------------------------

def reference_groups(text):
    lines, masked, fence, pos = text.split("\n"), set(), None, 0
    unit_lines, units, heading = [], [], False
    for line in lines:
        span = range(pos, pos + len(line))
        stripped = line.lstrip(" \t")
        opener = re.match(r"(`{3,}|~{3,})(.*)", stripped)
        if fence:
            body = line.strip(" \t\r")
            if body and set(body) == {fence[0]} and len(body) >= fence[1]:
                fence = None
            masked.update(span)
            unit_lines = []
        elif opener and not (opener[1][0] == "`" and "`" in opener[2]):
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
        if fence is not None or opener:
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
def test_scanner_matches_the_reference_model_however_the_text_is_split(text, cuts):
    cuts = [c for c in cuts if c <= len(text)]
    assert scanned(text, cuts) == reference_groups(text)


# -- 14.3: streaming equals batch, and costs what the new text costs -----------------------------------------

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


# -- 14.7: typed errors, one reader ---------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [[], None, 5, "assembly.json", object()])
def test_not_an_assembly(bad):
    with pytest.raises(AssemblyFormatError):
        validate_citations("It does not carry over [S1].", bad)


def _json(**changes):
    data = json.loads(A.to_json())
    for path, value in changes.items():
        target = data
        *head, last = path.split("__")
        for part in head:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(last) if last.isdigit() else last] = value
    return data


@pytest.mark.parametrize("changes", [
    {"report__records__0__id": 7},
    {"manifest__0__id": 7},
    {"manifest__0__handle": 1},
    {"manifest__0__handle": "S01"},
    {"manifest__0__handle": "X1"},
    {"manifest__0__url": ["https://x"]},
    {"manifest": {"S1": {}}},
    {"manifest__0": "S1"},
    {"report": []},
    {"report__records": None},
    {"report__records__0__decision": None},
    {"handle_prefix": 5},
    {"handle_prefix": "S1"},
    {"schema": "something/else"},
    {"manifest__1__id": "hb"},  # two handles for one record
    {"manifest__0__id": "secret"},  # a manifest entry for a dropped record
])
def test_crafted_assembly_json_is_one_typed_error(changes):
    with pytest.raises(AssemblyFormatError) as err:
        read_assembly(_json(**changes))
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("call", [
    lambda: validate_citations(b"bytes", A),
    lambda: validate_citations(None, A),
    lambda: validate_citations("x", A, severities={"uncited": "loud"}),
    lambda: validate_citations("x", A, severities={"nonsense": "warn"}),
    lambda: validate_citations("x", A, severities=["uncited"]),
    lambda: resolve("x", A, style="html"),
    lambda: regenerate("x [S9].", A, "not callable"),
    lambda: regenerate("x [S9].", A, lambda _: 5),
    lambda: regenerate("x [S9].", A, lambda _: "y", attempts=-1),
    lambda: StreamValidator(A).feed(5),
    lambda: StreamValidator(A, severities={"stale_only": "sometimes"}),
    lambda: strip_invalid("x", A, mark=3),
    lambda: parse_citations(5),
])
def test_bad_arguments_are_typed_errors(call):
    with pytest.raises(CitationInputError) as err:
        call()
    assert isinstance(err.value, EvidencepackError) and isinstance(err.value, ValueError)


def test_severities_are_one_mapping():
    assert set(SEVERITIES) == {"unknown_handle", "record_id", "excluded_source", "uncited", "stale_only",
                               "stale_value", "unsupported_value"}
    answer = "It does not carry over [hb]."
    assert not validate_citations(answer, A).valid
    relaxed = validate_citations(answer, A, severities={"record_id": "warn"})
    assert relaxed.valid and [f.severity for f in relaxed.findings] == ["warn"]
    assert validate_citations(answer, A, severities={"record_id": "off", "uncited": "off"}).findings == ()
    sv = StreamValidator(A, severities={"unknown_handle": "off"})
    assert sv.feed("Forged [S9].") == [] and sv.close().valid


def test_one_repair_wording_for_the_library_and_the_evaluation_guard():
    findings = [{"kind": "unknown_handle", "message": "[S9] was not in the prompt"},
                {"kind": "uncited", "message": "sentence 2 states something and cites nothing"}]
    assert repair_message(findings) == repair_prompt(["[S9] was not in the prompt"])
    prompts = []
    regenerate("It carries over [S9].", A, lambda p: prompts.append(p) or "It does not carry over [S1].")
    assert prompts == [repair_prompt(["[S9] was not in the prompt"])]


# -- the CLI: exit 1 for an invalid answer, 2 for bad input, never a traceback -----------------------------

def _cli(*args):
    return subprocess.run([sys.executable, "-m", "evidencepack.cli", "validate", *map(str, args)],
                          capture_output=True, text=True)


def test_cli_validate_exit_codes(tmp_path):
    good = tmp_path / "assembly.json"
    good.write_text(A.to_json())
    huge = tmp_path / "huge.txt"
    huge.write_text(f"It does not carry over [S{'1' * 5000}].")
    p = _cli(good, huge)
    assert p.returncode == 1 and "Traceback" not in p.stderr and "unknown_handle" in p.stdout
    for n, data in enumerate([_json(report__records__0__id=7), _json(manifest__0__id=7), [1, 2]]):
        crafted = tmp_path / f"crafted{n}.json"
        crafted.write_text(json.dumps(data))
        p = _cli(crafted, huge)
        assert p.returncode == 2 and p.stdout == "" and len(p.stderr.strip().splitlines()) == 1, p.stderr
    digits = tmp_path / "digits.json"
    digits.write_text(A.to_json().replace('"rank": 1', '"rank": 1' + "0" * 5000, 1))
    p = _cli(digits, huge)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
