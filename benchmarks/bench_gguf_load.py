"""Time to the first count with a GGUF model (issue 26, item 6): metadata read, tokenizer built, one count.

    python benchmarks/bench_gguf_load.py ~/.cache/evidencepack/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf

Each figure is a fresh process (the loader caches per file within a process), wall clock and process CPU time
(from before `import evidencepack`), best of `--repeat`.
`--compare` also times `gguf.GGUFReader` on the same file (what the loader used before) and checks that both
readers give the same tokenizer values.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

CHILD = """
import time, sys
t0, c0 = time.perf_counter(), time.process_time()
from evidencepack.tokens.models import resolve_model
c_import = time.process_time()
model = resolve_model(sys.argv[1])
n = model.tokenizer.count("Does unused PTO carry over into next year? " * 20)
t1, c1 = time.perf_counter(), time.process_time()
print(f"{t1 - t0:.3f} {c1 - c0:.3f} {c1 - c_import:.3f} {n}")
"""


def child(path: str) -> tuple[float, float, float, int]:
    out = subprocess.run([sys.executable, "-c", CHILD, path], capture_output=True, text=True, check=True).stdout
    seconds, cpu, after_import, count = out.split()
    return float(seconds), float(cpu), float(after_import), int(count)


def compare(path: str) -> None:
    import gguf

    from evidencepack.tokens.gguf import _GGUF_KEYS, read_gguf_metadata

    t = time.perf_counter()
    plain = read_gguf_metadata(path)
    t_plain = time.perf_counter() - t
    t = time.perf_counter()
    reader = gguf.GGUFReader(path, "r")
    vt = gguf.GGUFValueType
    old = {}
    for key in _GGUF_KEYS:
        f = reader.fields.get(key)
        if f is None:
            continue
        if f.types[0] == vt.ARRAY:
            old[key] = ([bytes(f.parts[i]).decode() for i in f.data] if f.types[-1] == vt.STRING
                        else [v for i in f.data for v in f.parts[i].tolist()])
        else:
            part = f.parts[f.data[0]]
            old[key] = bytes(part).decode() if f.types[0] == vt.STRING else part.tolist()[0]
    t_reader = time.perf_counter() - t
    same = all(plain.get(k) == v for k, v in old.items())
    print(f"metadata only: plain reader {t_plain:.3f} s, gguf.GGUFReader {t_reader:.3f} s; "
          f"same values for {len(old)} keys: {same}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--compare", action="store_true")
    args = ap.parse_args()
    for path in args.paths:
        runs = [child(path) for _ in range(args.repeat)]
        print(f"{path}: import + resolve_model + first count, best of {args.repeat}: "
              f"{min(r[0] for r in runs):.3f} s wall, {min(r[1] for r in runs):.3f} s CPU, of which "
              f"{min(r[2] for r in runs):.3f} s after the import (count {runs[0][3]})")
        if args.compare:
            compare(path)


if __name__ == "__main__":
    main()
