"""Every command words a file error the same way: '<role> not found: <path>' (or its kin), exit 2, never a raw
'[Errno 2] ...' (issue 26, item 7)."""

from __future__ import annotations

import json

import pytest

from evidencepack import assemble
from evidencepack.cli import main

A = assemble([{"id": "hb", "text": "Unused PTO does not carry over."}], "Does PTO carry over?", as_of="2026-01-01",
             boundary_key="k" * 16)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "assembly.json").write_text(A.to_json(), "utf-8")
    (tmp_path / "answer.txt").write_text("It does not [S1].", "utf-8")
    (tmp_path / "records.jsonl").write_text(json.dumps({"id": "a", "text": "x"}) + "\n", "utf-8")
    (tmp_path / "binary.txt").write_bytes(b"\xff\xfe\x00bad")
    (tmp_path / "folder").mkdir()
    return tmp_path


CASES = [
    (["assemble", "{missing}", "-q", "q?"], "records file not found: {missing}"),
    (["assemble", "{d}/folder", "-q", "q?"], "records file is a directory, not a file: {d}/folder"),
    (["assemble", "{d}/records.jsonl", "-q", "q?", "--system-template", "{missing}"],
     "--system-template file not found: {missing}"),
    (["validate", "{missing}", "{d}/answer.txt"], "assembly file not found: {missing}"),
    (["validate", "{d}/assembly.json", "{missing}"], "answer file not found: {missing}"),
    (["validate", "{d}/folder", "{d}/answer.txt"], "assembly file is a directory, not a file: {d}/folder"),
    (["validate", "{d}/assembly.json", "{d}/binary.txt"], "answer file is not UTF-8 text: {d}/binary.txt"),
    (["inspect", "{missing}"], "assembly file not found: {missing}"),
    (["inspect", "{d}/assembly.json", "{missing}"], "answer file not found: {missing}"),
    (["inspect", "{d}/assembly.json", "-o", "{d}/nowhere/page.html"], "output file not found: {d}/nowhere/page.html"),
]


@pytest.mark.parametrize("argv, message", CASES, ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_file_errors_read_the_same_way(files, capsys, argv, message):
    fill = {"d": str(files), "missing": str(files / "missing.file")}
    code = main([a.format(**fill) for a in argv])
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"evidencepack: error: {message.format(**fill)}\n"
    assert "Errno" not in err
