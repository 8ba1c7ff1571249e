"""Options: every assembly argument, checked once and up front, before a single record is read.

`Options.build(**kwargs)` is the only place that validates arguments: unknown values, wrong types and
numbers that are not finite or out of range raise `OptionError` naming the option (never echoing a secret).
`Options.settings()` is the complete, JSON-ready record of what was asked for (it lands in
`report.settings`), and `Options.from_settings` reads it back, so an assembly can be re-run from its own
JSON: same records, same settings, same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from string import Template
from typing import Any

from .errors import OptionError, RecordError
from .passes.budget import Budget
from .passes.dedup import DEFAULT_THRESHOLD, EMBEDDING_CUTOFF
from .passes.order import strategies
from .records.record import SENSITIVITIES, When, parse_when
from .render import MARKINGS, PROFILES, resolve_profile
from .render.formats import Format, get_format
from .render.neutralise import DEFAULT_FRAME_LABELS, template_labels
from .render.prompts import ABSTAIN_RULES, CONFLICT_RULES, FLAT_USER_TEMPLATE, USER_TEMPLATE, _boundary_key
from .tokens.models import resolve_model
from .tokens.target import TargetModel
from .tokens.tokenizers import DEFAULT_CACHE, CountCache, Tokenizer, get_tokenizer

ON_INVALID = ("raise", "drop")
#: Where the conflict notice goes: above the first source, or after the last one, next to the question.
NOTICE_PLACEMENTS = ("sources", "question")
#: How the notice is worded: metadata facts only, or facts plus what to do with them.
NOTICE_STYLES = ("facts", "directive")
#: Prompt variants for models that do not follow the system prompt alone (see `render.guidance`).
GUIDANCE = ("reminder", "scaffold", "example", "conflict_form")


@dataclass(frozen=True)
class Options:
    """A validated assembly request, minus the records and the question."""

    as_of: When
    budget: Budget = field(default_factory=Budget)
    tokenizer: Tokenizer = field(default_factory=get_tokenizer)
    order: str = "edges-authority"
    format: str = "compact"
    profile: str | tuple[str, ...] = "policy"
    clearance: str = "internal"
    exclude_expired: bool = False
    exclude_not_yet_valid: bool = False
    exclude_superseded: bool = False
    dedup_threshold: float = DEFAULT_THRESHOLD
    embedding_cutoff: float | None = EMBEDDING_CUTOFF
    conflict_policy: str = "surface"
    abstain: str = "last-resort"
    conflict_notice: bool = True
    conflict_embedding_threshold: float | None = 0.9
    system_template: str | None = None
    handle_prefix: str = "S"
    boundary_key: bytes | None = field(default=None, repr=False)
    marking: str = "none"
    injection_threshold: float | None = None
    strict: bool = False
    on_invalid: str = "raise"
    notice_placement: str = "sources"
    notice_style: str = "facts"
    reminder: bool = False
    scaffold: bool = False
    example: bool = False
    conflict_form: bool = False
    neutralise_question: bool = True
    count_cache: CountCache = field(default=DEFAULT_CACHE, repr=False, compare=False)
    #: The target model (`evidencepack.tokens.models`): its tokenizer is `tokenizer`, and its chat framing is
    #: counted and reserved. None: the default tokenizer, no framing, and the count may differ.
    model: TargetModel | None = field(default=None, repr=False, compare=False)

    @classmethod
    def build(cls, *, as_of: Any, budget: Budget | None = None, tokenizer: str | Tokenizer | None = None,
              model: Any = None,
              profile: str | Sequence[str] = "policy", system_template: str | Template | None = None,
              boundary_key: bytes | str | None = None, count_cache: CountCache | None = None,
              **flags: Any) -> Options:
        """Check every argument; the keyword names are `assemble`'s."""
        unknown = set(flags) - {f.name for f in fields(cls)}
        if unknown:
            raise OptionError(f"unknown option(s): {', '.join(sorted(unknown))}")
        if as_of is None or (isinstance(as_of, str) and not as_of.strip()):
            raise OptionError("as_of is required: the date at which validity is judged (YYYY-MM-DD)")
        try:
            when = parse_when(as_of, field="as_of")
        except RecordError:
            raise OptionError("as_of must be an ISO date (YYYY-MM-DD) or datetime") from None
        if budget is None:
            budget = Budget()
        elif not isinstance(budget, Budget):
            raise OptionError(f"budget must be a Budget, got {type(budget).__name__}")
        if isinstance(system_template, Template):
            system_template = system_template.template
        if system_template is not None and not isinstance(system_template, str):
            raise OptionError(f"system_template must be a string, got {type(system_template).__name__}")
        if count_cache is not None and not isinstance(count_cache, CountCache):
            raise OptionError(f"count_cache must be a CountCache, got {type(count_cache).__name__}")
        if model is not None and tokenizer is not None:
            raise OptionError("give model= (its tokenizer and chat framing) or tokenizer=, not both")
        target = resolve_model(model) if model is not None else None
        opts = cls(as_of=when, budget=budget, tokenizer=target.tokenizer if target else get_tokenizer(tokenizer),
                   profile=_profile(profile), system_template=system_template, boundary_key=_key(boundary_key),
                   count_cache=count_cache or DEFAULT_CACHE, model=target, **flags)
        opts._check()
        return opts

    def _check(self) -> None:
        _choice("order", self.order, strategies())
        get_format(self.format)
        _choice("clearance", self.clearance, SENSITIVITIES)
        _choice("conflict_policy", self.conflict_policy, tuple(CONFLICT_RULES))
        _choice("abstain", self.abstain, tuple(ABSTAIN_RULES))
        _choice("marking", self.marking, MARKINGS)
        _choice("on_invalid", self.on_invalid, ON_INVALID)
        _choice("notice_placement", self.notice_placement, NOTICE_PLACEMENTS)
        _choice("notice_style", self.notice_style, NOTICE_STYLES)
        for name in ("exclude_expired", "exclude_not_yet_valid", "exclude_superseded", "conflict_notice", "strict",
                     "neutralise_question", *GUIDANCE):
            if not isinstance(getattr(self, name), bool):
                raise OptionError(f"{name} must be True or False, got {type(getattr(self, name)).__name__}")
        on = [name for name in GUIDANCE if getattr(self, name)]
        if on and not self.layout.has_blocks:
            raise OptionError(f"{', '.join(on)} need(s) a format with source blocks; {self.format!r} has none")
        if self.conflict_form:
            if self.scaffold:
                raise OptionError("scaffold and conflict_form are two answer forms: choose one")
            if not self.conflict_notice or (self.notice_placement, self.notice_style) != ("sources", "facts"):
                raise OptionError("conflict_form replaces the conflict notice with an answer form after the "
                                  "question: it needs conflict_notice=True and the default notice_placement "
                                  "and notice_style")
        _number("dedup_threshold", self.dedup_threshold, low=0.0, low_open=True)
        _number("embedding_cutoff", self.embedding_cutoff, low=-1.0, high=1.0, optional=True)
        _number("conflict_embedding_threshold", self.conflict_embedding_threshold, low=-1.0, high=1.0, optional=True)
        _number("injection_threshold", self.injection_threshold, low=0.0, high=1.0, optional=True)
        prefix = self.handle_prefix
        if not isinstance(prefix, str) or not prefix.isascii() or not prefix.isalpha() or len(prefix) > 8:
            raise OptionError("handle_prefix must be 1 to 8 ASCII letters")

    @property
    def layout(self) -> Format:
        return get_format(self.format)

    @property
    def fields(self) -> tuple[str, ...]:
        """Header fields; the flat baseline carries none."""
        return resolve_profile(self.profile) if self.layout.has_blocks else ()

    @property
    def frame_labels(self) -> tuple[str, ...]:
        """Line-start labels of the frame around the blocks (our templates and the caller's system
        template): record text, metadata and the question must not be able to imitate them."""
        own = template_labels(USER_TEMPLATE, FLAT_USER_TEMPLATE)
        custom = template_labels(self.system_template) if self.system_template is not None else ()
        return tuple(sorted({*DEFAULT_FRAME_LABELS, *own, *custom}))

    def count(self, text: str) -> int:
        return self.count_cache.count(self.tokenizer, text)

    def settings(self) -> dict[str, Any]:
        """Everything needed to re-run this assembly, JSON-ready. The boundary key is a secret: only
        whether one was given is recorded."""
        b = self.budget
        return {
            "as_of": self.as_of.isoformat(), "order": self.order, "format": self.format,
            "profile": self.profile if isinstance(self.profile, str) else list(self.profile),
            "clearance": self.clearance, "tokenizer": self.tokenizer.name,
            "model": (self.model.origin or self.model.name) if self.model is not None else None,
            "conflict_policy": self.conflict_policy, "abstain": self.abstain, "conflict_notice": self.conflict_notice,
            "conflict_embedding_threshold": self.conflict_embedding_threshold, "marking": self.marking,
            "fill_gaps": b.fill_gaps, "max_records": b.max_records, "context_window": b.context_window,
            "output_reserve": b.output_reserve, "safety_margin": b.safety_margin,
            "exclude_expired": self.exclude_expired, "exclude_not_yet_valid": self.exclude_not_yet_valid,
            "exclude_superseded": self.exclude_superseded, "dedup_threshold": self.dedup_threshold,
            "embedding_cutoff": self.embedding_cutoff, "system_template": self.system_template,
            "handle_prefix": self.handle_prefix, "injection_threshold": self.injection_threshold,
            "strict": self.strict, "on_invalid": self.on_invalid, "neutralise_question": self.neutralise_question,
            "boundary_key_given": self.boundary_key is not None,
            "notice_placement": self.notice_placement, "notice_style": self.notice_style,
            "reminder": self.reminder, "scaffold": self.scaffold, "example": self.example,
            "conflict_form": self.conflict_form,
        }

    @staticmethod
    def kwargs_from_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
        """`assemble` keyword arguments that reproduce `settings` (give `boundary_key` and, for a custom
        tokenizer or model object, `tokenizer` or `model` yourself). A named model brings its tokenizer."""
        s = dict(settings)
        s.pop("boundary_key_given", None)
        s.pop("tokenizer" if s.get("model") is not None else "model", None)
        budget = Budget(**{k: s.pop(k) for k in ("context_window", "output_reserve", "safety_margin",
                                                 "max_records", "fill_gaps") if k in s})
        if isinstance(s.get("profile"), list):
            s["profile"] = tuple(s["profile"])
        return {"budget": budget, **s}


def _profile(profile: Any) -> str | tuple[str, ...]:
    if isinstance(profile, str):
        if profile not in PROFILES:
            raise OptionError(f"unknown field profile {profile!r} (one of {', '.join(PROFILES)}, or a list of "
                              "field names)")
        return profile
    if isinstance(profile, Sequence) and profile and all(isinstance(f, str) and f.strip() for f in profile):
        return tuple(profile)
    raise OptionError("profile must be a profile name or a non-empty list of field names")


def _key(key: Any) -> bytes | None:
    """The caller's key, checked now (type and length); without one, the environment's or the process's
    key is checked the same way, so a bad key fails before any record is read."""
    checked = _boundary_key(key)
    return None if key is None else checked


def _choice(name: str, value: Any, allowed: Sequence[str]) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise OptionError(f"unknown {name} {value!r} (one of {', '.join(allowed)})")


def _number(name: str, value: Any, *, low: float | None = None, high: float | None = None,
            low_open: bool = False, optional: bool = False) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise OptionError(f"{name} must be a number, got {type(value).__name__}")
    try:
        number = float(value)
    except OverflowError:
        raise OptionError(f"{name} must be a finite number") from None
    if not math.isfinite(number):
        raise OptionError(f"{name} must be a finite number")
    if low is not None and (number < low or (low_open and number == low)):
        raise OptionError(f"{name} must be {'>' if low_open else '>='} {low:g}")
    if high is not None and number > high:
        raise OptionError(f"{name} must be <= {high:g}")

