"""Paired comparison of trap conditions: per-question wins and losses against a reference, with the sign test."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidencepack.eval.report import paired, sign_test, trap_report


def test_sign_test_known_values() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 5) == 1.0
    assert sign_test(9, 1) == pytest.approx(2 * 11 / 1024)
    assert sign_test(1, 9) == sign_test(9, 1)
    assert sign_test(6, 0) == pytest.approx(2 / 64)


@given(st.integers(0, 40), st.integers(0, 40))
def test_sign_test_is_a_probability_and_symmetric(b: int, w: int) -> None:
    p = sign_test(b, w)
    assert 0.0 < p <= 1.0 and p == sign_test(w, b)
    if b + w:
        assert p == pytest.approx(min(1.0, 2 * sum(math.comb(b + w, i) for i in range(min(b, w) + 1)) / 2 ** (b + w)))


def _row(cond: str, q: str, verdict: str, status: str = "ok", refused: bool = False) -> dict:
    return {"condition": cond, "question": q, "verdict": verdict, "status": status, "refused": refused,
            "answer": "x", "assembly_prompt_tokens": 10}


def test_paired_counts_only_questions_both_judged_and_orients_each_outcome() -> None:
    rows = [
        _row("structured", "a", "stale"), _row("v", "a", "current"),        # v better: correct, less stale
        _row("structured", "b", "current"), _row("v", "b", "none", refused=True),  # v worse: refuses
        _row("structured", "c", "surfaced"), _row("v", "c", "current"),     # both correct: no information
        _row("structured", "d", "none"), _row("v", "d", "stale", status="truncated"),  # v not judged: left out
        _row("v", "e", "current"),                                          # reference missing: left out
    ]
    x = paired(rows)["v"]
    assert x["questions"] == 3
    assert (x["current_correct"]["better"], x["current_correct"]["worse"]) == (1, 1)
    assert (x["stale"]["better"], x["stale"]["worse"]) == (1, 0)
    assert (x["refused"]["better"], x["refused"]["worse"]) == (0, 1)
    assert "structured" not in paired(rows)
    assert paired([r for r in rows if r["condition"] == "v"]) == {}  # no reference, no comparison
    assert "## Paired against `structured`" in trap_report(rows, {})
