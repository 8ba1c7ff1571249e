"""`evidencepack validate` exit codes: 1 for an invalid answer, 2 for bad input (crafted or huge assembly
JSON), never a traceback (issue 14.7)."""

import json
import subprocess
import sys
from datetime import date

from evidencepack import (
    Layout,
    assemble,
)

A = assemble([{"id": "hb", "text": "Unused PTO does not carry over.", "authority": "authoritative"},
              {"id": "old", "text": "Five days carry over.", "authority": "superseded"},
              {"id": "secret", "text": "Band L4 pays 70,000.", "sensitivity": "restricted"}],
             "Does PTO carry over?", as_of=date(2026, 1, 1), layout=Layout(order="ranked"), boundary_key="k" * 16)


def _json(**changes):
    data = json.loads(A.to_json())
    for path, value in changes.items():
        target = data
        *head, last = path.split("__")
        for part in head:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(last) if last.isdigit() else last] = value
    return data


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
