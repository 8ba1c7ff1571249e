"""Options: an assembly request minus the records and the question, as four typed groups and a few top-level
settings, each checked when it is made, before a single record is read.

`Budget` (passes/budget.py), `Admission` (passes/admit.py), `Dedup` (passes/dedup.py) and `Layout`
(render/layout.py) each belong to the pass that reads them and validate themselves (`OptionError` naming the
option; `BudgetError` for a budget figure). `Options` composes them with what belongs to no pass: `as_of`, the
tokenizer or target model, the boundary key and the count cache.

Every option field carries its metadata (`optspec.Spec`): `settings()` (the flat, JSON-ready `report.settings`),
`from_settings` (the replay: same records, same settings, same bytes), the deprecated flat keyword names of
`assemble`, the command-line flags and docs/options.md are all generated from it.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields, replace
from string import Template
from typing import Any, TypedDict

from .errors import OptionError, RecordError
from .optspec import SAME, Spec, default_of, option, specs
from .passes.admit import ON_INVALID, Admission
from .passes.budget import Budget
from .passes.dedup import Dedup
from .records.record import When, parse_when
from .render.layout import LAYOUTS, NOTICE_PLACEMENTS, NOTICE_STYLES, VARIANTS, Layout
from .render.prompts import BOUNDARY_KEY_ENV, checked_boundary_key
from .tokens.models import resolve_model
from .tokens.target import TargetModel
from .tokens.tokenizers import DEFAULT_CACHE, CountCache, Tokenizer, get_tokenizer

__all__ = ["LAYOUTS", "NOTICE_PLACEMENTS", "NOTICE_STYLES", "ON_INVALID", "VARIANTS", "Admission", "Budget", "Dedup",
           "LegacyOptions", "Layout", "OptionRow", "Options", "option_rows", "reference_markdown"]

#: The option groups in the order `Options` holds them: (the `assemble` keyword, the class).
GROUPS: tuple[tuple[str, type], ...] = (("budget", Budget), ("admission", Admission), ("dedup", Dedup),
                                        ("layout", Layout))

#: The order of the `report.settings` keys in the 1.x JSON contract, kept so the bytes do not move; keys added
#: later follow in field order (adding an option does not touch this list).
SETTINGS_ORDER = (
    "as_of", "order", "format", "profile", "clearance", "tokenizer", "model", "conflict_policy", "abstain",
    "conflict_notice", "conflict_embedding_threshold", "marking", "fill_gaps", "max_records", "context_window",
    "output_reserve", "safety_margin", "exclude_expired", "exclude_not_yet_valid", "exclude_superseded",
    "dedup_threshold", "embedding_cutoff", "system_template", "handle_prefix", "injection_threshold", "strict",
    "on_invalid", "neutralise_question", "boundary_key_given", "notice_placement", "notice_style", "reminder",
    "scaffold", "example", "conflict_form",
)


class LegacyOptions(TypedDict, total=False):
    """The flat keyword names `assemble` took before the option groups (deprecated, accepted for one release
    with a `DeprecationWarning`). Frozen: a new option never gets a flat keyword."""

    order: str
    format: str
    profile: str | Sequence[str]
    clearance: str
    exclude_expired: bool
    exclude_not_yet_valid: bool
    exclude_superseded: bool
    dedup_threshold: float
    embedding_cutoff: float | None
    conflict_policy: str
    abstain: str
    conflict_notice: bool
    conflict_embedding_threshold: float | None
    system_template: str | Template | None
    handle_prefix: str
    marking: str
    injection_threshold: float | None
    strict: bool
    on_invalid: str
    notice_placement: str
    notice_style: str
    reminder: bool
    scaffold: bool
    example: bool
    conflict_form: bool
    neutralise_question: bool


def _when(value: Any) -> When:
    if value is None or (isinstance(value, str) and not value.strip()):
        raise OptionError("as_of is required: the date at which validity is judged (YYYY-MM-DD)")
    try:
        return parse_when(value, field="as_of")
    except RecordError:
        raise OptionError("as_of must be an ISO date (YYYY-MM-DD) or datetime") from None


def _key(key: Any) -> bytes | None:
    """The caller's key, checked now (type and length); without one, the environment's or the process's key is
    checked the same way, so a bad key fails before any record is read."""
    checked = checked_boundary_key(key)
    return None if key is None else checked


@dataclass(frozen=True)
class Options:
    """A validated assembly request, minus the records and the question."""

    as_of: When = option(help="the date at which validity is judged (YYYY-MM-DD); the command line's default is "
                         "today", cli="special", write=lambda v: {"as_of": v.isoformat()})
    budget: Budget = field(default_factory=Budget)
    admission: Admission = field(default_factory=Admission)
    dedup: Dedup = field(default_factory=Dedup)
    layout: Layout = field(default_factory=Layout)
    tokenizer: Tokenizer = option(help="o200k_base (default), cl100k_base, a model name such as gpt-4o, or a "
                                  "tokenizer.json", factory=get_tokenizer, write=lambda v: {"tokenizer": v.name})
    #: The target model (`evidencepack.tokens.models`): its tokenizer is `tokenizer`, and its chat framing is
    #: counted and reserved. None: the default tokenizer, no framing, and the count may differ.
    model: TargetModel | None = option(
        None, "the target model, counted exactly with its tokenizer and chat framing: an OpenAI model name "
        "(gpt-4o, gpt-4.1-mini, ...), a .gguf file, or a Hugging Face model directory or tokenizer.json",
        compare=False, repr=False, write=lambda v: {"model": (v.origin or v.name) if v is not None else None})
    boundary_key: bytes | None = option(
        None, f"the secret key of the boundary code (at least 16 bytes); on the command line only from "
        f"${BOUNDARY_KEY_ENV}, never argv; recorded only as whether one was given", cli="env", repr=False,
        secret=True, write=lambda v: {"boundary_key_given": v is not None}, keys=("boundary_key_given",))
    count_cache: CountCache = field(default=DEFAULT_CACHE, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "as_of", _when(self.as_of))
        for name, cls in GROUPS:
            if not isinstance(getattr(self, name), cls):
                raise OptionError(f"{name} must be a {cls.__name__}, got {type(getattr(self, name)).__name__}")
        if not isinstance(self.count_cache, CountCache):
            raise OptionError(f"count_cache must be a CountCache, got {type(self.count_cache).__name__}")

    @classmethod
    def build(cls, *, as_of: Any = None, budget: Budget | None = None, admission: Admission | None = None,
              dedup: Dedup | None = None, layout: Layout | None = None, tokenizer: str | Tokenizer | None = None,
              model: Any = None, boundary_key: bytes | str | None = None, count_cache: CountCache | None = None,
              options: Options | None = None, **legacy: Any) -> Options:
        """Check every argument; the keyword names are `assemble`'s. Arguments given replace those of
        `options`; the deprecated flat keywords replace single fields of their group."""
        if options is not None and not isinstance(options, Options):
            raise OptionError(f"options must be an Options, got {type(options).__name__}")
        base = options
        given = {"budget": budget, "admission": admission, "dedup": dedup, "layout": layout}
        groups = _legacy(_groups(base, given), legacy)
        when = base.as_of if as_of is None and base is not None else _when(as_of)
        target, tok = _counting(base, tokenizer, model)
        groups["budget"] = groups["budget"].for_model(target)  # no window given: the model's (issue 26)
        key = _key(boundary_key) if boundary_key is not None else base.boundary_key if base else _key(None)
        cache = count_cache or (base.count_cache if base else DEFAULT_CACHE)
        return cls(as_of=when, tokenizer=tok, model=target, boundary_key=key, count_cache=cache, **groups)

    def count(self, text: str) -> int:
        return self.count_cache.count(self.tokenizer, text)

    def settings(self) -> dict[str, Any]:
        """Everything needed to re-run this assembly, JSON-ready, in the flat keys of `report.settings`. The
        boundary key is a secret: only whether one was given is recorded."""
        raw: dict[str, Any] = {}
        for owner, f, spec in _option_fields(self):
            value = spec.record(owner) if spec.record else getattr(owner, f.name)
            raw.update(spec.write(value) if spec.write else {spec.key or f.name: value})
        ordered = {k: raw.pop(k) for k in SETTINGS_ORDER if k in raw}
        return {**ordered, **raw}

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any], *, boundary_key: bytes | str | None = None,
                      tokenizer: str | Tokenizer | None = None, model: Any = None,
                      count_cache: CountCache | None = None) -> Options:
        """The options `settings` (a `report.settings`) record; give `boundary_key`, and for a custom tokenizer
        or model object `tokenizer` or `model`, yourself. A named model brings its tokenizer."""
        kwargs = cls.kwargs_from_settings(settings)
        if model is not None or tokenizer is not None:
            kwargs.update(model=model, tokenizer=tokenizer)
        return cls.build(**kwargs, boundary_key=boundary_key, count_cache=count_cache)

    @staticmethod
    def kwargs_from_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
        """`assemble` keyword arguments that reproduce `settings` (give `boundary_key` and, for a custom
        tokenizer or model object, `tokenizer` or `model` yourself). A named model brings its tokenizer. Keys
        left out take their defaults, so a partial mapping of flat keys (a Haystack component's JSON options)
        reads the same way; an unknown key is an error."""
        if not isinstance(settings, Mapping):
            raise OptionError(f"settings must be a mapping, got {type(settings).__name__}")
        known = {k for _, f, s in _option_fields(Options) for k in s.settings_keys(f.name)}
        unknown = sorted(set(settings) - known)
        if unknown:
            raise OptionError(f"unknown option(s): {', '.join(map(str, unknown))}")
        out: dict[str, Any] = {name: _read_group(cls_(), settings) for name, cls_ in GROUPS}
        if "as_of" in settings:
            out["as_of"] = settings["as_of"]
        if settings.get("model") is not None:
            out["model"] = settings["model"]
        elif settings.get("tokenizer") is not None:
            out["tokenizer"] = settings["tokenizer"]
        return out


def _groups(base: Options | None, given: Mapping[str, Any]) -> dict[str, Any]:
    """Each group: the one given, else the base options' one, else the defaults."""
    groups: dict[str, Any] = {}
    for name, group_cls in GROUPS:
        value = given[name]
        if value is not None and not isinstance(value, group_cls):
            raise OptionError(f"{name} must be a {group_cls.__name__}, got {type(value).__name__}")
        groups[name] = value if value is not None else getattr(base, name) if base else group_cls()
    return groups


def _counting(base: Options | None, tokenizer: str | Tokenizer | None, model: Any
              ) -> tuple[TargetModel | None, Tokenizer]:
    """The target model (None when none is named) and the tokenizer that counts."""
    if model is not None and tokenizer is not None:
        raise OptionError("give model= (its tokenizer and chat framing) or tokenizer=, not both")
    if model is not None:
        target = resolve_model(model)
        return target, target.tokenizer
    if tokenizer is not None or base is None:
        return None, get_tokenizer(tokenizer)
    return base.model, base.tokenizer


def _option_fields(options: Options | type[Options]) -> list[tuple[Any, Any, Spec]]:
    """(owner, field, spec) for every option, in `Options` order: top-level ones and each group's fields."""
    out: list[tuple[Any, Any, Spec]] = []
    for f in fields(Options):
        if "option" in f.metadata:
            out.append((options, f, f.metadata["option"]))
        group = dict(GROUPS).get(f.name)
        if group is not None:
            owner = getattr(options, f.name) if isinstance(options, Options) else group
            out += [(owner, gf, spec) for gf, spec in specs(group)]
    return out


def _read_group(group: Any, mapping: Mapping[str, Any]) -> Any:
    """`group` with the fields `mapping` gives in flat settings keys replaced (validated again)."""
    changes: dict[str, Any] = {}
    for f, spec in specs(group):
        value = spec.read(mapping) if spec.read else mapping.get(spec.key or f.name, MISSING)
        if value is not MISSING:
            changes[f.name] = value
    return replace(group, **changes) if changes else group


def _legacy(groups: dict[str, Any], legacy: Mapping[str, Any]) -> dict[str, Any]:
    """Apply the deprecated flat keywords to their groups, one `DeprecationWarning` per name given."""
    if not legacy:
        return groups
    where = {k: (name, f.name) for name, cls in GROUPS if name != "budget" for f, s in specs(cls)
             for k in s.settings_keys(f.name)}
    unknown = sorted(set(legacy) - (set(where) & set(LegacyOptions.__annotations__)))
    if unknown:
        raise OptionError(f"unknown option(s): {', '.join(unknown)}")
    for key in legacy:
        name, attr = where[key]
        value = legacy[key]
        if attr == "answer_form":
            new = f"layout=Layout(answer_form={key!r})" if value else "layout=Layout(answer_form=None)"
        else:
            new = f"{name}={dict(GROUPS)[name].__name__}({attr}=...)"
        warnings.warn(f"assemble({key}=...) is deprecated and will be removed in the next release: use {new}",
                      DeprecationWarning, stacklevel=4)
    return {name: _read_group(group, legacy) if name != "budget" else group for name, group in groups.items()}


# -- one table of every option: the command line and docs/options.md read it ---------------------------------


@dataclass(frozen=True)
class OptionRow:
    """One option: the `assemble` keyword holding it (`""` for a top-level one), its field name, its metadata
    and its library default."""

    group: str
    name: str
    spec: Spec
    default: Any

    @property
    def spelling(self) -> str:
        """How a Python caller spells it: `layout=Layout(order=...)` or `as_of=...`."""
        if not self.group:
            return f"{self.name}="
        return f"{self.group}={dict(GROUPS)[self.group].__name__}({self.name}=...)"


def option_rows() -> list[OptionRow]:
    rows = []
    for owner, f, spec in _option_fields(Options):
        group = "" if owner is Options else next(n for n, c in GROUPS if c is owner)
        rows.append(OptionRow(group, f.name, spec, default_of(f)))
    return rows


def _show(value: Any) -> str:
    if value is MISSING:
        return "required"
    if isinstance(value, Tokenizer):
        return f"`{value.name}`"
    return f"`{value!r}`" if value is not None else "none"


def _flags(row: OptionRow) -> str:
    spec = row.spec
    if spec.cli == "env":
        return f"`${BOUNDARY_KEY_ENV}` (environment only)"
    if spec.cli == "consts":
        return ", ".join(f"`{flag}`" for flag, _, _ in spec.consts)
    arg = {"switch": "", "negate": "", "file": " FILE", "profile": " PROFILE"}.get(spec.cli, f" {row.name.upper()}")
    if spec.choices is not None:
        arg = " {" + ",".join(spec.choices()) + "}"
    return f"`{spec.flag_name(row.name)}{arg}`"


def reference_markdown() -> str:
    """docs/options.md: every option, generated from the field metadata (`python scripts/options_doc.py`)."""
    lines = ["# Assembly options", "",
             "Generated from the option fields (`src/evidencepack/optspec.py` metadata) by "
             "`python scripts/options_doc.py`; a test checks it is up to date. Do not edit by hand.", "",
             "Python callers pass the groups to `assemble(records, question, as_of=..., budget=Budget(...), "
             "admission=Admission(...), dedup=Dedup(...), layout=Layout(...))`, or one `options=Options(...)`; "
             "`report.settings` records every option under its settings key, and `Options.from_settings` reads "
             "it back. Named layouts: " + ", ".join(f"`Layout.preset({n!r})`" for n in LAYOUTS) + "; on the command "
             "line `--layout NAME` starts from one, and the layout flags given change it.", ""]
    titles = {"": "Request", "budget": "Budget (passes/budget.py)", "admission": "Admission (passes/admit.py)",
              "dedup": "Dedup (passes/dedup.py)", "layout": "Layout (render/layout.py)"}
    rows = option_rows()
    for group in ("", *(n for n, _ in GROUPS)):
        lines += [f"## {titles[group]}", "", "| Python | settings key | command line | default | what it does |",
                  "|---|---|---|---|---|"]
        for row in (r for r in rows if r.group == group):
            keys = ", ".join(f"`{k}`" for k in row.spec.settings_keys(row.name))
            cli_default = "" if row.spec.cli_default is SAME else \
                f" (command line: {_show(row.spec.cli_default)})"
            help_ = row.spec.help.replace("|", "\\|")
            lines.append(f"| `{row.spelling}` | {keys} | {_flags(row)} | {_show(row.default)}{cli_default} | "
                         f"{help_} |")
        lines.append("")
    return "\n".join(lines)

