"""Keeps benchmarks/bench_frameworks.py from rotting: its corpus, its hand-written dedup, and its evidencepack and
hand-written rows at a small N. No framework is needed and no timing is asserted."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from evidencepack import get_tokenizer

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_frameworks.py"
LIGHT_ROWS = ("floor", "hand-written", "ep-repeat", "ep-new-q", "ep-cold")


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_frameworks", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


@pytest.fixture(scope="module")
def tok():
    return get_tokenizer("o200k_base")


def test_corpus_is_deterministic_with_the_planted_duplicate_shares(bench, tok):
    a, b = bench.make_corpus(100), bench.make_corpus(100)
    assert a == b
    assert len(a.records) == 100 and len({r["id"] for r in a.records}) == 100
    assert len(a.exact) == 10 and len(a.near) == 10 and not a.exact & a.near
    scores = [r["score"] for r in a.records]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == 100
    texts = [r["text"] for r in a.records]
    for i, r in enumerate(a.records):
        earlier = texts[:i]
        if r["id"] in a.exact:
            assert r["text"] in earlier
        else:
            assert r["text"] not in earlier
    originals = [t for r, t in zip(a.records, texts) if r["id"] not in a.exact | a.near]
    mean = sum(tok.count(t) for t in originals[:20]) / 20
    assert 250 <= mean <= 350  # ~300 tokens each, as the job says


def test_lazy_dedup_flags_exactly_the_planted_duplicates(bench):
    corpus = bench.make_corpus(200)
    dedup = bench.LazyDedup()
    flagged = {r["id"] for r in corpus.records if dedup.is_duplicate(r["text"])}
    assert flagged == corpus.exact | corpus.near


def test_light_rows_run_and_select_sensibly(bench, tok):
    res = bench.measure((20, 100), 1, LIGHT_ROWS, tok, log=lambda _: None)
    assert res.problems == [] and res.missing == {}
    assert set(res.ms) == set(LIGHT_ROWS)
    assert all(ms > 0 for row in res.ms.values() for ms in row.values())
    for row in ("hand-written", "ep-repeat", "ep-new-q", "ep-cold"):
        assert res.selected[row][20] == 16  # all 16 originals fit; the 4 duplicates are dropped
        assert 12 <= res.selected[row][100] <= 24  # the 8k window holds about 20 blocks of ~300 tokens
    assert res.caches_cleared >= 1


def test_evidencepack_row_drops_every_planted_duplicate(bench, tok):
    corpus = bench.make_corpus(100)
    out = bench.evidencepack_run(tok)(list(corpus.records), "What changed?")
    assert out.ids and not set(out.ids) & (corpus.exact | corpus.near)
    assert bench.check_output("ep", 100, out, corpus, tok) == []


def test_quick_mode_without_frameworks_reports_them_as_not_installed(bench, monkeypatch, capsys):
    def unavailable(tok):
        raise ImportError("no module", name="langchain_core")

    monkeypatch.setitem(bench.FACTORIES, "langchain", unavailable)
    code = bench.main(["--quick", "--sizes", "20,100", "--repeat", "1",
                       "--rows", "floor,hand-written,langchain,ep-new-q,ep-cold"])
    out = capsys.readouterr().out
    assert code == 0
    assert "| LangChain components | not installed | not installed |" in out
    assert "n/a   ep-new-q faster than langchain: not installed (langchain_core)" in out
    assert "new question over a warm corpus, N=100" in out and "cold ≤ 2× floor at every N" in out
    assert "plot written" not in out and "peak memory" not in out  # --quick writes nothing and spawns nothing


def test_unknown_row_is_refused(bench):
    with pytest.raises(SystemExit):
        bench.main(["--rows", "floor,gpt"])
