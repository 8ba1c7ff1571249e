"""Layout: how the prompt looks (the render pass's option group), its named presets and variants.

Everything here changes the words and their order, never which records are admitted or selected (except that
a cheaper layout leaves room for more). The presets are the layouts the evaluation measured
(docs/evaluation.md, docs/variants.md):

- `default`: what `assemble` does when nothing is said: `decide-form`'s layout (below) wherever the format has
  source blocks. The assembler withholds the weak members of every conflict group the metadata decides
  (`conflict_policy="withhold"`, each reported, with a note for the reader) and asks for the current
  authoritative rule, with its handle, before the answer (`answer_form="auto"`: `rule_form`, none in the flat
  format, which has no handles). Around them: `compact` blocks, `edges-authority` seating, the `last-resort`
  abstain line, and a sentence the injection scan reads as an instruction to the model cut out of its record
  (`on_flagged="redact"`). It became the default by a rule written before the sets that decided it: on six trap
  sets written blind (125 questions, read by hand, first answers) it beat `structured` on current-correct on
  both small models (1.5B 104 against 66, 0.5B 58 against 55) with no more refusals (0 against 0 and 2), and on
  the ninth set alone (13 against 11, 12 against 7); on three sets written after the switch, 15, 16 and 17
  against 11, 13 and 13 on the 1.5B, 10, 10 and 10 against 7, 11 and 9 on the 0.5B. On the injection splits it
  was obeyed 0 times on both models, and without the scan's cut its rule form alone held them to 5-9 % of attacked
  tasks (59-80 % for `structured`).
- `structured`: the default before that, pinned: the same blocks, seating and lines, the conflict surfaced to the
  model (`conflict_policy="surface"`: every record shown, a notice of the conflict above them), no answer form. On
  both small models it gave the fewest stale answers and the most current-correct ones of any layout without an
  answer form or withholding; the published runs named `structured` used it. Choose it, or `surface` with a
  larger model, when the model should see and name every side of a conflict.
- `original`: the first structured layout, pinned (`text` blocks, `policy` fields, `edges` order, the
  `if-unanswered` line, the notice on, flagged records kept): its options never change when the defaults do.
  Its bytes follow the renderer: they moved once, when the headers were made unforgeable (issue 25).
- `flat`: the failing baseline: record texts joined by newlines, no handles, no metadata, flagged records kept.
- `scaffold`: `structured` plus the reminder after the question and the answer form (answer with handles, then
  a conflicts line): the layout that made the 1.5B model name conflicts most often (10/25) and write its
  handles; it made the 0.5B model worse, so it is opt-in.
- `conflict-form`: `structured` with the conflict groups as an answer form after the question; with the
  withholding guard it met all six targets on the 1.5B model.
- `decide`: the withholding alone, no answer form (docs/evaluation.md, "Decide, then show"): over the six blind
  sets it beat `structured` on both small models (1.5B 92/125, 0.5B 59/125) but the 1.5B said "I do not know" to
  5 questions a current record answered; the rule form is what removes those refusals.
- `decide-form`: `decide` with the `rule_form` answer form (`Rule: ...`, then `Answer: ...`), pinned; the
  default gives the same prompt wherever there are blocks. On the 1.5B model the best first answers measured
  (104 of 125 over the six sets written blind, the fourth to the ninth, current-correct by hand, none refused,
  18 stale); on the 0.5B 58 of 125, mostly by answering "Yes" (7 of the 53 "no" questions right).
- `small`: the fewest tokens around the records for the smallest models: the flat prompt (no headers, no
  handles) with the same withholding; on the 0.5B model it beat flat on the six sets written blind (63/125
  against 52/125, `structured` 55/125, the default 58/125), but mostly by answering "No" (10 of the 44 "yes"
  questions right). It has no handles, so nothing the citation validator can check.
- `untrusted`: the default with datamarking (`marking="datamark"`) for records from sources anyone can write
  (measured on `structured`, the default of the time; `eval injections` runs `default+datamark` too):
  every record is marked, not only the flagged ones, so it also acts on instructions the scan misses (it cut
  the rate at which both small models obeyed a planted instruction without costing the attacked answer, issue
  28, docs/evaluation.md), at about 84 % more record-text tokens and some clean answers on the 0.5B.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass, replace
from functools import cached_property
from string import Template
from typing import Any

from ..errors import OptionError
from ..optspec import check_bool, check_choice, check_number, option, optional_float
from ..passes.order import strategies
from . import MARKINGS, ON_FLAGGED
from .fields import PROFILES, resolve_profile
from .formats import FORMATS, Format, get_format
from .guidance import ANSWER_FORMS as FORMS
from .guidance import after_question, example
from .neutralise import DEFAULT_FRAME_LABELS, template_labels
from .prompts import ABSTAIN_RULES, CONFLICT_RULES, FLAT_USER_TEMPLATE, USER_TEMPLATE, system_prompt

#: Where the conflict notice goes: above the first source, or after the last one, next to the question.
NOTICE_PLACEMENTS = ("sources", "question")
#: What the boundary code is derived from besides the key and the format (issue 26, `passes.fit`).
BOUNDARY_SCOPES = ("selection", "key")
#: How the notice is worded: metadata facts only, or facts plus what to do with them.
NOTICE_STYLES = ("facts", "directive")
#: The answer forms after the question (`guidance.ANSWER_FORMS`: each one's flag, help and text).
ANSWER_FORMS: tuple[str, ...] = tuple(FORMS)
#: `answer_form`'s default: `DEFAULT_FORM` wherever the format has source blocks, no form in the flat format (a
#: form names handles, and the flat prompt has none). The settings record what it came to.
AUTO_FORM = "auto"
DEFAULT_FORM = "rule_form"


def _write_answer_form(value: str | None) -> dict[str, Any]:
    """One boolean per answer form, as 1.x recorded its two (one of them at most is true)."""
    return {form: value == form for form in ANSWER_FORMS}


def _read_answer_form(s: Mapping[str, Any]) -> Any:
    """The form the settings switch on; None when they switch the default form off (`rule_form: false`) or record
    every 1.x form as off; MISSING (the default) for a partial mapping that switches nothing on or off."""
    on = {form: s.get(form, False) for form in ANSWER_FORMS}
    for name, value in on.items():
        check_bool(name, value)
    chosen = [form for form, value in on.items() if value]
    if len(chosen) > 1:
        raise OptionError(f"{' and '.join(chosen)} are two answer forms: choose one (answer_form=)")
    if chosen:
        return chosen[0]
    return None if DEFAULT_FORM in s or all(form in s for form in ("scaffold", "conflict_form")) else MISSING


def _profile(profile: Any) -> str | tuple[str, ...]:
    if isinstance(profile, str):
        if profile not in PROFILES:
            raise OptionError(f"unknown field profile {profile!r} (one of {', '.join(PROFILES)}, or a list of "
                              "field names)")
        return profile
    if isinstance(profile, Sequence) and profile and all(isinstance(f, str) and f.strip() for f in profile):
        return tuple(profile)
    raise OptionError("profile must be a profile name or a non-empty list of field names")


def _profile_setting(value: str | tuple[str, ...]) -> dict[str, Any]:
    return {"profile": value if isinstance(value, str) else list(value)}


def _read_profile(s: Mapping[str, Any]) -> Any:
    return MISSING if "profile" not in s else (tuple(s["profile"]) if isinstance(s["profile"], list)
                                               else s["profile"])


@dataclass(frozen=True)
class Layout:
    """How the prompt is laid out: block format, fields, seating, instructions, notice and answer form."""

    format: str = option("compact", "block format (compact: the text block with the header on the BEGIN line)",
                         choices=lambda: FORMATS)
    profile: str | tuple[str, ...] = option(
        "policy", f"header fields: a profile ({', '.join(PROFILES)}) or a list of field names (on the command "
        "line comma-separated; end a single field with a comma: 'doc,')", cli="profile",
        write=_profile_setting, read=_read_profile)
    order: str = option("edges-authority", "seating of records (edges-authority: edges, with the current "
                        "authoritative record of a conflict group on the best edge)", choices=strategies)
    conflict_policy: str = option("withhold", "what to do when sources disagree: withhold (the assembler leaves "
                                  "out the weak members of every conflict group that has a current authoritative "
                                  "member, and reports them for a note to the reader), surface (the model names "
                                  "the conflict; for models that can), resolve (the model answers from the current "
                                  "authoritative source)", choices=lambda: tuple(CONFLICT_RULES))
    mention_withheld: bool = option(False, "under conflict_policy withhold: a one-line notice per group saying "
                                    "how many sources were left out and why (metadata only)", cli="switch")
    abstain: str = option("last-resort", "when the model may say it does not know (last-resort: only if no source "
                          "answers, else give the current authoritative answer; if-unanswered: the original line)",
                          choices=lambda: tuple(ABSTAIN_RULES))
    conflict_notice: bool = option(True, "put a notice of known conflicts beside the sources", flag="--no-notice",
                                   cli="negate", flag_help="do not put a conflict notice beside the sources")
    notice_placement: str = option("sources", "conflict notice above the sources, or after them by the question",
                                   choices=lambda: NOTICE_PLACEMENTS)
    notice_style: str = option("facts", "facts: the metadata facts only; directive: also what to do with them",
                               choices=lambda: NOTICE_STYLES)
    answer_form: str | None = option(
        AUTO_FORM, f"an answer form after the question, one at a time: {', '.join(FORMS)}, or none (each has its own "
        f"flag; render/guidance.py and docs/variants.md say what it asks for); {AUTO_FORM}: {DEFAULT_FORM} wherever "
        "the format has source blocks, none in the flat format",
        cli="consts", consts=(*((form.flag, name, form.help) for name, form in FORMS.items()),
                              ("--no-answer-form", None, f"no answer form after the question (the default asks for "
                                                         f"{DEFAULT_FORM} where the format has source blocks)")),
        write=_write_answer_form, read=_read_answer_form, keys=ANSWER_FORMS, record=lambda layout: layout.form)
    reminder: bool = option(False, "restate the instructions after the question", cli="switch")
    rule_first: bool = option(False, "after the question, ask for the current authoritative source's rule, with "
                              "its handle, before any verdict (against the yes-bias of small models on yes/no "
                              "questions)", cli="switch")
    stated_exceptions: bool = option(False, "after the question, in every format: answer as the rule is written; a "
                                     "circumstance in the question changes the answer only if the source names "
                                     "it as an exception", cli="switch")
    show_rule: bool = option(False, "after the question, quote the sentence of a conflict group's current "
                             "authoritative source that shares most words with the question, with its handle (the "
                             "assembler points at the rule that decides, against the yes-bias of small models)",
                             cli="switch")
    example: bool = option(False, "add worked examples to the system prompt: in the answer form's shape when the "
                           "form has its own (rule_form: a \"No\" and a \"Yes\"), else one cited, conflict-naming "
                           "answer", cli="switch")
    system_template: str | None = option(
        None, "a custom system prompt (string.Template: $boundary, $as_of, $prefix, $conflict_rule, $abstain_rule; "
        "on the command line a file)", cli="file")
    handle_prefix: str = option("S", "the letters before a source's number in its handle ([S1])")
    marking: str = option("none", "spotlighting datamarking of record text", choices=lambda: MARKINGS)
    on_flagged: str = option(
        "redact", "what to do with a record the injection scan reads as an instruction to the model: cut its "
        "flagged sentences out, with the task planted beside them (redact), datamark it, or keep it as it is",
        choices=lambda: ON_FLAGGED)
    conflict_embedding_threshold: float | None = option(
        0.9, "cosine at or above which records without a topic, by their embeddings, form a conflict group "
        "(none: only topics group)", parse=optional_float)
    # -- issue 26 (prompt caching): what the boundary code is derived from, besides the key and the format --
    boundary_scope: str = option(
        "selection", "what the boundary code is derived from besides the key and format (selection: the selected "
        "records, so a code seen in one prompt is useless in any other selection; key: the as_of date only, so "
        "the system prompt and each record's block stay byte-identical across selections and a provider caches "
        "more, but a leaked code stays valid until the key or date changes)", choices=lambda: BOUNDARY_SCOPES)
    neutralise_question: bool = option(True, "neutralise the question like record text (it may come from an end "
                                       "user)", flag="--no-neutralise-question", cli="negate",
                                       flag_help="put the question in as given (only lone surrogates replaced), "
                                       "not neutralised")

    def __post_init__(self) -> None:
        if isinstance(self.system_template, Template):
            object.__setattr__(self, "system_template", self.system_template.template)
        object.__setattr__(self, "profile", _profile(self.profile))
        get_format(self.format)
        check_choice("order", self.order, strategies())
        check_choice("conflict_policy", self.conflict_policy, tuple(CONFLICT_RULES))
        check_choice("abstain", self.abstain, tuple(ABSTAIN_RULES))
        check_choice("marking", self.marking, MARKINGS)
        check_choice("on_flagged", self.on_flagged, ON_FLAGGED)
        check_choice("notice_placement", self.notice_placement, NOTICE_PLACEMENTS)
        check_choice("notice_style", self.notice_style, NOTICE_STYLES)
        check_choice("boundary_scope", self.boundary_scope, BOUNDARY_SCOPES)
        if self.answer_form is not None:
            check_choice("answer_form", self.answer_form, (*ANSWER_FORMS, AUTO_FORM))
        for name in ("conflict_notice", "reminder", "example", "neutralise_question", "mention_withheld",
                     "rule_first", "show_rule", "stated_exceptions"):
            check_bool(name, getattr(self, name))
        check_number("conflict_embedding_threshold", self.conflict_embedding_threshold, low=-1.0, high=1.0,
                     optional=True)
        if self.system_template is not None and not isinstance(self.system_template, str):
            raise OptionError(f"system_template must be a string, got {type(self.system_template).__name__}")
        prefix = self.handle_prefix
        if not isinstance(prefix, str) or not prefix.isascii() or not prefix.isalpha() or len(prefix) > 8:
            raise OptionError("handle_prefix must be 1 to 8 ASCII letters")
        self._check_forms()

    def _check_forms(self) -> None:
        asked = self.answer_form not in (None, AUTO_FORM)  # the default form gives way to a format without blocks
        on = [n for n, v in (("reminder", self.reminder), ("rule_first", self.rule_first),
                             (self.answer_form or "", asked), ("example", self.example)) if v]
        if on and not self.has_blocks:
            raise OptionError(f"{', '.join(on)} need(s) a format with source blocks; {self.format!r} has none")
        if self.form == "conflict_form" and (
                not self.conflict_notice or (self.notice_placement, self.notice_style) != ("sources", "facts")):
            raise OptionError("conflict_form replaces the conflict notice with an answer form after the question: "
                              "it needs conflict_notice=True and the default notice_placement and notice_style")
        if self.form == "conflict_form" and self.conflict_policy == "withhold":
            raise OptionError("conflict_form asks the model to name each conflict, but conflict_policy='withhold' "
                              "leaves every decided conflict's weak members out: use it with "
                              "conflict_policy='surface' (or 'resolve')")
        if self.mention_withheld and (self.conflict_policy != "withhold" or not self.conflict_notice
                                      or not self.has_blocks):
            raise OptionError("mention_withheld says in the conflict notice what conflict_policy='withhold' left "
                              "out: it needs that policy, conflict_notice=True and a format with source blocks")

    # -- presets and variants ------------------------------------------------------------------------

    @classmethod
    def presets(cls) -> tuple[str, ...]:
        """The preset names, in the order `LAYOUTS` lists them (a preset is one entry there)."""
        return tuple(LAYOUTS)

    @classmethod
    def preset(cls, name: str) -> Layout:
        """A named layout (see the module docstring for what each was measured to do)."""
        found = LAYOUTS.get(name)
        if found is None:
            raise OptionError(f"unknown layout preset {name!r} (one of {', '.join(LAYOUTS)})")
        return found

    def with_variants(self, *names: str) -> Layout:
        """This layout with the named prompt variants (`VARIANTS`) switched on; two variants that set the same
        option differently (scaffold and conflict-form) are refused."""
        changes: dict[str, Any] = {}
        for name in names:
            if name not in VARIANTS:
                raise OptionError(f"unknown layout variant {name!r} (one of {', '.join(VARIANTS)})")
            for key, value in VARIANTS[name].items():
                if key in changes and changes[key] != value:
                    raise OptionError(f"layout variants set {key} twice: choose one of them")
                changes[key] = value
        return replace(self, **changes) if changes else self

    # -- what the renderer reads ---------------------------------------------------------------------

    @property
    def fmt(self) -> Format:
        return get_format(self.format)

    @property
    def has_blocks(self) -> bool:
        return get_format(self.format).has_blocks

    @property
    def form(self) -> str | None:
        """The answer form in effect (`answer_form` with `auto` resolved against the format)."""
        if self.answer_form == AUTO_FORM:
            return DEFAULT_FORM if self.has_blocks else None
        return self.answer_form

    @property
    def fields(self) -> tuple[str, ...]:
        """Header fields; the flat baseline carries none."""
        return resolve_profile(self.profile) if self.has_blocks else ()

    @cached_property
    def frame_labels(self) -> tuple[str, ...]:
        """Line-start labels of the frame around the blocks (our templates and the caller's system template):
        record text, metadata and the question must not be able to imitate them."""
        own = template_labels(USER_TEMPLATE, FLAT_USER_TEMPLATE)
        custom = template_labels(self.system_template) if self.system_template is not None else ()
        return tuple(sorted({*DEFAULT_FRAME_LABELS, *own, *custom}))

    def system(self, boundary: str, as_of: str) -> str:
        """The system prompt with this boundary, and the worked example when asked for."""
        template = Template(self.system_template) if self.system_template is not None else None
        text = system_prompt(template, boundary=boundary, as_of=as_of, prefix=self.handle_prefix,
                             conflict_policy=self.conflict_policy, flat=not self.has_blocks, abstain=self.abstain)
        return text + example(self.handle_prefix, self.form) if self.example else text

    def after_question(self) -> str:
        """What follows the question: the variants that are on (in the flat format only `stated_exceptions`,
        the one that names no handle)."""
        if not self.has_blocks:
            return after_question(self.handle_prefix, reminder=False, answer_form=None,
                                  stated_exceptions=self.stated_exceptions)
        return after_question(self.handle_prefix, reminder=self.reminder, answer_form=self.form,
                              rule_first=self.rule_first, stated_exceptions=self.stated_exceptions)


#: Prompt variants by name (the eval harness's `+variant` parts): each switches on options of the layout.
VARIANTS: dict[str, Mapping[str, Any]] = {
    "reminder": {"reminder": True},  # the instructions restated after the question
    # every answer form (`guidance.ANSWER_FORMS`), named by its flag: `--rule-form` is `+rule-form`
    **{form.flag.removeprefix("--"): {"answer_form": name} for name, form in FORMS.items()},
    "example": {"example": True},  # worked answers on made-up content, in the answer form's shape if it has one
    "minimal": {"profile": "minimal"},  # headers carry the document title only (handles kept)
    "notice-question": {"notice_placement": "question"},  # the notice after the sources, by the question
    "directive": {"notice_style": "directive"},  # the notice says what to do with the facts it states
    "authority-edges": {"order": "edges-authority"},  # current record on an edge, stale ones in the middle
    "compact": {"format": "compact"},  # fewer header and delimiter tokens
    "last-resort": {"abstain": "last-resort"},  # "I do not know" only when no source answers
    "withhold": {"conflict_policy": "withhold"},  # weak members of a decided conflict group left out
    "mention": {"conflict_policy": "withhold", "mention_withheld": True},  # withhold, saying what was left out
    "rule-first": {"rule_first": True},  # the current source's rule, with its handle, before any verdict
    "show-rule": {"show_rule": True},  # the assembler quotes the current source's sentence closest to the question
    "stated-exceptions": {"stated_exceptions": True},  # only an exception the source names changes its rule
    "covers": {"abstain": "covers"},  # "I do not know" only when no source covers the question
    "specific": {"abstain": "specific"},  # say the sources do not say, rather than carry a figure over
    "datamark": {"marking": "datamark"},  # spotlighting: a marker through every space of record text
    "datamark-flagged": {"on_flagged": "datamark"},  # the same, only in records the injection scan flags
    "redact-flagged": {"on_flagged": "redact"},  # the sentences the injection scan flags cut out (the default)
    "keep-flagged": {"on_flagged": "keep"},  # records the injection scan flags kept as they are (no defence)
}

#: The earlier default, pinned: the model names conflicts (`surface`), no answer form. The presets measured on it
#: are built on it, so a change of defaults never moves them.
_STRUCTURED = Layout(conflict_policy="surface", answer_form=None)

#: The named layouts (`Layout.preset`).
LAYOUTS: dict[str, Layout] = {
    "default": Layout(),
    "structured": _STRUCTURED,
    "original": replace(_STRUCTURED, format="text", profile="policy", order="edges", abstain="if-unanswered",
                        conflict_notice=True, on_flagged="keep"),
    "flat": replace(_STRUCTURED, format="flat", order="edges", on_flagged="keep"),
    "scaffold": _STRUCTURED.with_variants("reminder", "scaffold"),
    "conflict-form": _STRUCTURED.with_variants("conflict-form"),
    "decide": Layout(conflict_policy="withhold", answer_form=None),
    "decide-form": Layout(conflict_policy="withhold", answer_form="rule_form"),
    "small": Layout(format="flat", order="edges", conflict_policy="withhold", answer_form=None),
    "untrusted": Layout(marking="datamark"),
}
