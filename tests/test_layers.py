"""The import graph runs one way: retrieval is a leaf, and the HTTP front ends import each other only at the top."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO

FRONT_ENDS = ("service/api", "service/web", "service/slack", "service/app.py")


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(module imported, inside a function?) for every import in ``path``."""
    out: list[tuple[str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.ImportFrom) and child.module:
                out.append((child.module, in_function))
            elif isinstance(child, ast.Import):
                out.extend((alias.name, in_function) for alias in child.names)
            visit(child, inner)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return out


def _files(*where: str) -> list[Path]:
    return sorted(p for w in where for p in ([REPO / w] if w.endswith(".py") else (REPO / w).rglob("*.py")))


@pytest.mark.parametrize("path", _files("retrieval"), ids=lambda p: str(p.relative_to(REPO)))
def test_retrieval_imports_nothing_from_service(path: Path):
    assert [m for m, _ in _imports(path) if m == "service" or m.startswith("service.")] == []


@pytest.mark.parametrize("path", _files(*FRONT_ENDS), ids=lambda p: str(p.relative_to(REPO)))
def test_the_front_ends_import_crashdoc_modules_at_the_top(path: Path):
    deferred = [m for m, inside in _imports(path) if inside and (m.startswith(("service", "retrieval")))]
    assert deferred == [], f"{path.name} imports {deferred} inside a function"
