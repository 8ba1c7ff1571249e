"""The package's shape, checked: no import cycle anywhere (imports inside functions included), the citations
package layered in one direction, and the complexity count itself (the limit is held by
test_complexity_limit.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from complexity import complexity
from import_graph import cycles, graph


def test_no_import_cycle_in_the_package() -> None:
    """Edges are every import that can run, at module level or inside a function (see import_graph.py)."""
    found = cycles(graph())
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_citations_modules_import_in_one_direction() -> None:
    """The citations package is layered: grammar and text first, then values and attribution, then validation
    and what acts on a verdict. Nothing below `validate` imports it, and nothing imports the package itself."""
    g = graph()
    inside = {m: {d for d in deps if d.startswith("evidencepack.citations")}
              for m, deps in g.items() if m.startswith("evidencepack.citations.")}
    below_validate = ["handles", "markdown", "model", "severities", "sentences", "parse", "source", "values",
                      "attribution"]
    for name in below_validate:
        deps = inside[f"evidencepack.citations.{name}"]
        assert not deps & {"evidencepack.citations", "evidencepack.citations.validate"}, (name, deps)
    assert all("evidencepack.citations" not in deps for deps in inside.values())


def test_the_graph_sees_imports_inside_functions(tmp_path: Path) -> None:
    pkg = tmp_path / "evidencepack"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .a import x\n    return x\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import x\n")
    g = graph(tmp_path)
    assert g["evidencepack.a"] == {"evidencepack.b"} and g["evidencepack.b"] == {"evidencepack.a"}
    assert g["evidencepack.c"] == set()  # type-checking imports never run
    assert cycles(g) == [["evidencepack.a", "evidencepack.b"]]


@pytest.mark.parametrize(("source", "want"), [
    ("def f(x):\n    return x\n", 1),
    ("def f(x):\n    if x and x > 1 or x < -1:\n        return 1\n    elif x:\n        return 2\n    return 3\n", 5),
    ("def f(xs):\n    return [x for x in xs if x]\n", 3),
    ("def f(x):\n    try:\n        pass\n    except ValueError:\n        pass\n"
     "    except KeyError:\n        pass\n", 3),
    ("def f(x):\n    return 1 if x else 2\n", 2),
])
def test_complexity_counts_as_radon_does(source: str, want: int) -> None:
    import ast

    (fn,) = ast.parse(source).body
    assert complexity(fn) == want
