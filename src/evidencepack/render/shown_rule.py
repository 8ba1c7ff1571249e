"""The shown rule (`Layout.show_rule`): after the question, the sentence of a decided conflict group's current
authoritative record that shares most words with the question, quoted with its handle.

Small models answering a yes/no question open with the question's own "Yes" and quote the rule that says no
after it, even when only the current record is in front of them; asked to find and state the rule themselves
(`rule_form`, `quote_form`), they wrote a bare handle or a sentence of their own. Here the assembler does the
finding: the metadata has decided which record holds, and the sentence comes from that record, so the last thing
the model reads before it answers is the rule, not only the question.

The sentence leaves its block, so it is shown only when nothing in that record had to be defused: the scan did
not flag it, and neutralising changed nothing (no boundary code, handle or frame label to escape, no marking).
Nothing is shown when no decided group's current record shares a content word with the question.
"""

from __future__ import annotations

from collections.abc import Sequence
from string import Template

from ..passes.conflicts import Conflict
from ..passes.scan import sentence_spans
from ..records.candidates import Candidate
from ..words import closest_sentence
from . import Prepared, is_flagged

SHOWN = Template('From the current, authoritative source [${handle}]: "${sentence}"')
#: The flat layout has no handles and no metadata; the withholding behind it is what decided.
FLAT_SHOWN = Template('From the current source: "${sentence}"')


def deciding_sentence(question: str, conflicts: Sequence[Conflict], handles: Sequence[str],
                      seated: Sequence[Candidate], prepared: Sequence[Prepared]) -> tuple[str, str] | None:
    """(handle, sentence): among the current authoritative records of the conflict groups that may be quoted,
    the sentence closest to the question (`words.closest_sentence`); None when none shares a word."""
    deciders = {h for c in conflicts for h in c.current}
    return closest_sentence(question, (
        (handle, [prep.body[a:b] for a, b in sentence_spans(prep.body)],
         " ".join(t for t in (cand.record.doc, cand.record.section, cand.record.topic) if t))
        for handle, cand, prep in zip(handles, seated, prepared) if handle in deciders and _quotable(cand, prep)))


def shown_rule(question: str, conflicts: Sequence[Conflict], handles: Sequence[str], seated: Sequence[Candidate],
               prepared: Sequence[Prepared], *, blocks: bool) -> str:
    """The line after the question, with its leading break ("" when there is nothing to show)."""
    found = deciding_sentence(question, conflicts, handles, seated, prepared)
    if found is None:
        return ""
    handle, sentence = found
    line = SHOWN.substitute(handle=handle, sentence=sentence) if blocks else FLAT_SHOWN.substitute(sentence=sentence)
    return "\n\n" + line


def _quotable(cand: Candidate, prep: Prepared) -> bool:
    """May text of this record stand outside its block? Only if the scan reads no instruction in it and
    neutralising had nothing to change."""
    return not is_flagged(cand) and not any(prep.neutralised.values())
