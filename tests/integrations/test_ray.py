"""Ray Data path (`evidencepack.integrations.ray`) on a local Ray instance: the same bytes as the
single-process `evidencepack batch` and `batch-check`. Skipped, saying why, when Ray is not installed
(`pip install 'evidencepack[ray]'`; it is not in the `dev` extra: it is heavy)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'evidencepack[ray]' to run these tests")
ray_data = pytest.importorskip("ray.data", reason="Ray Data is not installed: pip install 'evidencepack[ray]'")

from evidencepack.batch.check import CheckSettings, run_check  # noqa: E402
from evidencepack.batch.job import Job  # noqa: E402
from evidencepack.batch.run import run_batch  # noqa: E402
from evidencepack.integrations.ray import AssembleBatch, CheckBatch, read_requests  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray")  # Ray's own deprecations, at init

KEY = "0123456789abcdef0123456789abcdef"
CORPUS = [{"id": "hb", "text": "Unused PTO does not carry over.", "authority": "authoritative"},
          {"id": "old", "text": "Up to five days of PTO carry over.", "authority": "superseded"}]


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             runtime_env={"env_vars": {"EVIDENCEPACK_BOUNDARY_KEY": KEY}})
    ctx = ray_data.DataContext.get_current()
    ctx.execution_options.preserve_order = True  # rows come back in input order
    yield
    ray.shutdown()


def _files(tmp_path: Path) -> tuple[Path, Job]:
    rows: list[Any] = [{"id": f"q{i}", "question": f"Does PTO carry over? ({i})", "as_of": "2026-06-01",
                        "records": ["hb", "old"] if i % 2 else [dict(CORPUS[1], id=f"x{i}"), "hb"]}
                       for i in range(24)]
    rows[5] = "not json"
    rows[9] = {"id": "bad", "question": "q?", "records": ["missing"]}
    requests = tmp_path / "req.jsonl"
    requests.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    (tmp_path / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in CORPUS))
    return requests, Job({"as_of": "2026-06-01"}, corpus=str(tmp_path / "corpus.jsonl"), emit="openai-batch",
                         emit_model="m")


def test_the_ray_path_writes_the_bytes_of_the_single_process(tmp_path: Path, local_ray: None,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVIDENCEPACK_BOUNDARY_KEY", KEY)
    requests, job = _files(tmp_path)
    single = tmp_path / "single.jsonl"
    with requests.open("rb") as f:
        run_batch(f, single, job, emit_path=tmp_path / "single.emit")
    out = read_requests(requests).map_batches(AssembleBatch, fn_constructor_kwargs={"job": job},
                                              compute=ray_data.ActorPoolStrategy(size=2), batch_size=5)
    rows = list(out.iter_rows())
    assert "".join(r["assembly"] + "\n" for r in rows).encode() == single.read_bytes()
    emitted = "".join(r["request"] + "\n" for r in rows if r["request"])
    assert emitted.encode() == (tmp_path / "single.emit").read_bytes()
    assert [r["error"] for r in rows].count(True) == 2


def test_check_batch_gives_batch_check_s_verdict_lines(tmp_path: Path, local_ray: None,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVIDENCEPACK_BOUNDARY_KEY", KEY)
    requests, job = _files(tmp_path)
    assemblies = tmp_path / "a.jsonl"
    with requests.open("rb") as f:
        run_batch(f, assemblies, job)
    by_id = {json.loads(line)["id"]: line for line in assemblies.read_text().splitlines() if '"id": null' not in line}
    answers = [json.dumps({"id": f"q{i}", "answer": "No, it does not carry over [S1]." if i % 3 else "Yes [S9]."})
               for i in range(0, 24, 2)] + [json.dumps({"id": "bad", "answer": "x"}),
                                            json.dumps({"id": "nobody", "answer": "x"})]
    (tmp_path / "answers.jsonl").write_text("".join(a + "\n" for a in answers))
    verdicts = io.StringIO()
    with (tmp_path / "answers.jsonl").open("rb") as f:
        run_check(assemblies, f, verdicts, CheckSettings())
    rows = [{"line": n, "answer": a.encode(), "assembly": by_id.get(json.loads(a)["id"], "").encode()}
            for n, a in enumerate(answers, start=1)]
    out = ray_data.from_items(rows).map_batches(CheckBatch, compute=ray_data.ActorPoolStrategy(size=2),
                                                batch_size=4)
    got = "".join(r["verdict"] + "\n" for r in out.iter_rows())
    assert got == verdicts.getvalue()
