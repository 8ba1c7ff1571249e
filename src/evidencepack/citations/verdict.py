"""`verdict_against_rule`: an answer that opens "Yes" while the rule that decides the question restricts it.

Small models answer a yes/no question with the question's own "Yes" and then quote the current rule that says
no ("Yes, you can rent an SUV. [S3] states that upgrades to SUVs are not reimbursed"); most of those answers
carry no stale value and cite the current source, so no other check sees them. The assembler knows which record
decides: the current authoritative member of each conflict group it reported. This check reads, among those
records, the sentence closest to the question (`words.closest_sentence`, the sentence `Layout.show_rule` would
show) and flags an answer whose opening verdict is "Yes" when that sentence restricts: "must not", "may not",
"never", "not" before a participle ("not reimbursed", "not permitted"), "prohibited", "forbidden", "banned",
"no longer", "only". A warning by default: the first answer reaches the reader with a note, no second call.

Measured against answers read by hand (docs/evaluation.md, "After the answer: a Yes against the rule"): it
flags about half of the "Yes" answers read as stale and almost none read as right; an answer that opens "No"
against a permissive rule is not checked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..passes.scan import sentence_spans
from ..render.guidance import LEAD_LINE
from ..words import closest_sentence
from .model import Finding, Sentence, shorten
from .severities import Severities
from .source import SourceIndex

#: What a sentence restricts with (see the module docstring).
RESTRICTS = re.compile(r"\b(?:must not|may not|must never|never|not (?:be )?[a-z]+(?:ed|en)|prohibited|forbidden|"
                       r"banned|no longer|only)\b", re.IGNORECASE)
# An answer form's "Rule: ..." or "Quote: ..." line (`LEAD_LINE`) comes before the verdict; an "Answer:" label is
# read past.
_YES = re.compile(r"[\s*_#>\"']*(?:answer[ \t*_]*:[\s*_]*)?(yes)\b", re.IGNORECASE)


def deciding_rule(index: SourceIndex) -> tuple[str, str] | None:
    """(handle, sentence): the sentence of a conflict group's current authoritative source closest to the
    question, as the model saw it; None without a question, a conflict group or a readable source."""
    question = index.question
    deciders = list(dict.fromkeys(h for c in index.conflicts for h in c.current if h in index.passages))
    if not question or not deciders:
        return None

    def candidate(handle: str) -> tuple[str, list[str], str]:
        text = index.passages[handle].split("\n", 1)[-1]
        source = index.sources[handle]
        return handle, [text[a:b] for a, b in sentence_spans(text)], " ".join(
            t for t in (source.doc, source.section) if t)

    return closest_sentence(question, (candidate(h) for h in deciders))


def opens_with_yes(text: str) -> re.Match[str] | None:
    """The opening "Yes" of an answer (after an answer form's rule line and an "Answer:" label), else None."""
    form = LEAD_LINE.match(text)
    return _YES.match(text, form.end() if form else 0)


def verdict_findings(text: str, sentences: Sequence[Sentence], index: SourceIndex, levels: Severities
                     ) -> Sequence[Finding]:
    """The `verdict_against_rule` finding of an answer, if any (none when the kind is off)."""
    level = levels.verdict_against_rule
    if level == "off":
        return ()
    yes = opens_with_yes(text)
    if yes is None:
        return ()
    found = deciding_rule(index)
    if found is None or not RESTRICTS.search(found[1]):
        return ()
    handle, rule = found
    at = next((s.index for s in sentences if s.start <= yes.start(1) < s.end), 0)
    return (Finding("verdict_against_rule", level,
                    f"sentence {at + 1} opens with \"Yes\", but the sentence of [{handle}] (current, authoritative) "
                    f"closest to the question restricts: \"{shorten(' '.join(rule.split()), 100)}\"",
                    at, yes.start(1), yes.end(1), sources=(handle,)),)
