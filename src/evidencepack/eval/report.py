"""Metrics, `report.md` and plots from result rows.

Every rate is shown with its count and a 95 % Wilson interval: with 25 questions a difference of a few
answers is noise, and the interval says so. Rows from the scripted backend are labelled as such.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for k successes in n trials (sensible at 0/n and n/n, unlike p ± z·se)."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def rate(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(k, n)
    return {"k": k, "n": n, "rate": (k / n) if n else None, "lo": lo, "hi": hi}


def fmt_rate(r: Mapping[str, Any] | None) -> str:
    if not r or not r["n"]:
        return "n/a"
    return f"{r['k']}/{r['n']} = {100 * r['rate']:.0f} % [{100 * r['lo']:.0f}, {100 * r['hi']:.0f}]"


# ---------------------------------------------------------------- traps


def trap_metrics(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per condition. Rates are over judged answers; truncated and failed calls are counted, not judged.
    current-correct = `current` + `surfaced` (the answer gives the current rule and does not present the
    stale one as valid)."""
    by: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        by[r["condition"]].append(r)
    return {cond: _split_metrics(rs) for cond, rs in by.items()}


def _split_metrics(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One condition's metrics over its answerable questions, with the questions no record answers counted apart
    under `unanswerable` (present only when there are any): they have no current or stale rule, so they would
    only dilute the answerable rates."""
    out = _condition_metrics([r for r in rows if not r.get("unanswerable")])
    unanswerable = [r for r in rows if r.get("unanswerable")]
    if unanswerable:
        out["unanswerable"] = _unanswerable_metrics(unanswerable)
    return out


def _condition_metrics(rs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The metrics of one condition's rows (see `trap_metrics`); the key order is the order reports read."""
    judged = [r for r in rs if r.get("status") == "ok"]
    n = len(judged)
    v = Counter(r["verdict"] for r in judged)
    guard = [r for r in rs if r.get("guard")]
    out: dict[str, Any] = {
        "questions": len(rs), "judged": n, "truncated": _with_status(rs, "truncated"),
        "errors": _with_status(rs, "error"),
        "verdicts": {k: v.get(k, 0) for k in ("current", "stale", "surfaced", "confused", "none")},
        **_verdict_rates(v, n),
        **_citation_metrics([r["citation"] for r in judged if r.get("citation") is not None]),
        "regenerated": sum(r["guard"]["regenerated"] for r in guard) if guard else None,
        "guard": _guard_metrics(guard) if guard else None,
        **_attribution_metrics([r["attribution"] for r in judged if r.get("attribution")]),
        "flags_stale": _judgement_rate(judged, "flags_stale"),
        "conflict_named": _judgement_rate(judged, "conflict_named"),
        **_refusal_metrics(judged),
        "delivered": _delivered_metrics(judged),
        "mean_prompt_tokens": _mean([r["assembly_prompt_tokens"] for r in rs]),
        "mean_backend_prompt_tokens": _mean_given(rs, "prompt_tokens"),
        "mean_completion_tokens": _mean_given(rs, "completion_tokens"),
    }
    llm = [(r["verdict"], r.get("llm_verdict")) for r in judged if "llm_verdict" in r]
    if llm:
        from .judge import agreement

        out["judge_agreement"] = agreement(llm)
    return out


def _unanswerable_metrics(rs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Questions no retrieved record answers: abstained (the right answer) and invented out of judged answers,
    invented answers that state a neighbouring value the records give (transplanted), and abstentions split by
    whether the retrieved records hold a conflict group the assembler decides (what `withhold` acts on)."""
    judged = [r for r in rs if r.get("status") == "ok"]
    n = len(judged)
    v = Counter(r["verdict"] for r in judged)
    group = [r for r in judged if r.get("conflict_group")]
    plain = [r for r in judged if not r.get("conflict_group")]
    return {
        "questions": len(rs), "judged": n, "truncated": _with_status(rs, "truncated"),
        "errors": _with_status(rs, "error"),
        "abstained": rate(v["abstained"], n), "invented": rate(v["invented"], n),
        "transplanted": rate(sum(r["verdict"] == "invented" and bool(r.get("states_neighbour")) for r in judged), n),
        # the reader is warned with the answer (`transplanted_value`, `citations.transplant_note`); rows of runs
        # made before the check carry no `value_warned`
        "invented_warned": rate(sum(r["verdict"] == "invented" and bool(r["value_warned"]) for r in judged), n)
        if judged and all("value_warned" in r for r in judged) else None,
        "abstained_conflict_group": rate(sum(r["verdict"] == "abstained" for r in group), len(group)),
        "abstained_no_group": rate(sum(r["verdict"] == "abstained" for r in plain), len(plain)),
        "mean_prompt_tokens": _mean([r["assembly_prompt_tokens"] for r in rs]),
    }


def _verdict_rates(v: Counter[str], n: int) -> dict[str, Any]:
    """Stale, surfaced and current-correct (`current` + `surfaced`) out of `n` judged answers."""
    return {"stale": rate(v["stale"], n), "surfaced": rate(v["surfaced"], n),
            "current_correct": rate(v["current"] + v["surfaced"], n)}


def _refusal_metrics(judged: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Over-refusal: "I do not know" is its own rate, and a refusal while the current authoritative record was
    in the prompt is a miss."""
    n = len(judged)
    return {"refused": rate(sum(_refused(r) for r in judged), n),
            "refusal_miss": rate(sum(_refused(r) and r.get("answerable") is True for r in judged), n)}


def _with_status(rs: Sequence[Mapping[str, Any]], status: str) -> int:
    return sum(r.get("status") == status for r in rs)


def _mean_given(rs: Sequence[Mapping[str, Any]], key: str) -> float | None:
    """The mean of `key` over the rows that have it (a missing or zero count is a backend that gave none)."""
    return _mean([r[key] for r in rs if r.get(key)])


def _judgement_rate(judged: Sequence[Mapping[str, Any]], key: str) -> dict[str, Any]:
    """How many judged answers the judge found `key` true for (rows written before it was recorded: false)."""
    return rate(sum(bool(r.get("judgement", {}).get(key)) for r in judged), len(judged))


def _citation_metrics(cited: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Over the judged answers that were validated: valid, and citing at least one handle (None when no
    answer was validated)."""
    if not cited:
        return {"citation_valid": None, "with_citation": None}
    return {"citation_valid": rate(sum(c["valid"] for c in cited), len(cited)),
            "with_citation": rate(sum(bool(c.get("citations")) for c in cited), len(cited))}


def _attribution_metrics(attributed: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Over the judged answers that were attributed (claims.attribute): a valid handle written by the model or
    attributed to an uncited sentence, and a value its sources do not state (None when none was attributed)."""
    if not attributed:
        return {"written_or_attributed": None, "unsupported_value": None}
    n = len(attributed)
    return {"written_or_attributed": rate(sum(bool(a["written"] or a["attributed"]) for a in attributed), n),
            "unsupported_value": rate(sum(bool(a["unsupported_values"]) for a in attributed), n)}


def _delivered_metrics(judged: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The answers as delivered with conflict notes (rows that have them): how many got a note, and the rates
    the reader sees. The model's own rates stay in the other tables."""
    d = [(r, r["delivered"]) for r in judged if r.get("delivered")]
    if not d:
        return None
    n = len(d)
    v = Counter(x["verdict"] for _, x in d)
    return {"answers": n, "noted": rate(sum(bool(x["notes"]) for _, x in d), n),
            "weak_only": rate(sum(bool(x["weak_only"]) for _, x in d), n),
            "conflict_named": rate(sum(bool(x["conflict_named"]) for _, x in d), n),
            "model_named": rate(sum(bool(r.get("judgement", {}).get("conflict_named")) for r, _ in d), n),
            **_verdict_rates(v, n),
            "moved": sum(x["verdict"] != r["verdict"] for r, x in d)}


def _guard_metrics(guard: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What the guard did: answers it checked, which finding kinds fired on first answers (answers per kind),
    how many it regenerated, and, of those, how many second answers no longer had the kinds that fired."""
    g = [r["guard"] for r in guard]
    regenerated = [x for x in g if x["regenerated"]]
    judged = [x for x in regenerated if x.get("fixed") is not None]
    kinds = list(dict.fromkeys(k for x in g for k in x.get("kinds", ())))
    return {
        "kinds": kinds, "attribute": any(x.get("attribute") for x in g), "checked": len(g),
        "regenerated": len(regenerated),
        "fired": dict(Counter(k for x in g for k in x.get("fired", ()))),
        "second_answers": len(judged),
        "fixed": sum(1 for x in judged if set(x["fixed"]) >= set(x.get("fired", ()))),
        "fixed_by_kind": dict(Counter(k for x in judged for k in x["fixed"])),
        "withheld": sum(bool(x.get("withheld")) for x in regenerated),
    }


def sign_test(better: int, worse: int) -> float:
    """Two-sided exact sign test: how likely a split at least this uneven is when neither condition is better
    (questions where both agree carry no information and are left out)."""
    n = better + worse
    if n == 0:
        return 1.0
    tail: float = sum(math.comb(n, i) for i in range(min(better, worse) + 1)) / 2**n
    return min(1.0, 2 * tail)


def paired(rows: Sequence[Mapping[str, Any]], reference: str = "structured") -> dict[str, dict[str, Any]]:
    """Each condition against `reference` on the questions both judged: per outcome, how many questions
    improved and how many got worse, with the sign test. Paired counts see a difference that two overlapping
    intervals over 25 questions cannot."""
    judged: dict[str, dict[str, Mapping[str, Any]]] = defaultdict(dict)
    for r in rows:
        if r.get("status") == "ok":
            judged[r["condition"]][r["question"]] = r
    ref = judged.get(reference, {})
    unanswerable = {q for answers in judged.values() for q, r in answers.items() if r.get("unanswerable")}
    def correct(r: Mapping[str, Any]) -> bool:
        return r.get("verdict") in ("current", "surfaced")

    def stale(r: Mapping[str, Any]) -> bool:
        return r.get("verdict") == "stale"

    def abstained(r: Mapping[str, Any]) -> bool:
        return r.get("verdict") == "abstained"

    # outcome -> (test, whether having it is good)
    outcomes: dict[str, tuple[Callable[[Mapping[str, Any]], bool], bool]] = {
        "current_correct": (correct, True), "stale": (stale, False), "refused": (_refused, False)}
    out: dict[str, dict[str, Any]] = {}
    for cond, answers in judged.items():
        if cond == reference or not ref:
            continue
        both = [q for q in answers if q in ref and q not in unanswerable]
        out[cond] = {"questions": len(both)}
        for name, (hit, good) in outcomes.items():
            out[cond][name] = _pair(answers, ref, both, hit, good)
        if unanswerable:  # abstaining is the right answer there, and only there
            none_answer = [q for q in answers if q in ref and q in unanswerable]
            out[cond]["unanswerable_questions"] = len(none_answer)
            out[cond]["abstained"] = _pair(answers, ref, none_answer, abstained, True)
    return out


def _pair(answers: Mapping[str, Mapping[str, Any]], ref: Mapping[str, Mapping[str, Any]], both: Sequence[str],
          hit: Callable[[Mapping[str, Any]], bool], good: bool) -> dict[str, Any]:
    """Questions where the condition did better / worse than the reference on one outcome, with the sign test."""
    gained = sum(hit(answers[q]) and not hit(ref[q]) for q in both)
    lost = sum(hit(ref[q]) and not hit(answers[q]) for q in both)
    better, worse = (gained, lost) if good else (lost, gained)
    return {"better": better, "worse": worse, "p": sign_test(better, worse)}


def _paired_lines(rows: Sequence[Mapping[str, Any]], reference: str = "structured") -> list[str]:
    pairs = paired(rows, reference)
    if not pairs:
        return []
    lines = ["", f"## Paired against `{reference}` (questions both judged)"]
    unanswerable = any("abstained" in x for x in pairs.values())
    if any(x["questions"] for x in pairs.values()) or not unanswerable:
        lines += ["", "Questions where the condition did better / worse than the reference, and the two-sided "
                  "sign-test p-value (questions where both agree are left out).", "",
                  "| condition | questions | current-correct: better / worse (p) | stale: fewer / more (p) | "
                  "refusals: fewer / more (p) |", "|---|---|---|---|---|"]
        for cond, x in pairs.items():
            cells = [f"{x[k]['better']} / {x[k]['worse']} ({x[k]['p']:.2f})"
                     for k in ("current_correct", "stale", "refused")]
            lines.append(f"| {cond} | {x['questions']} | " + " | ".join(cells) + " |")
    if unanswerable:
        lines += ["", "On the questions no record answers: abstained more / fewer often than the reference, and the "
                  "sign test.", "", "| condition | questions | abstained: more / fewer (p) |", "|---|---|---|"]
        lines += [f"| {cond} | {x['unanswerable_questions']} | {x['abstained']['better']} / "
                  f"{x['abstained']['worse']} ({x['abstained']['p']:.2f}) |" for cond, x in pairs.items()]
    return lines


def _refused(row: Mapping[str, Any]) -> bool:
    if "refused" in row:
        return bool(row["refused"])
    if row.get("verdict") != "none" or not row.get("answer"):
        return False
    from .judge import is_refusal  # rows written before refusals were recorded

    return is_refusal(row["answer"])


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _header(title: str, meta: Mapping[str, Any]) -> list[str]:
    lines = [f"# {title}", ""]
    if not meta.get("is_model", True):
        lines += ["> **SCRIPTED BACKEND**: these answers come from deterministic test rules, not a model. "
                  "Do not report them as a model result.", ""]
    lines += [f"- {k}: {v}" for k, v in meta.items() if k != "is_model"]
    return [*lines, ""]


def trap_report(rows: Sequence[Mapping[str, Any]], meta: Mapping[str, Any], notes: str = "") -> str:
    """`report.md` of a trap run: the rate tables, what the guard and the conflict notes did, the judges'
    agreement, the paired comparison, the verdicts by question, `notes`, then every answer."""
    m = trap_metrics(rows)
    conds = list(dict.fromkeys(r["condition"] for r in rows))
    lines = _header("Stale-guidance trap evaluation", meta)
    if any(not r.get("unanswerable") for r in rows):
        lines += _rates_table(conds, m) + _behaviour_table(conds, m) + _verdicts_table(conds, m)
    lines += _unanswerable_section([c for c in conds if m[c].get("unanswerable")], m)
    lines += _guard_section([c for c in conds if m[c].get("guard")], m)
    lines += _delivered_section([c for c in conds if m[c].get("delivered")], m)
    lines += _agreement_section({c: m[c]["judge_agreement"] for c in conds if "judge_agreement" in m[c]})
    # against the pinned original layout when it ran (the variant tables), else against the default
    lines += _paired_lines(rows, "original" if any(r["condition"] == "original" for r in rows) else "structured")
    lines += _by_question(rows, conds)
    if notes.strip():
        lines += ["", notes.strip()]
    lines += ["", "## Answers", ""]
    lines += [_answer_line(r) for r in rows]
    return "\n".join(lines) + "\n"


def _rates_table(conds: Sequence[str], m: Mapping[str, Mapping[str, Any]]) -> list[str]:
    lines = ["## Rates by condition (count, 95 % Wilson interval)", "",
             "| condition | stale answer | conflict surfaced | current-correct | citation valid | "
             "cites at least one handle | mean prompt tokens | truncated | errors |",
             "|---|---|---|---|---|---|---|---|---|"]
    for c in conds:
        x = m[c]
        tok = f"{x['mean_prompt_tokens']:.0f}" if x["mean_prompt_tokens"] is not None else "n/a"
        lines.append(f"| {c} | {fmt_rate(x['stale'])} | {fmt_rate(x['surfaced'])} | "
                     f"{fmt_rate(x['current_correct'])} | {fmt_rate(x['citation_valid'])} | "
                     f"{fmt_rate(x['with_citation'])} | {tok} | "
                     f"{x['truncated']} | {x['errors']} |")
    return lines


def _behaviour_table(conds: Sequence[str], m: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Conflicts named, refusals, and what attribution found, whatever the verdict."""
    lines = ["", "Names a conflict (whatever the verdict), says \"I do not know\" or the like, and refuses although "
             "the current authoritative record was in the prompt (a miss):", "",
             "| condition | names a conflict | refuses | refusal misses | a handle written or attributed | "
             "a value its sources do not state |", "|---|---|---|---|---|---|"]
    for c in conds:
        x = m[c]
        lines.append(f"| {c} | {fmt_rate(x['conflict_named'])} | {fmt_rate(x['refused'])} | "
                     f"{fmt_rate(x['refusal_miss'])} | {fmt_rate(x['written_or_attributed'])} | "
                     f"{fmt_rate(x['unsupported_value'])} |")
    return lines


def _verdicts_table(conds: Sequence[str], m: Mapping[str, Mapping[str, Any]]) -> list[str]:
    lines = ["", "Verdict counts (and, whatever the verdict, answers that call some source outdated, expired or "
             "informal):", "", "| condition | current | stale | surfaced | confused | none | flags a stale source | "
             "regenerated by the guard |", "|---|---|---|---|---|---|---|---|"]
    for c in conds:
        v = m[c]["verdicts"]
        reg = m[c]["regenerated"]
        lines.append(f"| {c} | {v['current']} | {v['stale']} | {v['surfaced']} | {v['confused']} | {v['none']} | "
                     f"{m[c]['flags_stale']['k']} | {'' if reg is None else reg} |")
    return lines


def _unanswerable_section(conds: Sequence[str], m: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The questions no retrieved record answers, apart from the answerable ones. "invented, warned" appears when
    the rows say whether the reader was warned (runs made before `value_warned` existed rebuild as published)."""
    if not conds:
        return []
    warned = any(m[c]["unanswerable"]["invented_warned"] is not None for c in conds)
    lines = ["", "## When no record answers", "", "Questions whose retrieved records do not answer them "
             "(`\"unanswerable\": true`), counted apart from the answerable questions' rates. The right answer "
             "says the sources do not answer (`abstained`); anything else is `invented`, and \"with a neighbouring "
             "value\" counts the invented answers that state a value the records give nearby (a transplant)"
             + ("; \"invented, warned\" those the validator's `transplanted_value` flags, so the reader gets a note "
                "with the answer." if warned else ".") +
             " Abstentions are split by whether the retrieved records hold a conflict group with a current "
             "authoritative member (the groups `withhold` acts on).", "",
             "| condition | questions | abstained | invented | invented with a neighbouring value | "
             + ("invented, warned | " if warned else "") +
             "abstained: conflict group | abstained: no conflict group | mean prompt tokens | truncated | errors |",
             "|---|---|---|---|---|" + ("---|" if warned else "") + "---|---|---|---|---|"]
    for c in conds:
        x = m[c]["unanswerable"]
        tok = f"{x['mean_prompt_tokens']:.0f}" if x["mean_prompt_tokens"] is not None else "n/a"
        lines.append(f"| {c} | {x['questions']} | {fmt_rate(x['abstained'])} | {fmt_rate(x['invented'])} | "
                     f"{fmt_rate(x['transplanted'])} | " + (f"{fmt_rate(x['invented_warned'])} | " if warned else "")
                     + f"{fmt_rate(x['abstained_conflict_group'])} | "
                     f"{fmt_rate(x['abstained_no_group'])} | {tok} | {x['truncated']} | {x['errors']} |")
    return lines


def _guard_section(guarded: Sequence[str], m: Mapping[str, Mapping[str, Any]]) -> list[str]:
    if not guarded:
        return []
    lines = ["", "## The guard", "", "Per guarded condition: the finding kinds it acts on, the answers it "
             "checked, how many first answers each kind fired on, how many it regenerated, and how many second "
             "answers no longer have any of the kinds that fired (fixed; per kind in brackets).", "",
             "| condition | acts on | attribution | checked | fired on first answer (by kind) | regenerated | "
             "fixed |", "|---|---|---|---|---|---|---|"]
    for c in guarded:
        g = m[c]["guard"]
        fired = ", ".join(f"{k} {n}" for k, n in g["fired"].items()) or "none"
        lines.append(f"| {c} | {', '.join(g['kinds']) or 'stale_only, unknown_handle'} | "
                     f"{'on' if g['attribute'] else 'off'} | {g['checked']} | {fired} | {g['regenerated']} | "
                     f"{_guard_fixed(g)} |")
    return lines


def _guard_fixed(g: Mapping[str, Any]) -> str:
    """The guard table's `fixed` cell: fixed / second answers, per kind fired, and the withheld retries."""
    by_kind = ", ".join(f"{k} {g['fixed_by_kind'].get(k, 0)}/{n}" for k, n in g["fired"].items())
    fixed = f"{g['fixed']}/{g['second_answers']}" + (f" ({by_kind})" if by_kind else "")
    if g["withheld"]:
        fixed += f"; {g['withheld']} asked afresh without withheld sources"
    return fixed


def _delivered_section(noted: Sequence[str], m: Mapping[str, Mapping[str, Any]]) -> list[str]:
    if not noted:
        return []
    lines = ["", "## As delivered, with conflict notes", "", "The model's answer unchanged, then a note from "
             "the assembler's metadata for each conflict group the answer rests on (written or attributed "
             "citations; `citations.conflict_notes`), judged again. The note names the conflict by "
             "construction and states no rule, so it cannot turn a stale answer current; the model's own "
             "rates are in the tables above.", "",
             "| condition | answers with a note | rests on weak sources only | names a conflict: model | "
             "delivered | conflict surfaced (delivered) | stale (delivered) | verdicts moved |",
             "|---|---|---|---|---|---|---|---|"]
    for c in noted:
        d = m[c]["delivered"]
        lines.append(f"| {c} | {fmt_rate(d['noted'])} | {fmt_rate(d['weak_only'])} | "
                     f"{fmt_rate(d['model_named'])} | {fmt_rate(d['conflict_named'])} | "
                     f"{fmt_rate(d['surfaced'])} | {fmt_rate(d['stale'])} | {d['moved']} |")
    return lines


def _agreement_section(agree: Mapping[str, Mapping[str, Any]]) -> list[str]:
    if not agree:
        return []
    lines = ["", "## Rule judge vs LLM judge", "", "| condition | agreement | Cohen's kappa | unparsed |",
             "|---|---|---|---|"]
    for c, a in agree.items():
        kappa = "n/a" if a["kappa"] is None else f"{a['kappa']:.2f}"
        lines.append(f"| {c} | {fmt_rate(rate(a['agree'], a['n']))} | {kappa} | {a['unparsed']} |")
    return lines


def _by_question(rows: Sequence[Mapping[str, Any]], conds: Sequence[str]) -> list[str]:
    """One line per question, its verdict (or status, when the call failed) under each condition."""
    by_q: dict[str, dict[str, str]] = defaultdict(dict)
    for r in rows:
        by_q[r["question"]][r["condition"]] = r.get("verdict") or r.get("status", "?")
    lines = ["", "## Verdicts by question", "", "| question | " + " | ".join(conds) + " |",
             "|---|" + "---|" * len(conds)]
    for q, vs in by_q.items():
        lines.append(f"| {q} | " + " | ".join(vs.get(c, "") for c in conds) + " |")
    return lines


def _answer_line(r: Mapping[str, Any]) -> str:
    """One answer on one line (line breaks folded into spaces), with the guard's first answer when it
    regenerated."""
    ans = (r.get("answer") or r.get("error") or "").strip().replace("\n", " ")
    extra = ""
    if r.get("guard", {}).get("regenerated"):
        extra = f" (regenerated; first answer: {r['guard']['first_answer'].strip()[:400]!r})"
    if r.get("partial"):  # a cut answer: what it says so far, not counted
        extra += f" (cut at the token limit; the part written reads as `{r['partial']['verdict']}`)"
    return f"- **{r['question']} / {r['condition']}** → `{r.get('verdict') or r.get('status')}`: {ans}{extra}"


# ---------------------------------------------------------------- positions


def sweep_metrics(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Accuracy by gold seat for `ranked`, and for `edges`, `alternate` and `closed_book`, per k."""
    ks = sorted({r["k"] for r in rows if r["condition"] != "closed_book"})
    out: dict[str, Any] = {str(k): _sweep_at([r for r in rows if r["k"] == k and r.get("status") == "ok"])
                           for k in ks}
    out["closed_book"] = _accuracy(_in(rows, "closed_book", ok=True))
    out["truncated"] = _with_status(rows, "truncated")
    out["errors"] = _with_status(rows, "error")
    return out


def _sweep_at(ks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One k's answered rows: accuracy per gold seat (ranked), per order (gold = rank 1), the seats gold got."""
    ranked = _in(ks, "ranked")
    return {
        "ranked": {p: _accuracy([r for r in ranked if r["position"] == p])
                   for p in sorted({r["position"] for r in ranked})},
        **{c: _accuracy(_in(ks, c)) for c in ("edges", "alternate")},
        "gold_seats": {c: sorted({r["position"] for r in _in(ks, c)}) for c in ("edges", "alternate")},
        "mean_prompt_tokens": _mean([r["assembly_prompt_tokens"] for r in ranked]),
    }


def _in(rows: Sequence[Mapping[str, Any]], condition: str, *, ok: bool = False) -> list[Mapping[str, Any]]:
    """The rows of one condition (only the answered ones, with `ok`)."""
    return [r for r in rows if r["condition"] == condition and (not ok or r.get("status") == "ok")]


def _accuracy(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return rate(sum(r["correct"] for r in rows), len(rows))


def sweep_report(rows: Sequence[Mapping[str, Any]], meta: Mapping[str, Any], notes: str = "") -> str:
    m = sweep_metrics(rows)
    lines = _header("Position sweep (lost in the middle)", meta)
    lines += [f"Closed book (no records): {fmt_rate(m['closed_book'])}",
              f"Truncated answers: {m['truncated']}; failed calls: {m['errors']}", ""]
    for k, x in m.items():
        if not k.isdigit():
            continue
        lines += [f"## k = {k} distractors ({int(k) + 1} records, mean {x['mean_prompt_tokens'] or 0:.0f} prompt "
                  "tokens)", "", "| gold position (ranked) | accuracy |", "|---|---|"]
        lines += [f"| {p} | {fmt_rate(r)} |" for p, r in x["ranked"].items()]
        lines += ["", "| order (gold = rank 1, distractors shuffled) | gold seat | accuracy |", "|---|---|---|"]
        for c in ("edges", "alternate"):
            lines.append(f"| {c} | {x['gold_seats'][c]} | {fmt_rate(x[c])} |")
        lines.append("")
    if notes.strip():
        lines += [notes.strip(), ""]
    lines += ["## Answers", ""]
    for r in rows:
        ans = (r.get("answer") or r.get("error") or "").strip().replace("\n", " ")[:300]
        lines.append(f"- {r['question']} {r['condition']} pos={r['position']}: "
                     f"{'truncated' if r.get('status') == 'truncated' else r.get('correct')} | {ans}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- plots


NO_PLOTS = "plots skipped: matplotlib is not installed (pip install 'evidencepack[plots]')"


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def plot_traps(rows: Sequence[Mapping[str, Any]], path: Path, title: str) -> str | None:
    """Grouped bars of the three rates per condition with Wilson intervals; returns a note if skipped."""
    plt = _pyplot()
    if plt is None:
        return NO_PLOTS
    m = trap_metrics(rows)
    conds = list(dict.fromkeys(r["condition"] for r in rows))
    metrics: list[tuple[Callable[[Mapping[str, Any]], Mapping[str, Any]], str]] = []
    if any(not r.get("unanswerable") for r in rows):
        metrics += [(lambda x: x["stale"], "stale answer"), (lambda x: x["surfaced"], "conflict surfaced"),
                    (lambda x: x["current_correct"], "current-correct")]
    if any(r.get("unanswerable") for r in rows):
        metrics.append((lambda x: (x.get("unanswerable") or {}).get("abstained") or rate(0, 0),
                        "abstained (no record answers)"))
    fig, ax = plt.subplots(figsize=(8, 4.2))
    width = 0.8 / len(metrics)
    for j, (get, label) in enumerate(metrics):
        ys, lo, hi = zip(*(_percent(get(m[c])) for c in conds))
        ax.bar([i + (j - (len(metrics) - 1) / 2) * width for i in range(len(conds))], ys, width, yerr=[lo, hi],
               capsize=3, label=label)
    ax.set_xticks(range(len(conds)), conds)
    ax.set_ylabel("% of judged answers (95 % Wilson)")
    ax.set_ylim(0, 100)
    _save(plt, fig, ax, path, title)
    return None


def plot_positions(rows: Sequence[Mapping[str, Any]], path: Path, title: str) -> str | None:
    plt = _pyplot()
    if plt is None:
        return NO_PLOTS
    m = sweep_metrics(rows)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for k, x in m.items():
        if not k.isdigit() or not x["ranked"]:
            continue
        ps = list(x["ranked"])
        ys, lo, hi = zip(*(_percent(x["ranked"][p]) for p in ps))
        ax.errorbar(ps, ys, yerr=[lo, hi], marker="o", capsize=3, label=f"ranked, k={k}")
        for c, mk in (("edges", "s"), ("alternate", "^")):
            if x[c]["n"] and x["gold_seats"][c]:
                ax.scatter(x["gold_seats"][c][:1], [100 * x[c]["rate"]], marker=mk, s=60, zorder=3,
                           label=f"{c} (gold rank 1), k={k}")
    cb = m["closed_book"]
    if cb["n"]:
        ax.axhline(100 * cb["rate"], linestyle="--", color="grey", label=f"closed book ({cb['k']}/{cb['n']})")
    ax.set_xlabel("position of the gold record")
    ax.set_ylabel("accuracy % (95 % Wilson)")
    ax.set_ylim(-2, 102)
    _save(plt, fig, ax, path, title)
    return None


def _percent(rate: Mapping[str, Any]) -> tuple[float, float, float]:
    """A rate as a percentage with its Wilson error bar, clamped at 0 (float noise at 0 % and 100 %)."""
    y = 100 * (rate["rate"] or 0)
    return y, max(0.0, y - 100 * rate["lo"]), max(0.0, 100 * rate["hi"] - y)


def _save(plt: Any, fig: Any, ax: Any, path: Path, title: str) -> None:
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
