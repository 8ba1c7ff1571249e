"""Citation parsing, validation, and acting on the verdict."""

import re
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidencepack import Admission, CitationError, Layout, assemble
from evidencepack.citations import (
    StreamValidator,
    enforce,
    parse_citations,
    regenerate,
    resolve,
    split_sentences,
    strip_invalid,
    validate_citations,
)

RECORDS = [
    {"id": "hb", "rank": 1, "text": "Unused PTO does not carry over.", "authority": "authoritative",
     "doc": "Handbook", "section": "5.2", "url": "https://hr.example/5-2", "valid_from": "2025-01-01"},
    {"id": "slack", "rank": 2, "text": "PTO carries over, just ask me.", "authority": "informal",
     "valid_until": "2024-06-30", "url": "javascript:alert(1)"},
    {"id": "hb24", "rank": 3, "text": "Up to 5 days carry over.", "authority": "superseded"},
    {"id": "hb-copy", "rank": 4, "text": "Unused  PTO does not carry over."},
    {"id": "secret", "rank": 5, "text": "Band L4 pays 70,000.", "sensitivity": "restricted"},
]
A = assemble(RECORDS, "Does PTO carry over?", as_of=date(2026, 1, 1), boundary_key="k" * 16,
             layout=Layout(order="ranked"))


def handles(answer):
    return [h for h, *_ in parse_citations(answer)]


@pytest.mark.parametrize("answer, want", [
    ("No [S1].", ["S1"]),
    ("No [S1, S3].", ["S1", "S3"]),
    ("No [S1][S2].", ["S1", "S2"]),
    ("No [S1; S2].", ["S1", "S2"]),
    ("No [S2-S4].", ["S2", "S3", "S4"]),
    ("No [S2–4].", ["S2", "S3", "S4"]),
    ("No (S2).", ["S2"]),
    ("No 【S1】 and ［S2］.", ["S1", "S2"]),
    ("No [s1].", ["s1"]),  # a look-alike: reported as written, never read as S1
    ("No `[S1]` in code.", []),
    ("```\n[S1]\n```", []),
    ("Other prefix [D1] and S1 bare.", []),
])
def test_citation_forms(answer, want):
    assert handles(answer) == want


def test_offsets_point_at_the_citation():
    answer = "Carry-over ended [S1]."
    [(h, start, end, _)] = parse_citations(answer)
    assert answer[start:end] == "[S1]"


def test_sentences_survive_abbreviations_decimals_and_bullets():
    text = ("The cap is 2.5 days, e.g. for part-time staff [S1]. Dr. Smith agreed [S1].\n"
            "- First item [S1]\n- Second item. [S1]\n1. Numbered item [S1]")
    sentences = [s.text for s in split_sentences(text)]
    assert sentences == ["The cap is 2.5 days, e.g. for part-time staff [S1].", "Dr. Smith agreed [S1].",
                         "- First item [S1]", "- Second item. [S1]", "1. Numbered item [S1]"]


def test_valid_answer():
    v = validate_citations("No, unused PTO does not carry over [S1].", A)
    assert v.valid and v.cited_ids == ("hb",) and v.coverage == 1.0


def test_no_citations_warns_uncited_by_default_and_errors_when_asked():
    v = validate_citations("Unused PTO does not carry over at all.", A)
    assert v.valid and [f.kind for f in v.findings] == ["uncited"] and v.coverage == 0.0
    assert not validate_citations("Unused PTO does not carry over at all.", A, severities={"uncited": "error"}).valid
    assert validate_citations("Unused PTO does not carry over at all.", A, severities={"uncited": "off"}).findings == ()


def test_greetings_headings_and_closings_are_not_stating():
    v = validate_citations("Hello!\n## Answer\nIt does not carry over [S1].\nLet me know if you need more.", A)
    assert v.findings == ()


def test_unknown_handle():
    v = validate_citations("It carries over [S9]. Also [S1, S7].", A)
    assert not v.valid
    assert [(f.kind, f.handle) for f in v.findings] == [("unknown_handle", "S9"), ("unknown_handle", "S7")]


def test_only_invalid_citations():
    v = validate_citations("Yes it carries over [S8]. Maybe it is five days [S9].", A)
    assert not v.valid and v.cited_ids == () and v.coverage == 0.0


def test_stale_only_and_surfaced_conflict():
    assert [f.kind for f in validate_citations("You can carry it over, just ask [S2].", A).findings] == [
        "stale_only"]
    assert validate_citations("It does not carry over [S1]; a Slack message said otherwise [S2].", A).valid
    assert validate_citations("An outdated Slack message said it carries over [S2].", A).valid


def test_record_ids_are_reported_never_support():
    dropped = assemble(RECORDS, "Does PTO carry over?", as_of=date(2026, 1, 1), boundary_key="k" * 16,
                       admission=Admission(exclude_superseded=True))
    v = validate_citations("Up to five days carried over [hb24].", dropped)
    assert [f.kind for f in v.findings] == ["excluded_source"] and "superseded_excluded" in v.findings[0].message
    # an id above the caller's clearance reads as prose, like an id that does not exist: no finding confirms it
    for unknown in ("secret", "no-such-record"):
        v = validate_citations(f"Salary band is high [{unknown}].", A)
        assert [f.kind for f in v.findings] == ["uncited"] and v.citations == ()
    for cited in ("hb-copy", "hb"):  # a duplicate of an included record, and an included record
        v = validate_citations(f"It does not carry over [{cited}].", A)
        assert not v.valid and [f.kind for f in v.findings] == ["record_id"] and v.cited_ids == ()


def test_reject_raises_with_the_verdict():
    with pytest.raises(CitationError) as err:
        enforce("It carries over [S9].", A)
    assert err.value.verdict.findings[0].kind == "unknown_handle"


def test_strip_removes_invalid_handles_only():
    s = strip_invalid("It does not carry over [S1, S9]. Yes it does [S8].", A)
    assert s.text == "It does not carry over [S1]. Yes it does."
    assert s.removed == ("S9", "S8") and s.affected_sentences == (0, 1)


def test_regenerate_until_valid():
    prompts = []

    def generate(instruction):
        prompts.append(instruction)
        return "It does not carry over [S1]."

    r = regenerate("It carries over [S9].", A, generate)
    assert r.verdict.valid and r.attempts == 1
    assert "[S9] was not in the prompt" in prompts[0]


def test_resolution_uses_manifest_fields_only():
    linked = resolve("No [S1]. Old advice [S2]. Forged [S9].", A)
    assert "[S1](https://hr.example/5-2)" in linked
    assert "javascript" not in linked and "[S9]" in linked
    notes = resolve("No [S1]. Again [S1].", A, style="footnotes")
    assert notes.count("[^1]") == 3 and "Handbook, §5.2 <https://hr.example/5-2>" in notes


def test_streaming_reports_unknown_handle_when_complete():
    sv = StreamValidator(A)
    assert sv.feed("It carries over [S") == []
    assert sv.feed("9") == []
    [f] = sv.feed("] and more")
    assert f.kind == "unknown_handle" and f.handle == "S9"
    assert sv.feed(" [S1].") == []
    assert not sv.close().valid


# -- properties --------------------------------------------------------------------------------------

known = [m.handle for m in A.manifest]
handle_st = st.integers(min_value=0, max_value=12).map(lambda n: f"S{n}")
prose = st.text(alphabet="abcdefgh ,.", min_size=0, max_size=30)
answer_st = st.lists(st.tuples(prose, handle_st), max_size=8).map(
    lambda parts: "".join(f"{p} [{h}]" for p, h in parts))


@given(answer_st)
def test_unknown_iff_not_in_manifest(answer):
    v = validate_citations(answer, A)
    flagged = {f.handle for f in v.findings if f.kind == "unknown_handle"}
    cited = set(re.findall(r"\[(S\d+)\]", answer))
    assert flagged == cited - set(known)


@given(answer_st)
def test_strip_leaves_no_invalid_handle_and_changes_nothing_else(answer):
    stripped = strip_invalid(answer, A).text
    handle_kinds = {"unknown_handle", "record_id", "excluded_source"}
    assert not {f.kind for f in validate_citations(stripped, A).findings} & handle_kinds
    kept_pattern = re.compile(r" ?\[S(?:\d+)\]")

    def skeleton(s):
        return kept_pattern.sub("", s)
    assert skeleton(stripped) == skeleton(answer)


@given(answer_st, st.sampled_from(["links", "footnotes"]))
def test_resolution_never_emits_a_url_outside_the_manifest(answer, style):
    urls = set(re.findall(r"https?://[^\s)>\]]+", resolve(answer, A, style=style)))
    assert urls <= {m.url for m in A.manifest if m.url}
