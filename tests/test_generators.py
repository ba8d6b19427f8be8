"""The case generators reproduce the committed eval cases byte for byte, and no two write the same case.

Each generator in evals/generators/ is run into a temporary folder (its real-run captures are not rerun:
their logs are read back from evals/cases), and every file it writes must equal the committed one. A
generator changed without regenerating, or a case edited by hand that a generator owns, fails here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
GENERATORS = sorted(p for p in (REPO / "evals" / "generators").glob("*.py") if p.name != "common.py")
CASES = REPO / "evals" / "cases"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """generator name -> the folder it wrote its cases into."""
    out: dict[str, Path] = {}
    for gen in GENERATORS:
        folder = tmp_path_factory.mktemp(gen.stem)
        run = subprocess.run([sys.executable, str(gen), "--out", str(folder)], capture_output=True, text=True,
                             timeout=300, cwd=REPO)
        assert run.returncode == 0, f"{gen.name} failed:\n{run.stderr[-2000:]}"
        out[gen.stem] = folder
    return out


def test_every_generator_writes_cases(generated: dict[str, Path]):
    empty = [name for name, folder in generated.items() if not any(folder.iterdir())]
    assert not empty, f"generators that wrote no case: {empty}"


def test_no_two_generators_write_the_same_case(generated: dict[str, Path]):
    owner: dict[str, str] = {}
    twice = []
    for name, folder in generated.items():
        for case in folder.iterdir():
            if case.name in owner:
                twice.append(f"{case.name}: {owner[case.name]} and {name}")
            owner[case.name] = name
    assert not twice, twice


@pytest.mark.parametrize("gen", [g.stem for g in GENERATORS])
def test_regenerating_writes_the_committed_bytes(generated: dict[str, Path], gen: str):
    folder = generated[gen]
    differ, missing = [], []
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        committed = CASES / path.relative_to(folder)
        if not committed.is_file():
            missing.append(str(committed.relative_to(REPO)))
        elif committed.read_bytes() != path.read_bytes():
            differ.append(str(committed.relative_to(REPO)))
    assert not missing, f"{gen} writes files that are not committed (run `python evals/generators/{gen}.py`): {missing}"
    assert not differ, f"{gen} writes other bytes than the committed ones (regenerate and review): {differ}"
