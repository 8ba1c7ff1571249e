"""Command-line papercuts: closed pipes, stdin for the assembly, `python -m`, examples in every --help."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from evidencepack.cli import build_parser, main


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "evidencepack", *args], input=stdin, capture_output=True,
                          text=True)


def test_python_dash_m():
    out = run("--version")
    assert out.returncode == 0 and out.stdout.startswith("evidencepack ")


def test_reader_closing_the_pipe_is_not_an_error(tmp_path):
    records = tmp_path / "r.jsonl"
    records.write_text("".join(json.dumps({"id": f"r{i}", "text": f"Record {i}. " + "words " * 60}) + "\n"
                               for i in range(600)))
    proc = subprocess.Popen([sys.executable, "-m", "evidencepack", "assemble", str(records), "-q", "q",
                             "--as-of", "2026-01-01", "--window", "200000", "--output-reserve", "64", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(10)  # like `head -c 10`: read a little, then go away
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0
    noise = [line for line in err.splitlines() if not line.startswith("evidencepack: note:")]  # the count note
    assert "Broken pipe" not in err and "BrokenPipeError" not in err and noise == []


def test_validate_reads_the_assembly_from_stdin(tmp_path):
    assembled = run("assemble", "-", "-q", "Does unused PTO carry over?", "--as-of", "2026-01-01", "--json",
                    stdin=json.dumps({"id": "hb", "text": "Unused PTO does not carry over."}) + "\n")
    assert assembled.returncode == 0
    answer = tmp_path / "a.txt"
    answer.write_text("It does not carry over [S1].")
    ok = run("validate", "-", str(answer), stdin=assembled.stdout)
    assert ok.returncode == 0 and ok.stdout.startswith("valid")
    answer.write_text("It does not carry over [S7].")
    assert run("validate", "-", str(answer), stdin=assembled.stdout).returncode == 1
    both = run("validate", "-", "-", stdin=assembled.stdout)
    assert both.returncode == 2 and "only one" in both.stderr


def test_validate_stdin_that_is_not_json_is_a_usage_error(monkeypatch, capsys, tmp_path):
    answer = tmp_path / "a.txt"
    answer.write_text("x")
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO("not json"))
    assert main(["validate", "-", str(answer)]) == 2
    assert "stdin is not JSON" in capsys.readouterr().err


def subparsers(parser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name, sub
                yield from subparsers(sub)


def test_top_level_help_is_for_users():
    text = build_parser().format_help()
    assert "thin argument parsing" not in text and "examples:" in text


@pytest.mark.parametrize("name", [n for n, _ in subparsers(build_parser())])
def test_every_subcommand_help_has_an_example(name):
    sub = dict(subparsers(build_parser()))[name]
    text = sub.format_help()
    assert "example" in text and "evidencepack " in text.split("example", 1)[1]
