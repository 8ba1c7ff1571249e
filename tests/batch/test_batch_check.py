"""`evidencepack batch-check`: each answer (OpenAI, Anthropic or plain lines) validated as `validate` does,
the problems (missing, unknown, failed, unreadable) reported and counted, a summary and a page."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from evidencepack.citations import validate_citations
from evidencepack.cli import main

KEY = "0123456789abcdef0123456789abcdef"
CORPUS = [
    {"id": "hb", "text": "Unused PTO does not carry over into the next year.", "authority": "authoritative"},
    {"id": "old", "text": "Up to five days of PTO carry over.", "authority": "superseded"},
]


def _openai(rid: str, text: str) -> dict:
    return {"id": "batch_req_1", "custom_id": rid, "error": None,
            "response": {"status_code": 200, "body": {"choices": [{"message": {"content": text}}]}}}


def _anthropic(rid: str, text: str) -> dict:
    return {"custom_id": rid, "result": {"type": "succeeded", "message": {"content": [{"type": "text", "text": text}]}}}


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVIDENCEPACK_BOUNDARY_KEY", KEY)
    (tmp_path / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in CORPUS))
    rows = [{"id": f"q{i}", "question": "Does PTO carry over?", "as_of": "2026-06-01", "records": ["hb", "old"]}
            for i in range(6)] + [{"id": "bad", "question": "q?", "records": ["nope"]}]
    (tmp_path / "req.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["batch", str(tmp_path / "req.jsonl"), "--corpus", str(tmp_path / "corpus.jsonl"), "-o",
                 str(tmp_path / "a.jsonl"), "--order", "ranked"]) == 1
    return tmp_path


def _handles(run: Path) -> dict[str, str]:
    first = json.loads((run / "a.jsonl").read_text().splitlines()[0])
    return {m["id"]: m["handle"] for m in first["manifest"]}


def test_every_answer_form_is_checked_as_validate_checks_it(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    h = _handles(run)
    good = f"Unused PTO does not carry over [{h['hb']}]."
    stale = f"Up to five days carry over [{h['old']}]."
    answers = [_openai("q0", good), _anthropic("q1", stale), {"id": "q2", "answer": "It does [S9]."},
               {"custom_id": "q3", "result": {"type": "expired"}}, {"id": "nobody", "answer": good},
               {"id": "bad", "answer": good}, {"id": "q0", "answer": good}]
    lines = "".join(json.dumps(a) + "\n" for a in answers) + "{not json\n"
    (run / "answers.jsonl").write_text(lines)
    out = run / "v.jsonl"
    assert main(["batch-check", str(run / "a.jsonl"), str(run / "answers.jsonl"), "-o", str(out), "--html",
                 str(run / "check.html"), "--worst", "2"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert json.loads((run / "v.summary.json").read_text()) == summary
    verdicts = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(verdicts) == 8  # one verdict line per answer line
    assembly = json.loads((run / "a.jsonl").read_text().splitlines()[1])
    expected = validate_citations(stale, assembly).to_dict()
    assert {k: verdicts[1][k] for k in expected} == expected
    assert [v["valid"] for v in verdicts[:3]] == [True, False, False]
    assert verdicts[1]["weak_only"] is True and verdicts[0]["weak_only"] is False
    assert [v.get("error", {}).get("kind") for v in verdicts[3:]] == [
        "failed_answers", "unknown_ids", "no_assembly", "repeated_answers", "bad_lines"]
    assert (summary["checked"], summary["valid"], summary["valid_rate"]) == (3, 1, 0.3333)
    assert summary["findings"]["unknown_handle"] == {"answers": 1, "rate": 0.3333, "findings": 1}
    assert summary["findings"]["stale_only"]["answers"] == 1
    assert summary["weak_only"] == {"answers": 1, "rate": 0.3333}
    problems = {k: v["shown"] for k, v in summary["problems"].items() if v["count"]}
    assert problems == {"missing_answers": ["q4", "q5"], "unknown_ids": ["nobody"], "failed_answers": ["q3"],
                        "no_assembly": ["bad"], "repeated_answers": ["q0"], "bad_lines": [8]}
    assert [w["id"] for w in summary["worst"]] == ["q2", "q1"]  # no valid citation first, then the stale one
    links = _links((run / "check.html").read_text())
    assert links == ["check-answers/0001.html", "check-answers/0002.html"]
    assert "It does" in (run / "check-answers" / "0001.html").read_text()


def test_a_tampered_assembly_is_reported_not_trusted(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = (run / "a.jsonl").read_text().splitlines()
    data = json.loads(lines[0])
    data["manifest"][0]["status"] = "current" if data["manifest"][0]["status"] != "current" else "expired"
    (run / "a.jsonl").write_text("\n".join([json.dumps(data), *lines[1:]]) + "\n")
    (run / "answers.jsonl").write_text(json.dumps({"id": "q0", "answer": "Yes [S1]."}) + "\n")
    assert main(["batch-check", str(run / "a.jsonl"), str(run / "answers.jsonl"), "-o", str(run / "v.jsonl")]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["checked"] == 0 and summary["problems"]["bad_assemblies"]["shown"] == ["q0"]


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a" and dict(attrs).get("href", "#").startswith("check-answers/"):
            self.links.append(str(dict(attrs)["href"]))


def _links(html: str) -> list[str]:
    parser = _Links()
    parser.feed(html)
    return parser.links
