"""The third trap set (fleet operations and travel expenses): is it well formed, and does the judge read it right?

`tests/data/holdout3_corpus.jsonl` is the intranet of a fictional regional trucking company, Larchmont Freight
Lines (Dayton, Ohio; terminals in Fort Wayne, Louisville and Toledo): the Fleet Vehicle Policy, the Driver
Handbook, yard-safety and cargo-security standards, the maintenance standard and schedule, the fuel card rules, the
Travel and Expense Policy, old versions of each, and emails from terminal managers and Slack posts from dispatch and
driver channels. `tests/data/holdout3_traps.jsonl` holds 18 questions as drivers and staff would ask them:
13 yes/no questions, 10 of them answered "no" today (personal use of a van, a child riding along, hands-free calls,
the fuel card for a personal car, idling on a cold break, an SUV rental, a cash toll, a trailer left at a truck
stop, reversing without a spotter, a forklift on an outside certificate) and 3 answered "yes" (reporting a small
scrape, the pre-trip on the same truck, a hotel when out of hours), and 5 open questions (mileage rate, claim
deadline, who to call after a collision, maintenance interval, receipt threshold). Each names 4-5 records in
retrieval rank order: one current authoritative answer (`gold`), 1-2 stale ones on the same subject that give a
different concrete rule (superseded versions past their `valid_until`; informal emails and Slack posts, most with
no `valid_until` at all, two expired), and 1-2 records on other subjects. A stale record is rank 1 in 12 questions
(the one named `trap` in 11), the current one in the other 5, and the current record sits at every seat 1-5.
The idling and reversing records carry no `topic`: their conflict groups come from their `embedding`s (cosine
0.90-0.95 inside a group, below the 0.95 dedup threshold; the two groups far apart), which the assembler uses for
grouping when a record has no topic.

Besides the set's shape, the tests hold hand-written answers (current, stale, refusal, and the yes-bias shape
"Yes, you can …" followed by the current rule) to the verdicts they deserve; natural answer shapes the first
judge misjudged (an echoed question, a concessive "even ...") are held at the end.

Written on 2026-12-02, before any model answered it, without reading the prompt wording being tested
(render/guidance.py, render/prompts.py, passes/conflicts.py, docs/variants.md, docs/evaluation.md) or any model
answers (docs/eval-results/). Run it with
`evidencepack eval traps --traps tests/data/holdout3_traps.jsonl --corpus tests/data/holdout3_corpus.jsonl
--backend http --base-url ... --model ... --out eval-runs/holdout3`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest

from evidencepack.eval.datasets import TrapQuestion, load_traps
from evidencepack.eval.judge import judge
from evidencepack.records.jsonl import load_jsonl
from evidencepack.records.record import Record
from trap_set_checks import (
    NO,
    YES,
    check_assembler_sees_gold_current,
    check_bare_verdicts,
    check_judge_reads_records,
    check_patterns_separate,
    check_sample_answers,
    check_yes_bias,
)
from trap_set_checks import day as _day

DATA = Path(__file__).parents[1] / "data"
CORPUS = load_jsonl(DATA / "holdout3_corpus.jsonl")
BY_ID = {r.id: r for r in CORPUS}
TRAPS = load_traps(DATA / "holdout3_traps.jsonl", corpus=CORPUS)
IDS = [t.id for t in TRAPS]
COSINE_GROUP = 0.9  # the assembler groups topic-less records at this cosine (README, "Conflict notices")
COSINE_DEDUP = 0.95  # and merges near-duplicates at this one: a conflict group must stay below it


def _cosine(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def _same_group(gold: Record, r: Record) -> bool:
    """Same conflict group as the gold record: same topic, or, for topic-less records, embeddings that close."""
    if gold.topic is not None:
        return r.topic == gold.topic
    return (r.topic is None and r.embedding is not None and gold.embedding is not None
            and _cosine(gold.embedding, r.embedding) >= COSINE_GROUP)


def _roles(t: TrapQuestion) -> tuple[Record, list[Record], list[Record]]:
    """(current record, stale records, distractors) of a question, by its gold record's conflict group."""
    gold = BY_ID[t.gold or ""]
    recs = [BY_ID[i] for i in t.records]
    stale = [r for r in recs if r is not gold and _same_group(gold, r)]
    others = [r for r in recs if not _same_group(gold, r)]
    return gold, stale, others


def _kind(t: TrapQuestion) -> str:
    """'no' / 'yes' for a yes/no question by its opening-verdict patterns, 'open' otherwise."""
    if NO in t.current and YES in t.stale:
        return "no"
    if YES in t.current and NO in t.stale:
        return "yes"
    return "open"


# ---------------------------------------------------------------- shape


def test_set_shape_and_counts() -> None:
    assert len(TRAPS) >= 16 and len(set(IDS)) == len(IDS)
    kinds = [_kind(t) for t in TRAPS]
    assert kinds.count("no") >= 8 and kinds.count("no") * 2 >= len(TRAPS)  # at least half answered "no"
    assert kinds.count("yes") >= 3  # so a model that always says "no" does not win
    assert kinds.count("open") >= 3
    for t, kind in zip(TRAPS, kinds, strict=True):
        # the one-line summaries agree with the verdict patterns
        if kind != "open":
            assert t.current_value.startswith(kind + ";"), t.id
            assert t.stale_value.startswith("yes" if kind == "no" else "no"), t.id
    assert all(t.as_of.startswith("2026-") for t in TRAPS)


def test_seats_vary() -> None:
    gold_seats = [t.records.index(t.gold or "") + 1 for t in TRAPS]
    trap_seats = [t.records.index(t.trap or "") + 1 for t in TRAPS]
    assert len(set(gold_seats)) >= 4
    assert gold_seats.count(1) >= 3 and trap_seats.count(1) >= 3


def test_informal_records_that_never_expire() -> None:
    used = {i for t in TRAPS for r in _roles(t)[1] for i in [r.id]}
    forever = [r.id for r in CORPUS if r.authority == "informal" and r.valid_until is None and r.id in used]
    assert len(forever) >= 3, forever
    # and the other kinds of stale source appear too: superseded versions and informal posts past their date
    kinds = set()
    for t in TRAPS:
        for r in _roles(t)[1]:
            end = _day(r.valid_until)
            expired = end is not None and end < date.fromisoformat(t.as_of)  # type: ignore[operator]
            kinds.add((r.authority, expired))
    assert {("superseded", True), ("informal", True), ("informal", False)} <= kinds


def test_some_groups_have_no_topic_and_come_from_embeddings() -> None:
    topicless = [t for t in TRAPS if BY_ID[t.gold or ""].topic is None]
    assert len(topicless) >= 2
    for t in topicless:
        gold, stale, others = _roles(t)
        assert stale and all(r.topic is None for r in stale)
        group = [gold, *stale]
        for a in group:  # every pair, so the group does not hang on the gold record alone
            for b in group:
                if a is not b:
                    assert a.embedding is not None and b.embedding is not None
                    assert COSINE_GROUP <= _cosine(a.embedding, b.embedding) < COSINE_DEDUP, (a.id, b.id)
    # records of different topic-less groups are far apart
    golds = [BY_ID[t.gold or ""] for t in topicless]
    for a in golds:
        for b in golds:
            if a is not b:
                assert a.embedding is not None and b.embedding is not None
                assert _cosine(a.embedding, b.embedding) < 0.5


@pytest.mark.parametrize("t", TRAPS, ids=IDS)
def test_question_records_have_the_intended_roles(t: TrapQuestion) -> None:
    assert 4 <= len(t.records) <= 6
    gold, stale, others = _roles(t)
    assert t.gold is not None and t.trap in {r.id for r in stale}
    assert all(r.authority in ("superseded", "informal") for r in stale)
    assert gold.authority == "authoritative"
    assert 1 <= len(stale) <= 2 and 1 <= len(others) <= 2
    # distractors are on other subjects, each its own, and none of them is stale
    assert len({r.topic for r in others}) == len(others)
    assert all(r.topic is not None and r.authority == "authoritative" for r in others)
    # superseded versions ended before the question's date
    for r in stale:
        if r.authority == "superseded":
            end = _day(r.valid_until)
            assert end is not None and end < date.fromisoformat(t.as_of), r.id  # type: ignore[operator]


@pytest.mark.parametrize("t", TRAPS, ids=IDS)
def test_the_assembler_sees_gold_current_and_trap_stale(t: TrapQuestion) -> None:
    """Through the real assembler's manifest at `as_of`: the gold record is admitted, authoritative and current;
    every other record of its group is expired or not authoritative; the conflict group names them."""
    gold, stale, _ = _roles(t)
    check_assembler_sees_gold_current(t, [BY_ID[i] for i in t.records], gold, stale)


# ---------------------------------------------------------------- patterns


@pytest.mark.parametrize("t", TRAPS, ids=IDS)
def test_patterns_separate_current_from_stale_text(t: TrapQuestion) -> None:
    check_patterns_separate(t, *_roles(t))


@pytest.mark.parametrize("t", TRAPS, ids=IDS)
def test_judge_reads_each_record_as_its_own_rule(t: TrapQuestion) -> None:
    """Quoted as an answer on its own, the current record is judged current and each stale record stale."""
    gold, stale, _ = _roles(t)
    check_judge_reads_records(t, gold, stale)


# ---------------------------------------------------------------- hand-written answers


@dataclass(frozen=True)
class Samples:
    """Answers as a model might write them (not copied from the records): the current rule, the stale rule (for a
    yes/no question the bare wrong verdict), a refusal, and for a "no" question the yes-bias shape ("Yes, you
    can …" followed by the current rule that says the opposite)."""

    current: str
    stale: str
    refusal: str
    yes_bias: str = ""


SAMPLES = {
    "van-weekend-move": Samples(
        "No. Company vehicles, take-home vans included, are for company business only, and personal trips such as "
        "helping someone move aren't allowed, not even at weekends [S1].",
        "Yes, you can take the van for the weekend. Just have it back by Monday morning with a full tank.",
        "I do not know whether you can use the van for that.",
        "Yes, you can take the van over the weekend. Company vehicles may be used only for company business, and "
        "personal trips are not permitted at any time [S1]."),
    "kid-ride-along": Samples(
        "No, that isn't allowed. Only Larchmont employees on duty, assigned trainees and inspectors may ride in a "
        "company truck; family members are not permitted at any age, and the insurance doesn't cover them [S1].",
        "Yes, as long as he's 14 or older. Get a rider waiver from dispatch and have it signed before he rides "
        "along.",
        "I do not know. The sources I have don't say whether family members can ride along.",
        "Yes, he can come along. Family members are not permitted as passengers at any time, whatever their age "
        "[S1]."),
    "handsfree-call": Samples(
        "No. You can't take calls while the truck is moving, not even hands-free over Bluetooth. Pull over "
        "somewhere safe and call back [S4].",
        "Yes, you can take a quick hands-free call through the cab's Bluetooth, as long as you keep it short.",
        "I do not know; the sources don't say whether hands-free calls are allowed.",
        "Yes, you can take it hands-free. Drivers must not make, take or continue any phone call while the vehicle "
        "is moving, including hands-free calls [S4]."),
    "fuel-card-own-car": Samples(
        "No. The fuel card is only for the company vehicle it's assigned to. Fuelling your own car on it counts as "
        "card misuse even if you pay it back, and the card gets cancelled [S2].",
        "Yes, that's fine. Just tell the fleet coordinator the amount and it will be taken out of your next "
        "paycheck.",
        "I do not know what the fuel card rules say about personal cars.",
        "Yes, you can use it for your own car if you pay it back. The fuel card may be used only for diesel, DEF "
        "and approved fluids for the company vehicle it is assigned to [S2]."),
    "idle-on-break": Samples(
        "No. Engines have to be shut off after 3 minutes of idling, whatever the temperature. Use the diesel-fired "
        "parking heater to keep the cab warm with the engine off [S2].",
        "Yes, since it's below 40°F you're allowed to idle during your break to keep the cab warm.",
        "I do not know the idling rules for cold weather.",
        "Yes, you can keep the engine running. Engines must be shut off after 3 minutes of idling at any outside "
        "temperature [S2]."),
    "rental-suv": Samples(
        "No. Rentals should be intermediate class or smaller, booked through the travel desk, and an SUV upgrade "
        "isn't reimbursed however long the trip is, unless three or more employees share the car [S3].",
        "Yes, because your trip is over 300 miles you can rent a full-size car or a standard SUV.",
        "I do not know which car class you can rent for that trip.",
        "Yes, you can rent an SUV. Upgrades to full-size cars and SUVs are not reimbursed, whatever the trip "
        "length [S3]."),
    "cash-toll": Samples(
        "No. Tolls you pay in cash aren't reimbursed, because the transponder bills Larchmont directly. Report the "
        "failed transponder in the Driver Hub app; the toll authority bills the plate [S1].",
        "Yes, you can claim it back on your monthly expense report. Attach the toll receipt, or write it in a toll "
        "log if the plaza gave you none.",
        "I do not know whether cash tolls can be claimed.",
        "Yes, you can claim it back. Tolls paid by drivers in cash or by card are not reimbursed [S1]."),
    "trailer-truck-stop": Samples(
        "No. A loaded trailer can only be left overnight at a Larchmont terminal or one of the approved secure lots "
        "listed in the Driver Hub app; truck stops aren't approved, even for a few hours. Call dispatch to arrange "
        "a relay driver [S5].",
        "Yes, you can leave it at the truck stop overnight. Put a kingpin lock on it and tell dispatch where it "
        "is.",
        "I do not know if truck stops are allowed for overnight parking.",
        "Yes, you can leave it there. A loaded trailer may be left overnight only at a Larchmont terminal or an "
        "Approved Secure Parking lot [S5]."),
    "reverse-alone": Samples(
        "No. You need to reverse with a trained spotter guiding you, even when the yard is empty, and the camera "
        "doesn't replace a spotter. If nobody's free, call the yard office on channel 2 and wait [S1].",
        "Yes, in daylight with a clear yard you can back in on your own using your mirrors and the camera.",
        "I do not know whether a spotter is needed in an empty yard.",
        "Yes, you can back in. Vehicles reverse into a dock only with a trained spotter, even when the yard looks "
        "empty [S1]."),
    "forklift-prior-cert": Samples(
        "No. You can't operate a forklift here until you've completed Larchmont's operator course and passed a "
        "practical evaluation by a site trainer; certificates from other employers don't count [S3].",
        "Yes, you can start using the forklift this week. Bring your certificate to the warehouse supervisor and "
        "he'll sign you off.",
        "I do not know whether your previous certificate is accepted here.",
        "Yes, you can start this week. Only employees who have completed Larchmont's operator course and passed a "
        "practical evaluation are allowed to operate a forklift [S3]."),
    "bumper-scratch": Samples(
        "Yes. Every incident has to be reported, however minor, including a small scrape on a bollard. Log it in "
        "the Driver Hub app before the end of your shift with at least four photos [S2].",
        "No, you don't need to report a small scratch like that. Just note it on your post-trip inspection report.",
        "I do not know if minor damage has to be reported."),
    "pretrip-same-truck": Samples(
        "Yes. You have to do a full pre-trip inspection and submit the DVIR before the first move of every shift, "
        "even if you drove the same truck yesterday [S4].",
        "No, you don't have to do a pre-trip if you did a clean post-trip on the same truck within the last 12 "
        "hours.",
        "I do not know whether the walk-around is needed every shift."),
    "hotel-out-of-hours": Samples(
        "Yes. Day-cab drivers who can't get back within their hours may stay in a hotel: call the 24-hour travel "
        "desk to book it, or pay with your corporate card and claim up to $140 a night plus tax [S1].",
        "No, hotel stays aren't reimbursed for drivers. Rest in the cab and you'll get the $40 layover allowance.",
        "I do not know if hotels are covered for drivers."),
    "mileage-rate": Samples(
        "It's 72 cents per mile. Claim it in the expense app with the start and end addresses of the trip [S4].",
        "You get 65 cents a mile; just put the miles on your expense sheet.",
        "I do not know the current mileage rate."),
    "claim-deadline": Samples(
        "You should submit it within 30 days of the expense, so early-June receipts are due now; claims more than "
        "60 days after the expense are rejected, so get it in before early August at the latest [S2].",
        "You have 90 days from the expense date, as long as it's in before the end of the following fiscal "
        "quarter.",
        "I do not know the deadline for expense claims."),
    "collision-first-call": Samples(
        "Call 911 first if anyone is hurt or the road is blocked. Then call the Larchmont Safety Line at "
        "1-800-555-0147 before anyone else, including your dispatcher, and don't admit fault at the scene [S2].",
        "Call your terminal manager first on his cell; he'll decide whether it needs to go to Safety.",
        "I do not know who you should call first."),
    "pm-interval": Samples(
        "Every 15,000 miles or 60 days, whichever comes first. The Driver Hub app shows your truck's next due date "
        "[S1].",
        "Tractors are serviced every 25,000 miles, or at least every 120 days if you don't run many miles.",
        "I do not know the service interval."),
    "receipt-threshold": Samples(
        "You need an itemized receipt for any expense of $25 or more [S3].",
        "Only for expenses over $75; below that, a description on the expense line is enough.",
        "I do not know the receipt threshold."),
}
TRAP_BY_ID = {t.id: t for t in TRAPS}


def test_every_question_has_samples() -> None:
    assert set(SAMPLES) == set(IDS)
    for t in TRAPS:
        s = SAMPLES[t.id]
        assert bool(s.yes_bias) == (_kind(t) == "no"), t.id
        if _kind(t) != "open":  # the wrong verdict first, as a model with a yes-bias (or a no-bias) writes it
            assert s.stale.startswith("Yes, " if _kind(t) == "no" else "No, "), t.id


@pytest.mark.parametrize("t", TRAPS, ids=IDS)
def test_judge_reads_the_current_and_the_stale_answer(t: TrapQuestion) -> None:
    check_sample_answers(t, SAMPLES[t.id].current, SAMPLES[t.id].stale)


@pytest.mark.parametrize("t", TRAPS, ids=IDS)
def test_judge_reads_the_refusal(t: TrapQuestion) -> None:
    j = judge(SAMPLES[t.id].refusal, t)
    assert (j.verdict, j.refused) == ("none", True), j.to_dict()


YES_NO = [t for t in TRAPS if _kind(t) != "open"]


@pytest.mark.parametrize("t", [t for t in TRAPS if _kind(t) == "no"], ids=[t.id for t in TRAPS if _kind(t) == "no"])
def test_yes_bias_is_never_current(t: TrapQuestion) -> None:
    """The assembler's known weakness: the reader acts on the opening "Yes", so it is never current-correct."""
    check_yes_bias(t, SAMPLES[t.id].yes_bias)


@pytest.mark.parametrize("t", YES_NO, ids=[t.id for t in YES_NO])
def test_bare_verdicts(t: TrapQuestion) -> None:
    check_bare_verdicts(t, _kind(t))


# More answer shapes a model writes: other openings, a stale rule negated or marked as outdated, both rules with
# nothing saying which holds. (question id, answer, verdict)
SHAPES = [
    ("van-weekend-move", "No you can't, it's for company business only.", "current"),
    ("van-weekend-move", "Nope. Company vehicles are for company business only.", "current"),
    ("van-weekend-move", "Unfortunately, you can't use the company van to help your brother move; it's for company "
     "business only [S3].", "current"),
    ("van-weekend-move", "No. The Fort Wayne manager's email [S1] says it's fine if you bring it back by Monday with "
     "a full tank, but that email is informal; the policy [S3] says company vehicles may be used only for company "
     "business.", "surfaced"),
    ("van-weekend-move", "No. The 2022 policy allowed up to 50 personal miles a week, but it was superseded in 2025: "
     "personal trips are no longer permitted [S3].", "surfaced"),
    ("van-weekend-move", "According to S3, personal trips are not permitted; according to S4, incidental personal use "
     "of up to 50 miles per week is allowed.", "confused"),
    ("kid-ride-along", "No. Even at 16, he can't ride along; family members are not permitted [S1].", "current"),
    ("kid-ride-along", "No. The old rule that let kids aged 14 or over ride with a waiver has expired; family "
     "members are not permitted now [S1].", "surfaced"),
    ("handsfree-call", "No, not even hands-free. Pull over somewhere safe to call back [S4].", "current"),
    ("handsfree-call", "No. The 2023 handbook allowed hands-free calls if kept short, but it's superseded: no calls "
     "at all while moving, hands-free included [S4].", "surfaced"),
    ("fuel-card-own-car", "No, you can't use the fuel card for your own car, even if you pay it back; that's card "
     "misuse [S2].", "current"),
    ("idle-on-break", "No. Idling isn't allowed even when it's below 40°F; engines must be shut off after 3 minutes "
     "[S2].", "current"),
    ("idle-on-break", "No. The 2022 policy let drivers idle below 40°F, but it was superseded in 2025: engines must "
     "now be shut off after 3 minutes at any temperature [S2].", "surfaced"),
    ("idle-on-break", "No \u2014 shut the engine off after 3 minutes and use the parking heater [S2].", "current"),
    ("cash-toll", "No, you cannot claim it back: tolls paid in cash or by card are not reimbursed [S1].", "current"),
    ("trailer-truck-stop", "No, you can't leave it at a truck stop. Loaded trailers may only be left at a terminal "
     "or an approved secure lot [S5].", "current"),
    ("reverse-alone", "No, not on your own. You need a trained spotter every time, even when the yard is empty "
     "[S1].", "current"),
    ("forklift-prior-cert", "Not yet. You have to finish the operator course and pass a practical evaluation by a "
     "site trainer before you can use one [S3].", "current"),
    ("forklift-prior-cert", "No one may operate a forklift here before Larchmont's operator course.", "current"),
    ("bumper-scratch", "You do. Every incident, however minor, gets reported.", "current"),
    ("bumper-scratch", "Yes. It doesn't matter that it's under $1,000; every incident, however minor, must be "
     "reported [S2].", "current"),
    ("bumper-scratch", "You do not have to report it.", "stale"),
    ("pretrip-same-truck", "Yes, you do. Even if the truck had no defects yesterday, you must do a full pre-trip "
     "before the first move of every shift [S4].", "current"),
    ("pretrip-same-truck", "Yes. You can't skip the pre-trip, even on the same truck [S4].", "current"),
    ("hotel-out-of-hours", "Yes. You don't have to sleep in the cab: book a hotel through the 24-hour travel desk "
     "[S1].", "current"),
    ("hotel-out-of-hours", "No hotels are covered.", "stale"),
    ("mileage-rate", "The rate is $0.72 per mile [S4].", "current"),
    ("mileage-rate", "It used to be 58 cents, but it's 72 cents per mile now [S4].", "surfaced"),
    ("mileage-rate", "The sources do not mention a mileage rate for training trips.", "none"),
    ("collision-first-call", "Call the Safety Line (1-800-555-0147) first; don't call your dispatcher first, the "
     "Safety Line tells them [S2].", "current"),
    ("pm-interval", "Every 15,000 miles or every two months, whichever is first [S1].", "current"),
    ("receipt-threshold", "$25.", "current"),
]


@pytest.mark.parametrize(("qid", "answer", "verdict"), SHAPES, ids=[f"{q}-{n}" for n, (q, _, _) in enumerate(SHAPES)])
def test_judge_reads_other_answer_shapes(qid: str, answer: str, verdict: str) -> None:
    j = judge(answer, TRAP_BY_ID[qid])
    assert j.verdict == verdict, j.to_dict()


# Natural answers the first judge misjudged (strict xfails until issue 24 taught it echoed questions and the
# concessive "even ..." clause); now held like every other shape.
ECHOED_AND_CONCESSIVE = [
    ("van-weekend-move", "Can you take the company van over the weekend to help your brother move? No. Company "
     "vehicles are for company business only [S3].", "current"),
    ("cash-toll", "Can I claim it back? No: tolls paid in cash aren't reimbursed [S1].", "current"),
    ("rental-suv", "No. Even for trips over 300 miles, upgrades to an SUV are not reimbursed; book an intermediate "
     "car or smaller [S3].", "current"),
    ("reverse-alone", "No. You can't reverse without a spotter, even in daylight with a clear yard [S1].", "current"),
    ("idle-on-break", "No. Even below freezing, engines must be shut off after 3 minutes [S2].", "current"),
    # neighbours: an emphatic "even" asserts, and an echoed question does not hide a stale answer after it
    ("idle-on-break", "Yes, you can even idle below freezing for the whole break.", "stale"),
    ("cash-toll", "Can I claim it back? Yes, cash tolls are reimbursed like any other.", "stale"),
]


@pytest.mark.parametrize(("qid", "answer", "verdict"), ECHOED_AND_CONCESSIVE,
                         ids=[f"{q}-{n}" for n, (q, *_) in enumerate(ECHOED_AND_CONCESSIVE)])
def test_judge_reads_echoed_questions_and_concessive_clauses(qid: str, answer: str, verdict: str) -> None:
    assert judge(answer, TRAP_BY_ID[qid]).verdict == verdict
