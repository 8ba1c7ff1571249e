"""Citation validation: what each check costs on realistic answers, and does 10x the answer cost about 10x?

    python benchmarks/bench_citations.py [--repeat N] [--largest CHARS] [--chunk CHARS] [--only checks|growth]
                                         [--plain]

Checks (`--only checks`): realistic answers (cited, uncited and stale-only sentences, a few values no source
states) of about 1.5 KB over the demo prompt (5 sources) and over the bundled 89-record corpus, and of about
100 KB over the corpus, each validated three ways in one run: plain (`unsupported_value="off"`: citations,
uncited and stale-only sentences), the default (adds the value check, at warn) and `attribute=True` (also
gives each uncited sentence the sources it matches, and checks its values against them). Ratios to plain are
printed beside the times; they are the figures to compare across machines.

Growth (`--only growth`): for each answer shape (ordinary prose, bullets, one endless paragraph, and shapes
built to hit the old quadratic paths: abbreviations that never end a sentence, an inline code run that never
closes, a bracket group that never closes, punctuation runs, backtick runs of every length) it times batch
`validate_citations` and `StreamValidator` fed in small chunks, at sizes growing 10x, and prints the growth
ratio between neighbouring sizes, with the default checks (`--plain`: value check off, to compare with
figures from before it existed). Linear cost gives ratios near 10; the quadratic code this replaced gave
40-120 in batch and about 100 in streaming. Times are CPU seconds of this process, best of N, so that
other work on a shared machine disturbs them less; still, read the ratios as "near 10" or "near 100", not
to the decimal. The growth part without `--plain` uses only the long-standing public API, so it also runs
against older versions.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from evidencepack import Budget, assemble, validate_citations
from evidencepack.citations import StreamValidator
from evidencepack.data.demo import DEMO_KEY, corpus, demo_records

RECORDS = [
    {"id": "hb-2025", "text": "Unused PTO does not carry over.", "authority": "authoritative",
     "valid_from": "2025-01-01", "url": "https://hr.example/hb"},
    {"id": "hb-2024", "text": "Up to 5 days carry over.", "authority": "superseded"},
    {"id": "slack", "text": "Ask your manager.", "authority": "informal", "valid_until": "2024-01-01"},
]
SHAPES: dict[str, str] = {
    "prose": "Unused PTO does not carry over [S1]. The 2024 rule allowed 5 days [S2], but it expired. ",
    "paragraphs": "Unused PTO does not carry over [S1].\nIt used to, e.g. in 2024 [S2].\n\n",
    "bullets": "- Unused PTO does not carry over [S1]\n",
    "abbreviations": "See e.g. Dr. Smith, i.e. fig. 2 vs. no. 3 [S1] ",
    "unclosed inline code": "``` never closed, so nothing is hidden [S1] [S9] ",
    "unclosed bracket": "[S1, S2, S1, S2, ",
    "punctuation runs": "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!x ",
    "backtick runs": "` `` ``` ```` [S1] ",
}


def answer(shape: str, size: int) -> str:
    unit = SHAPES[shape]
    return (unit * (size // len(unit) + 1))[:size]


def cpu_seconds(fn: Callable[[], object], repeat: int) -> float:
    """Best of `repeat` runs, in CPU time of this process: other jobs on a shared machine inflate
    wall-clock time far more than they inflate this."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def stream(assembly: object, text: str, chunk: int, **checks: object) -> object:
    sv = StreamValidator(assembly, **checks)  # type: ignore[arg-type]
    for i in range(0, len(text), chunk):
        sv.feed(text[i: i + chunk])
    return sv.close()


#: About 1.5 KB answering the demo question: cited sentences, one uncited, one resting only on stale sources,
#: one value (10 days) that its source does not state, one citation of a handle that was never shown.
SMALL_ANSWER = (
    "No. Effective January 1, 2025, unused PTO does not carry over into the next calendar year [S1]. Any "
    "balance left on December 31 is forfeited and is not paid out, except where state law requires payout at "
    "separation [S1]. Managers are not permitted to approve exceptions or informal carry-overs [S1].\n\n"
    "Older guidance says otherwise. The 2024 handbook let employees carry up to 5 days into the next year, to "
    "be used by March 31 [S3]. A Slack thread from 2023 offers to move up to a week of PTO on request [S2]. "
    "Both are out of date: the 2024 rule expired on December 31, 2024, and the Slack offer was never policy.\n\n"
    "Employees may carry up to 10 days of unused PTO [S3].\n\n"
    "Two nearby rules are easy to confuse with PTO. Full-time employees receive 2 paid volunteer days per "
    "calendar year, requested in the HR portal like PTO [S4]. Volunteer days cannot be converted to cash [S4]. "
    "The FlexPoint Health FSA is different again: up to $660 of unused funds carries over into the 2027 plan "
    "year, and claims for 2026 expenses are due by March 31, 2027 [S5]. Amounts above the limit return to the "
    "plan.\n\n"
    "If you were promised a carry-over in a chat message, it does not hold under the 2025 handbook [S1]. "
    "Ask HR about any state-law payout at separation [S7].\n"
)


def _sentences(text: str) -> list[str]:
    out, start = [], 0
    for i, ch in enumerate(text):
        if ch in ".!?" and (i + 1 == len(text) or text[i + 1] == " ") and not text[max(0, i - 3): i].isdigit():
            out.append(text[start: i].strip())
            start = i + 1
    return [x for x in out if len(x) > 20]


def corpus_answer(assembly: object, size: int) -> str:
    """A long report over the corpus prompt, built deterministically from the sources' own sentences: most
    cited by their handle, every 5th left uncited, every 7th with its first number changed (a value no source
    states), every 13th citing the handle of another source; paragraphs of five sentences."""
    leads = ("", "According to the records, ", "In short, ", "The policy states that ", "Note that ")
    items = [(m.handle, t) for m in assembly.manifest  # type: ignore[attr-defined]
             for t in _sentences(next(r.text for r in corpus() if r.id == m.id))]
    parts: list[str] = []
    total, i = 0, 0
    while total < size:
        handle, sentence = items[i % len(items)]
        lead = leads[i % len(leads)]
        text = lead + (sentence[0].lower() + sentence[1:] if lead else sentence)
        if i % 7 == 3:
            text = _bump_first_number(text)
        if i % 13 == 6:
            handle = items[(i + 17) % len(items)][0]
        cite = "" if i % 5 == 4 else f" [{handle}]"
        part = f"{text}{cite}." + ("\n\n" if i % 5 == 4 else " ")
        parts.append(part)
        total += len(part)
        i += 1
    return "".join(parts)


def _bump_first_number(text: str) -> str:
    for j, ch in enumerate(text):
        if ch.isdigit():
            k = j
            while k < len(text) and text[k].isdigit():
                k += 1
            return f"{text[:j]}{int(text[j:k]) + 3}{text[k:]}"
    return text


CHECKS: dict[str, dict[str, object]] = {
    "plain": {"unsupported_value": "off"},
    "default (value check)": {},
    "attribute=True": {"attribute": True},
}


def checks(repeat: int) -> None:
    """Each realistic answer validated three ways, CPU ms best of `repeat`, with ratios to plain."""
    records, question = demo_records()
    demo = assemble(records, question, as_of="2026-06-01", boundary_key=DEMO_KEY)
    everything = assemble(corpus(), "What do the HR policies say about leave, pay and benefits?",
                          as_of="2026-06-01", boundary_key=DEMO_KEY, budget=Budget(context_window=200_000))
    big = corpus_answer(everything, 100_000)
    small = big[: big.index("\n\n", 1_200) + 2]
    cases = [(f"demo prompt ({len(demo.manifest)} sources)", demo, SMALL_ANSWER),
             (f"corpus prompt ({len(everything.manifest)} sources)", everything, small),
             (f"corpus prompt ({len(everything.manifest)} sources)", everything, big)]
    print("checks: CPU milliseconds, best of", repeat, "(ratio to plain)")
    print(f"{'answer':44}" + "".join(f"{name:>24}" for name in CHECKS) + f"{'findings (plain/default/attr)':>32}")
    for label, assembly, text in cases:
        row, base, found = [], 0.0, []
        for kwargs in CHECKS.values():
            verdict = validate_citations(text, assembly, **kwargs)  # type: ignore[arg-type]  # and warms up
            found.append(str(len(verdict.findings)))
            seconds = cpu_seconds(lambda text=text, kwargs=kwargs, assembly=assembly:
                                  validate_citations(text, assembly, **kwargs), repeat)  # type: ignore[arg-type]
            base = base or seconds
            row.append(f"{seconds * 1000:14.1f} (x{seconds / base:5.2f})")
        name = f"{len(text) / 1000:.1f} KB, {label}"
        print(f"{name:44}" + "".join(f"{r:>24}" for r in row) + f"{'/'.join(found):>32}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--largest", type=int, default=1_000_000, help="largest answer in characters")
    ap.add_argument("--chunk", type=int, default=4, help="streaming chunk size in characters")
    ap.add_argument("--only", choices=("checks", "growth"), help="run one part (default: both)")
    ap.add_argument("--plain", action="store_true",
                    help="growth with the value check off, as validation ran before it had one")
    args = ap.parse_args()
    if args.only != "growth":
        checks(args.repeat)
    if args.only != "checks":
        growth(args)


def growth(args: argparse.Namespace) -> None:
    """Batch and streamed validation at sizes growing 10x, with the growth ratio between neighbours."""
    assembly = assemble(RECORDS, "Does PTO carry over?", as_of="2026-06-01", boundary_key="bench-boundary-key")
    sizes = [s for s in (1_000, 10_000, 100_000, 1_000_000, 10_000_000) if s <= args.largest]
    checks = {"unsupported_value": "off"} if args.plain else {}
    for mode in ("batch", "stream"):
        print(f"\n{mode}: CPU milliseconds (growth ratio for 10x the text)"
              + (f", chunks of {args.chunk} characters" if mode == "stream" else "")
              + (", value check off" if args.plain else ", default checks"))
        print(f"{'shape':22}" + "".join(f"{s:>18,}" for s in sizes))
        worst = 0.0
        for shape in SHAPES:
            row, previous = [], None
            for size in sizes:
                text = answer(shape, size)
                if mode == "batch":
                    seconds = cpu_seconds(lambda text=text: validate_citations(text, assembly, **checks),
                                          args.repeat)
                else:
                    seconds = cpu_seconds(lambda text=text: stream(assembly, text, args.chunk, **checks),
                                          args.repeat)
                ratio = seconds / previous if previous else None
                if ratio and size > 10_000:  # below that, fixed costs dominate
                    worst = max(worst, ratio)
                row.append(f"{seconds * 1000:10.1f}" + (f" (x{ratio:4.1f})" if ratio else " " * 8))
                previous = seconds
            print(f"{shape:22}" + "".join(row))
        print(f"worst growth ratio above 10,000 characters: x{worst:.1f}")


if __name__ == "__main__":
    main()
