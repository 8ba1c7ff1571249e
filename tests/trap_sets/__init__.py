"""The trap sets, one data module each: the balanced ones (as many "yes" as "no" answers, `BalancedShape`) and the
older ones (`OlderShape`). A new set is one module here and its name in one of these tuples."""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

BALANCED = ("holdout5", "holdout6", "holdout7", "holdout8", "holdout9", "holdout10", "holdout11", "holdout12",
            "holdout13")
OLDER = ("holdout3", "holdout4", "holdout_it")


def load(names: tuple[str, ...]) -> dict[str, ModuleType]:
    """The named set modules, by name."""
    return {name: import_module(f"trap_sets.{name}") for name in names}
