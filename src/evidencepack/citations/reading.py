"""How an answer written in an answer form is read: its lead lines ("Rule: ..."), its answer label, the first
sentence of its verdict, and a verdict given by a modal ("Answer: Gary can go down on his own.").

The judge (`eval.judge`), the validator's `verdict_against_rule` check and the injection check all read an answer
here, so the three never read one answer two ways. The lead lines follow the forms in `render.guidance`: a new form's
labels are read with no change here.
"""

from __future__ import annotations

import re

from ..render.guidance import ANSWER_FORMS
from ..words import content_words

#: An answer's opening lines that an answer form asked for before the verdict ("Rule: ...", "Quote: ...", in
#: markdown or not), each up to the end of its line or an "Answer:" label on it: the judge and the
#: `verdict_against_rule` check read the verdict after them.
_LEADS = "|".join(sorted({lead for f in ANSWER_FORMS.values() for lead in f.leads}))
LEAD_LINE = re.compile(rf"\A(?:\s*[*_#]*(?:{_LEADS})[ \t*_]*:(?:(?![ \t*_]*answer[ \t*_]*:)[^\n])*\n?)+",
                       re.IGNORECASE)
#: The label of a form's answer line, and the lead-ins models write in its place ("The short answer is no, ...").
ANSWER_LABEL = re.compile(r"[ \t*_#]*(?:answer[ \t*_]*:|(?:the|my) (?:(?:short|simple|correct|final) )?answer "
                          r"is\b[ \t*_]*:?)[ \t*_]*", re.IGNORECASE)
#: An opening "yes" or "no" (group 1); "No one may ...", "No longer ..." open with a word, not a verdict.
OPENING_VERDICT = re.compile(r"\W*(yes|no)\b(?!\s+(?:one|longer|more|matter|need|other|such|later|less|sooner)\b)",
                             re.IGNORECASE)


#: A line that opens with an answer form's "Answer:" label.
ANSWER_LINE = re.compile(r"^[ \t*_#]*answer[ \t*_]*:[ \t*_]*", re.IGNORECASE | re.MULTILINE)


def verdict_start(answer: str) -> int:
    """Where an answer's verdict starts: after an answer form's lead lines and an answer label. When a lead line's
    content runs over several lines (a check written as a list) or a blank line follows it, the verdict is on the
    form's "Answer:" line further down."""
    lead = LEAD_LINE.match(answer)
    at = lead.end() if lead else 0
    label = ANSWER_LABEL.match(answer, at)
    if label:
        return label.end()
    later = ANSWER_LINE.search(answer, at) if lead else None
    return later.end() if later else at


#: Where one sentence (or list item) of an answer ends and the next begins, for the verdict: the judge and the verdict
#: check split answers the same way, so the two never read a different first sentence. Coarser than `sentences`
#: (no abbreviations, a citation after a full stop starts the next piece); every published verdict was judged with
#: this split, so moving the judge to `sentences` would be a judge change, re-judged and published as one.
SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[\"“(\[]?[A-Z0-9*\-•])|\n+")


def verdict_sentence(answer: str) -> tuple[int, str]:
    """(where it starts, the sentence) of the verdict's first sentence, stripped: the first after `verdict_start`
    that does not ask a question (an echo of the user's asserts nothing); (len(answer), "") when there is none."""
    start = verdict_start(answer)
    rest, at = answer[start:], 0
    for brk in [*SENTENCE_BREAK.finditer(rest), None]:
        end = brk.start() if brk is not None else len(rest)
        piece = rest[at:end]
        sentence = piece.strip()
        if sentence and not sentence.endswith("?"):
            return start + at + len(piece) - len(piece.lstrip()), sentence
        at = brk.end() if brk is not None else end
    return len(answer), ""


#: An answer form's "Answer:" label right before the verdict (`verdict_start` stopped after it).
_ANSWER_LABEL_ENDS = re.compile(r"answer[ \t*_]*:[ \t*_]*\Z", re.IGNORECASE)
#: A modal that denies or grants the action after it; the denials are read first, so "cannot" is never a "can".
MODAL_DENIES = re.compile(r"\b(?:cannot|can ?not|can[’']t|may not|must not|mustn[’']t|(?:is|are|am) not (?:allowed|"
                          r"permitted|able) to|not allowed to|(?:it is|it[’']s) not (?:possible|allowed|okay|ok|fine) "
                          r"to)\b", re.IGNORECASE)
MODAL_GRANTS = re.compile(r"\b(?:can|may|(?:is|are|am) (?:allowed|permitted|able) to|(?:it is|it[’']s) (?:possible|"
                          r"allowed|okay|ok|fine) to)\b(?!\s+not\b)", re.IGNORECASE)


def modal_verdict(answer: str, first: str, question: str) -> tuple[str, re.Match[str]] | None:
    """("yes" or "no", the modal) when an answer form's "Answer:" line carries no "Yes" or "No" and the first clause
    of `first`, the line's first sentence, grants or denies the asked action with a modal ("Answer: Gary can go
    down on his own."): the form puts the answer there by construction. None when the answer has no such label,
    the modal restricts ("may drive only for ...") or names another action (no content word of the question in
    the words after it: "can collect a key instead"). A modal after a comma, "if", "but", or "before", "until",
    "once" and a subject ("before you can let swimmers in") is in a clause that sets a condition, not the verdict;
    "after a misconnect can still gate-tag" is not such a clause. The judge and `verdict_against_rule` both read
    it here."""
    if not _ANSWER_LABEL_ENDS.search(answer[:verdict_start(answer)]):
        return None
    clause = re.split(r"[,;:(]|\b(?:but|unless|if|as long as|provided)\b|\b(?:before|after|until|till|once|so that)"
                      r"\s+(?=(?:you|i|we|he|she|they|it|someone|anyone)\b)", first, maxsplit=1, flags=re.IGNORECASE)[0]
    modal = MODAL_DENIES.search(clause) or MODAL_GRANTS.search(clause)
    if modal is None:
        return None
    acts = clause[modal.end():]
    if re.search(r"\bonly\b", acts, re.IGNORECASE) or not (
            content_words(" ".join(acts.split()[:8])) & content_words(question)):
        return None
    return ("no" if modal.re is MODAL_DENIES else "yes"), modal
