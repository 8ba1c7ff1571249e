"""Judges for the trap set: a deterministic rule-based judge, an optional LLM judge, and their agreement.

Verdicts (what the seed measured):
- `current`: the current rule is asserted and the stale one is not mentioned.
- `stale`: the stale rule is asserted *instead of* the current one (the current rule is absent).
- `surfaced`: both appear, and the stale one is marked as outdated/informal wherever it is stated, or the
  conflict is named in words.
- `confused`: both appear and nothing says which one holds, or the stale rule is stated plainly as an answer
  in one place and marked only in another (the reader is left with two answers). A yes/no answer that opens
  with the current verdict is `current` whatever its reasons repeat of the stale rule ("No, you cannot put it
  through: the discount covers family up to five pets"): the verdict is what the reader acts on, either way.
- `none`: neither is asserted (a refusal, an off-topic answer, or only a marked-as-outdated mention).

Quoting or negating a record is not asserting it: a stale match is *marked* when its sentence carries an
outdated-cue that qualifies the claim or its source ("used to", "no longer", "expired", "informal", "the old
Slack message", "you were allowed to"), and *negated* when a negation comes shortly before it; it is
*reported* when it is only attributed ("S1 says", "according to", quotes). A cue inside quoted text, or a
past tense anywhere nearby ("…which states: 'If your badge was lost, …'"), is the record's own wording, not
the answer qualifying the claim, and marks nothing. The sentence after the claim counts only when it opens
by pointing back at it ("This…", "However…") and its first clause carries the cue.
A reported stale rule with no current rule beside it is still a stale answer: the reader is handed the
stale guidance as the answer. On an answer form's conflict line ("Conflicts: …", "Conflict on <topic>: …") a
mark anywhere on the line covers every sentence of it: the line is the model's account of what a source it
marks as outdated says, however many sentences that takes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..citations.reading import ANSWER_LABEL, OPENING_VERDICT, SENTENCE_BREAK, modal_verdict, verdict_sentence
from .backends import Backend, Sampling
from .cache import AnswerCache, cached_complete
from .datasets import TrapQuestion

VERDICTS = ("current", "stale", "surfaced", "confused", "none")
#: The verdicts of a question no retrieved record answers (`TrapQuestion.unanswerable`): `abstained` says so (the
#: right answer), `invented` is anything else: an answer asserted although no source gives one.
UNANSWERABLE_VERDICTS = ("abstained", "invented")

# Outdated-cues: words that qualify a claim or its source as no longer the rule. No bare past tense ("was",
# "were", "allowed"): quoted record text and subordinate clauses are full of it ("if your badge was lost").
_MARK = re.compile(
    r"\b(?:used to|previous(?:ly)?|formerly|former|earlier|old(?:er)?|prior|in the past|no longer|outdated|"
    r"out[- ]of[- ]date|obsolete|expired?|superseded|replaced|informal(?:ly)?|unofficial|not official|"
    r"not authoritative|not (?:current|valid|in effect|applicable)|invalid|does(?:n't| not) apply|"
    r"historical(?:ly)?|(?:was|were) (?:once |previously |formerly )?(?:allowed|permitted|able)|had been|"
    r"at the time|until (?:19|20)\d\d|stale|retired|rescinded|revoked|ignore|disregard|"
    r"should not be (?:relied|used|followed))\b",
    re.IGNORECASE,
)
# Quoted text (the record's words, not the answer's): straight or curly double quotes, single quotes that are
# not apostrophes, and whatever follows "states:"/"says:" to the end of the sentence.
_QUOTED = re.compile(
    r"\"[^\"]*\"?|“[^”]*”?|‘[^’]*’?|(?<!\w)'[^'\n]*'(?!\w)|"
    r"\b(?:says?|states?|stated|reads?|wrote|writes|said)\s*:.*$",
    re.IGNORECASE,
)
_ATTRIB = re.compile(
    r"\b(?:said|says|say|stated|states|claimed|claims|suggested|suggests|mentioned|mentions|according to|"
    r"wrote|writes|offered|offers|told|per (?:the )?(?:slack|message|thread|post|email))\b|[\"“”]",
    re.IGNORECASE,
)
_NEG = re.compile(r"\b(?:not|no|never|cannot|\w+n['’]t|nor|without|neither)\b", re.IGNORECASE)
# A stale claim ruled out right after it, in its own clause: "<the stale rule> doesn't make it OK", "... is not
# allowed" (the claim is the subject of a negated verdict).
_NEG_AFTER = re.compile(r"^\W*(?:\w+\s+){0,2}?(?:(?:is|are|was|were|does|do)\s+not|\w+n['’]t)\s+"
                        r"(?:\w+\s+){0,2}?(?:ok|okay|allowed|permitted|acceptable|fine|enough|apply|count|matter)\b",
                        re.IGNORECASE)
# An answer form's own label ("Conflicts: none", `conflict_form`'s "Conflict on pto-carryover:") is not naming a
# conflict; what follows it is judged as text.
_LABEL = re.compile(r"^[\W_]*(?:conflicts?|disagreements?|contradictions?)(?:\s+on\s+[\w.-]+)?[\W_]*:\s*",
                    re.IGNORECASE | re.MULTILINE)
_NO_CONFLICT = re.compile(r"\b(?:no|not|never|don't|doesn't|do not|does not|without|neither|nor)\b"
                          r"(?:\s+\w+){0,2}\s*$", re.IGNORECASE)
# Declining to answer. The source nouns and verbs are general ("the sources do not state the rate", "none of the
# documents mention it", "it is not specified in the provided context"); a source said to state something ("the
# sources state the rate is $60") is not a refusal.
_SOURCE = r"(?:sources?|context|information|documents?|records?|passages?|excerpts?|polic(?:y|ies)|guidelines?)"
_SAY = r"(?:answer|say|state|mention|contain|provide|specify|include|address|cover|give|list|indicate|discuss)"
_SAYS = (r"(?:answers?|says?|states?|mentions?|contains?|provides?|specif(?:y|ies)|includes?|address(?:es)?|covers?|"
         r"gives?|lists?|indicates?|discuss(?:es)?)")
_REFUSAL = re.compile(
    r"\b(?:i (?:do not|don't|cannot|can't|could not|couldn't) (?:know|say|tell|determine|answer|find)|"
    r"(?:i am|i'm) (?:not able|unable) to (?:answer|determine|say|find|tell)|"
    r"(?:cannot|can't|unable to) (?:be )?(?:answer(?:ed)?|determine[d]?)|"
    rf"{_SOURCE} (?:provided |given |available |above )?(?:do(?:es)? not|don't|doesn't|did not|didn't) "
    rf"(?:\w+ly )?{_SAY}|"
    rf"(?:none of|neither of) the (?:provided |given |available )?{_SOURCE} (?:\w+ly )?{_SAYS}|"
    rf"no (?:source|document|record|passage) (?:\w+ly )?{_SAYS}|"
    r"(?:is|are) not (?:\w+ly )?(?:specified|mentioned|stated|covered|addressed|given|provided|listed|included|"
    rf"indicated|discussed) in (?:the|any of the|these|any) (?:provided |given |available )?{_SOURCE}|"
    r"not enough information|insufficient information|no mention of|"
    r"no (?:relevant |specific )?information (?:is )?(?:available|provided|given|about|on|regarding))\b",
    re.IGNORECASE,
)
_CONFLICT = re.compile(
    r"\b(?:conflict(?:s|ing)?|contradict(?:s|ory|ion)?|disagree(?:s|ment)?|inconsistent|discrepanc(?:y|ies)|"
    r"takes? precedence|overrides?|supersedes?)\b",
    re.IGNORECASE,
)
# Words that flag a source as stale anywhere in an answer ("S1 is expired"), even when the stale rule itself is
# not restated; reported as a separate count, not used for the verdict.
_FLAGS = re.compile(
    r"\b(?:outdated|out[- ]of[- ]date|obsolete|superseded|informal|no longer (?:valid|current|applies|in effect)|"
    r"(?:is|was|has|have|are) (?:now )?(?:expired|superseded)|expired (?:source|policy|guidance|message|thread|record|"
    r"handbook|rule))\b",
    re.IGNORECASE,
)
_ANAPHOR = re.compile(r"^\W*(?:however|but|that|this|these|those|it|note|although|though)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"[,;:—–()]|\s-\s|\bbut\b|\bhowever\b", re.IGNORECASE)
NEG_WINDOW = 5  # words before a stale match in which a negator unasserts it


@dataclass(frozen=True)
class Hit:
    pattern: str
    text: str
    sentence: int
    status: str  # "asserted" | "marked" | "reported" | "negated" | "misattributed"

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Judgement:
    verdict: str
    current: tuple[Hit, ...] = ()
    stale: tuple[Hit, ...] = ()
    conflict_named: bool = False
    reason: str = ""
    flags_stale: bool = False  # the answer calls some source outdated/expired/informal (whatever the verdict)
    refused: bool = False  # "I do not know" or the like, and neither rule asserted
    # Unanswerable questions only: matches of the question's `neighbour` patterns (a value the records state nearby),
    # "negated" or "stated"; None for an answerable question.
    neighbour: tuple[Hit, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"verdict": self.verdict, "current": [h.to_dict() for h in self.current],
               "stale": [h.to_dict() for h in self.stale], "conflict_named": self.conflict_named,
               "flags_stale": self.flags_stale, "refused": self.refused, "reason": self.reason}
        if self.neighbour is not None:  # older results (answerable questions only) carry no such key
            out["neighbour"] = [h.to_dict() for h in self.neighbour]
        return out

    @property
    def states_neighbour(self) -> bool:
        """Does the answer state a neighbouring value (not negated)? With `invented`, the value was transplanted."""
        return any(h.status == "stated" for h in self.neighbour or ())


def sentences(text: str) -> list[str]:
    """Split an answer into sentences (and list items), keeping it cheap and deterministic. A sentence that
    asks a question (an echo of the user's) asserts nothing: it is kept out."""
    return [s.strip() for s in SENTENCE_BREAK.split(text) if s and s.strip() and not s.strip().endswith("?")]


def _conflict_lines(text: str) -> list[str]:
    """For each sentence of `sentences(text)`, the text of its line after an answer form's conflict label
    ("Conflicts:", "Conflict on pto-carryover:"), or "" when its line carries no such label. Sentences never
    span lines (a line break splits them), so each line's sentences are counted in order."""
    out: list[str] = []
    for line in text.split("\n"):
        label = _LABEL.match(line)
        out += [line[label.end():] if label else ""] * len(sentences(line))
    return out


def _clause_before(sentence: str, start: int) -> str:
    """The text of the clause a match starts in, up to the match."""
    before = sentence[:start]
    parts = _CLAUSE.split(before)
    return parts[-1] if parts else before


def _negated(sentence: str, start: int, window: int) -> bool:
    words = _clause_before(sentence, start).split()[-window:]
    return bool(_NEG.search(" ".join(words))) if words else False


def _unquoted(text: str) -> str:
    return _QUOTED.sub(" … ", text)


# "This is supported by S1 (…) and S2 (informal …)" vouches for the claim: a cue word in it describes a source
# the answer leans on, not the claim as outdated.
_VOUCHES = re.compile(r"^\W*(?:this|that|it)\b(?:\s+\w+){0,2}?\s+(?:is|are)\s+(?:also\s+)?(?:supported|confirmed|"
                      r"backed|stated|documented|provided|given|found|covered|mentioned|based)\b", re.IGNORECASE)


def _points_back_and_marks(nxt: str) -> bool:
    """Does the next sentence open by pointing back ("This…", "However…") and qualify it in its first clause
    (outside quotes)? "This is outdated" does; "This is based on S2, which states: 'If X was lost…'" does not,
    and neither does a sentence that vouches for the claim ("This is supported by S1 and S2 (informal)")."""
    if not nxt or not _ANAPHOR.search(nxt) or _VOUCHES.search(nxt):
        return False
    head = re.split(r"[;:—–]|,\s*(?:so|and|but|which|while)\b", _unquoted(nxt), maxsplit=1)[0]
    return bool(_MARK.search(head))


# A source described as current or authoritative, and the stretch of a sentence a claim is attributed in (to the
# last "but", "while", semicolon ... before the claim: "S2 (expired) says A, but S1 (current) says B").
_CURRENT_SOURCE = re.compile(r"(?<!not )\b(?:current(?:ly)? (?:and )?authoritative|authoritative|current (?:policy|"
                             r"rule|source|handbook|guidance|version|standard))\b", re.IGNORECASE)
_SIDE = re.compile(r";|\bbut\b|\bhowever\b|\bwhile\b|\bwhereas\b|\bunlike\b", re.IGNORECASE)
# A concessive "even ..." just before a stale condition, in a sentence that negates ("not even with a tag") or whose
# main clause holds regardless ("even though the controller logs it, you still test"): the condition decides nothing.
_EVEN = re.compile(r"\beven\s+(?:(?:if|when|though|in|on|at|for|below|above|under|over|with|during|after|before|"
                   r"without)\b[^,.;:!?]{0,60})?$", re.IGNORECASE)
_BARE_NO = re.compile(r"^\W*no\W*$", re.IGNORECASE)
_STILL = re.compile(r"\b(?:still|anyway|regardless)\b", re.IGNORECASE)


def _misattributed(s: str, m: re.Match[str]) -> bool:
    """Is the stale claim attributed to a source the answer calls current or authoritative, with nothing in
    that stretch marking it outdated?"""
    side = _SIDE.split(s[: m.start()])[-1]
    return bool(_CURRENT_SOURCE.search(side)) and not _MARK.search(_unquoted(side))


def _stale_status(sents: list[str], i: int, m: re.Match[str], conflict_line: str = "") -> str:
    s = sents[i]
    if _negated(s, m.start(), NEG_WINDOW) or _NEG_AFTER.match(_CLAUSE.split(s[m.end():], maxsplit=1)[0]):
        return "negated"
    if _EVEN.search(s[: m.start()]) and (_NEG.search(s[: m.start()] + " " + s[m.end():])
                                         or _STILL.search(s[m.end():])
                                         or (i > 0 and _BARE_NO.match(sents[i - 1]))):
        return "negated"
    if _misattributed(s, m):
        return "misattributed"
    # The match itself may contain cue words the author wrote into the stale pattern ("up to a week"): look
    # at the sentence with the match blanked out; quoted text is the record's wording, not a qualification.
    rest = s[: m.start()] + " … " + s[m.end():]
    nxt = sents[i + 1] if i + 1 < len(sents) else ""
    if _MARK.search(_unquoted(rest)) or _points_back_and_marks(nxt):
        return "marked"
    # On an answer form's conflict line, the model is giving its account of the conflict: what a source it
    # marks there as outdated says ("[S2] (superseded) says A. B.") is marked in every sentence of the line.
    if conflict_line and _MARK.search(_unquoted(conflict_line.replace(m.group(0), " … "))):
        return "marked"
    if _ATTRIB.search(rest):
        return "reported"
    return "asserted"


def names_conflict(answer: str) -> bool:
    """Does the answer name a conflict? Not by an answer form's label ("Conflicts: none"), and not when the
    conflict word is negated ("there is no conflict", "they do not contradict")."""
    text = _LABEL.sub("", answer)
    return any(not _NO_CONFLICT.search(_clause_before(text, m.start())) for m in _CONFLICT.finditer(text))


#: An answer form's answer line filled with "none" (the `rule_or_none` form offers it when no source says what is
#: asked), with its label or after `judge` has taken the label off: the model declines in the form's own word.
_NONE_ANSWER = re.compile(r"^[ \t*_#]*(?:answer[ \t*_]*:[ \t*_]*)?none[ \t*_.!]*$", re.IGNORECASE | re.MULTILINE)


def is_refusal(answer: str) -> bool:
    """Does the answer decline ("I do not know", "the sources do not say", or "Answer: none")?"""
    return bool(_REFUSAL.search(answer) or _NONE_ANSWER.search(answer))


def _find(patterns: Sequence[str], sents: list[str]) -> list[tuple[str, int, re.Match[str]]]:
    found = []
    for p in patterns:
        rx = re.compile(p, re.IGNORECASE)
        for i, s in enumerate(sents):
            for m in rx.finditer(s):
                found.append((p, i, m))
    return found


# An answer form's "Answer:" label is not part of the answer: "Answer: No, …" opens with "No". Nor is a line's
# lead-in "The answer is: Yes, …" / "The short answer is no, …" (seen on the held-out set).
_ANSWER_LABEL = re.compile(f"^(?:{ANSWER_LABEL.pattern})", re.IGNORECASE | re.MULTILINE)


def judge(answer: str, trap: TrapQuestion) -> Judgement:
    """The rule-based verdict for one answer to one trap question (see the module docstring)."""
    if trap.unanswerable:
        return judge_unanswerable(answer, trap)
    opening = _opening_word(answer, trap)  # read with the labels in place: `verdict_start` finds the Answer line
    answer = _ANSWER_LABEL.sub("", answer)
    sents = sentences(answer)
    cur = _current_hits(trap.current, sents)
    stale = _stale_hits(trap.stale, sents, _conflict_lines(answer), cur)
    mentioned = [h for h in stale if h.status != "negated"]
    marked = any(h.status == "marked" for h in mentioned)
    said = names_conflict(answer) or any(re.search(p, answer, re.IGNORECASE) for p in trap.surfaced)
    named = marked or said
    if opening is not None and opening != trap.verdict_word:
        verdict, reason = "stale", "opens with the stale yes/no"
    elif any(h.status == "misattributed" for h in mentioned):
        verdict, reason = "stale", "stale rule attributed to a current source"
    else:
        has_cur = opening is not None or any(h.status == "asserted" for h in cur)
        verdict, reason = _verdict(has_cur, mentioned, said, named)
        if verdict == "confused" and opening is not None:  # the user acts on the verdict (the current one here)
            verdict, reason = "current", "opens with the current yes/no; the stale rule only in what follows"
    flags = named or bool(_FLAGS.search(answer))
    return Judgement(verdict, tuple(cur), tuple(stale), named, reason, flags,
                     verdict == "none" and is_refusal(answer))


def judge_unanswerable(answer: str, trap: TrapQuestion) -> Judgement:
    """The verdict for a question no retrieved record answers: `abstained` when the answer says the sources do not
    answer (`is_refusal`), `invented` otherwise. An opening "Yes"/"No" is the answer the reader acts on ("No. The
    sources do not mention contractors."): `invented`, unless the clause it opens is the refusal ("No, the sources
    do not say"). A refusal that goes on to give a neighbouring fact the records do state is still `abstained`; the
    `neighbour` hits say whether a nearby value appears at all, and with `invented` that value was transplanted."""
    first = verdict_sentence(answer)[1]  # `rule_form`'s "Rule:" line aside
    answer = _ANSWER_LABEL.sub("", answer)
    sents = sentences(answer)
    near = tuple(Hit(p, m.group(0), i, "negated" if _negated(sents[i], m.start(), NEG_WINDOW) else "stated")
                 for p, i, m in _find(trap.neighbour, sents))
    refused = is_refusal(answer)
    opening = OPENING_VERDICT.match(first)
    # "No, the sources do not say" (or "No source says") declines in the clause the word opens; "Yes, it applies;
    # the sources do not say otherwise" answers there.
    if opening and not is_refusal(re.split(r"[;:.!?]|\b(?:but|however|although)\b", first, maxsplit=1)[0]):
        verdict, reason = "invented", "opens with a yes or no although no source answers"
    elif refused:
        verdict, reason = "abstained", "says the sources do not answer"
    else:
        verdict, reason = "invented", "answers although no source does"
    return Judgement(verdict, reason=reason, conflict_named=names_conflict(answer),
                     flags_stale=bool(_FLAGS.search(answer)), refused=refused, neighbour=near)


_NEGATOR = re.compile(r"(?:not|never|\w+n't)", re.IGNORECASE)


def _opening_word(answer: str, trap: TrapQuestion) -> str | None:
    """"yes" or "no" when a yes/no question's answer opens with it (echoed questions aside): the verdict the
    reader acts on. "No one may ..." and "No longer ..." open with a word, not a verdict. On an answer form's
    "Answer:" line the verdict may be a modal instead ("Answer: You can just answer them while you drive."):
    its first clause's denial or grant is the verdict there, where the form puts the answer by construction."""
    if trap.verdict_word is None:
        return None
    # an answer form's "Rule: ..." (`rule_form`) or "Quote: ..." (`quote_form`) line comes before the verdict
    first = verdict_sentence(answer)[1]
    m = OPENING_VERDICT.match(first)
    if m:
        return m.group(1).lower()
    modal = modal_verdict(answer, first, trap.question)
    return modal[0] if modal else None


def _current_hits(patterns: Sequence[str], sents: list[str]) -> list[Hit]:
    """Each match of a current-rule pattern: negated when the word right before it is a negator ("does not
    carry over"), else asserted."""
    hits = []
    for p, i, m in _find(patterns, sents):
        before = sents[i][: m.start()].split()
        negated = bool(before) and bool(_NEGATOR.fullmatch(before[-1]))
        hits.append(Hit(p, m.group(0), i, "negated" if negated else "asserted"))
    return hits


def _stale_hits(patterns: Sequence[str], sents: list[str], lines: list[str], cur: Sequence[Hit]) -> list[Hit]:
    """Each match of a stale-rule pattern with its status (`_stale_status`; `lines` holds each sentence's
    conflict line, one per sentence: a property test holds the two splits together). A stale match inside a
    sentence that also holds an asserted current match for the same words is the same claim seen twice (e.g.
    "does not carry over" vs "carry over"): the current reading wins, and the stale match is dropped."""
    stale = [Hit(p, m.group(0), i, _stale_status(sents, i, m, lines[i])) for p, i, m in _find(patterns, sents)]
    cur_spans = {(h.sentence, h.text.lower()) for h in cur if h.status == "asserted"}
    return [h for h in stale if not any(h.sentence == s and h.text.lower() in t for s, t in cur_spans)]


def _verdict(has_cur: bool, mentioned: Sequence[Hit], said: bool, named: bool) -> tuple[str, str]:
    """The verdict and its reason, from whether the current rule is asserted, the stale matches that are not
    negated, whether a conflict is said in words (`said`) and whether it is named at all (said, or the stale
    rule marked as outdated somewhere)."""
    if not has_cur:
        if any(h.status in ("asserted", "reported") for h in mentioned):
            return "stale", "stale rule without the current one"
        marked = any(h.status == "marked" for h in mentioned)
        return "none", "stale rule only as outdated, no current rule" if marked else "neither rule"
    if not mentioned:
        return "current", "current rule, no stale rule"
    # The stale rule stated as the answer in one sentence and marked as outdated in another leaves the reader
    # two answers: only a conflict said in words makes that a surfaced conflict.
    plainly_stated = any(h.status == "asserted" for h in mentioned)
    if said or (named and not plainly_stated):
        return "surfaced", "both; stale marked or conflict named"
    if named:
        return "confused", "both; the stale rule stated as an answer, marked only elsewhere"
    return "confused", "both; nothing says which holds"


# ---------------------------------------------------------------- LLM judge

LLM_JUDGE_PROMPT = """You grade an answer to a workplace policy question. Policies change; one retrieved source \
was outdated or informal.

Question: {question}
Current policy (correct): {current}
Outdated or informal guidance (wrong): {stale}

Answer to grade:
<<<
{answer}
>>>

Reply with exactly one word:
current  - the answer gives the current policy and does not mention the outdated guidance
stale    - the answer gives the outdated guidance instead of the current policy
surfaced - the answer mentions both and says which is outdated, or names the conflict
confused - the answer mentions both without saying which one holds
none     - the answer gives neither"""


@dataclass
class LLMJudge:
    """An LLM as a second judge, through any backend; cached like the answers."""

    backend: Backend
    cache: AnswerCache | None = None
    sampling: Sampling = field(default_factory=lambda: Sampling(max_tokens=8, temperature=0.0, seed=0))

    def __call__(self, answer: str, trap: TrapQuestion) -> str | None:
        prompt = LLM_JUDGE_PROMPT.format(question=trap.question, current=trap.current_value or "; ".join(
            trap.current), stale=trap.stale_value or "; ".join(trap.stale), answer=answer)
        out = cached_complete(self.backend, [{"role": "user", "content": prompt}], self.sampling, self.cache)
        word = re.search(r"\b(current|stale|surfaced|confused|none)\b", out.text.lower())
        return word.group(1) if word else None


def agreement(pairs: Sequence[tuple[str, str | None]]) -> dict[str, Any]:
    """Raw agreement and Cohen's kappa between the rule verdicts and the LLM verdicts (None = unparsed)."""
    usable = [(a, b) for a, b in pairs if b is not None]
    n = len(usable)
    if not n:
        return {"n": 0, "agree": 0, "rate": None, "kappa": None, "unparsed": len(pairs)}
    agree = sum(a == b for a, b in usable)
    po = agree / n
    pe = sum((sum(a == v for a, _ in usable) / n) * (sum(b == v for _, b in usable) / n) for v in VERDICTS)
    kappa = None if pe >= 1 else (po - pe) / (1 - pe)
    return {"n": n, "agree": agree, "rate": po, "kappa": kappa, "unparsed": len(pairs) - n}
