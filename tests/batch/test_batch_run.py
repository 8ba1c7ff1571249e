"""`evidencepack batch`: one output line per request (what `assemble --json` prints, plus the id), error lines
that name the request and field while the run goes on, per-request options, resume, and --workers giving the
same bytes as one process."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from evidencepack.batch.job import Job
from evidencepack.batch.run import run_batch
from evidencepack.cli import main
from evidencepack.errors import UsageError

KEY = "0123456789abcdef0123456789abcdef"
CORPUS = [
    {"id": "hb", "text": "Unused PTO does not carry over into the next year.", "authority": "authoritative"},
    {"id": "old", "text": "Up to five days of PTO carry over.", "authority": "superseded"},
    {"id": "chat", "text": "Just ask payroll to move it.", "authority": "informal"},
]


def _requests(n: int = 12) -> list[dict]:
    ids = [r["id"] for r in CORPUS]
    return [{"id": f"q{i}", "question": f"Does PTO carry over? ({i})", "as_of": "2026-06-01",
             "records": ids[i % 3:] + [dict(CORPUS[0], id=f"inline{i}")]} for i in range(n)]


def _write(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVIDENCEPACK_BOUNDARY_KEY", KEY)
    _write(tmp_path / "corpus.jsonl", CORPUS)
    _write(tmp_path / "req.jsonl", _requests())
    return tmp_path


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_each_line_is_the_assemble_json_plus_the_id(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = files / "out.jsonl"
    assert main(["batch", str(files / "req.jsonl"), "--corpus", str(files / "corpus.jsonl"), "-o", str(out),
                 "--window", "4096", "--order", "edges"]) == 0
    first = out.read_text().splitlines()[0]
    assert first.startswith('{"id": "q0", ')
    req = _requests()[0]
    records = files / "r0.jsonl"
    _write(records, CORPUS + [req["records"][-1]])
    capsys.readouterr()
    assert main(["assemble", str(records), "-q", req["question"], "--as-of", "2026-06-01", "--json",
                 "--window", "4096", "--order", "edges"]) == 0
    single = json.loads(capsys.readouterr().out)
    assert json.loads(first) == {"id": "q0", **single}
    assert len(_lines(out)) == 12 and [d["id"] for d in _lines(out)] == [f"q{i}" for i in range(12)]


def test_a_bad_request_is_an_error_line_naming_it_and_the_run_goes_on(files: Path) -> None:
    rows = _requests(4)
    bad = [
        "not json",
        {"question": "no id", "records": []},
        {"id": "b1", "question": "", "records": []},
        {"id": "b2", "question": "q?", "records": ["missing"]},
        {"id": "b3", "question": "q?", "records": [{"id": "x"}]},  # no text
        {"id": "b4", "question": "q?", "records": [], "options": {"order": "sideways"}},
        {"id": "b5", "question": "q?", "records": [], "options": {"clearance": "restricted"}},
        {"id": "b6", "question": "q?", "records": [], "options": {"model": "gpt-4o"}},
        {"id": "b7", "question": "q?", "records": [], "as_of": "tomorrow"},
        {"id": "q1", "question": "again", "records": []},
        {"id": "b8", "question": "q?", "records": [], "option": {}},
    ]
    _write(files / "req.jsonl", rows[:2] + bad + rows[2:])
    out = files / "out.jsonl"
    code = main(["batch", str(files / "req.jsonl"), "--corpus", str(files / "corpus.jsonl"), "-o", str(out)])
    assert code == 1
    got = _lines(out)
    assert [d.get("id") for d in got] == ["q0", "q1", None, None, "b1", "b2", "b3", "b4", "b5", "b6", "b7", "q1",
                                          "b8", "q2", "q3"]
    errors = {(d["id"], d["line"]): d["error"] for d in got if "error" in d}
    assert errors[(None, 4)]["field"] == "id"
    assert errors[("b1", 5)]["field"] == "question"
    assert errors[("b2", 6)]["field"] == "records[0]"
    assert errors[("b3", 7)] == {"field": "records", "record": "x",
                                 "message": "record 'x', field 'text': missing required field"}
    assert errors[("b4", 8)]["field"] == "options" and "order" in errors[("b4", 8)]["message"]
    assert errors[("b5", 9)]["field"] == "options" and "clearance" in errors[("b5", 9)]["message"]
    assert errors[("b6", 10)]["field"] == "options" and "model" in errors[("b6", 10)]["message"]
    assert errors[("b7", 11)]["field"] == "as_of"
    assert errors[("q1", 12)] == {"field": "id", "message": "request id repeated (first at line 2)"}
    assert errors[("b8", 13)]["field"] == "option"
    assert "prompt" in got[-1]


def test_per_request_options_apply_to_that_request_only(files: Path) -> None:
    rows = _requests(3)
    rows[1]["options"] = {"order": "ranked", "max_records": 1, "format": "markdown"}
    _write(files / "req.jsonl", rows)
    out = files / "out.jsonl"
    assert main(["batch", str(files / "req.jsonl"), "--corpus", str(files / "corpus.jsonl"), "-o", str(out),
                 "--format", "xml"]) == 0
    a, b, c = (d["report"]["settings"] for d in _lines(out))
    assert (a["format"], b["format"], c["format"]) == ("xml", "markdown", "xml")
    assert (a["max_records"], b["max_records"]) == (None, 1)
    assert b["order"] == "ranked"


def _job(files: Path, **kw: object) -> Job:
    return Job({"as_of": "2026-06-01"}, corpus=str(files / "corpus.jsonl"), **kw)  # type: ignore[arg-type]


def test_two_workers_write_the_same_bytes_as_one(files: Path) -> None:
    rows = _requests(40)
    rows[7] = "broken line"
    _write(files / "req.jsonl", rows)
    one, two = files / "one.jsonl", files / "two.jsonl"
    with (files / "req.jsonl").open("rb") as f:
        run_batch(f, one, _job(files, emit="openai-batch", emit_model="m"), emit_path=files / "one.emit")
    with (files / "req.jsonl").open("rb") as f:
        counts = run_batch(f, two, _job(files, emit="openai-batch", emit_model="m"), workers=2, chunk=3,
                           emit_path=files / "two.emit")
    assert (counts.written, counts.errors) == (40, 1)
    assert one.read_bytes() == two.read_bytes()
    assert (files / "one.emit").read_bytes() == (files / "two.emit").read_bytes()


def test_workers_need_one_boundary_key(files: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVIDENCEPACK_BOUNDARY_KEY")
    with pytest.raises(UsageError, match="boundary key"):
        run_batch(io.BytesIO(b""), files / "o.jsonl", _job(files), workers=2)
    key = files / "key"
    key.write_text(KEY)
    assert main(["batch", str(files / "req.jsonl"), "--corpus", str(files / "corpus.jsonl"), "-o",
                 str(files / "o.jsonl"), "--workers", "2", "--boundary-key-file", str(key), "--quiet"]) == 0
    assert all("seal" in d for d in _lines(files / "o.jsonl"))  # a key the caller set seals the assemblies


@pytest.mark.parametrize("kept", [0, 3, 7, 11])
def test_resume_after_a_kill_gives_the_bytes_of_one_whole_run(files: Path, kept: int) -> None:
    rows = _requests(10)
    rows[4] = "not json"
    rows.append({"id": "q2", "question": "repeated", "records": []})
    _write(files / "req.jsonl", rows)
    args = ["batch", str(files / "req.jsonl"), "--corpus", str(files / "corpus.jsonl"), "--emit", "chat-jsonl"]
    whole, part = files / "whole.jsonl", files / "part.jsonl"
    main([*args, "-o", str(whole)])
    lines = whole.read_bytes().splitlines(keepends=True)
    part.write_bytes(b"".join(lines[:kept]) + lines[min(kept, len(lines) - 1)][:50])  # a torn last line
    emitted = (files / "whole.chat-jsonl.jsonl").read_bytes().splitlines(keepends=True)
    (files / "part.chat-jsonl.jsonl").write_bytes(b"".join(emitted[:kept + 1]))  # one ahead of the output
    assert main([*args, "-o", str(part)]) == 2  # refuses to touch it without --resume / --overwrite
    main([*args, "-o", str(part), "--resume"])
    assert part.read_bytes() == whole.read_bytes()
    assert (files / "part.chat-jsonl.jsonl").read_bytes() == (files / "whole.chat-jsonl.jsonl").read_bytes()


def test_emit_formats_carry_the_request_id(files: Path) -> None:
    rows = _requests(2) + [{"id": "has space", "question": "q?", "records": ["hb"]}]
    _write(files / "req.jsonl", rows)
    out = files / "out.jsonl"
    assert main(["batch", str(files / "req.jsonl"), "--corpus", str(files / "corpus.jsonl"), "-o", str(out),
                 "--emit", "anthropic-batch", "--model", "gpt-4o-mini", "--output-reserve", "300"]) == 1
    assemblies = _lines(out)
    assert assemblies[2]["error"]["field"] == "id"  # Anthropic's custom_id allows no space
    (a0, a1) = _lines(files / "out.anthropic-batch.jsonl")
    assert a0["custom_id"] == "q0" and a1["custom_id"] == "q1"
    # system and user content are text blocks with prompt-cache breakpoints (`Assembly.anthropic()`)
    text = "".join(b["text"] for b in a0["params"]["system"]) + "\n\n" + \
        "".join(b["text"] for b in a0["params"]["messages"][0]["content"])
    assert text == assemblies[0]["prompt"]
    assert a0["params"]["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert a0["params"]["model"] == "gpt-4o-mini" and a0["params"]["max_tokens"] == 300
    assert main(["batch", str(files / "req.jsonl"), "--corpus", str(files / "corpus.jsonl"), "-o", str(out),
                 "--overwrite", "--emit", "openai-batch", "--emit-model", "my-model"]) == 0
    o0 = _lines(files / "out.openai-batch.jsonl")[0]
    assert o0["custom_id"] == "q0" and o0["url"] == "/v1/chat/completions" and o0["method"] == "POST"
    assert o0["body"]["messages"] == _lines(out)[0]["messages"] and o0["body"]["model"] == "my-model"
    assert main(["batch", str(files / "req.jsonl"), "-o", str(out), "--overwrite", "--emit", "openai-batch"]) == 2


def test_no_progress_line_off_a_terminal(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batch", str(files / "req.jsonl"), "--corpus", str(files / "corpus.jsonl"), "-o",
                 str(files / "o.jsonl")]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err and "12 lines written (0 errors)" in err


def test_a_request_line_with_a_repeated_key_or_deep_nesting_is_refused(files: Path) -> None:
    deep = '{"id": "d", "question": "q?", "records": [{"id": "x", "text": "t", "metadata": {"k": ' + "[" * 70 \
        + "]" * 70 + "}}]}"
    _write(files / "req.jsonl", ['{"id": "r", "id": "s", "question": "q?", "records": []}', deep])
    out = files / "out.jsonl"
    assert main(["batch", str(files / "req.jsonl"), "-o", str(out)]) == 1
    first, second = _lines(out)
    assert first["error"]["field"] == "id" and "twice" in first["error"]["message"]
    assert "nested too deeply" in second["error"]["message"]


def test_the_progress_line_is_for_a_terminal_only() -> None:
    from evidencepack.batch.run import Counts, tty_progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert tty_progress(io.StringIO()) is None
    screen = Terminal()
    show = tty_progress(screen)
    assert show is not None
    show(Counts(written=5, errors=1, skipped=2))
    assert screen.getvalue().startswith("\rbatch: 5 written (1 errors, 2 skipped)")


def test_an_unexpected_failure_is_that_request_s_error_line(files: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import evidencepack.batch.job as job_module

    real = job_module.assemble

    def flaky(records, question, **kw):  # type: ignore[no-untyped-def]
        if "(3)" in question:
            raise ZeroDivisionError("boom")
        return real(records, question, **kw)

    monkeypatch.setattr(job_module, "assemble", flaky)
    out = files / "out.jsonl"
    assert main(["batch", str(files / "req.jsonl"), "--corpus", str(files / "corpus.jsonl"), "-o", str(out)]) == 1
    got = _lines(out)
    assert len(got) == 12 and got[3]["error"]["message"].startswith("internal error (ZeroDivisionError)")
    assert "boom" not in got[3]["error"]["message"] and "prompt" in got[4]
