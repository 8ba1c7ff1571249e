"""Time neutralisation of ~2,000-character records (German, Chinese, emoji-heavy, plain English), and the
growth of neutralise and of the injection scan on adversarial input (10x the input should cost about 10x).

    python benchmarks/bench_neutralise.py [--repeat N] [--compare OLD_NEUTRALISE.py] [--skip-adversarial]

`--compare` loads a second copy of `render/neutralise.py` from a file (it imports only the standard library)
and times it side by side in the same run, so before/after ratios do not depend on the machine's load:

    git show 39bd4bd:src/evidencepack/render/neutralise.py > /tmp/neutralise_before.py
    python benchmarks/bench_neutralise.py --compare /tmp/neutralise_before.py

Scenarios, each the median time per record over 40 distinct records:
- cold: every cache cleared before each call (fold cache, compiled patterns, `re`'s own cache), as in a fresh
  process;
- new boundary: warm caches, but a different boundary on every call (a new question over a known corpus);
- no boundary: warm, boundary-free (what the assembler caches per chunk, re-checking the boundary after).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from evidencepack import Record
from evidencepack.passes.scan import injection_score

current = importlib.import_module("evidencepack.render.neutralise")  # the package re-exports a function of that name

GERMAN = ("Arbeitnehmer", "Urlaubsanspruch", "übertragen", "Geschäftsjahr", "können", "Überstunden", "gemäß",
          "Straße", "Frühjahr", "Bescheinigung", "müssen", "während", "Kündigungsfrist", "Zuschläge", "für",
          "Mitarbeiterinnen", "Vergütung", "verfällt", "spätestens", "Größe", "Ärztin", "Öffnungszeiten", "und",
          "der", "die", "das", "nicht", "wird", "bis", "zum", "31. März")
CHINESE = "员工年假可以结转到下一年度未使用的假期将在十二月三十一日作废除非州法律要求支付加班必须事先获得经理书面批准"
EMOJI = ("👍🏽", "❤️", "🇩🇪", "🎉", "✅", "🚀", "😀", "🙏🏻", "📅", "💼", "🏖️", "⏰")
ENGLISH = ("policy", "employee", "leave", "manager", "approval", "days", "year", "carry", "over", "benefit",
           "payroll", "office", "remote", "travel", "expense", "the", "of", "and", "to", "is")
LENGTH = 2_000


def _words(rng: random.Random, pool: tuple[str, ...], emoji_every: int = 0) -> str:
    out: list[str] = []
    size = 0
    while size < LENGTH:
        word = rng.choice(pool)
        if emoji_every and rng.randrange(emoji_every) == 0:
            word += rng.choice(EMOJI)
        out.append(word)
        size += len(word) + 1
        if rng.randrange(12) == 0:
            out[-1] += "." + ("\n" if rng.randrange(3) == 0 else "")
    return " ".join(out)[:LENGTH]


def _chinese(rng: random.Random) -> str:
    chars = [rng.choice(CHINESE) + ("，" if rng.randrange(9) == 0 else "") for _ in range(LENGTH)]
    return "".join(chars)[:LENGTH]


def corpora() -> dict[str, list[str]]:
    rng = random.Random(11)
    return {
        "german": [_words(rng, GERMAN) for _ in range(40)],
        "chinese": [_chinese(rng) for _ in range(40)],
        "emoji": [_words(rng, ENGLISH, emoji_every=2) for _ in range(40)],
        "english (ascii)": [_words(rng, ENGLISH) for _ in range(40)],
    }


def load(path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location("neutralise_compare", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reset(module: ModuleType) -> None:
    """Fresh process state: every lru cache and fold table in the module, and `re`'s compiled-pattern cache."""
    for value in vars(module).values():
        if hasattr(value, "cache_clear"):
            value.cache_clear()
        elif isinstance(value, dict) and hasattr(type(value), "__missing__"):
            value.clear()
    re.purge()


def per_call(fn: Callable[[int, str], object], texts: list[str], repeat: int,
             before: Callable[[], None] | None = None) -> float:
    """Median seconds per call over `repeat` passes of all texts (the median of the per-pass means)."""
    passes = []
    counter = 0
    for _ in range(repeat):
        total = 0.0
        for text in texts:
            counter += 1
            if before:
                before()
            start = time.perf_counter()
            fn(counter, text)
            total += time.perf_counter() - start
        passes.append(total / len(texts))
    return statistics.median(passes)


def scenarios(module: ModuleType) -> dict[str, tuple[Callable[[int, str], object], Callable[[], None] | None]]:
    return {
        "cold": (lambda i, t: module.neutralise(t, boundary=f"ep{i:012x}"), lambda: reset(module)),
        "new boundary": (lambda i, t: module.neutralise(t, boundary=f"ep{i:012x}"), None),
        "no boundary": (lambda i, t: module.neutralise(t), None),
    }


def bench_records(repeat: int, compare: ModuleType | None) -> None:
    data = corpora()
    for texts in data.values():  # the two implementations must agree on all of it, boundary or not
        for i, t in enumerate(texts):
            if compare is not None:
                assert current.neutralise(t, boundary=f"ep{i:012x}") == compare.neutralise(t, boundary=f"ep{i:012x}")
    head = f"{'text':<16} {'scenario':<13} {'after µs':>10}"
    print(head + (f" {'before µs':>10} {'before/after':>12}" if compare else ""))
    for name, texts in data.items():
        for label, (fn, before) in scenarios(current).items():
            after = per_call(fn, texts, repeat, before)
            line = f"{name:<16} {label:<13} {after * 1e6:>10.1f}"
            if compare is not None:
                ofn, obefore = scenarios(compare)[label]
                old = per_call(ofn, texts, repeat, obefore)
                line += f" {old * 1e6:>10.1f} {old / after:>12.1f}"
            print(line)


ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "role markers": lambda n: "<|im_start|> " * (n // 13),
    "'<' + spaces": lambda n: "<" + " " * n,
    "'<|' run": lambda n: "<|" * (n // 2),
    "'[S' run": lambda n: "[S" * (n // 2),
    "handle list": lambda n: "[S1, " * (n // 5),
    "line-start labels": lambda n: "\n System" * (n // 8),
    "full-width '<|'": lambda n: "\uff1c\uff5c" * (n // 2),
    "zwsp + '<'": lambda n: "\u200b<" * (n // 2),
    "'<|x' + spaces": lambda n: "<|x" + " " * n,
    "'[' + spaces": lambda n: "[" + " " * n,
    "newlines": lambda n: "\n" * n,
    "frame labels": lambda n: "\nQuestion" * (n // 9),
}


def growth(fn: Callable[[int], object], small: int) -> tuple[float, float]:
    """(seconds at `small`, ratio at 10x `small`), both measured in this run."""

    def cost(n: int) -> float:
        start = time.perf_counter()
        fn(n)
        return time.perf_counter() - start

    base = min(cost(small) for _ in range(2))
    return base, cost(10 * small) / max(base, 1e-6)


def bench_adversarial() -> None:
    print(f"\n{'adversarial input':<22} {'100k chars ms':>14} {'1M / 100k':>10}")
    for name, make in ADVERSARIAL.items():
        base, ratio = growth(lambda n, make=make: current.neutralise(make(n), boundary="ep0123456789ab"), 100_000)
        print(f"{name:<22} {base * 1e3:>14.1f} {ratio:>10.1f}")

    # The scan reads at most 200,000 characters per field, so its growth is measured from 10k to 100k.
    print(f"\n{'injection scan input':<22} {'10k chars ms':>14} {'100k / 10k':>10}")
    for name, make in SCAN_INPUTS.items():
        base, ratio = growth(lambda n, make=make: injection_score(Record(id="x", text=make(n))), 10_000)
        print(f"{name:<22} {base * 1e3:>14.1f} {ratio:>10.1f}")


SCAN_INPUTS: dict[str, Callable[[int], str]] = {
    "mixed payload": lambda n: ("ignore <|im_start|> [S1] QUJD " * (n // 30)) + "\n" * (n // 6),
    "'<img ' run": lambda n: "<img " * (n // 5),
    "'![' run": lambda n: "![" * (n // 2),
    "'http://' run": lambda n: "http://" * (n // 7),
    "'<|' + spaces": lambda n: "<|" + " " * n,
    "'![a](http://' + '?'": lambda n: "![a](http://" + "?" * n,
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--compare", help="path to another neutralise.py to time side by side")
    ap.add_argument("--skip-adversarial", action="store_true")
    args = ap.parse_args()
    compare = load(args.compare) if args.compare else None
    if compare is not None and not Path(args.compare).is_file():
        sys.exit(f"{args.compare}: not a file")
    bench_records(args.repeat, compare)
    if not args.skip_adversarial:
        bench_adversarial()


if __name__ == "__main__":
    main()
