"""Tests that vary many options at once name them by their flat settings keys (the `report.settings` keys of
docs/options.md) and build the option groups here, through the public reader of those keys."""

from __future__ import annotations

from typing import Any

from evidencepack import Options

#: `assemble` keywords that are not settings keys.
PARAMS = frozenset({"as_of", "budget", "tokenizer", "model", "boundary_key", "count_cache", "options"})


def grouped(**kw: Any) -> dict[str, Any]:
    """`assemble` keyword arguments: the flat keys in `kw` as option groups, the other keywords as they are."""
    flat = {k: v for k, v in kw.items() if k not in PARAMS}
    return {**Options.kwargs_from_settings(flat), **{k: v for k, v in kw.items() if k in PARAMS}}
