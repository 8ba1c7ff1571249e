"""The rule-based judge on tricky phrasings, the LLM judge's parsing, agreement, and Wilson intervals."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evidencepack.eval.backends import ScriptedBackend
from evidencepack.eval.datasets import TrapQuestion, load_traps
from evidencepack.eval.judge import LLMJudge, agreement, judge, sentences
from evidencepack.eval.report import fmt_rate, rate, wilson

TRAPS = {t.id: t for t in load_traps()}
PTO = TRAPS["pto-carryover"]
REMOTE = TRAPS["remote-days"]


@pytest.mark.parametrize(("answer", "verdict"), [
    # plain current / stale
    ("No. Unused PTO does not carry over; it is forfeited on December 31 [S5].", "current"),
    ("Yes, you can carry up to 5 days into next year [S2].", "stale"),
    ("Sure, just ask your manager and they will move it into next year.", "stale"),
    # reported speech alone is still handing the reader the stale rule
    ("According to S1, you can carry it over if your manager approves.", "stale"),
    # quoting or negating a stale rule is not asserting it
    ("The old Slack message said 5 days, but that is outdated. Unused PTO is forfeited on December 31 [S5].",
     "surfaced"),
    ("You used to be able to carry over up to 5 days, but since 2025 unused PTO is forfeited.", "surfaced"),
    ("Unused PTO is forfeited at year end [S5]. The 2024 handbook allowed 5 days, but it is superseded [S2].",
     "surfaced"),
    ("PTO no longer carries over: the informal offer of up to a week in Slack [S1] has expired. Unused PTO is "
     "forfeited on Dec 31 [S5].", "surfaced"),
    ("You cannot carry over 5 days anymore; PTO is forfeited.", "current"),
    # a concession whose main clause holds regardless ("even though ..., still ...") rules the stale claim out;
    # "still" before the stale claim asserts it
    ("Even though the Slack message says you can carry up to 5 days, unused PTO is still forfeited on Dec 31 "
     "[S5].", "current"),
    ("Even though it is a new year, you can still carry up to 5 days [S2].", "stale"),
    # both asserted, nothing says which holds; the opening "Yes" is the stale verdict the reader acts on
    ("Yes, you can carry up to 5 days [S2]. Unused PTO is forfeited on Dec 31 [S5].", "stale"),
    ("You can carry up to 5 days [S2]. Unused PTO is forfeited on Dec 31 [S5].", "confused"),
    # both, but the conflict is named
    ("The sources conflict: S2 lets you carry up to 5 days, S5 says unused PTO is forfeited.", "surfaced"),
    # neither
    ("I do not know.", "none"),
    ("The FSA carries over up to $660 into 2027.", "none"),
    ("The Slack thread from 2023 is expired, so it no longer applies; up to a week was only informal.", "none"),
])
def test_pto_verdicts(answer: str, verdict: str) -> None:
    assert judge(answer, PTO).verdict == verdict, judge(answer, PTO).to_dict()


@pytest.mark.parametrize(("answer", "verdict"), [
    ("You may work remotely at most 2 days per week [S3].", "current"),
    ("You can work from home 4 days a week.", "stale"),
    ("Your team lead said 4 days at home is fine, but that was informal and is expired; the 2026 handbook allows "
     "no more than two remote days per week.", "surfaced"),
    ("Up to two days a week from home; the rest of the week on site.", "current"),
])
def test_remote_verdicts(answer: str, verdict: str) -> None:
    assert judge(answer, REMOTE).verdict == verdict, judge(answer, REMOTE).to_dict()


def test_outdated_cue_in_the_next_sentence_marks_the_stale_claim() -> None:
    a = "You could carry over up to 5 days. However, that policy is outdated; unused PTO is now forfeited."
    j = judge(a, PTO)
    assert j.verdict == "surfaced" and all(h.status == "marked" for h in j.stale)


@pytest.mark.parametrize(("answer", "verdict"), [
    # the verdict the reader acts on is the current one; the stale rule only in the reasons after it
    ("No, it does not carry over: you can carry up to a week over if you just ask.", "current"),
    ("No. Unused PTO is forfeited. Up to a week carries over if you ask.", "current"),
    # its neighbours: the stale verdict, no verdict at all, a conflict named
    ("Yes, up to a week carries over if you ask; unused PTO is forfeited.", "stale"),
    ("Unused PTO is forfeited. Up to a week carries over if you just ask.", "confused"),
    ("No. The Slack thread said up to a week carries over, but it has expired: unused PTO is forfeited.", "surfaced"),
])
def test_an_opening_current_verdict_is_what_the_reader_acts_on(answer: str, verdict: str) -> None:
    assert judge(answer, PTO).verdict == verdict, judge(answer, PTO).to_dict()


def test_optional_surfaced_patterns_name_the_conflict() -> None:
    t = TrapQuestion("t", "q?", "2026-06-01", ("a",), current=(r"\bblue\b",), stale=(r"\bred\b",),
                     surfaced=(r"two answers",))
    assert judge("Blue. Red.", t).verdict == "confused"
    assert judge("There are two answers: blue and red.", t).verdict == "surfaced"


def test_sentences_split_lists_and_sentences() -> None:
    assert sentences("One. Two!\n- three\n\n4 four") == ["One.", "Two!", "- three", "4 four"]


def test_llm_judge_parses_one_word_and_agreement() -> None:
    replies = iter(["Stale.", "surfaced", "I think it is unclear"])
    j = LLMJudge(ScriptedBackend(rule=lambda m: next(replies)))
    assert [j("x", PTO), j("y", PTO), j("z", PTO)] == ["stale", "surfaced", None]
    a = agreement([("stale", "stale"), ("current", "current"), ("surfaced", "confused"), ("none", None)])
    assert (a["n"], a["agree"], a["unparsed"]) == (3, 2, 1)
    assert a["rate"] == pytest.approx(2 / 3)
    assert a["kappa"] == pytest.approx(4 / 7)  # p_o = 2/3, p_e = 2/9
    assert agreement([])["rate"] is None


@pytest.mark.parametrize(("k", "n", "lo", "hi"), [
    (0, 10, 0.0, 0.27753), (10, 10, 0.72247, 1.0), (7, 25, 0.14284, 0.47577), (1, 2, 0.09453, 0.90547),
    (13, 25, 0.33499, 0.69969),
])
def test_wilson_interval(k: int, n: int, lo: float, hi: float) -> None:
    got = wilson(k, n)
    assert got[0] == pytest.approx(lo, abs=1e-4) and got[1] == pytest.approx(hi, abs=1e-4)


def test_rate_formatting() -> None:
    assert fmt_rate(rate(7, 25)) == "7/25 = 28 % [14, 48]"
    assert fmt_rate(rate(0, 0)) == "n/a" and wilson(0, 0) == (0.0, 1.0)


def test_flags_stale_is_counted_apart_from_the_verdict() -> None:
    a = "Yes, you can use your personal laptop with GlobalProtect. S1 is informal and EXPIRED since 2024-01-01."
    j = judge(a, TRAPS["byod-laptop"])
    assert j.verdict == "stale" and j.flags_stale  # repeating the notice does not unassert the stale rule
    assert not judge("Unused PTO is forfeited on December 31 [S5].", PTO).flags_stale


# Real answers from the audited run (Qwen2.5-Coder 1.5B, docs/evaluation.md) whose first verdicts were wrong.
AUDITED = [
    ("pto-carryover", "Yes, you can carry your unused PTO over into next year.", "stale"),
    # the yes-bias shape of issue 24: the opening "Yes" is what the reader acts on, the quote after it does not
    # undo it (judged confused until the trap was marked yes/no)
    ("pto-carryover", "Yes, you can carry your unused PTO over into next year. According to the Employee Handbook "
     "2025, effective January 1, 2025, unused PTO does not carry over into the next calendar year. Any balance left "
     "on December 31 is forfeited and is not paid out.", "stale"),
    ("home-office-stipend", "You can get reimbursed for setting up your home office by submitting the receipts in "
     "Concur under the 'Home office' category and your manager will approve them.", "stale"),
    ("overtime-approval", "Yes, you can stay late and work overtime and just get it approved afterwards.", "stale"),
    ("overtime-approval", "The answer is yes, you can stay late and work overtime and just get it approved "
     "afterwards. This is supported by both S1 (authoritative and current) and S2 (informal and current).", "stale"),
    ("holiday-count", "10", "stale"),
    ("shift-swap", "No, you cannot swap a shift with a coworker without telling your supervisor.", "current"),
    ("fsa-rollover", "Yes, unused money in your health FSA rolls over to the next year.", "current"),
    ("fsa-rollover", "Based on the information provided in the sources, unused money in a health FSA does not roll "
     "over to the next year. The FlexPoint Health FSA plan uses a grace period instead of a carryover, so expenses "
     "incurred through March 15, 2026 can be paid from your 2025 balance.\n\nThe CommuteWise commuter benefit also "
     "has a grace period, but it allows for pre-tax contributions and unused funds to carry over into the next "
     "year. However, this is not applicable to the FlexPoint Health FSA plan.", "stale"),
]


@pytest.mark.parametrize(("qid", "answer", "verdict"), AUDITED)
def test_audited_real_answers(qid: str, answer: str, verdict: str) -> None:
    assert judge(answer, TRAPS[qid]).verdict == verdict


# Issue 12, item 7: an outdated-cue must qualify the stale claim or its source. A past tense elsewhere (quoted
# record text, a subordinate clause) marks nothing. The trap is made up, shaped like the unseen set's.
BADGE = TrapQuestion("badge", "What do I do if I lose my badge?", "2026-06-01", ("a",),
                     current=(r"security (?:desk )?within (?:1|one) hour",), stale=(r"email (?:your|the) manager",
                                                                              r"within 24 hours"))


@pytest.mark.parametrize(("answer", "verdict"), [
    # the shape: the stale rule, then "This …" quoting the record, whose text has a past tense
    ("If you lose your badge, you should email your manager within 24 hours. This is based on the Slack message "
     "from S2, which states: 'If your badge was lost, just email me and I will sort it out.'", "stale"),
    ("You should email your manager within 24 hours. This is what S2 says: \"When a badge was lost, we emailed "
     "the manager.\"", "stale"),
    ("You should email your manager within 24 hours. That was posted by the site lead in S2.", "stale"),
    ("If your badge was lost or stolen, email your manager within 24 hours.", "stale"),
    ("Email your manager within 24 hours; the post reads \"old badges were replaced last year\".", "stale"),
    # the same, with the current rule beside it: both stated, nothing qualifies the stale one
    ("Report it to the security desk within 1 hour [S1]. You should also email your manager within 24 hours. "
     "This is based on S2, which states: 'If your badge was lost, email me.'", "confused"),
    # real qualifications still count, in the sentence or at the start of the next one
    ("You should email your manager within 24 hours. This was the old rule; now report it to the security desk "
     "within 1 hour [S1].", "surfaced"),
    ("Report it to the security desk within 1 hour [S1]. Emailing your manager within 24 hours came from an "
     "informal Slack post [S2].", "surfaced"),
    ("You were allowed to email your manager within 24 hours, but now you must report it to the security desk "
     "within 1 hour [S1].", "surfaced"),
    ("Report it to the security desk within 1 hour [S1]. You can email your manager within 24 hours. However, "
     "that message is expired.", "surfaced"),
    ("Email your manager within 24 hours [S2]. However, S2 is informal and expired.", "none"),
    # a next sentence that vouches for the claim does not qualify it, whatever it calls its sources (a real
    # 1.5B answer of 2026-12-01, shape kept)
    ("Yes, email your manager within 24 hours. This is supported by both S1 (authoritative and current) and S2 "
     "(informal and current).", "stale"),
    ("Email your manager within 24 hours. This is also stated in S2, an informal post.", "stale"),
    ("Email your manager within 24 hours. This is an informal rule from S2.", "none"),
])
def test_outdated_cues_must_qualify_the_claim(answer: str, verdict: str) -> None:
    j = judge(answer, BADGE)
    assert j.verdict == verdict, j.to_dict()


@pytest.mark.parametrize(("answer", "named"), [
    ("Answer: Report it to the security desk within 1 hour [S1].\nConflicts: none", False),
    ("Answer: Report it to the security desk within 1 hour [S1].\nConflicts: None.", False),
    ("There is no conflict between the sources. Report it within 1 hour to the security desk.", False),
    ("The sources do not contradict each other.", False),
    ("Answer: Report it to the security desk within 1 hour [S1].\nConflicts: S1 and S2 disagree; S1 is current.",
     True),
    ("S2 conflicts with S1: report it to the security desk within 1 hour [S1].", True),
    # `conflict_form`'s label, copied with its topic, names nothing; filled in, the content is judged as text
    ("Answer: Report it to the security desk within 1 hour [S1].\nConflict on badge-loss: none", False),
    ("Answer: Report it to the security desk within 1 hour [S1].\nConflict on badge-loss: [S2] (informal) says "
     "<what it says>, but [S1] (authoritative, current) holds.", False),
    ("Answer: Report it to the security desk within 1 hour [S1].\nConflict on badge-loss: S2 contradicts S1.",
     True),
])
def test_a_scaffold_label_or_a_negated_conflict_word_names_no_conflict(answer: str, named: bool) -> None:
    assert judge(answer, BADGE).conflict_named is named


@pytest.mark.parametrize(("answer", "refused"), [
    ("I do not know.", True),
    ("I don't know.", True),
    ("The sources do not say what to do about a lost badge.", True),
    ("I do not know the exact form, but report it to the security desk within 1 hour [S1].", False),
    ("Report it to the security desk within 1 hour [S1].", False),
    ("Email your manager within 24 hours.", False),  # a stale answer is a stale answer, not a refusal
])
def test_refusal_is_a_neither_answer_that_declines(answer: str, refused: bool) -> None:
    assert judge(answer, BADGE).refused is refused


@pytest.mark.parametrize(("qid", "answer", "verdict"), [
    # the scaffold's "Answer:" label is not part of the answer (real 0.5B answers, issue 12 runs)
    ("remote-days", "Answer: 2 days\nConflicts: [S1]", "current"),
    ("parental-leave", "Answer: 8 weeks\nConflicts: [S1]", "stale"),
    ("shift-swap", "Answer: No, not without the shift supervisor's approval [S1].\nConflicts: none", "current"),
    ("shift-swap", "Answer: No, not without the shift supervisor's approval [S1].\nConflict on shift-swap: none",
     "current"),    # a line's lead-in is read past too (held-out 1.5B answers: "The answer is: Yes, it is OK to let …")
    ("shift-swap", "The answer is: No, not without the shift supervisor's approval [S1].", "current"),
    ("shift-swap", "The short answer is yes, you two can trade it.", "stale"),
    ("shift-swap", "Note: the answer is yes, between yourselves.", "stale"),  # the stale phrase, not the lead-in
    # "is" mid-line is no lead-in: the verdict is the opening "Yes", the stale one for this yes/no question
    ("shift-swap", "Yes, the answer is in the scheduling app.", "stale"),
    # `check_form`: the verdict the reader acts on is the Answer line, however the check above it is laid out
    ("shift-swap", "Rule: [S1] says swaps need the shift supervisor's approval.\nCheck:\n- approval: not given\n"
     "Answer: No, not without the shift supervisor's approval [S1].", "current"),
    ("shift-swap", "Rule: [S1] says swaps need the shift supervisor's approval.\nCheck:\n- approval: given\n\n"
     "Answer: Yes.", "stale"),
    # a form's Answer line that grants or denies the asked action with a modal, no "Yes"/"No" (real 0.5B answers
    # under the default: "Answer: Gary can go down on his own."): that is the verdict
    ("shift-swap", "Rule: [S1]\nAnswer: You can swap shifts with a coworker yourselves.", "stale"),
    ("shift-swap", "Rule: [S1]\nAnswer: Tom and I can swap the shift.", "stale"),
    ("shift-swap", "Rule: [S1]\nAnswer: You cannot swap shifts without approval.", "current"),
    # ... and its neighbours, read as before: no Answer label, a restriction ("only"), another action, a condition
    ("shift-swap", "You can swap shifts with a coworker yourselves.", "none"),
    ("shift-swap", "Rule: [S1]\nAnswer: You can swap shifts only with the approval of the shift supervisor.", "none"),
    ("shift-swap", "Rule: [S1]\nAnswer: You can ask HR for the form.", "none"),
    ("shift-swap", "Rule: [S1]\nAnswer: If your supervisor approves, you can swap shifts.", "current"),
])
def test_answer_form_labels_are_read_past(qid: str, answer: str, verdict: str) -> None:
    j = judge(answer, TRAPS[qid])
    assert j.verdict == verdict and not j.conflict_named, j.to_dict()


def test_a_per_diem_without_the_dollar_sign_is_still_the_amount() -> None:
    # a real 0.5B answer (structured+compact+reminder+scaffold), first judged `none`
    assert judge("Answer: 68 per full travel day\nConflicts: [S1]", TRAPS["per-diem"]).verdict == "current"
    assert judge("55 per full travel day", TRAPS["per-diem"]).verdict == "stale"


@pytest.mark.parametrize(("answer", "verdict"), [
    # the form filled in as asked: the stale rule in the weak handle's slot, marked by its metadata
    ("Answer: Report it to the security desk within 1 hour [S1].\nConflict on badge-loss: [S2] (informal, EXPIRED "
     "since 2025-01-01) says email your manager within 24 hours, but [S1] (authoritative, current) holds.",
     "surfaced"),
    # the rules swapped between the lines: the stale rule is the answer, nothing marks it
    ("Answer: Email your manager within 24 hours [S2].\nConflict on badge-loss: [S2] (informal) says report it to "
     "the security desk within 1 hour, but [S1] (authoritative, current) holds.", "confused"),
    # the slot filled over two sentences: the whole conflict line is the model's account of the marked source
    ("Answer: Report it to the security desk within 1 hour [S1].\nConflict on badge-loss: [S2] (informal, EXPIRED "
     "since 2025-01-01) says lost badges are no big deal. Just email your manager within 24 hours.", "surfaced"),
    # a conflict line that marks nothing does not excuse a stale rule on it
    ("Answer: Report it to the security desk within 1 hour [S1].\nConflicts: none. Email your manager within 24 "
     "hours.", "confused"),
    # and the line's mark reaches no other line
    ("Answer: Report it to the security desk within 1 hour [S1]. Or email your manager within 24 hours.\n"
     "Conflict on badge-loss: [S2] (informal) says so.", "confused"),
    # the slot left unfilled: the answer alone counts
    ("Answer: Report it to the security desk within 1 hour [S1].\nConflict on badge-loss: [S2] (informal) says "
     "<what it says>, but [S1] (authoritative, current) holds.", "current"),
])
def test_conflict_form_answers(answer: str, verdict: str) -> None:
    j = judge(answer, BADGE)
    assert j.verdict == verdict, j.to_dict()


@given(st.lists(st.sampled_from(list("aB .!?\n:\t\r") + ["Conflicts:", "Conflict on x-y:", "S2", "\n\n", "\u2028"]),
                max_size=40).map("".join))
def test_every_sentence_gets_its_line(text: str) -> None:
    from evidencepack.eval.judge import _conflict_lines

    assert len(_conflict_lines(text)) == len(sentences(text))


@pytest.mark.parametrize(("answer", "verdict"), [
    # any "n't" negates a stale claim after it, curly apostrophe too
    ("No, you shouldn't carry 5 days over; unused PTO is forfeited on December 31 [S5].", "current"),
    ("No, you mustn\u2019t carry 5 days over: unused PTO is forfeited [S5].", "current"),
    ("It wasn't ever possible to carry 5 days over for long: PTO is forfeited at year end [S5].", "current"),
    # a negated verdict right after the stale claim, in its clause, rules it out
    ("Carrying up to 5 days is not allowed any more: unused PTO is forfeited [S5].", "current"),
    ("Asking your manager doesn't make it OK: unused PTO is forfeited on December 31 [S5].", "current"),
    # neighbours: a positive verdict after it, or a negation in the next clause about something else, asserts it
    ("Carrying up to 5 days is allowed if your manager agrees [S2].", "stale"),
    ("You can carry up to 5 days, and it doesn't need a form [S2].", "stale"),
])
def test_negations_written_as_contractions_or_after_the_claim(answer: str, verdict: str) -> None:
    assert judge(answer, PTO).verdict == verdict, judge(answer, PTO).to_dict()
