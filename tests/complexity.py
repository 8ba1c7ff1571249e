"""Cyclomatic complexity of functions, counted as radon counts it (radon is not a dependency): 1, plus one for
each `if`/`elif`, conditional expression, loop (and its `else`), `except` (and a `try`'s `else`), `case`,
`assert`, boolean operator beyond the first operand, and comprehension `for`/`if`. A nested function or lambda
counts toward the function that holds it (stricter than radon, which reports closures apart).

Run as a script to list the functions above a threshold: `python tests/complexity.py PATH... [--over N]`.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def complexity(node: ast.AST) -> int:
    total = 1
    for n in ast.walk(node):
        if n is node:
            continue
        if isinstance(n, ast.If | ast.IfExp | ast.Assert):
            total += 1
        elif isinstance(n, ast.For | ast.AsyncFor | ast.While):
            total += 1 + bool(n.orelse)
        elif isinstance(n, ast.Try):
            total += len(n.handlers) + bool(n.orelse)
        elif isinstance(n, ast.BoolOp):
            total += len(n.values) - 1
        elif isinstance(n, ast.comprehension):
            total += 1 + len(n.ifs)
        elif isinstance(n, ast.match_case):
            total += 1
    return total


def functions(path: Path) -> list[tuple[str, int, int]]:
    """(qualified name, line, complexity) of every function and method in a file, outermost only."""
    tree = ast.parse(path.read_text("utf-8"))
    out: list[tuple[str, int, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                out.append((prefix + child.name, child.lineno, complexity(child)))
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")

    visit(tree, "")
    return out


if __name__ == "__main__":
    args = sys.argv[1:]
    over = 0
    if "--over" in args:
        i = args.index("--over")
        over = int(args[i + 1])
        del args[i:i + 2]
    files = [f for a in args for f in (sorted(Path(a).rglob("*.py")) if Path(a).is_dir() else [Path(a)])]
    rows = [(c, f"{f}:{line} {name}") for f in files for name, line, c in functions(f) if c > over]
    for c, where in sorted(rows, reverse=True):
        print(f"{c:3}  {where}")
