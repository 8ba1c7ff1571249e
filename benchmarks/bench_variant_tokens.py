"""Token cost of each block format and each prompt variant (issue 12), on the demo and on the bundled trap set.

    python benchmarks/bench_variant_tokens.py

Counts with the default tokenizer (o200k_base). Per format: record text, headers and delimiters, and the
whole prompt, on the demo (the PTO question, 5 blocks) and as a mean over the 25 bundled trap prompts. Per
variant: the prompt tokens it adds to the original structured prompt (`ORIGINAL`: the options the eval harness
pins, whatever the library defaults are), mean over the trap prompts, and what today's defaults cost. Counts
are deterministic: no timing here.
"""

from __future__ import annotations

from statistics import mean
from typing import Any

from evidencepack import assemble
from evidencepack.data import corpus, traps
from evidencepack.data.demo import DEMO_KEY, demo_records
from evidencepack.options import Options
from evidencepack.render.formats import FORMATS

#: The original prompt: what `abstain`, `order` and `format` defaulted to before they changed.
ORIGINAL: dict[str, Any] = {"abstain": "if-unanswered", "order": "edges", "format": "text"}
VARIANTS: dict[str, dict[str, Any]] = {
    "reminder": {"reminder": True}, "scaffold": {"scaffold": True}, "example": {"example": True},
    "notice beside the question": {"notice_placement": "question"}, "directive notice": {"notice_style": "directive"},
    "edges-authority order": {"order": "edges-authority"}, "compact format": {"format": "compact"},
    "compact+reminder+scaffold": {"format": "compact", "reminder": True, "scaffold": True},
    "last-resort abstain": {"abstain": "last-resort"},
    "conflict form (replaces the notice)": {"conflict_form": True},
}


def trap_prompts(**options: Any) -> list[Any]:
    """The 25 trap prompts with the original options, overridden by `options`."""
    by_id = {r.id: r for r in corpus()}
    return [assemble([by_id[i] for i in t["records"]], t["question"], as_of=t["as_of"], boundary_key=DEMO_KEY,
                     **{**ORIGINAL, **options}) for t in traps()]


def main() -> None:
    records, question = demo_records()
    print("| format | demo: record text | demo: headers + delimiters | demo: prompt | trap set: mean prompt | "
          "trap set: mean headers + delimiters |")
    print("|---|---|---|---|---|---|")
    base = None
    for fmt in FORMATS:
        a = assemble(records, question, as_of="2026-06-01", boundary_key=DEMO_KEY, **{**ORIGINAL, "format": fmt})
        t = a.report.tokens
        ts = trap_prompts(format=fmt)
        overhead = mean(x.report.tokens["headers_and_delimiters"] for x in ts)
        prompt = mean(x.report.budget["prompt_tokens"] for x in ts)
        if fmt == "text":
            base = (t["headers_and_delimiters"], overhead)
        print(f"| {fmt} | {t['text']} | {t['headers_and_delimiters']} | {a.report.budget['prompt_tokens']} | "
              f"{prompt:.0f} | {overhead:.0f} |")
    assert base is not None
    c = assemble(records, question, as_of="2026-06-01", boundary_key=DEMO_KEY,
                 **{**ORIGINAL, "format": "compact"}).report.tokens
    cs = mean(x.report.tokens["headers_and_delimiters"] for x in trap_prompts(format="compact"))
    print(f"\ncompact vs text, headers + delimiters: demo {base[0]} -> {c['headers_and_delimiters']} "
          f"({100 * (1 - c['headers_and_delimiters'] / base[0]):.0f} % fewer); trap set mean {base[1]:.0f} -> "
          f"{cs:.0f} ({100 * (1 - cs / base[1]):.0f} % fewer)\n")
    default = mean(x.report.budget["prompt_tokens"] for x in trap_prompts())
    print(f"| variant | mean prompt tokens over the 25 trap prompts | vs original structured ({default:.0f}) |")
    print("|---|---|---|")
    for name, opts in VARIANTS.items():
        m = mean(x.report.budget["prompt_tokens"] for x in trap_prompts(**opts))
        print(f"| {name} | {m:.0f} | {m - default:+.0f} |")
    now = {k: Options.__dataclass_fields__[k].default for k in ORIGINAL}
    m = mean(x.report.budget["prompt_tokens"] for x in trap_prompts(**now))
    print(f"| library defaults ({', '.join(f'{k}={v}' for k, v in now.items())}) | {m:.0f} | {m - default:+.0f} |")
    f = mean(x.report.budget["prompt_tokens"] for x in trap_prompts(**now, conflict_form=True))
    print(f"| library defaults + conflict form | {f:.0f} | {f - default:+.0f} ({f - m:+.0f} vs the defaults) |")


if __name__ == "__main__":
    main()
