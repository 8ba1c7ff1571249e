"""docs/scale.md's worked run works as written (with `evidencepack` as `python -m evidencepack`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "scale.md"


def test_the_worked_run_in_docs_scale_md_runs(tmp_path: Path) -> None:
    script = re.findall(r"```sh\n(.*?)```", DOC.read_text("utf-8"), re.DOTALL)[0]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "evidencepack"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m evidencepack "$@"\n')
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(x) for x in (tmp_path / "assemblies.jsonl").read_text().splitlines()]
    assert [x["id"] for x in lines] == ["q1", "q2", "q3"] and "error" in lines[2]
    assert lines[1]["report"]["settings"]["order"] == "ranked"
    emitted = [json.loads(x) for x in (tmp_path / "assemblies.openai-batch.jsonl").read_text().splitlines()]
    assert [e["custom_id"] for e in emitted] == ["q1", "q2"]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["checked"] == 2 and summary["problems"]["missing_answers"]["count"] == 0
    assert summary["problems"]["failed_requests"]["shown"] == ["q3"]  # its batch line is an error line
    assert (tmp_path / "check.html").is_file()
