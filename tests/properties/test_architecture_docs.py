"""docs/architecture.md's worked examples run: adding a format, an order, a layout preset, an option and a
finding kind is shown there in code, and that code must keep working. Each block runs in a fresh namespace;
the registries it changes are restored afterwards, so no other test sees the example format or order."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evidencepack.passes import order
from evidencepack.render import formats

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text("utf-8"), re.DOTALL)


def test_the_page_shows_every_kind_of_addition() -> None:
    text = DOC.read_text("utf-8")
    for heading in ("### A block format", "### An order", "### A layout preset", "### An option",
                    "### A finding kind"):
        assert heading in text
    assert len(BLOCKS) == 5


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i + 1}" for i in range(len(BLOCKS))])
def test_worked_example_runs(code: str) -> None:
    saved_formats, saved_orders = dict(formats._REGISTRY), dict(order._REGISTRY)
    try:
        exec(compile(code, str(DOC), "exec"), {})
    finally:
        formats._REGISTRY.clear()
        formats._REGISTRY.update(saved_formats)
        formats._delimiters.cache_clear()
        order._REGISTRY.clear()
        order._REGISTRY.update(saved_orders)
