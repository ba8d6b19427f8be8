"""One fact vocabulary: the names docs/facts.md documents, the names the fact rules produce, in one table."""

from __future__ import annotations

import ast
import re

import pytest

from service.facts.sources import FACT_RULES
from service.facts.vocabulary import BY_NAME, VOCABULARY, in_display_order, key_facts
from tests.conftest import REPO

# A row of docs/facts.md's tables: "| `name` (, `name`...) | value format | ..."
_ROW = re.compile(r"(?m)^\| ((?:`\w+`(?:, )?)+) \| ([^|]+?) \|")


def documented() -> dict[str, str]:
    rows: dict[str, str] = {}
    for m in _ROW.finditer((REPO / "docs" / "facts.md").read_text(encoding="utf-8")):
        rows.update(dict.fromkeys(re.findall(r"`(\w+)`", m.group(1)), m.group(2).strip()))
    return rows


def produced_in_code() -> set[str]:
    """Fact names written literally where facts are made in service/facts/: ``_fact("x", ...)``,
    ``Fact(name="x")``, ``model_copy(update={"name": "x"})``, ``values["x"] = ...``."""
    names: set[str] = set()
    for path in (REPO / "service" / "facts").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "_fact" and node.args \
                    and isinstance(node.args[0], ast.Constant):
                names.add(node.args[0].value)
            elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Fact":
                names |= {k.value.value for k in node.keywords if k.arg == "name" and isinstance(k.value, ast.Constant)}
            elif isinstance(node, ast.Dict):
                names |= {v.value for k, v in zip(node.keys, node.values, strict=True)
                          if isinstance(k, ast.Constant) and k.value == "name" and isinstance(v, ast.Constant)}
            elif isinstance(node, ast.Assign):
                names |= {t.slice.value for t in node.targets if isinstance(t, ast.Subscript)
                          and getattr(t.value, "id", None) == "values" and isinstance(t.slice, ast.Constant)}
    return names


def test_the_vocabulary_is_what_docs_facts_md_documents():
    assert documented() == {kind.name: kind.format for kind in VOCABULARY}


def test_every_fact_rule_produces_a_name_of_the_vocabulary():
    assert sorted({rule.fact for rule in FACT_RULES} - set(BY_NAME)) == []


def test_every_fact_made_in_code_is_in_the_vocabulary():
    made = produced_in_code()
    assert {"gpu_count", "failure_step", "fr_collective", "oom_fragmented"} <= made  # the scan sees each way
    assert sorted(made - set(BY_NAME)) == []


def test_every_name_of_the_vocabulary_is_produced_somewhere():
    assert sorted(set(BY_NAME) - produced_in_code() - {rule.fact for rule in FACT_RULES}) == []


def test_names_are_unique():
    assert len(BY_NAME) == len(VOCABULARY)


@pytest.mark.parametrize(
    ("names", "ordered", "key"),
    [
        (["optimizer", "gpu_model", "zz_unknown", "exit_code"], ["gpu_model", "optimizer", "exit_code", "zz_unknown"],
         ["gpu_model", "optimizer"]),
        (["oom_free", "xid"], ["oom_free", "xid"], []),
    ],
)
def test_display_order_and_key_facts(names, ordered, key):
    assert in_display_order(names) == ordered and key_facts(names) == key
