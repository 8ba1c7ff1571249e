"""The first call: a fresh `evidencepack assemble` process on 100 records, against the floor any tool pays
(start Python, import tiktoken, load o200k from a local file the way tiktoken's own loader does, encode the
records' text).

    python benchmarks/bench_first_call.py [--rounds N] [--records N]

Each round runs the floor and the full command once, interleaved, as new processes; the table gives medians.
Bytecode is written on a warm-up run first (a real install has it; this workspace sets
PYTHONDONTWRITEBYTECODE, which the subprocesses here unset). The machine is shared: the load average is
printed beside the figures, and the ratio is what to compare.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_assemble import make_records  # noqa: E402

FLOOR = r'''
import base64, gzip, json, sys
import tiktoken
from importlib import resources
path, pat, records = sys.argv[1:4]
blob = gzip.decompress(open(path, "rb").read())
# tiktoken.load.load_tiktoken_bpe, on a local file
ranks = {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in blob.splitlines() if line)}
enc = tiktoken.Encoding(name="o200k_base", pat_str=pat, mergeable_ranks=ranks,
                        special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018})
n = 0
for line in open(records, encoding="utf-8"):
    n += len(enc.encode_ordinary(json.loads(line)["text"]))
'''


def _time(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--records", type=int, default=100)
    args = ap.parse_args()
    import evidencepack.tokens.tokenizer_data as data
    from evidencepack.tokens.tokenizers import _ENCODINGS

    gz = str(Path(data.__file__).parent / "o200k_base.tiktoken.gz")
    pat = str(_ENCODINGS["o200k_base"]["pat_str"])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as tmp:
        records = Path(tmp) / "records.jsonl"
        records.write_text("".join(json.dumps(r) + "\n" for r in make_records(args.records)))
        floor_py = Path(tmp) / "floor.py"
        floor_py.write_text(FLOOR)
        floor = [sys.executable, str(floor_py), gz, pat, str(records)]
        full = [sys.executable, "-m", "evidencepack", "assemble", str(records), "-q", "What is the leave policy?",
                "--as-of", "2026-01-01", "--json"]
        bare = [sys.executable, "-c", "pass"]
        for cmd in (floor, full, bare):  # warm-up: bytecode written, files in the page cache
            _time(cmd, env)
        times: dict[str, list[float]] = {"python": [], "floor": [], "assemble": []}
        for _ in range(args.rounds):
            times["python"].append(_time(bare, env))
            times["floor"].append(_time(floor, env))
            times["assemble"].append(_time(full, env))
    med = {k: statistics.median(v) for k, v in times.items()}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{args.records} records, {args.rounds} rounds, load average {load:.2f} (1 min), {os.cpu_count()} cores")
    print(f"{'python -c pass':>32} {med['python'] * 1000:7.0f} ms")
    print(f"{'floor (tiktoken, o200k, encode)':>32} {med['floor'] * 1000:7.0f} ms")
    print(f"{'evidencepack assemble --json':>32} {med['assemble'] * 1000:7.0f} ms")
    print(f"{'ratio assemble / floor':>32} {med['assemble'] / med['floor']:7.2f}x  (target <= 1.25x)")


if __name__ == "__main__":
    main()
