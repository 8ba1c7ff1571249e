"""The refactor's promise, checked: every recorded user-visible output is byte-identical (see golden.py)."""

from __future__ import annotations

import json

from golden import EXPECTED, outputs


def test_outputs_match_the_recorded_golden_files() -> None:
    expected = json.loads(EXPECTED.read_text("utf-8"))
    got = outputs()
    assert sorted(got) == sorted(expected)
    moved = [name for name in expected if got[name] != expected[name]]
    assert not moved, f"{len(moved)} golden outputs moved, first: {moved[:5]}"
