"""`evidencepack batch` measured: requests per second per core against the warm single call, the speed-up from
one to two worker processes, and peak memory as the number of requests grows (issue 27).

    python benchmarks/bench_batch.py                  # all three parts
    python benchmarks/bench_batch.py --part rate      # or workers, ray, memory
    python benchmarks/bench_batch.py --memory-sizes 10000,100000

- rate: M requests, each a new question over the same N candidates (N = 20, 100; the framework benchmark's
  corpus, ~300 tokens a record, 8,192-token window), so the caches are warm as in a service. "single" is
  `assemble()` in a loop; "single + JSON" adds `to_json()` (what one `assemble --json` line costs); "batch"
  is the batch path in one process (`run_batch`, workers=1): reading each request line, assembling, writing
  its line. CPU time of this process; medians of `--repeat` runs.
- workers: the same batch file at N = 100 with 1 and 2 worker processes, wall time (processes run in
  parallel, so CPU time would hide the point). The machine has 2 cores and may be shared: the load average
  before and after is printed, and the speed-up is only as good as the idle cores.
- ray: the same file through Ray Data on a local Ray instance (2 actors, `integrations.ray.AssembleBatch`)
  against the single process, wall clock, Ray's start-up left out; skipped without Ray.
- memory: `evidencepack batch` as a child process over K requests (small records named by id into a corpus
  of 2,000, plus one inline record per request, 6 candidates each), output to /dev/null; the child's peak
  RSS. Flat means the figure does not follow K. `--memory-texts recurring` (default) draws questions and
  inline texts from 500; `unique` gives every request new text, so the library's bounded caches (token
  counts: 200,000 entries; neutralised text: 65,536) fill up to their caps along the way.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_frameworks import AS_OF, BUDGET, make_corpus  # noqa: E402

from evidencepack import assemble  # noqa: E402
from evidencepack.batch.job import Job  # noqa: E402
from evidencepack.batch.run import run_batch  # noqa: E402

KEY = "bench-key-0123456789abcdef-0123456789"
KWARGS = {"as_of": AS_OF, "budget": BUDGET}


def _requests(records: tuple[dict, ...], m: int, tag: str) -> bytes:
    lines = [json.dumps({"id": f"{tag}{i}", "question": f"What does the policy say about item {tag}{i}?",
                         "records": list(records)}) for i in range(m)]
    return ("\n".join(lines) + "\n").encode()


def _load() -> str:
    return f"{os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "n/a"


def _rate_at(n: int, m: int, repeat: int) -> tuple[float, float, float]:
    """CPU ms per request at `n` candidates: the single call, with its JSON, and the batch path."""
    records = make_corpus(n).records
    questions = [f"What does the policy say about item s{n}-{i}?" for i in range(m)]
    raw = _requests(records, m, f"b{n}-")
    job = Job(KWARGS)

    def single(json_too: bool) -> None:
        for q in questions:
            a = assemble(records, q, **KWARGS)  # type: ignore[arg-type]
            if json_too:
                a.to_json()

    def batch() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            run_batch(io.BytesIO(raw), Path(tmp) / "out.jsonl", job)

    fns = {"single": lambda: single(False), "json": lambda: single(True), "batch": batch}
    for fn in fns.values():  # warm-up: caches as a service holds them
        fn()
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeat):
        for k, fn in fns.items():
            t0 = time.process_time()
            fn()
            times[k].append((time.process_time() - t0) / m * 1000)
    s, j, b = (statistics.median(times[k]) for k in ("single", "json", "batch"))
    return s, j, b


def part_rate(m: int, repeat: int) -> None:
    print(f"rate: {m} requests per run, median of {repeat} runs, CPU ms per request (load {_load()})")
    print(f"{'candidates':>10} {'single':>8} {'single+JSON':>12} {'batch':>8} {'batch/single':>13} "
          f"{'batch/single+JSON':>18} {'requests/s/core':>16}")
    for n in (20, 100):
        s, j, b = _rate_at(n, m, repeat)
        print(f"{n:>10} {s:8.2f} {j:12.2f} {b:8.2f} {b / s:12.2f}x {b / j:17.2f}x {1000 / b:16.0f}")


def part_workers(m: int) -> None:
    records = make_corpus(100).records
    raw = _requests(records, m, "w")
    os.environ["EVIDENCEPACK_BOUNDARY_KEY"] = KEY
    job = Job(KWARGS)
    walls: dict[int, float] = {}
    outs: dict[int, bytes] = {}
    before = _load()
    for workers in (1, 2, 1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "out.jsonl"
            t0 = time.perf_counter()
            run_batch(io.BytesIO(raw), out, job, workers=workers)
            wall = time.perf_counter() - t0
            walls[workers] = min(walls.get(workers, wall), wall)
            outs[workers] = out.read_bytes()
    print(f"workers: {m} requests at 100 candidates, best of 2 wall times; load {before} before, {_load()} after, "
          f"{os.cpu_count()} cores")
    for w, wall in walls.items():
        print(f"  {w} worker(s): {wall:6.2f} s  {m / wall:7.0f} requests/s")
    print(f"  speed-up 1 -> 2: {walls[1] / walls[2]:.2f}x (target >= 1.7x on two idle cores); "
          f"outputs byte-identical: {outs[1] == outs[2]}")


def part_ray(m: int) -> None:
    """The Ray Data path on a local Ray instance (2 actors) against the single process, wall clock; Ray's
    start-up is left out, the first run of each is a warm-up."""
    try:
        import ray
        import ray.data
    except ImportError:
        print("ray: not installed (pip install 'evidencepack[ray]'), skipped")
        return
    from evidencepack.integrations.ray import AssembleBatch, read_requests

    os.environ["EVIDENCEPACK_BOUNDARY_KEY"] = KEY
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             runtime_env={"env_vars": {"EVIDENCEPACK_BOUNDARY_KEY": KEY}})
    ray.data.DataContext.get_current().execution_options.preserve_order = True
    job = Job(KWARGS)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "req.jsonl"
        path.write_bytes(_requests(make_corpus(100).records, m, "r"))
        walls: dict[str, float] = {}
        for name in ("single", "ray", "single", "ray"):
            t0 = time.perf_counter()
            if name == "single":
                with path.open("rb") as f:
                    run_batch(f, Path(tmp) / "single.jsonl", job)
            else:
                ds = read_requests(path).map_batches(AssembleBatch, fn_constructor_kwargs={"job": job},
                                                     compute=ray.data.ActorPoolStrategy(size=2), batch_size=32)
                with (Path(tmp) / "ray.jsonl").open("w") as out:
                    for row in ds.iter_rows():
                        out.write(row["assembly"] + "\n")
            walls[name] = time.perf_counter() - t0
        same = (Path(tmp) / "single.jsonl").read_bytes() == (Path(tmp) / "ray.jsonl").read_bytes()
    ray.shutdown()
    print(f"ray: {m} requests at 100 candidates, wall clock (second run of each), load {_load()}")
    print(f"  single process: {walls['single']:6.2f} s; Ray local (2 actors): {walls['ray']:6.2f} s; "
          f"ratio {walls['ray'] / walls['single']:.2f}x; byte-identical: {same}")


def _memory_child(k: int, tmp: Path, unique: bool) -> tuple[float, float]:
    corpus = tmp / "corpus.jsonl"
    if not corpus.exists():
        corpus.write_text("".join(json.dumps({"id": f"c{i}", "text": f"Rule {i}: claims over {i % 97} days need "
                                              f"approval by a manager of band {i % 7}."})
                                  + "\n" for i in range(2000)))
    requests = tmp / f"req{k}.jsonl"
    with requests.open("w") as f:
        for i in range(k):
            ids = [f"c{(i * 7 + j * 13) % 2000}" for j in range(5)]
            own = i if unique else i % 500  # unique: every request brings a text never seen before
            f.write(json.dumps({"id": f"r{i}", "question": f"How long for claim {own}?", "as_of": AS_OF,
                                "records": [*ids, {"id": f"own{i}", "text": f"Request {own} note: see rule "
                                                   f"{i % 2000}."}]}) + "\n")
    code = ("import resource, sys\nfrom evidencepack.cli import main\nrc = main(sys.argv[1:])\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n")
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, "batch", str(requests), "--corpus", str(corpus), "-o",
                           os.devnull, "--quiet", "--window", "2048"], capture_output=True, text=True,
                          env={**os.environ, "EVIDENCEPACK_BOUNDARY_KEY": KEY})
    if done.returncode != 0 or "(0 errors)" not in done.stderr:
        raise SystemExit(f"the batch run failed: {done.stderr.strip()[-400:]}")
    wall = time.perf_counter() - t0
    peak_kb = float(done.stderr.strip().splitlines()[-1])
    scale = 1024 if sys.platform != "darwin" else 1024 * 1024  # ru_maxrss: KiB on Linux, bytes on macOS
    return peak_kb * 1024 / scale / 1024, wall


def part_memory(sizes: list[int], unique: bool) -> None:
    texts = "a new question and record text in every request" if unique else "questions and texts recur (500)"
    print(f"memory: peak RSS of `evidencepack batch` (child process), {texts}; load {_load()}")
    with tempfile.TemporaryDirectory() as tmp:
        for k in sizes:
            mb, wall = _memory_child(k, Path(tmp), unique)
            print(f"  {k:>8,} requests: peak {mb:7.1f} MiB  ({wall:6.1f} s, {k / wall:6.0f} requests/s)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=("rate", "workers", "memory", "ray", "all"), default="all")
    ap.add_argument("--requests", type=int, default=200, help="requests per rate run (default 200)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--worker-requests", type=int, default=1000)
    ap.add_argument("--memory-sizes", default="10000,100000")
    ap.add_argument("--memory-texts", choices=("recurring", "unique"), default="recurring",
                    help="unique: every request brings new text, so the bounded caches fill up to their caps")
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"RLIMIT {resource.getrlimit(resource.RLIMIT_AS)[0]}")
    if args.part in ("rate", "all"):
        part_rate(args.requests, args.repeat)
    if args.part in ("workers", "all"):
        part_workers(args.worker_requests)
    if args.part in ("ray", "all"):
        part_ray(args.worker_requests)
    if args.part in ("memory", "all"):
        part_memory([int(x) for x in args.memory_sizes.split(",")], args.memory_texts == "unique")


if __name__ == "__main__":
    main()
