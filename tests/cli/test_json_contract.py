"""The CLI and its JSON contract, run as a user would (subprocess)."""

import json
import subprocess
import sys

import pytest

from evidencepack.cli import main

RECORDS = [
    {"id": "hb", "rank": 1, "text": "Unused PTO does not carry over.", "authority": "authoritative",
     "doc": "Handbook", "topic": "pto", "url": "https://hr.example/pto"},
    {"id": "slack", "rank": 2, "text": "sure, PTO carries over", "authority": "informal",
     "valid_until": "2024-06-30", "topic": "pto"},
    {"id": "secret", "rank": 3, "text": "salary bands", "sensitivity": "restricted"},
]


@pytest.fixture
def records_file(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    return path


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "evidencepack.cli", *map(str, args)], capture_output=True,
                          text=True, input=stdin)


def test_assemble_json_contract(records_file, tmp_path):
    p = run("assemble", records_file, "--question", "Does PTO carry over?", "--as-of", "2026-01-15", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert {"prompt", "messages", "manifest", "report"} <= set(out)
    assert [m["role"] for m in out["messages"]] == ["system", "user"]
    for m in out["manifest"]:
        assert {"handle", "id", "doc", "section", "url", "position", "tokens", "status", "authority"} <= set(m)
    for r in out["report"]["records"]:
        assert {"id", "decision", "reason", "duplicate_of", "handle", "position", "tokens"} <= set(r)
    # the default withholds the expired Slack message: its group has a current authoritative member
    assert [r["reason"] for r in out["report"]["records"]] == [None, "conflict_withheld", "above_clearance"]
    assert "salary" not in p.stdout

    assembly = tmp_path / "assembly.json"
    assembly.write_text(p.stdout)
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("No, it does not carry over [S1].")
    bad.write_text("It carries over [S7].")
    assert run("validate", assembly, good).returncode == 0
    v = run("validate", assembly, bad, "--json")
    assert v.returncode == 1 and json.loads(v.stdout)["findings"][0]["kind"] == "unknown_handle"
    assert run("validate", tmp_path / "missing.json", good).returncode == 2
    not_ours = tmp_path / "other.json"
    not_ours.write_text('{"hello": 1}')
    assert run("validate", not_ours, good).returncode == 2
    r = run("validate", assembly, good, "--resolve", "links")
    assert "[S1](https://hr.example/pto)" in r.stdout


def test_user_mistakes_exit_2_without_traceback(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "text": "x"}\n{"id": "b", "text": ""}\n')
    p = run("assemble", bad, "-q", "q", "--as-of", "2026-01-01")
    assert p.returncode == 2 and "line 2" in p.stderr and "Traceback" not in p.stderr
    p = run("assemble", tmp_path / "nope.jsonl", "-q", "q")
    assert p.returncode == 2 and "not found" in p.stderr
    good = tmp_path / "good.jsonl"
    good.write_text('{"id": "a", "text": "x"}\n')
    p = run("assemble", good, "-q", "q", "--window", "100", "--as-of", "2026-01-01")
    assert p.returncode == 2 and "exceed the context window" in p.stderr


def test_stdin_and_plain_prompt(capsys):
    p = run("assemble", "-", "-q", "Does PTO carry over?", "--as-of", "2026-01-15",
            stdin="".join(json.dumps(r) + "\n" for r in RECORDS))
    assert p.returncode == 0 and "Question: Does PTO carry over?" in p.stdout


def test_demo_runs_and_is_deterministic(capsys):
    assert main(["demo"]) == 0
    first = capsys.readouterr().out
    assert main(["demo"]) == 0
    assert capsys.readouterr().out == first
    assert "FLATTENED" in first and "EXPIRED since" in first and "duplicate of" in first
