"""Token cost of each block format and each prompt variant (issue 12), on the demo and on the bundled trap set.

    python benchmarks/bench_variant_tokens.py

Counts with the default tokenizer (o200k_base). Per format: record text, headers and delimiters, and the
whole prompt, on the demo (the PTO question, 5 blocks) and as a mean over the 25 bundled trap prompts. Per
variant: the prompt tokens it adds to the original structured prompt (`ORIGINAL`: the options the eval harness
pins, whatever the library defaults are), mean over the trap prompts, and what today's defaults cost. Counts
are deterministic: no timing here.
"""

from __future__ import annotations

from dataclasses import replace
from statistics import mean
from typing import Any

from evidencepack import Layout, assemble
from evidencepack.data import corpus, traps
from evidencepack.data.demo import DEMO_KEY, demo_records
from evidencepack.render.formats import FORMATS

#: The original prompt: what `abstain`, `order` and `format` defaulted to before they changed.
ORIGINAL = Layout.preset("original")
#: Rows: the library's layout variants (`render.layout.VARIANTS`) switched on over the original layout.
VARIANTS: dict[str, tuple[str, ...]] = {
    "reminder": ("reminder",), "scaffold": ("scaffold",), "example": ("example",),
    "notice beside the question": ("notice-question",), "directive notice": ("directive",),
    "edges-authority order": ("authority-edges",), "compact format": ("compact",),
    "compact+reminder+scaffold": ("compact", "reminder", "scaffold"),
    "last-resort abstain": ("last-resort",),
    "conflict form (replaces the notice)": ("conflict-form",),
}


def trap_prompts(layout: Layout = ORIGINAL) -> list[Any]:
    """The 25 trap prompts with this layout (the original one unless given)."""
    by_id = {r.id: r for r in corpus()}
    return [assemble([by_id[i] for i in t["records"]], t["question"], as_of=t["as_of"], boundary_key=DEMO_KEY,
                     layout=layout) for t in traps()]


def main() -> None:
    records, question = demo_records()
    print("| format | demo: record text | demo: headers + delimiters | demo: prompt | trap set: mean prompt | "
          "trap set: mean headers + delimiters |")
    print("|---|---|---|---|---|---|")
    base = None
    for fmt in FORMATS:
        a = assemble(records, question, as_of="2026-06-01", boundary_key=DEMO_KEY, layout=replace(ORIGINAL, format=fmt))
        t = a.report.tokens
        ts = trap_prompts(replace(ORIGINAL, format=fmt))
        overhead = mean(x.report.tokens["headers_and_delimiters"] for x in ts)
        prompt = mean(x.report.budget["prompt_tokens"] for x in ts)
        if fmt == "text":
            base = (t["headers_and_delimiters"], overhead)
        print(f"| {fmt} | {t['text']} | {t['headers_and_delimiters']} | {a.report.budget['prompt_tokens']} | "
              f"{prompt:.0f} | {overhead:.0f} |")
    assert base is not None
    c = assemble(records, question, as_of="2026-06-01", boundary_key=DEMO_KEY,
                 layout=ORIGINAL.with_variants("compact")).report.tokens
    cs = mean(x.report.tokens["headers_and_delimiters"] for x in trap_prompts(ORIGINAL.with_variants("compact")))
    print(f"\ncompact vs text, headers + delimiters: demo {base[0]} -> {c['headers_and_delimiters']} "
          f"({100 * (1 - c['headers_and_delimiters'] / base[0]):.0f} % fewer); trap set mean {base[1]:.0f} -> "
          f"{cs:.0f} ({100 * (1 - cs / base[1]):.0f} % fewer)\n")
    default = mean(x.report.budget["prompt_tokens"] for x in trap_prompts())
    print(f"| variant | mean prompt tokens over the 25 trap prompts | vs original structured ({default:.0f}) |")
    print("|---|---|---|")
    for name, variants in VARIANTS.items():
        m = mean(x.report.budget["prompt_tokens"] for x in trap_prompts(ORIGINAL.with_variants(*variants)))
        print(f"| {name} | {m:.0f} | {m - default:+.0f} |")
    now = Layout()
    m = mean(x.report.budget["prompt_tokens"] for x in trap_prompts(now))
    shown = ", ".join(f"{k}={getattr(now, k)}" for k in ("abstain", "order", "format"))
    print(f"| library defaults ({shown}) | {m:.0f} | {m - default:+.0f} |")
    f = mean(x.report.budget["prompt_tokens"] for x in trap_prompts(Layout.preset("conflict-form")))
    print(f"| library defaults + conflict form | {f:.0f} | {f - default:+.0f} ({f - m:+.0f} vs the defaults) |")


if __name__ == "__main__":
    main()
