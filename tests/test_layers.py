"""The import graph runs one way: retrieval is a leaf, and the HTTP front ends import each other only at the top."""

from __future__ import annotations

import ast
import sys
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


# --- no import inside a function exists only to break an import loop -------------------------------------------

PACKAGES = ("service", "retrieval", "slack")


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: set[str]) -> list[str]:
    """The crashdoc modules an import statement loads: the module named, and each name that is a submodule
    ("^pkg" where the package is only the one above the submodules taken)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = module.split(".")[: None if is_package else -1]
            parts = parts[: len(parts) - (node.level - 1)]
            base = ".".join([*parts, *([base] if base else [])])
        subs = [f"{base}.{a.name}" for a in node.names]
        # `from pkg import sub` takes a submodule: pkg is only the package above it
        names = [*(("^" + base) if all(s in known for s in subs) else base for _ in [0]), *subs]
    return [n for n in names if n.lstrip("^") in known]


def _graph() -> tuple[dict[str, set[str]], list[tuple[str, int, list[str]]]]:
    """Module-level imports (module -> modules it loads when imported, packages above included, TYPE_CHECKING
    blocks left out) and the imports inside functions: (module, line, targets)."""
    files = {_module_of(p): p for p in _files(*PACKAGES) if p.relative_to(REPO).parts[0] in PACKAGES}
    known = set(files)
    top: dict[str, set[str]] = {}
    inside: list[tuple[str, int, list[str]]] = []
    for module, path in files.items():
        is_package = path.name == "__init__.py"
        top[module] = set()

        def visit(node: ast.AST, in_function: bool, module: str = module, is_package: bool = is_package) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    continue
                if isinstance(child, ast.Import | ast.ImportFrom):
                    targets = _targets(child, module, is_package, known)
                    if in_function:
                        inside.append((module, child.lineno, [t for t in targets if not t.startswith("^")]))
                    else:
                        top[module].update(targets)
                visit(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef))

        visit(ast.parse(path.read_text(encoding="utf-8")), False)
    for targets in top.values():  # importing a.b.c first imports the packages a and a.b (marked with a "^")
        for name in list(targets):
            parts = name.lstrip("^").split(".")
            targets.update("^" + p for i in range(1, len(parts)) if (p := ".".join(parts[:i])) in known)
    return top, inside


def _loaded_by(start: str, top: dict[str, set[str]], already: set[str]) -> set[str]:
    """The modules that importing ``start`` imports by name at module level. The packages in ``already`` are
    being imported when the import runs: entering one as the package above a submodule loads nothing new."""
    seen: set[str] = set()
    entered = {start}
    todo = [start]
    while todo:
        for nxt in top.get(todo.pop(), ()):
            above = nxt.startswith("^")
            nxt = nxt.lstrip("^")
            if above and nxt in already:
                continue
            if not above:
                seen.add(nxt)
            if nxt not in already and nxt not in entered:
                entered.add(nxt)
                todo.append(nxt)
    return seen


def _loop_breakers() -> list[str]:
    top, inside = _graph()
    found = []
    for module, line, targets in inside:
        parts = module.split(".")
        being_imported = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}  # `module` and the packages above
        for target in targets:
            if target != module and module in _loaded_by(target, top, being_imported):
                found.append(f"{module}:{line} imports {target} in a function; at the top it would close a loop")
                break
    return found


def test_no_import_inside_a_function_only_breaks_a_loop():
    """An import moved into a function to break a loop hides a layering fault (issue 23): the two modules
    import each other. Imports in functions are allowed for start-up time (litellm, presidio, SQLAlchemy in
    a cold command), never to break a loop."""
    assert _loop_breakers() == []


def test_the_loop_check_finds_a_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The check itself can fail: two modules of a fake package that import each other, one in a function."""
    pkg = tmp_path / "service"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from service import b\n")
    (pkg / "b.py").write_text("def f():\n    from service import a\n    return a\n")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    assert _loop_breakers() == ["service.b:2 imports service.a in a function; at the top it would close a loop"]
