"""Option metadata: the one place an assembly option is described.

Every option is a field of a small frozen group (`Budget`, `Admission`, `Dedup`, `Layout`, and `Options` for
what belongs to no pass), declared with `option(default, help, ...)`. Its metadata (`Spec`) is what the rest
reads: `Options.settings()` (the flat `report.settings` keys), `Options.from_settings` (the replay), the
deprecated flat keyword names of `assemble`, the `evidencepack assemble` flags and the generated reference in
docs/options.md. Adding an option is one field here plus one test.

This module imports nothing of the package but its errors, so any pass can declare its group with it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any, Literal

from .errors import OptionError

#: How the command line reads an option: `value` (one argument, parsed by `parse`), `switch` (a flag that turns
#: it on), `negate` (a flag that turns it off), `consts` (one flag per value, see `Spec.consts`), `file` (a
#: path whose text is the value), `profile` (a profile name or comma-separated fields), `env` (never on argv:
#: a secret, read from the environment), `special` (the CLI reads it its own way: `--as-of`).
CliKind = Literal["value", "switch", "negate", "consts", "file", "profile", "env", "special"]
SAME: Any = object()  # `Spec.cli_default`: the command line's default is the library's


@dataclass(frozen=True)
class Spec:
    """What an option is called where, and how the command line reads it."""

    help: str
    key: str = ""  # the `report.settings` key (and the deprecated `assemble` keyword); "" = the field name
    flag: str = ""  # the `evidencepack assemble` flag; "" = `--` and the field name with dashes
    cli: CliKind = "value"
    parse: Callable[[str], Any] | None = None  # argparse `type` for `value`
    choices: Callable[[], Sequence[str]] | None = None  # the allowed values (read when the parser is built)
    cli_default: Any = SAME  # the command line's default, when it differs from the library's
    #: For `consts`: (flag, value, help) per flag; the flags exclude one another.
    consts: tuple[tuple[str, Any, str], ...] = ()
    #: The settings this option writes, when it is not one key holding its value (`answer_form` writes the two
    #: 1.x booleans `scaffold` and `conflict_form`); `read` is the inverse (MISSING when none of its keys is
    #: given). Both also serve the deprecated flat keywords of `assemble`.
    write: Callable[[Any], dict[str, Any]] | None = None
    read: Callable[[Mapping[str, Any]], Any] | None = None
    keys: tuple[str, ...] = ()  # the settings keys `write` produces (for the docs and the legacy names)
    #: The value the settings record, read from the whole group, when it is not the field's own: a default that
    #: depends on another option (`answer_form="auto"`) is recorded as what it came to, so a replay is exact.
    record: Callable[[Any], Any] | None = None
    secret: bool = False  # never recorded: settings say only whether one was given
    flag_help: str = ""  # the flag's help when it differs from the option's (a `negate` flag says what it turns off)

    def settings_keys(self, name: str) -> tuple[str, ...]:
        return self.keys or (self.key or name,)

    def flag_name(self, name: str) -> str:
        return self.flag or "--" + (self.key or name).replace("_", "-")


def option(default: Any = MISSING, help: str = "", *, factory: Callable[[], Any] | None = None,
           compare: bool = True, repr: bool = True, **spec: Any) -> Any:
    """A dataclass field carrying its `Spec`."""
    meta = {"option": Spec(help, **spec)}
    if factory is not None:
        return field(default_factory=factory, metadata=meta, compare=compare, repr=repr)
    return field(default=default, metadata=meta, compare=compare, repr=repr)


def specs(group: type | object) -> list[tuple[Field[Any], Spec]]:
    """The option fields of a group class, in declaration order."""
    return [(f, f.metadata["option"]) for f in fields(group)  # type: ignore[arg-type]
            if "option" in f.metadata]


def default_of(f: Field[Any]) -> Any:
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    return MISSING


# -- checks every group uses ------------------------------------------------------------------------------


def check_choice(name: str, value: Any, allowed: Sequence[str]) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise OptionError(f"unknown {name} {value!r} (one of {', '.join(allowed)})")


def check_bool(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise OptionError(f"{name} must be True or False, got {type(value).__name__}")


def check_number(name: str, value: Any, *, low: float | None = None, high: float | None = None,
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


def optional_float(text: str) -> float | None:
    """A command-line number, or `none` for an option that None switches off."""
    return None if text.strip().lower() == "none" else float(text)
