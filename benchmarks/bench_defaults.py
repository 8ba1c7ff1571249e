"""What each change of default costs a warm assembly: the original prompt options beside today's defaults,
and each new default alone on top of the original ones.

    python benchmarks/bench_defaults.py [--sizes 20,100,1000] [--repeat N]

The job is `bench_frameworks.py`'s (its corpus of ~300-token candidates with planted duplicates, an 8,192-token
window, the o200k encoding) in its service case: a warm corpus and a question never asked before on every call.
The options compared are `format`, `order`, `abstain` and `on_flagged`, whose defaults changed from `text`,
`edges`, `if-unanswered` and `keep` to `compact`, `edges-authority`, `last-resort` and `redact` (the last one
scans every selected record for injection, cached by text). Times are CPU milliseconds of this process,
medians of N interleaved rounds after three warm-up calls per variant; the ratio to the original options,
measured in the same run, is the figure to read on a shared machine. It also prints the longest text a warm
call hands the tokenizer beside the length of the user prompt: equal lengths mean the whole prompt was
tokenized again instead of summed from cached counts of its pieces, the usual source of a warm difference.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Iterator

from bench_frameworks import AS_OF, BUDGET, make_corpus, question_stream

from evidencepack import Layout, assemble, get_tokenizer
from evidencepack.tokens.tokenizers import Tokenizer

ORIGINAL = Layout.preset("original")
STRUCTURED = Layout.preset("structured")
VARIANTS: dict[str, Layout] = {
    "original (text, edges, if-unanswered)": ORIGINAL,
    "structured (compact, edges-authority, last-resort: the defaults until withhold)": STRUCTURED,
    "defaults (structured + withhold + rule form)": Layout(),
    "structured + conflict_policy=withhold": STRUCTURED.with_variants("withhold"),
    "structured + answer_form=rule_form": STRUCTURED.with_variants("rule-form"),
    "original + format=compact": ORIGINAL.with_variants("compact"),
    "original + order=edges-authority": ORIGINAL.with_variants("authority-edges"),
    "original + abstain=last-resort": ORIGINAL.with_variants("last-resort"),
    "defaults with on_flagged=keep (no scan)": Layout(on_flagged="keep"),
    "defaults with on_flagged=datamark": Layout(on_flagged="datamark"),
}


def largest_count(records: tuple[dict, ...], layout: Layout, tok: Tokenizer, questions: Iterator[str]
                  ) -> str:
    """The longest text a warm call hands the tokenizer, beside the prompt's length: the whole prompt means the
    fit pass could not sum cached counts of its pieces and tokenized everything again."""
    assemble(records, next(questions), as_of=AS_OF, budget=BUDGET, tokenizer=tok, layout=layout)
    lengths: list[int] = [0]
    count = tok.count

    def spy(text: str) -> int:
        lengths.append(len(text))
        return count(text)

    tok.count = spy  # type: ignore[method-assign]
    try:
        a = assemble(records, next(questions), as_of=AS_OF, budget=BUDGET, tokenizer=tok, layout=layout)
    finally:
        del tok.count
    return f"{max(lengths):,} of {len(a.user):,}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=lambda s: tuple(int(x) for x in s.split(",")), default=(20, 100, 1_000))
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    tok = get_tokenizer("o200k_base")
    questions = question_stream()
    print(f"{'variant':82}" + "".join(f"{f'N={n:,} ms':>20}" for n in args.sizes)
          + "   longest text tokenized (chars) of the prompt")
    rows: dict[str, list[str]] = {name: [] for name in VARIANTS}
    for n in args.sizes:
        records = make_corpus(n).records
        for layout in VARIANTS.values():
            for _ in range(3):
                assemble(records, next(questions), as_of=AS_OF, budget=BUDGET, tokenizer=tok, layout=layout)
        times: dict[str, list[float]] = {name: [] for name in VARIANTS}
        for _ in range(args.repeat):
            for name, layout in VARIANTS.items():
                question = next(questions)
                t0 = time.process_time()
                assemble(records, question, as_of=AS_OF, budget=BUDGET, tokenizer=tok, layout=layout)
                times[name].append(time.process_time() - t0)
        base = statistics.median(times[next(iter(VARIANTS))])
        for name, ts in times.items():
            m = statistics.median(ts)
            rows[name].append(f"{m * 1e3:.2f} (x{m / base:.2f})")
    corpus = make_corpus(args.sizes[0]).records
    for name, layout in VARIANTS.items():
        print(f"{name:82}" + "".join(f"{cell:>20}" for cell in rows[name]) + "   "
              + largest_count(corpus, layout, tok, questions))


if __name__ == "__main__":
    main()
