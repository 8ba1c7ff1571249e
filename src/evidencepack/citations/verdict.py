"""`verdict_against_rule`: an answer whose opening verdict goes against the rule that decides the question.

Small models answer a yes/no question with the question's own "Yes" and then quote the current rule that says
no ("Yes, you can rent an SUV. [S3] states that upgrades to SUVs are not reimbursed"), or, led by the question's
premise, deny what the rule grants ("No, you do not get paid" beside "training is paid at the regular rate"). Most of
those answers carry no stale value and cite the current source, so no other check sees them. The assembler knows
which record decides: the current authoritative member of each conflict group it reported. This check reads, among
those records, the sentence closest to the question (`words.closest_sentence`, the sentence `Layout.show_rule`
would show), and flags:

- an opening "Yes" when that sentence restricts: "must not", "may not", "never", "not" before a participle ("not
  reimbursed"), "prohibited", "forbidden", "banned", "no longer", "only"; an opening that grants what was asked
  without the word (a content word of the question in its sentence: "You can take one home") is read as a "Yes";
- an opening "No" whose sentence denies a word ("you do not get *paid*": the first content word after a negator,
  past "allowed" and its kin) that the rule's sentence states with no negation and no restricting word ("is *paid*
  at the regular rate").

The verdict is read after an answer form's lead line and an answer label (`reading.verdict_start`), as the judge
reads it. A warning by default: the first answer reaches the reader with a note, no second call. Measured against
answers read by hand in docs/evaluation.md ("After the answer: a verdict against the rule").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..passes.scan import sentence_spans
from ..words import STOP_WORDS, WORD, closest_sentence, content_words, stem
from .model import Finding, Sentence, shorten
from .reading import OPENING_VERDICT, modal_verdict, verdict_sentence
from .severities import Severities
from .source import SourceIndex

#: What a sentence restricts with (see the module docstring).
RESTRICTS = re.compile(r"\b(?:must not|may not|must never|never|not (?:be )?[a-z]+(?:ed|en)|prohibited|forbidden|"
                       r"banned|no longer|only)\b", re.IGNORECASE)
#: A word that negates the words after it, and how many words after it it reaches.
NEGATOR = re.compile(r"^(?:not|never|no|cannot|\w+n't)$", re.IGNORECASE)
NEGATION_REACH = 4
# Words of permission or need between a negator and what it denies ("not allowed to clear", "don't need to report").
_PERMISSION = frozenset(["allowed", "permitted", "able", "supposed", "required", "needed", "okay", "entitled"])
_AGAINST_YES = ("opens with \"Yes\", but the sentence of [{h}] (current, authoritative) closest to the question "
                "restricts")
_AGAINST_GRANT = ("opens by granting (\"{w}\"), but the sentence of [{h}] (current, authoritative) closest to the "
                  "question restricts")
_AGAINST_NO = ("opens with \"No\" and denies what the sentence of [{h}] (current, authoritative) closest to the "
               "question states")


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


#: An opening that grants without saying "Yes" ("You can take one home", "We may load it"): read as a "Yes".
IMPLICIT_YES = re.compile(r"\W*(?:you|we|i|he|she|they)\s+((?:can|may|could)|(?:are|is|am) allowed to)\b(?!\s+not\b)",
                          re.IGNORECASE)


def _granted(first: str, question: str) -> re.Match[str] | None:
    """An opening grant without "Yes" ("You can take one home") whose sentence shares a content word with the
    question: it grants what was asked, not an alternative ("You can book a compact car" to "Can I rent an SUV?")."""
    found = IMPLICIT_YES.match(first)
    return found if found and content_words(first[found.end():]) & content_words(question) else None


def polarity(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(denied, stated): the stem of the first content word after each negator that is not a word of permission
    ("not allowed to *clear*", "do not get *paid*"), and the stems of the content words no negator reaches (within
    `NEGATION_REACH` words)."""
    denied: set[str] = set()
    stated: set[str] = set()
    reach, head = 0, False
    for word in (w.strip("'-") for w in re.findall(r"[a-z][a-z'-]*", text.lower())):
        if NEGATOR.match(word):
            reach, head = NEGATION_REACH, True
            continue
        if WORD.fullmatch(word) and word not in STOP_WORDS and len(word) > 2:
            if not reach:
                stated.add(stem(word))
            elif head and word not in _PERMISSION:
                denied.add(stem(word))
                head = False
        reach = max(0, reach - 1)
    return frozenset(denied), frozenset(stated)


def _opening(text: str, question: str) -> tuple[str, int, int, int] | None:
    """(word, start, end, denial_from): the verdict an answer opens with ("yes", "no", or the word that grants
    without "Yes": "can", "may"), where it stands, and where the words it denies are read from: after "No", from
    a modal denial itself ("cannot go down"). Read in the verdict's first sentence, as the judge reads it."""
    at, first = verdict_sentence(text)
    opening = OPENING_VERDICT.match(first)
    if opening is not None:
        return opening.group(1).lower(), at + opening.start(1), at + opening.end(1), at + opening.end(1)
    modal = modal_verdict(text, first, question)
    if modal is not None:
        word, found = modal
        start, end = at + found.start(), at + found.end()
        return (word if word == "no" else found.group(0).lower()), start, end, start
    grant = _granted(first, question)
    return (grant.group(1).lower(), at + grant.start(1), at + grant.end(1), at + grant.end(1)) if grant else None


def verdict_findings(text: str, sentences: Sequence[Sentence], index: SourceIndex, levels: Severities
                     ) -> Sequence[Finding]:
    """The `verdict_against_rule` finding of an answer, if any (none when the kind is off)."""
    level = levels.verdict_against_rule
    if level == "off":
        return ()
    opening = _opening(text, index.question)
    if opening is None:
        return ()
    found = deciding_rule(index)
    if found is None:
        return ()
    handle, rule = found
    word, start, end, denial_from = opening
    at = next((s for s in sentences if s.start <= start < s.end), None)
    restricts = RESTRICTS.search(rule) is not None
    if word != "no":  # "yes", or a grant without it ("you can", "Answer: Gary can go down")
        if not restricts:
            return ()
        why = _AGAINST_YES if word == "yes" else _AGAINST_GRANT
    else:
        denied = polarity(text[denial_from:at.end if at else len(text)])[0]
        if restricts or not denied & polarity(rule)[1]:
            return ()
        why = _AGAINST_NO
    index_of = at.index if at else 0
    return (Finding("verdict_against_rule", level,
                    f"sentence {index_of + 1} {why.format(h=handle, w=word)}: "
                    f"\"{shorten(' '.join(rule.split()), 100)}\"",
                    index_of, start, end, sources=(handle,)),)
