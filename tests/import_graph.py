"""The import graph of src/evidencepack, read with `ast`: module-level imports AND imports inside functions.

An edge `a -> b` means module `a` imports module `b` somewhere in its source (`import b`, `from b import x`,
`from . import b`, relative forms resolved). `from pkg import name` is an edge to `pkg.name` when that is a
module of the package, else to `pkg`. Imports under `if TYPE_CHECKING:` are left out (they never run). The
implicit import of a parent package (importing `a.b` runs `a/__init__.py`) is not an edge: counting it would
make every package with an `__init__` that re-exports its submodules a cycle by construction.

Run as a script to print the cycles: `python tests/import_graph.py [package-prefix]`.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "evidencepack"


def modules(src: Path = SRC, package: str = PACKAGE) -> dict[str, Path]:
    """Dotted name -> file for every module of the package."""
    out: dict[str, Path] = {}
    for path in sorted((src / package).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run, at any depth (functions, methods, branches)."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def graph(src: Path = SRC, package: str = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package modules it imports."""
    mods = modules(src, package)
    out: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        is_pkg = path.name == "__init__.py"
        here = name.split(".") if is_pkg else name.split(".")[:-1]
        for node in _imports(ast.parse(path.read_text("utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = here[: len(here) - node.level + 1] if node.level else []
                mod = ".".join([*base, *(node.module.split(".") if node.module else [])])
                targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in mods else mod for a in node.names]
            for t in targets:
                while t and t not in mods:  # `import a.b.c` of a name inside a module: the module
                    t = t.rpartition(".")[0]
                if t and t != name:
                    out[name].add(t)
    return out


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted; sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return sorted(found)


if __name__ == "__main__":
    prefix = sys.argv[1] if len(sys.argv) > 1 else PACKAGE
    g = graph()
    for m in sorted(g):
        if m.startswith(prefix):
            print(m, "->", ", ".join(sorted(d for d in g[m] if d.startswith(prefix))) or "-")
    print("cycles:")
    for c in cycles(g):
        print("  ", " <-> ".join(c))
