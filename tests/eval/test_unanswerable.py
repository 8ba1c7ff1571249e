"""Questions no retrieved record answers: the `unanswerable` key, the judge's `abstained`/`invented`, the report's
separate counts, and the two sets written for them.

`tests/data/unanswerable_freight_traps.jsonl` (9 questions over `holdout3_corpus.jsonl`, the freight company) and
`tests/data/unanswerable_it_traps.jsonl` (8 over `holdout_it_corpus.jsonl`, IT and security policy) were written on
2026-12-02 before any model answered them. Each asks for something near a topic its corpus covers (a meal
allowance beside the hotel cap, a Teams retention period beside the email one, a parking fee for an office the
parking record does not cover) and names the 3-5 records a retriever would return for it, none of which answers.
Nine of the 17 retrieve a conflict group with a current authoritative member, so `withhold` takes records out of
their prompts; the other eight do not. Most retrieve a neighbouring value a model could transplant as the answer
(`neighbour`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from evidencepack import Layout, assemble
from evidencepack.eval.backends import Messages, Sampling, ScriptedBackend
from evidencepack.eval.cache import AnswerCache
from evidencepack.eval.cli import main
from evidencepack.eval.datasets import DatasetError, TrapQuestion, load_traps, parse_trap
from evidencepack.eval.experiments import TrapRun
from evidencepack.eval.judge import is_refusal, judge
from evidencepack.eval.report import trap_metrics, trap_report
from evidencepack.records.jsonl import load_jsonl

DATA = Path(__file__).parents[1] / "data"
SETS = {"freight": ("unanswerable_freight_traps.jsonl", "holdout3_corpus.jsonl"),
        "it": ("unanswerable_it_traps.jsonl", "holdout_it_corpus.jsonl")}
CORPORA = {name: load_jsonl(DATA / corpus) for name, (_, corpus) in SETS.items()}
TRAPS = {name: load_traps(DATA / traps, corpus=CORPORA[name]) for name, (traps, _) in SETS.items()}
ALL = [(name, t) for name, ts in TRAPS.items() for t in ts]

# What an answer to each question would have to say, as a regex, with an answer it catches: no record of the
# corpus may match it (as far as a regex can tell, no record answers the question).
ANSWER_SHAPES: dict[str, tuple[str, str]] = {
    "meal-per-diem": (r"per[- ]diem|meals?\b[^.]{0,40}(?:allowance|reimburs|\$)|(?:daily|day) allowance",
                      "The meal allowance is $45 a day."),
    "airport-parking": (r"airport|parking\b[^.]{0,60}(?:reimburs|claim|expense|cap)",
                        "Airport parking is reimbursed up to $20 a day."),
    "rental-daily-cap": (r"\$\s?\d+\s(?:per|a|each) day\b|rental[^.]{0,80}(?:per|a|each) day\b|"
                         r"daily (?:rate|cap|limit|maximum)",
                         "You can spend up to $80 per day on the rental."),
    "collision-deductible": (r"deductible|(?:driver|you)[^.]{0,40}pays?\b[^.]{0,40}(?:repair|damage|bill)|"
                             r"(?:repair|damage)[^.]{0,40}(?:deducted|charged to|recovered from)",
                             "The driver pays the first $500 of the repair bill as a deductible."),
    "yard-speed-limit": (r"(?:speed limit|mph|miles per hour)[^.]{0,60}yard|yard[^.]{0,60}(?:speed limit|mph)",
                         "The speed limit in the yard is 5 mph."),
    "medical-card-renewal": (r"medical (?:card|certificate|exam)|\bDOT\b|physical exam",
                             "Renew your DOT medical card every 2 years; Larchmont pays for the exam."),
    "steer-tire-pressure": (r"\bpsi\b|inflat|(?:tire|tyre) pressure|pressure", "Keep steer tires at 110 psi."),
    "hotel-booking-notice": (r"(?:hotel|room|lodging)[^.]{0,60}(?:in advance|ahead|notice)|"
                             r"(?:in advance|ahead|notice)[^.]{0,60}(?:hotel|room|lodging)",
                             "Book the hotel at least 2 days in advance."),
    "delivery-uniform": (r"uniform|dress code|shirt|polo", "Yes, wear the Larchmont uniform shirt at customer sites."),
    "loaner-laptop-abroad": (r"loaner|clean (?:laptop|device)|burner|travel laptop|high-risk",
                             "Yes, collect a loaner laptop from the service desk for high-risk countries."),
    "tampere-parking-fee": (r"tampere[^.]{0,80}(?:permit|parking|garage|\$|€)|"
                            r"(?:permit|parking|garage)[^.]{0,80}tampere",
                            "A Tampere parking permit costs €40 per month."),
    "teams-chat-retention": (r"(?:teams|chats?)\b[^.]{0,60}(?:deleted|kept|retained|retention)|"
                             r"(?:retention|retained|kept|deleted)[^.]{0,60}\b(?:teams|chats?)\b",
                             "Teams chats are deleted after 1 year."),
    "yubikey-pin-length": (r"\bpin\b", "The YubiKey PIN must be at least 6 digits."),
    "envoy-guest-limit": (r"(?:guests?|visitors?) (?:per|for each|in a single|at most)|up to \d+ (?:guests|visitors)|"
                          r"(?:maximum|limit) of \d+ (?:guests|visitors)",
                          "You can register up to 10 guests per visit."),
    "phone-auto-lock": (r"phones?\b[^.]{0,60}lock|lock[^.]{0,60}\bphones?\b", "Company phones lock after 2 minutes."),
    "secure-share-size": (r"\b\d+\s?(?:[kmgt]b|megabytes?|gigabytes?)\b|file size|size limit|largest file",
                          "Secure Share takes files up to 2 GB."),
    "home-office-monitor": (r"\bmonitors?\b|screen for (?:your )?home|home[- ]office (?:equipment|hardware)|"
                            r"hardware request",
                            "Yes, request a second monitor through a Hardware Request in the IT portal."),
}
# The questions whose records hold a conflict group with a current authoritative member (withhold acts on them).
GROUPED = {"meal-per-diem", "airport-parking", "rental-daily-cap", "collision-deductible", "yard-speed-limit",
           "loaner-laptop-abroad", "tampere-parking-fee", "teams-chat-retention", "yubikey-pin-length"}


# ---------------------------------------------------------------- the sets


def test_the_sets_load_and_have_their_shape() -> None:
    assert {n: len(ts) for n, ts in TRAPS.items()} == {"freight": 9, "it": 8}
    assert all(t.unanswerable and not t.current and not t.stale and t.gold is None for _, t in ALL)
    assert all(3 <= len(t.records) <= 5 for _, t in ALL)
    assert {t.id for _, t in ALL} == set(ANSWER_SHAPES)  # every question has its answer shape, and only them
    assert all(t.missing for _, t in ALL)


@pytest.mark.parametrize(("name", "trap"), ALL, ids=[t.id for _, t in ALL])
def test_every_record_exists_and_no_record_of_the_corpus_answers(name: str, trap: TrapQuestion) -> None:
    by_id = {r.id: r for r in CORPORA[name]}
    assert all(i in by_id for i in trap.records)
    shape, example = ANSWER_SHAPES[trap.id]
    assert re.search(shape, example, re.IGNORECASE), "the shape must catch an answer, or the check means nothing"
    answering = [r.id for r in CORPORA[name] if re.search(shape, r.text, re.IGNORECASE)]
    assert answering == [], f"{trap.id}: these records may answer it"


@pytest.mark.parametrize(("name", "trap"), ALL, ids=[t.id for _, t in ALL])
def test_withhold_acts_on_the_grouped_questions_only(name: str, trap: TrapQuestion) -> None:
    by_id = {r.id: r for r in CORPORA[name]}
    a = assemble([by_id[i] for i in trap.records], trap.question, as_of=trap.as_of, layout=Layout.preset("decide"))
    withheld = [o.id for o in a.report.records if o.reason == "conflict_withheld"]
    assert bool(withheld) == (trap.id in GROUPED)
    assert {m.id for m in a.manifest} == set(trap.records) - set(withheld)  # nothing else left out


def test_at_least_half_retrieve_a_conflict_group_in_each_set() -> None:
    for ts in TRAPS.values():
        assert 2 * sum(t.id in GROUPED for t in ts) >= len(ts)


@pytest.mark.parametrize(("name", "trap"), ALL, ids=[t.id for _, t in ALL])
def test_every_neighbouring_value_is_in_a_retrieved_record(name: str, trap: TrapQuestion) -> None:
    """The temptation is real: each `neighbour` pattern matches a record the question retrieves."""
    texts = [r.text for r in CORPORA[name] if r.id in trap.records]
    assert trap.neighbour
    for p in trap.neighbour:
        assert any(re.search(p, t, re.IGNORECASE) for t in texts), p


# ---------------------------------------------------------------- the key


BASE: dict[str, Any] = {"id": "q", "question": "What is the Canada rate?", "as_of": "2026-06-01",
                        "records": ["a", "b"], "unanswerable": True}


@pytest.mark.parametrize(("change", "message"), [
    ({"yes_no": "no"}, "cannot be given"),
    ({"gold": "a"}, "'gold' cannot be given"),
    ({"current": ["72 cents"]}, "has no current rule"),
    ({"stale": ["58 cents"]}, "goes in 'neighbour'"),
    ({"unanswerable": "yes"}, "'unanswerable' must be true or false"),
    ({"neighbour": ["(unclosed"]}, "bad regex in 'neighbour'"),
    ({"missing": 3}, "'missing' must be a string"),
])
def test_unanswerable_validation_names_the_problem(change: dict[str, Any], message: str) -> None:
    with pytest.raises(DatasetError, match=message):
        parse_trap({**BASE, **change}, where="set.jsonl line 2")


def test_an_unanswerable_question_needs_no_patterns_and_an_answerable_one_still_does() -> None:
    t = parse_trap({**BASE, "current": [], "stale": []})
    assert t.unanswerable and t.current == () and t.to_dict()["unanswerable"] is True
    answerable = {"id": "q", "question": "Q?", "as_of": "2026-06-01", "records": ["a"]}
    with pytest.raises(DatasetError, match="missing key"):
        parse_trap(answerable)
    with pytest.raises(DatasetError, match="only for a question with"):
        parse_trap({**answerable, "current": ["x"], "stale": ["y"], "neighbour": ["z"]})
    # an answerable question's dict is what it was before the key existed (results files stay comparable)
    old = parse_trap({**answerable, "current": ["x"], "stale": ["y"]}).to_dict()
    assert not {"unanswerable", "neighbour", "missing"} & set(old)


# ---------------------------------------------------------------- the judge


CANADA = parse_trap({**BASE, "neighbour": [r"72 cents"]})


@pytest.mark.parametrize(("answer", "verdict"), [
    ("The sources do not state the Canada rate.", "abstained"),
    ("I do not know: none of the sources gives a rate for Canada.", "abstained"),
    ("The provided documents don't specify a mileage rate for Canada; [S1] gives 72 cents per mile for approved "
     "business, without saying where.", "abstained"),  # a refusal that reports the neighbour stays a refusal
    ("A rate for Canada is not mentioned in the provided sources.", "abstained"),
    ("Answer: No source states a Canada rate.", "abstained"),
    ("The sources state the rate is $60.", "invented"),
    ("The rate for Canada is 72 cents per mile [S1].", "invented"),
    ("You are reimbursed at the standard rate.", "invented"),  # neither declines nor names a value: still asserted
    ("No. The sources do not mention Canada.", "invented"),  # the opening "No" is what the reader acts on
    ("Yes, the same rate applies; the sources do not say otherwise.", "invented"),
    ("No, the sources do not mention a rate for Canada.", "abstained"),  # the opening sentence is the refusal
    # the `rule_or_none` form filled in both ways: "none" and the refusal, or a rule and the figure it carries over
    ('Rule: none\nAnswer: The sources do not answer it.', "abstained"),
    ('Rule: [S1] pays 72 cents per mile.\nAnswer: 72 cents per mile for Canada.', "invented"),
    ("Rule: none\nAnswer: none", "abstained"),  # the form's own word for declining
    ("Rule: none\n**Answer:** None.", "abstained"),
    ("Rule: none\nAnswer: none of the rates apply; use 72 cents per mile.", "invented"),
])
def test_unanswerable_verdicts(answer: str, verdict: str) -> None:
    assert judge(answer, CANADA).verdict == verdict


def test_neighbour_hits_say_whether_a_nearby_value_was_stated() -> None:
    assert judge("The Canada rate is 72 cents per mile.", CANADA).states_neighbour
    assert not judge("It is not 72 cents per mile; I do not know the Canada rate.", CANADA).states_neighbour
    assert not judge("The Canada rate is 60 cents per mile.", CANADA).states_neighbour
    assert judge("The sources do not say.", CANADA).to_dict()["neighbour"] == []


@pytest.mark.parametrize(("answer", "refused"), [
    ("The sources do not state the Canada rate.", True),
    ("The sources state the rate is $60.", False),
    ("None of the documents mentions contractors.", True),
    ("The documents mention contractors twice.", False),
    ("The policy does not directly answer whether you can.", True),
    ("The policy does not allow it.", False),  # a rule stated, not a refusal
    ("It is not specified in the provided context.", True),
    ("It is specified in the provided context: 14 characters.", False),
    ("No source says so.", True),
    ("No sources were harmed.", False),
    ("Rule: none\nAnswer: none", True),
    ("Rule: [S1] says none of the above.\nAnswer: none of the rooms are free.", False),
])
def test_refusal_wording_and_its_neighbours(answer: str, refused: bool) -> None:
    assert is_refusal(answer) is refused


def test_an_answerable_question_is_judged_as_before() -> None:
    """The answerable verdicts do not move: the bundled HR set's refusal shape is still `none`, not `abstained`."""
    hr = next(t for t in load_traps() if t.id == "pto-carryover")
    j = judge("The sources do not say whether PTO carries over.", hr)
    assert (j.verdict, j.refused, "neighbour" in j.to_dict()) == ("none", True, False)


# ---------------------------------------------------------------- the harness and the report


def _abstain_on(ids: set[str], questions: dict[str, str]) -> Any:
    """A scripted rule that says "I do not know" on the named questions and answers from the first source otherwise."""
    from evidencepack.eval.backends import careful_reader

    def rule(messages: Messages) -> str:
        user = next(m["content"] for m in messages if m["role"] == "user")
        if any(questions[i] in user for i in ids):
            return "I do not know: the sources do not say."
        return careful_reader(messages)

    return rule


def test_a_mixed_run_reports_both_groups_apart(tmp_path: Path) -> None:
    corpus = CORPORA["freight"]
    answerable = load_traps(DATA / "holdout3_traps.jsonl", corpus=corpus)[:4]
    unanswerable = TRAPS["freight"]
    questions = {t.id: t.question for t in unanswerable}
    abstain = {"meal-per-diem", "yard-speed-limit", "steer-tire-pressure"}  # two grouped, one not
    run = TrapRun(ScriptedBackend(rule=_abstain_on(abstain, questions)), [*answerable, *unanswerable], corpus,
                  Sampling(), AnswerCache(tmp_path), ["structured", "structured+withhold"])
    rows = run.run()
    m = trap_metrics(rows)["structured+withhold"]
    assert m["questions"] == m["judged"] == 4  # the answerable rates are over the answerable questions only
    u = m["unanswerable"]
    assert (u["questions"], u["abstained"]["k"], u["invented"]["k"]) == (9, 3, 6)
    assert (u["abstained_conflict_group"]["k"], u["abstained_conflict_group"]["n"]) == (2, 5)
    assert (u["abstained_no_group"]["k"], u["abstained_no_group"]["n"]) == (1, 4)
    assert u["abstained"]["lo"] < 1 / 3 < u["abstained"]["hi"]  # a Wilson interval around 3/9
    rows_u = [r for r in rows if r.get("unanswerable")]
    assert all(r["answerable"] is None and "llm_verdict" not in r for r in rows_u)
    withheld = {r["question"]: r["withheld"] for r in rows_u if r["condition"] == "structured+withhold"}
    assert withheld["meal-per-diem"] == ["email-hotel-2025", "te03-lodging-2023"] and withheld["delivery-uniform"] == []
    report = trap_report(rows, {"is_model": False})
    assert "## Rates by condition" in report and "## When no record answers" in report
    assert "| structured+withhold | 9 | 3/9 = 33 % [12, 65] | 6/9 = 67 % [35, 88] |" in report
    assert "abstained: more / fewer (p)" in report


def test_older_results_without_the_key_read_as_answerable() -> None:
    rows = [{"condition": "structured", "question": "q", "status": "ok", "verdict": "current",
             "assembly_prompt_tokens": 100, "refused": False}]
    m = trap_metrics(rows)["structured"]
    assert m["current_correct"]["k"] == 1 and "unanswerable" not in m


def test_the_cli_counts_calls_and_runs_the_set_on_a_scripted_backend(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    traps, corpus = (str(DATA / f) for f in SETS["it"])
    conditions = "structured,structured+withhold,structured+withhold+rule-form,flat+withhold"
    common = ["traps", "--traps", traps, "--corpus", corpus, "--conditions", conditions]
    assert main(["eval", *common, "--count-calls"]) == 0
    # the four questions with no conflict group send the same prompt under structured and structured+withhold
    assert capsys.readouterr().out.strip() == ("8 questions (8 unanswerable) x 4 conditions = 32 rows; 28 distinct "
                                               "prompts (the most calls with an empty cache)")
    out = tmp_path / "run"
    assert main(["eval", *common, "--backend", "scripted", "--out", str(out), "--no-plots", "--quiet"]) == 0
    report = (out / "report.md").read_text()
    assert "## When no record answers" in report and "## Rates by condition" not in report
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert {r["verdict"] for r in rows} <= {"abstained", "invented"} and len(rows) == 32
    assert "When no record answers" in (out / "report.html").read_text()


def test_invented_answers_the_reader_is_warned_of_are_counted(tmp_path: Path) -> None:
    """An invented answer is less harmful when the validator's `transplanted_value` flags it (the reader gets
    `transplant_note` with it): the run records it per row and the report counts it apart."""
    corpus = CORPORA["freight"]
    traps = [t for t in TRAPS["freight"] if t.id in ("yard-speed-limit", "airport-parking", "steer-tire-pressure")]
    answers = {"yard-speed-limit": "The speed limit in the yard is 5 mph.",  # the phone lock's 5 mph, carried over
               "airport-parking": "Airport parking is covered up to $140.",  # invented, nothing to flag
               "steer-tire-pressure": "I do not know: the sources do not say."}
    questions = {t.id: t.question for t in traps}

    def rule(messages: Messages) -> str:
        user = next(m["content"] for m in messages if m["role"] == "user")
        return next(answers[i] for i, q in questions.items() if q in user)

    rows = TrapRun(ScriptedBackend(rule=rule), traps, corpus, Sampling(), AnswerCache(tmp_path), ["structured"]).run()
    warned = {r["question"]: r["value_warned"] for r in rows}
    assert warned == {"yard-speed-limit": True, "airport-parking": False, "steer-tire-pressure": False}
    u = trap_metrics(rows)["structured"]["unanswerable"]
    assert (u["invented"]["k"], u["invented_warned"]["k"]) == (2, 1)
    assert "| invented, warned |" in trap_report(rows, {"is_model": False})
    older = [{k: v for k, v in r.items() if k != "value_warned"} for r in rows]
    assert trap_metrics(older)["structured"]["unanswerable"]["invented_warned"] is None
