"""The CLI's conventions: --version, colour (NO_COLOR, --color), -q, -o FILE, terminal markdown, show and history,
--fail-on-found exit codes."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_render_markdown import diagnosis

from service.cli.diagnose import exit_code
from service.cli.output import use_color
from service.models import Evidence, TimelineEvent
from service.render import to_text
from service.store import Store

REPO = Path(__file__).resolve().parents[1]
ANSI = "\x1b["


def cli(*args: str, data_dir: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "CRASHDOC_DATA_DIR": str(data_dir), "PYTHONPATH": str(REPO), **(env or {})}
    full = {k: v for k, v in full.items() if v is not None}
    return subprocess.run([sys.executable, "-m", "service.cli", *args], env=full, capture_output=True, text=True,
                          timeout=300, check=False, cwd=REPO)


@pytest.fixture
def stored(tmp_path: Path) -> tuple[Path, list[str]]:
    """A data dir holding three diagnoses, saved as `crashdoc diagnose` saves them (oldest first)."""
    store = Store(f"sqlite:///{tmp_path / 'crashdoc.db'}")
    ids = []
    for i, (entry, title) in enumerate([("cuda-oom", "CUDA out of memory"), ("nccl-watchdog-timeout", "A collective timed out"),
                                        (None, "No known failure matched")]):
        d = diagnosis(id=f"d_test{i}", entry_id=entry, title=title, created_at=f"2026-12-0{i + 1}T10:00:00+00:00")
        store.save(d, d.evidence)
        ids.append(d.id)
    return tmp_path, ids


def test_version(tmp_path: Path):
    r = cli("--version", data_dir=tmp_path)
    assert r.returncode == 0 and r.stdout.startswith("crashdoc ") and r.stdout.split()[1][0].isdigit()


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


# (--color, NO_COLOR, TERM, a terminal?, colour?)
COLORS = [
    ("auto", None, "xterm", True, True),
    ("auto", "1", "xterm", True, False),
    ("auto", "", "xterm", True, True),  # NO_COLOR set but empty does not count (no-color.org)
    ("auto", None, "dumb", True, False),
    ("auto", None, "xterm", False, False),
    ("always", "1", "xterm", False, True),
    ("never", None, "xterm", True, False),
]


@pytest.mark.parametrize(("choice", "no_color", "term", "tty", "expected"), COLORS)
def test_colour_follows_the_flag_no_color_and_the_terminal(monkeypatch: pytest.MonkeyPatch, choice: str,
                                                           no_color: str | None, term: str, tty: bool, expected: bool):
    monkeypatch.setenv("TERM", term)
    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    assert use_color(choice, Tty() if tty else io.StringIO()) is expected


def test_show_prints_a_stored_diagnosis_in_each_format(stored: tuple[Path, list[str]]):
    data, ids = stored
    text = cli("show", ids[0], data_dir=data)
    assert text.returncode == 0 and "Root cause: CUDA out of memory" in text.stdout and ANSI not in text.stdout
    as_json = cli("show", ids[0], "--format", "json", data_dir=data)
    assert json.loads(as_json.stdout)["id"] == ids[0]
    md = cli("show", "last", "--format", "markdown", "--comment-key", "ci", data_dir=data)
    assert md.stdout.startswith("<!-- crashdoc:comment key=ci -->") and "unknown" in md.stdout  # the newest
    coloured = cli("show", ids[0], "--color", "always", data_dir=data, env={"NO_COLOR": "1"})
    assert f"{ANSI}1mRoot cause" in coloured.stdout


def test_output_file_holds_what_stdout_would(stored: tuple[Path, list[str]], tmp_path: Path):
    data, ids = stored
    out = tmp_path / "d.md"
    r = cli("show", ids[1], "--format", "markdown", "-o", str(out), data_dir=data)
    assert r.returncode == 0 and r.stdout == ""
    assert out.read_text() == cli("show", ids[1], "--format", "markdown", data_dir=data).stdout


def test_show_of_an_unknown_id_is_a_clear_error(stored: tuple[Path, list[str]]):
    r = cli("show", "d_nope", data_dir=stored[0])
    assert r.returncode == 2 and r.stderr.startswith("crashdoc: ") and "Traceback" not in r.stderr


def test_history_lists_newest_first(stored: tuple[Path, list[str]]):
    data, ids = stored
    r = cli("history", data_dir=data)
    lines = r.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ids[::-1]
    assert "unknown" in lines[0] and "cuda-oom" in lines[2]
    assert cli("history", "-q", "-n", "2", data_dir=data).stdout.split() == ids[::-1][:2]
    page = json.loads(cli("history", "--format", "json", "--offset", "1", data_dir=data).stdout)
    assert page["total"] == 3 and [d["id"] for d in page["diagnoses"]] == ids[::-1][1:]


def test_history_when_nothing_is_stored(tmp_path: Path):
    r = cli("history", data_dir=tmp_path)
    assert r.returncode == 0 and "No diagnosis is stored yet" in r.stdout


# (a fix step in KB markdown, what a terminal shows, what it must not show)
TERMINAL = [
    ("**Lower the peak:** halve the micro-batch and\n   double `gradient_accumulation_steps`.",
     "1. Lower the peak: halve the micro-batch and double gradient_accumulation_steps.", ["**", "`"]),
    ("See [the docs](https://pytorch.org/docs) for *why*.", "1. See the docs (https://pytorch.org/docs) for why.", ["](", "*"]),
    ("Run it:\n   ```bash\n   pip install foo\n   ```", "       pip install foo", ["```"]),
]


@pytest.mark.parametrize(("step", "shown", "hidden"), TERMINAL)
def test_fix_steps_are_rendered_for_a_terminal_not_printed_as_markdown(step: str, shown: str, hidden: list[str]):
    text = to_text(diagnosis(fix=[step], verify=[]), width=200)
    fix = text.split("Fix:\n", 1)[1].split("\n\n", 1)[0]
    assert shown in fix
    assert all(h not in fix for h in hidden)


def test_a_terminal_gets_bold_and_code_styles_and_lines_fit_its_width():
    step = "**Shard:** " + "use `FULL_SHARD` and more words here " * 6
    text = to_text(diagnosis(fix=[step]), color=True, width=60)
    fix = text.split("Fix:", 1)[1].split("\n\n", 1)[0]
    assert "\x1b[1mShard:\x1b[0m" in fix and "\x1b[36mFULL_SHARD\x1b[0m" in fix
    plain = to_text(diagnosis(fix=[step]), width=60).split("Fix:\n", 1)[1].split("\n\n", 1)[0]
    assert max(len(line) for line in plain.splitlines()) <= 60 and len(plain.splitlines()) > 3


FIRST = [TimelineEvent(order=0, file="a.log", line=1, kind="error", collateral=False, first=True, text="RuntimeError: x")]

# (diagnosis changes, exit code with --fail-on-found)
EXITS = [
    ({}, 1),
    ({"entry_id": None, "title": "No known failure matched"}, 3),
    ({"entry_id": None, "title": "No failure found in the log", "evidence": [], "timeline": []}, 0),
    ({"entry_id": None, "evidence": [Evidence(file="a.log", line=1, text="RuntimeError: x")], "timeline": FIRST}, 3),
]


@pytest.mark.parametrize(("changes", "code"), EXITS)
def test_fail_on_found_exit_codes(changes: dict[str, object], code: int):
    d = diagnosis(**changes)
    assert exit_code(d, fail_on_found=True) == code
    assert exit_code(d, fail_on_found=False) == 0


def test_diagnose_quiet_fail_on_found_to_a_file(tmp_path: Path, session_data_dir: Path):
    """What a pipeline runs: nothing on stderr with -q, the markdown in the file, exit 1 for a known failure."""
    data = tmp_path / "data"
    data.mkdir()
    if (session_data_dir / "index").exists():
        os.symlink(session_data_dir / "index", data / "index")
    out = tmp_path / "d.md"
    r = cli("diagnose", str(REPO / "examples" / "fusedadam-h100.log"), "--no-store", "-q", "--fail-on-found",
            "--format", "markdown", "-o", str(out), data_dir=data)
    assert r.returncode == 1 and r.stdout == "" and r.stderr == ""
    assert out.read_text().startswith("<!-- crashdoc:comment key=crashdoc -->")
    helptext = cli("diagnose", "--help", data_dir=data).stdout
    assert "--fail-on-found" in helptext and "3  errors were found but matched no known failure" in helptext


class _SlowFirstRun:
    """An engine whose index is not built yet and takes a known time to build."""

    def __init__(self, build_s: float) -> None:
        self.build_s, self.built = build_s, False

    def index_ready(self) -> bool:
        return self.built

    @property
    def index(self) -> object:
        import time

        time.sleep(self.build_s)
        self.built = True
        return object()


def test_the_first_run_notice_states_the_duration_it_measured(capsys):
    import re
    import time

    from service.cli.inputs import first_run_notice

    engine = _SlowFirstRun(0.4)
    t0 = time.monotonic()
    first_run_notice(engine)  # type: ignore[arg-type]
    elapsed = time.monotonic() - t0
    err = capsys.readouterr().err
    assert "first run" in err and engine.built
    stated = float(re.search(r"built in ([\d.]+) s", err).group(1))  # type: ignore[union-attr]
    assert 0.4 <= stated <= elapsed + 0.05
    first_run_notice(engine)  # built: nothing more is said
    first_run_notice(_SlowFirstRun(0.0), quiet=True)
    assert capsys.readouterr().err == ""
