"""A non-editable install works: the wheel carries kb/, prompts/ and the confidence model, and diagnoses
the bundled example from outside the repository exactly as the checkout does.

The fresh venv gets this environment's dependencies through a ``.pth`` line (the project's own editable
install is not picked up: ``.pth`` files are read only in site directories), so nothing is downloaded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, REPO

EXAMPLE = EXAMPLES / "fusedadam-h100.log"
CARRIED = ("service/_content/kb/cuda-oom.md", "service/_content/kb/README.md", "service/_content/prompts/chat.system.j2",
           "service/compose/calibration.json", "service/web/templates/index.html", "service/migrations/alembic.ini",
           "service/web/swagger-ui/swagger-ui-bundle.js", "service/web/swagger-ui/LICENSE")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(REPO)],
                   check=True, capture_output=True, timeout=300)
    [whl] = out.glob("crashdoc-*.whl")
    return whl


def test_the_wheel_carries_the_content_and_the_confidence_model(wheel: Path):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert [n for n in CARRIED if n not in names] == []
    kb = {n for n in names if n.startswith("service/_content/kb/") and n.endswith(".md")}
    assert len(kb) == len(list((REPO / "kb").rglob("*.md")))  # the entries and their triage (kb/triage/)


@pytest.mark.slow
def test_the_installed_wheel_diagnoses_the_example_outside_the_repository(wheel: Path, engine, tmp_path: Path):
    _ = engine.index  # the session's index cache, so the installed copy loads it instead of building one
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               check=True, capture_output=True, text=True).stdout.strip())
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", str(site),
                    str(wheel)], check=True, capture_output=True, timeout=120)
    (site / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRASHDOC_")}
    env |= {"CRASHDOC_DATA_DIR": str(engine.settings.data_dir), "HF_HUB_OFFLINE": "1", "PYTHONPATH": ""}
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    probe = "import retrieval, service.settings as s; c = s.Settings(); print(retrieval.__file__, c.kb_dir, c.prompts_dir)"
    where = subprocess.run([python, "-c", probe], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.split()
    assert [str(Path(w).relative_to(site)) for w in where] == [  # the installed copy and its content, not the checkout
        "retrieval/__init__.py", "service/_content/kb", "service/_content/prompts"]
    run = subprocess.run([python, "-m", "service.cli", "diagnose", str(EXAMPLE), "--format", "json"],
                         cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    installed = json.loads(run.stdout)
    from service.models import Source
    from service.pipeline import diagnose

    here = diagnose(engine, [Source(name=EXAMPLE.name, data=EXAMPLE.read_bytes())], store=False)
    assert installed["entry_id"] == here.entry_id == "deepspeed-fusedadam-illegal-memory-access"
    assert installed["kb_version"] == here.kb_version  # the same kb/, from inside the package
    assert installed["confidence"] == pytest.approx(here.confidence)  # the same (calibrated) confidence model
