"""`eval --emit` / `--import-answers`: a whole evaluation through a provider's batch API gives the same rows as
the live run, including the guard's second call (a second round)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_end_to_end import cli, needs_validator

from evidencepack.eval import cli as eval_cli
from evidencepack.eval.backends import Sampling, ScriptedBackend
from evidencepack.eval.cache import AnswerCache
from evidencepack.eval.provider_batch import import_answers

COMMON = ("--backend", "scripted", "--limit", "4", "--no-plots", "--quiet")


def _rows(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def _stale_first(messages: list[dict[str, str]]) -> str:
    """A model whose first answer the guard rejects (a stale source only, a handle that does not exist)."""
    if len(messages) == 2:
        return "Yes, you can carry up to 5 days into next year [S2]. Ask HR [S9]."
    return "No. It does not carry over [S1]."


def _answer_openai(requests: Path, results: Path) -> int:
    """Play the provider: answer every emitted request with the scripted model, in OpenAI's output shape."""
    model = ScriptedBackend(rule=_stale_first)
    lines = [json.loads(line) for line in requests.read_text().splitlines()]
    with results.open("a") as fh:
        for line in lines:
            body = line["body"]
            sampling = Sampling(max_tokens=body["max_completion_tokens"], temperature=body["temperature"],
                                seed=body.get("seed"))
            text = model.complete(body["messages"], sampling).text
            fh.write(json.dumps({"custom_id": line["custom_id"], "response": {"status_code": 200, "body": {
                "model": "scripted-1", "choices": [{"message": {"content": text}}]}}, "error": None}) + "\n")
    return len(lines)


@needs_validator
def test_emit_import_and_rerun_give_the_live_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eval_cli, "make_backend", lambda *a, **k: ScriptedBackend(rule=_stale_first))
    conditions = ("--conditions", "flat,structured,structured+guard")
    assert cli("traps", *COMMON, *conditions, "--out", str(tmp_path / "live")) == 0
    live = _rows(tmp_path / "live")
    batch, results = tmp_path / "batch", tmp_path / "results.jsonl"
    rounds = 0
    while True:  # the guard's second prompts depend on first answers: they come in a later round
        assert cli("traps", *COMMON, *conditions, "--out", str(batch), "--emit", "openai-batch",
                   *(("--import-answers", str(results)) if results.exists() else ())) == 0
        if _answer_openai(batch / "batch-requests.jsonl", results) == 0:
            break
        rounds += 1
        assert rounds < 4
    assert rounds == 2  # first answers, then the guard's second calls
    assert any(r.get("guard", {}).get("regenerated") for r in live)
    capsys.readouterr()
    assert cli("traps", *COMMON, *conditions, "--out", str(batch), "--cache-only") == 0
    assert "cache only: 0 not cached" in capsys.readouterr().out
    rows = _rows(batch)
    keys = ("condition", "question", "answer", "verdict", "calls")
    assert [{k: r.get(k) for k in keys} for r in rows] == [{k: r.get(k) for k in keys} for r in live]


def test_emit_lines_carry_the_sampling_and_the_model(tmp_path: Path) -> None:
    assert cli("traps", *COMMON, "--backend", "http", "--conditions", "structured", "--model", "gpt-x",
               "--temperature", "0.3", "--seed", "7", "--max-tokens", "123", "--out", str(tmp_path),
               "--emit", "anthropic-batch") == 0
    lines = [json.loads(line) for line in (tmp_path / "batch-requests.jsonl").read_text().splitlines()]
    assert len(lines) == 4 and len({line["custom_id"] for line in lines}) == 4
    params = lines[0]["params"]
    assert (params["model"], params["max_tokens"], params["temperature"]) == ("gpt-x", 123, 0.3)
    assert params["system"].startswith("You answer questions") and params["messages"][0]["role"] == "user"
    assert _rows(tmp_path) == []  # nothing was judged: there are no answers yet


def test_emit_needs_a_model_for_provider_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("traps", *COMMON, "--backend", "http", "--conditions", "flat", "--out", str(tmp_path),
               "--emit", "openai-batch") == 2
    assert "needs --model" in capsys.readouterr().err


def test_import_stores_answers_under_their_key_and_lists_lines_without_one(tmp_path: Path) -> None:
    key = "a" * 64
    results = tmp_path / "r.jsonl"
    results.write_text("\n".join([
        json.dumps({"id": key, "answer": "PTO does not carry over [S1]."}),
        json.dumps({"custom_id": "b" * 64, "result": {"type": "errored", "error": {"type": "overloaded"}}}),
        json.dumps({"id": "../../escape", "answer": "x"}),
        "{not json",
    ]) + "\n")
    cache = AnswerCache(tmp_path / "cache")
    imported = import_answers([results], cache)
    assert imported.answers == 1
    assert cache.get(key).text == "PTO does not carry over [S1]."
    assert [f.split(": ", 1)[1] for f in imported.failures] == [
        "the request errored: overloaded", "the id is not a request this harness emitted",
        "not valid JSON (Expecting property name enclosed in double quotes)"]
    assert not (tmp_path / "escape.json").exists() and not list(tmp_path.glob("**/escape*"))


def test_an_http_run_is_emitted_and_judged_from_the_cache_with_no_server_named(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVIDENCEPACK_BASE_URL", raising=False)
    http = ("--backend", "http", "--model", "gpt-x", "--limit", "2", "--no-plots", "--quiet", "--conditions", "flat")
    assert cli("traps", *http, "--out", str(tmp_path), "--emit", "openai-batch") == 0
    results = tmp_path / "results-1.jsonl"
    assert _answer_openai(tmp_path / "batch-requests.jsonl", results) == 2
    assert cli("traps", *http, "--out", str(tmp_path), "--import-answers", str(results), "--cache-only") == 0
    assert [r["status"] for r in _rows(tmp_path)] == ["ok", "ok"]
