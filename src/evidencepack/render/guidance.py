"""Prompt variants for models that do not follow the system instructions on their own.

Small models read the end of a prompt most closely and copy a shape far more readily than they follow a rule.
Each variant here is one named assembly option, off by default, so a deployment (or the eval harness) can
switch it on and measure it; nothing in the wording names a model, a corpus or a question:

- `reminder`: a short restatement of the instructions after the question, the last thing the model reads.
- `scaffold`: an answer form to fill in: the answer with handles, then a line naming any conflict.
- `rule_first`: one line after the question asking for the current authoritative source's rule, with its
  handle, before any verdict: small models answering a yes/no question otherwise open with "Yes" (the
  question's own framing) and quote the rule that says no after it.
- `rule_form`: the same as an answer form ("Rule: ...", then "Answer: ..."), for models that copy a shape
  more readily than they follow a sentence.
- `quote_form`: the rule copied word for word ("Quote: ...", then "Answer: ..."): small models given
  `rule_form` often wrote only a handle on the rule line ("Rule: [S3]") and then the question's own "Yes";
  copying a sentence is what they do most readily, and the verdict then follows a sentence they have written.
- `exception_form`: the rule form with a line between the rule and the answer on what the rule says about the
  particular situation in the question: the 1.5B model's answers under `rule_form` that went against the rule it
  had just written followed a detail of the question (a parent in the water, a shift off the schedule) instead.
  On a set written after it, the 1.5B tied `rule_form` (it mended those answers and invented exceptions in
  others) and the 0.5B lost 3 of 20, so it is opt-in.
- `rule_or_none`: the rule form whose rule line offers "none" when no source says what is asked, and whose answer
  line then says the sources do not answer it: under every layout measured, neither small model said it did not
  know when no record answered (it carried over a neighbouring figure instead). Measured: the 1.5B abstained on 7
  of 35 unanswerable questions (2 under `rule_form`) and refused 4 of 44 answerable ones; the 0.5B wrote "none" to
  most questions, answerable or not, so it is opt-in.
- `check_form`: the rule form with a line between the rule and the answer that checks the question's situation
  against each condition the rule sets: the 1.5B model's stale answers under `rule_form` wrote the current rule and
  then gave the other verdict, on a threshold the question states (30 hours against "more than 24") or on a
  circumstance the rule does not name; the check asks for the comparison before the verdict, not for exceptions
  (`exception_form`) or a general statement of how rules apply (`stated_exceptions`). Measured: it mended 6 of
  those 8 answers and turned 11 right "No"s into "Yes" (the check finds the situation "meets" the rule), and on a set
  written after it the 1.5B gave 8 stale answers against 5, so it is opt-in.
- `stated_exceptions`: one sentence after the question, in every format: the rule applies as written, and a
  circumstance in the question changes the answer only if the source names it as an exception. The 1.5B model's
  stale answers under `rule_form` mostly followed such a circumstance (who was present, how long it had been) over
  the rule it had just written; unlike `exception_form` it asks for no line the model must fill. On a set written
  after it, it lost: the 1.5B read it as "the answer is no" (6 of 8 "yes" questions answered "No" under `small`,
  3 stale against 1 under `rule_form`) and the 0.5B echoed it in place of an answer, so it is opt-in.
- `action_form`: the rule form whose answer line asks what the person asking should do, as the rule decides it,
  instead of "the answer to the question": the 1.5B model's stale answers under `rule_form` mostly wrote the
  current rule and then "Answer: Yes, you can <the question's own action>", echoing the question's framing.
- `example`: worked examples appended to the system prompt, on made-up content unrelated to any question: in the
  answer form's shape when the form has its own (`rule_form`: a "No" whose question hopes for a "Yes", then a
  "Yes"), else one cited, conflict-naming answer (a library's opening hours). Both small models copy them: with
  the rule form the 1.5B answered 39 of 64 blind questions right against 57 without, and 8 of its 64 answers
  (19 of the 0.5B's) talk about the made-up sailing club, so it is opt-in.

The texts are templates over the handle prefix only, so they cost the same for every request and are counted
with the question (reminder, scaffold) or the system prompt (example).
"""

from __future__ import annotations

from dataclasses import dataclass
from string import Template

REMINDER = Template(
    "Reminder: answer from the sources that are current and authoritative, and put the handle of each source "
    "you use, such as [${prefix}1], after the claim it supports. If sources disagree, say which handles "
    "disagree and which one is current. Say you do not know only if no current source answers the question.")

SCAFFOLD = Template(
    "Reply in this form:\n"
    "Answer: <the answer, with a handle such as [${prefix}1] after each claim>\n"
    "Conflicts: <which handles disagree and which one is current and authoritative, or \"none\">")

RULE_FIRST = Template(
    "Begin your answer with what the current, authoritative source says on this, with its handle, such as "
    "[${prefix}1]; then answer the question as that source decides it.")

RULE_FORM = Template(
    "Reply in this form:\n"
    "Rule: <what the current, authoritative source says on this, with its handle, such as [${prefix}1]>\n"
    "Answer: <the answer to the question, as that rule decides it>")

QUOTE_FORM = Template(
    "Reply in this form:\n"
    "Quote: <the sentence of the current, authoritative source that decides this, copied word for word, then "
    "its handle, such as [${prefix}1]>\n"
    "Answer: <the answer to the question, as that sentence decides it>")

RULE_OR_NONE = Template(
    "Reply in this form:\n"
    "Rule: <what the current, authoritative source says on exactly what is asked, with its handle, such as "
    "[${prefix}1]; or \"none\" if no source says it>\n"
    "Answer: <the answer to the question, as that rule decides it; if the rule is \"none\", say the sources do "
    "not answer it>")

CHECK_FORM = Template(
    "Reply in this form:\n"
    "Rule: <what the current, authoritative source says on this, with its handle, such as [${prefix}1]>\n"
    "Check: <each condition that rule sets, and whether the situation in the question meets it>\n"
    "Answer: <the answer to the question, as that check decides it>")

ACTION_FORM = Template(
    "Reply in this form:\n"
    "Rule: <what the current, authoritative source says on this, with its handle, such as [${prefix}1]>\n"
    "Answer: <what the person asking should do, as that rule decides it>")

STATED_EXCEPTIONS = ("Answer as the rule is written: a circumstance in the question changes the answer only if the "
                     "source itself names it as an exception.")

EXCEPTION_FORM = Template(
    "Reply in this form:\n"
    "Rule: <what the current, authoritative source says on this, with its handle, such as [${prefix}1]>\n"
    "Exception: <what that rule says about the particular situation in the question, or \"none\">\n"
    "Answer: <the answer to the question, as that rule decides it for that situation>")


#: The general worked example (the `example` option with a form that has no examples of its own): one cited,
#: conflict-naming answer; the scaffold's own example is the same answer in the scaffold's shape.
_EXAMPLE_TEXT = (
    "Example of the expected kind of answer (made-up sources, unrelated to the user's question):\n"
    "Sources: [${prefix}1] (a chat post, informal, EXPIRED) \"The library stays open until 10 pm on Fridays.\" "
    "[${prefix}2] (the library's rules, authoritative, current) \"The library closes at 8 pm every day.\"\n"
    "Question: When does the library close on Fridays?\n"
    "Answer: The library closes at 8 pm [${prefix}2].${conflict_break}The sources disagree: ${prefix}1 says "
    "10 pm, but it is an informal post that has expired; ${prefix}2 is current and authoritative.")
EXAMPLE = Template(Template(_EXAMPLE_TEXT).safe_substitute(conflict_break=" "))
SCAFFOLD_EXAMPLE = Template(Template(_EXAMPLE_TEXT).safe_substitute(conflict_break="\nConflicts: "))


#: The rule form's worked examples (the `example` option with `rule_form`): one "No" whose question hopes for a
#: "Yes" on a circumstance the rule does not allow, and one "Yes", each written in the form, on made-up content.
#: Small models answering in the rule form wrote the current rule and then the question's own "Yes"; the examples
#: show a verdict taken from the rule rather than from the question's framing, both ways.
RULE_FORM_EXAMPLES = Template(
    "Two examples of the expected kind of answer (made-up sources, unrelated to the user's question):\n"
    "Sources: [${prefix}1] (the sailing club's rules, authoritative, current) \"Dinghies go out only when the "
    "safety boat is on the water.\"\n"
    "Question: The safety boat is ashore for a repair, but the wind is light and I have sailed for years. Can I "
    "take a dinghy out for an hour?\n"
    "Rule: Dinghies go out only when the safety boat is on the water [${prefix}1].\n"
    "Answer: No. The safety boat is ashore, so no dinghy goes out, however light the wind or experienced the "
    "sailor [${prefix}1].\n"
    "Sources: [${prefix}1] (the sailing club's rules, authoritative, current) \"Members may borrow a club "
    "wetsuit for any session; it is returned rinsed the same day.\"\n"
    "Question: I only joined last week. Am I allowed to borrow one of the club wetsuits for Saturday's session?\n"
    "Rule: Members may borrow a club wetsuit for any session and return it rinsed the same day [${prefix}1].\n"
    "Answer: Yes. You are a member, so you may borrow one for Saturday; return it rinsed the same day "
    "[${prefix}1].")


@dataclass(frozen=True)
class AnswerForm:
    """One answer form: its command-line flag and help, its text after the question (None: rendered
    elsewhere, as `conflict_form` is, from the conflict groups), the labels of the lines it asks for before the
    verdict ("Rule" for "Rule: ...", none when the answer comes first), and its worked examples for the `example`
    option (None: the general example, whose answer does not take the form's shape)."""

    flag: str
    help: str
    template: Template | None
    leads: tuple[str, ...] = ()
    example: Template | None = None


#: Every answer form (`Layout.answer_form`), in the order the settings list them. A new form is one entry here
#: (its option value, flag, settings key, eval variant and text all follow) plus one test.
ANSWER_FORMS: dict[str, AnswerForm] = {
    "scaffold": AnswerForm("--scaffold", "ask for an answer form: the answer with handles, then a line naming "
                           "conflicts", SCAFFOLD, example=SCAFFOLD_EXAMPLE),
    "conflict_form": AnswerForm("--conflict-form", "put the conflict groups in an answer form after the question "
                                "(instead of the notice above the sources)", None),
    "rule_form": AnswerForm("--rule-form", "ask for an answer form: the current authoritative source's rule with "
                            "its handle, then the answer as that rule decides it", RULE_FORM, leads=("Rule",),
                            example=RULE_FORM_EXAMPLES),
    "quote_form": AnswerForm("--quote-form", "ask for an answer form: the current authoritative source's deciding "
                             "sentence copied word for word with its handle, then the answer as it decides it",
                             QUOTE_FORM, leads=("Quote",)),
    "exception_form": AnswerForm("--exception-form", "ask for an answer form: the current authoritative source's "
                                 "rule with its handle, what it says about the particular situation in the question, "
                                 "then the answer as the rule decides it for that situation", EXCEPTION_FORM,
                                 leads=("Rule", "Exception")),
    "rule_or_none": AnswerForm("--rule-or-none", "ask for an answer form: the current authoritative source's rule "
                               "with its handle, or \"none\" when no source says it, then the answer as that rule "
                               "decides it (the sources do not answer it, for \"none\")", RULE_OR_NONE,
                               leads=("Rule",)),
    "check_form": AnswerForm("--check-form", "ask for an answer form: the current authoritative source's rule with "
                             "its handle, each condition it sets checked against the question's situation, then the "
                             "answer as that check decides it", CHECK_FORM, leads=("Rule", "Check")),
    "action_form": AnswerForm("--action-form", "ask for an answer form: the current authoritative source's rule "
                              "with its handle, then what the person asking should do as that rule decides it",
                              ACTION_FORM, leads=("Rule",)),
}

def after_question(prefix: str, *, reminder: bool, answer_form: str | None, rule_first: bool = False,
                   stated_exceptions: bool = False) -> str:
    """The text that follows the question (empty when every variant is off), with its leading break; an answer
    form comes last, so it is what the model reads just before it answers."""
    form = ANSWER_FORMS[answer_form].template if answer_form is not None else None
    parts = [t.substitute(prefix=prefix) for t, on in ((REMINDER, reminder), (RULE_FIRST, rule_first)) if on]
    parts += [STATED_EXCEPTIONS] if stated_exceptions else []
    parts += [form.substitute(prefix=prefix)] if form is not None else []
    return "".join("\n\n" + p for p in parts)


def example(prefix: str, answer_form: str | None = None) -> str:
    """The worked examples, with their leading break, for the end of the system prompt: the answer form's own when
    it has them (so the example never shows the model another shape than the form asks for), else the general one."""
    own = ANSWER_FORMS[answer_form].example if answer_form is not None else None
    return "\n\n" + (own or EXAMPLE).substitute(prefix=prefix)
