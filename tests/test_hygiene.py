"""The house kept clean: no assert that cannot fail, no definition that nothing uses."""

from __future__ import annotations

import ast
import builtins
import re
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import REPO

TEST_FILES = sorted((REPO / "tests").rglob("test_*.py"))


def _module_names(tree: ast.Module) -> set[str]:
    """Names a file binds to imported modules (``import re``, ``import numpy as np``)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def constant_asserts(source: str) -> list[int]:
    """Lines of asserts whose outcome depends on nothing the test computed: only literals, modules and builtins."""
    tree = ast.parse(source)
    fixed = _module_names(tree) | set(dir(builtins))
    out: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            names = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
            if names <= fixed and not (isinstance(node.test, ast.Constant) and not node.test.value):  # `assert False` fails
                out.append(node.lineno)
    return out


@pytest.mark.parametrize(
    ("source", "flagged"),
    [
        ('import re\nassert re.search("x", "x")\n', [2]),  # the assert tests/test_rules.py once had
        ("assert 1 + 1 == 2\n", [1]),
        ('assert len("abc") == 3\n', [1]),
        ("import re\ndef t(line):\n    assert re.search('x', line)\n", []),
        ("def t(index):\n    assert index.candidates('nothing') == [1]\n", []),
        ("assert False, 'unreachable'\n", []),
    ],
)
def test_constant_asserts_are_found(source: str, flagged: list[int]):
    assert constant_asserts(source) == flagged


@pytest.mark.parametrize("path", TEST_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_assert_in_the_suite_is_constant(path: Path):
    assert constant_asserts(path.read_text(encoding="utf-8")) == []


# ---------------------------------------------------------------- dead code

PRODUCT = sorted([*(REPO / "service").rglob("*.py"), *(REPO / "retrieval").rglob("*.py")])
# Where a definition may be used: the code, its tests, benchmarks and eval tools, templates, prompts, migrations.
USERS = sorted({*PRODUCT, *(REPO / "tests").rglob("*.py"), *(REPO / "benchmarks").rglob("*.py"),
                *(REPO / "evals" / "generators").rglob("*.py"), *(REPO / "service" / "web" / "templates").rglob("*.html"),
                *(REPO / "prompts").glob("*.j2"), REPO / "pyproject.toml"})


def unused_definitions(product: dict[str, str], users: list[str]) -> list[str]:
    """``file: name`` of each module-level function, class or constant named nowhere but where it is defined.

    A decorated function is used by its decorator (a route, a fixture), so it does not count."""
    named = Counter(w for text in users for w in re.findall(r"[A-Za-z_]\w*", text))
    out: list[str] = []
    for where, source in product.items():
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names = [] if getattr(node, "decorator_list", None) and not isinstance(node, ast.ClassDef) else [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id]
            else:
                names = []
            out += [f"{where}: {n}" for n in names if not n.startswith("__") and named[n] <= 1]
    return out


@pytest.mark.parametrize(
    ("source", "unused"),
    [
        ("SLACK_TEXT_LIMIT = 4_000\nTOO_LONG_AT = 3_900\n", ["m.py: SLACK_TEXT_LIMIT"]),  # once dead in slack/commands.py
        ("def may_match(a, b):\n    return a in b\n", ["m.py: may_match"]),  # once dead in facts/literals.py
        ("@router.get('/x')\ndef page():\n    return 1\n", []),  # used by its decorator
    ],
)
def test_unused_definitions_are_found(source: str, unused: list[str]):
    assert unused_definitions({"m.py": source}, [source, "TOO_LONG_AT"]) == unused


def test_every_definition_in_the_product_has_a_user():
    product = {str(p.relative_to(REPO)): p.read_text(encoding="utf-8") for p in PRODUCT}
    users = [p.read_text(encoding="utf-8", errors="replace") for p in USERS if p.is_file()]
    assert unused_definitions(product, users) == []
