"""``crashdoc run``: output passed through as it comes, a bounded copy, exit codes, signals, hangs, real torchrun runs.

The torchrun tests are real gloo runs on CPU (2-3 ranks, a few seconds each, plus the diagnosis)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from service.runner import RunOptions, run
from service.runner.capture import BoundedCapture
from service.runner.hang import Stack, parse_py_spy, py_spy, stuck_ranks
from service.runner.launcher import child_env, log_dirs

REPO = Path(__file__).resolve().parents[1]
JOBS = REPO / "tests" / "data" / "run"
TORCHRUN = [sys.executable, "-m", "torch.distributed.run", "--standalone"]


@pytest.fixture(scope="module")
def data_dir(session_data_dir, tmp_path_factory):  # type: ignore[no-untyped-def]
    """The CLI processes' own data dir, sharing the session's built index."""
    data = tmp_path_factory.mktemp("run-data")
    if (session_data_dir / "index").exists():
        os.symlink(session_data_dir / "index", data / "index")
    return data


def crashdoc(*args: str, data_dir: Path, cwd: Path, env: dict[str, str] | None = None, **kw: object) -> subprocess.Popen[bytes]:
    env = {**(env or os.environ), "CRASHDOC_DATA_DIR": str(data_dir), "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "service.cli", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)  # type: ignore[call-overload]


# ---------------------------------------------------------------- the bounded copy

# (head bytes, tail bytes, lines written): the copy keeps the first lines, the last lines, and says what it cut
BOUNDS = [(1000, 4000, 10), (1000, 4000, 5000), (0, 2000, 3000), (10_000, 100_000, 100_000)]


@pytest.mark.parametrize(("head", "tail", "n"), BOUNDS)
def test_the_copy_keeps_the_head_and_the_tail_within_its_bound(tmp_path: Path, head: int, tail: int, n: int):
    cap = BoundedCapture(tmp_path, head_bytes=head, tail_bytes=tail)
    lines = [f"line {i:06d} " + "x" * (i % 50) + "\n" for i in range(n)]
    peak = 0
    for line in lines:
        cap.write(line.encode())
        peak = max(peak, sum(p.stat().st_size for p in tmp_path.iterdir()))
    out = cap.finish().read_text()
    assert peak <= head + tail + 100  # the disk never held more than the bound (and one line)
    assert out.endswith(lines[-1])
    kept = out.splitlines(keepends=True)
    if sum(map(len, lines)) <= head + tail // 2:
        assert out == "".join(lines)
    else:
        assert "bytes of output cut here" in out
        assert len(out) <= head + tail + 200
        tail_part = out.split("cut here to bound the copy]\n", 1)[1]
        assert len(tail_part) >= tail // 2 - 100  # at least half the tail survives a rotation
        assert "".join(lines).endswith(tail_part)  # the tail is the run's own last lines, in order
        if head:
            assert kept[0] == lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["console.log"]


# ---------------------------------------------------------------- pass-through, exit codes, signals

def test_both_streams_go_through_unchanged_and_at_once(tmp_path: Path, data_dir: Path):
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent("""\
        import sys, time
        sys.stdout.write("out 1\\n"); sys.stdout.flush()
        sys.stderr.write("err 1\\n"); sys.stderr.flush()
        sys.stdout.write("progress 50%\\r"); sys.stdout.flush()
        time.sleep(8)
        sys.stdout.write("out 2 \\u00e9\\n"); sys.stderr.write("no newline at the end")
        """))
    p = crashdoc("run", "--capture-dir", str(tmp_path / "cap"), "--", sys.executable, str(script), data_dir=data_dir, cwd=tmp_path)
    assert p.stdout is not None
    first = b""
    while b"\n" not in first:  # raw reads: a buffered reader would keep what communicate() must see
        first += os.read(p.stdout.fileno(), 1000)
    first_at = time.monotonic()
    out, err = p.communicate(timeout=60)
    # the first line came while the child still slept its 8 s, not when it ended (start-up time does not count)
    assert first.startswith(b"out 1\n") and time.monotonic() - first_at > 5
    assert first + out == "out 1\nprogress 50%\rout 2 é\n".encode()
    assert err == b"err 1\nno newline at the end"
    assert p.returncode == 0
    copy = (tmp_path / "cap" / "console.log").read_bytes().decode().split("\n")[:-1]
    # whole lines of both streams, in arrival order (which of two lines written at once comes first may vary)
    assert sorted(copy) == sorted(["out 1", "err 1", "progress 50%\rout 2 é", "no newline at the end"])


# (the child's code, the exit code of `crashdoc run`)
EXITS = [("pass", 0), ("raise SystemExit(3)", 3), ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", 128 + 9)]


@pytest.mark.parametrize(("code", "expected"), EXITS)
def test_the_exit_code_is_the_commands(tmp_path: Path, code: str, expected: int, capfdbinary: pytest.CaptureFixture[bytes]):
    result = run(RunOptions(command=[sys.executable, "-c", code], capture_dir=tmp_path, hang_after_s=None))
    assert result.returncode == expected


def test_sigterm_reaches_the_whole_process_group(tmp_path: Path, data_dir: Path):
    """Slurm's SIGTERM to crashdoc reaches the grandchild (a rank under a shell), which exits its own way."""
    ready = tmp_path / "ready"
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent(f"""\
        import signal, sys, time, pathlib
        def bye(n, _):
            print(f"got {{n}}", flush=True); sys.exit(7)
        signal.signal(signal.SIGTERM, bye)
        pathlib.Path({str(ready)!r}).write_text("x")
        time.sleep(60)
        """))
    # the shell ignores SIGTERM (as torchrun's agent handles it) and exits with its child's code
    p = crashdoc("run", "--no-store", "-q", "--capture-dir", str(tmp_path / "cap"), "--", "sh", "-c",
                 f"trap '' TERM; {sys.executable} {script}; exit $?", data_dir=data_dir, cwd=tmp_path)
    deadline = time.monotonic() + 30
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=120)
    assert b"got 15" in out
    assert p.returncode == 7, err.decode()[-2000:]


def test_a_command_that_does_not_exist_is_a_usage_error(tmp_path: Path, data_dir: Path):
    p = crashdoc("run", "--capture-dir", str(tmp_path / "c"), "--", "no-such-command-xyz", data_dir=data_dir, cwd=tmp_path)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 2 and b"Could not start 'no-such-command-xyz'" in err and b"Traceback" not in err


# ---------------------------------------------------------------- launcher files and env

@pytest.mark.parametrize(("command", "dirs"), [
    (["torchrun", "--nproc-per-node", "2", "--log-dir", "logs", "--tee", "3", "train.py"], ["logs"]),
    (["python", "-m", "torch.distributed.run", "--log_dir=/tmp/x", "train.py"], ["/tmp/x"]),
    (["torchrun", "train.py", "--log-dir"], []),
    (["python", "train.py"], []),
])
def test_the_per_rank_log_dir_is_read_from_the_command(command: list[str], dirs: list[str]):
    assert log_dirs(command) == [Path(d) for d in dirs]


@pytest.mark.parametrize(("env", "dump_prefix_in_capture"), [
    ({"TORCH_FR_BUFFER_SIZE": "2000"}, True),
    ({"TORCH_NCCL_TRACE_BUFFER_SIZE": "64"}, True),
    ({"TORCH_FR_BUFFER_SIZE": "2000", "TORCH_FR_DUMP_TEMP_FILE": "/scratch/fr_"}, False),
    ({"TORCH_FR_BUFFER_SIZE": "0"}, None),
    ({}, None),
])
def test_flight_recorder_dumps_and_pipe_go_to_the_capture_folder_when_the_run_turns_it_on(
        tmp_path: Path, env: dict[str, str], dump_prefix_in_capture: bool | None):
    out = child_env(env, tmp_path)
    assert out["PYTHONUNBUFFERED"] == "1"
    if dump_prefix_in_capture is None:
        assert "TORCH_NCCL_DEBUG_INFO_PIPE_FILE" not in out and "TORCH_FR_DUMP_TEMP_FILE" not in out
        return
    assert out["TORCH_NCCL_DEBUG_INFO_PIPE_FILE"].startswith(str(tmp_path))
    assert out["TORCH_FR_DUMP_TEMP_FILE"].startswith(str(tmp_path)) == dump_prefix_in_capture


# ---------------------------------------------------------------- which rank looks stuck

PY_SPY = """\
Process 9596: /venv/bin/python -u train.py
Python v3.11.7 (/usr/bin/python3.11)

Thread 9596 (idle): "MainThread"
    {inner}
    _exception_logger.<locals>.wrapper (torch/distributed/c10d_logger.py:83)
    train_step (train.py:{line})
    <module> (train.py:90)
Thread 9620 (idle): "Thread-1 (_pin_memory_loop)"
    wait (threading.py:331)
"""
ALL_REDUCE = "all_reduce (torch/distributed/distributed_c10d.py:3252)"
BARRIER = "barrier (torch/distributed/distributed_c10d.py:5356)"
LOADER = "_next_data (torch/utils/data/dataloader.py:1200)"


def stack(rank: int, inner: str, line: int) -> Stack:
    return parse_py_spy(PY_SPY.format(inner=inner, line=line), rank, 100 + rank)


def test_a_py_spy_dump_gives_the_main_threads_program_frame_and_collective():
    s = stack(2, BARRIER, 71)
    assert s.program_frame == ("train_step", "train.py", 71)
    assert s.collective == "barrier"
    assert stack(0, LOADER, 40).collective is None


# (each rank's innermost frame and program line, the ranks that look stuck)
STUCK = [
    ([(ALL_REDUCE, 68)] * 3 + [(BARRIER, 71)], [3]),  # skipped a collective: at the barrier, the rest in all_reduce
    ([(ALL_REDUCE, 68), (LOADER, 40), (ALL_REDUCE, 68), (ALL_REDUCE, 68)], [1]),  # a stuck data loader
    ([(ALL_REDUCE, 68), (LOADER, 40)], [1]),  # two ranks: the one in no collective is waited for
    ([(ALL_REDUCE, 68), (BARRIER, 71)], []),  # two ranks in two collectives: nothing tells which
    ([(ALL_REDUCE, 68)] * 4, []),  # all in the same place: no rank stands out
    ([(ALL_REDUCE, 68), (ALL_REDUCE, 68), (BARRIER, 71), (LOADER, 40)], []),  # no minority worth naming
    ([(ALL_REDUCE, 68)], []),
]


@pytest.mark.parametrize(("where", "stuck"), STUCK)
def test_the_rank_that_is_not_where_the_others_are_looks_stuck(where: list[tuple[str, int]], stuck: list[int]):
    assert stuck_ranks([stack(r, inner, line) for r, (inner, line) in enumerate(where)]) == stuck


# ---------------------------------------------------------------- real torchrun runs (gloo, CPU)

def test_a_failing_torchrun_run_is_diagnosed_and_keeps_its_exit_code(tmp_path: Path, data_dir: Path):
    p = crashdoc("run", "--no-store", "--capture-dir", str(tmp_path / "cap"), "--", *TORCHRUN, "--nproc-per-node", "2",
                 "--log-dir", str(tmp_path / "logs"), "--tee", "3", str(JOBS / "shape_error.py"),
                 data_dir=data_dir, cwd=tmp_path)
    out, err = p.communicate(timeout=400)
    text = err.decode()
    assert p.returncode == 1, text[-3000:]
    assert b"rank 0: step 0 ok" in out and b"rank 1: step 0 ok" in out  # the run's own output went through
    assert "the command exited with 1" in text
    assert "Root cause: Tensor shape mismatch" in text and "[shape-mismatch]" in text
    assert "Initiating rank: 1" in text
    assert "attempt_0/1/stderr.log" in text  # the per-rank files were read with the console


@pytest.mark.skipif(py_spy() is None, reason="py-spy is not installed (pip install 'crashdoc[hang]')")
def test_a_real_hang_names_the_rank_that_skipped_the_collective_before_the_timeout(tmp_path: Path, data_dir: Path):
    timeout_s = 40
    p = crashdoc("run", "--no-store", "--hang-after", "4", "--capture-dir", str(tmp_path / "cap"), "--", *TORCHRUN,
                 "--nproc-per-node", "3", str(JOBS / "skip_collective.py"), str(timeout_s), data_dir=data_dir, cwd=tmp_path)
    assert p.stderr is not None
    start = time.monotonic()
    named_at = None
    lines = []
    for raw in p.stderr:
        line = raw.decode(errors="replace")
        lines.append(line)
        if "looks stuck" in line and named_at is None:
            named_at = time.monotonic() - start
    p.wait(timeout=400)
    text = "".join(lines)
    assert named_at is not None, text[-3000:]
    assert "crashdoc run: rank 2 looks stuck: in barrier at <module> (skip_collective.py:17)" in text
    assert "the others (rank 0, rank 1) wait in all_reduce at <module> (skip_collective.py:15)" in text
    assert named_at < timeout_s  # before gloo's timeout killed the run
    assert text.index("looks stuck") < text.index("Timed out waiting")
    assert p.returncode == 1
    # a slow start-up (torch's import under load) may also be a silence, with only the agent to inspect
    assert {"rank_0.txt", "rank_1.txt", "rank_2.txt"} <= {f.name for f in (tmp_path / "cap" / "stacks").iterdir()}
    assert "Root cause:" in text  # and the run's failure was diagnosed after


def test_a_silent_run_without_python_is_reported_as_a_hang_and_says_there_was_nothing_to_inspect(tmp_path: Path, data_dir: Path):
    p = crashdoc("run", "--no-store", "-q", "--hang-after", "1", "--capture-dir", str(tmp_path / "cap"), "--",
                 "sh", "-c", "echo start; sleep 4", data_dir=data_dir, cwd=tmp_path)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0 and out == b"start\n"
    assert b"crashdoc run: no output for 1 s: looks like a hang" in err
    assert b"no Python process of the run was found" in err


@pytest.mark.skipif(py_spy() is None, reason="py-spy is not installed (pip install 'crashdoc[hang]')")
def test_flight_recorder_dumps_the_run_writes_are_diagnosed_with_its_output(tmp_path: Path, data_dir: Path):
    """The Flight Recorder job of tests/data/flight_recorder (TORCH_FR_BUFFER_SIZE on, gloo, each rank dumps its
    buffer when the collective times out): the stuck rank is named during the hang, and --collect brings the dumps
    into the diagnosis, which lines the ranks up by sequence number."""
    job = REPO / "tests" / "data" / "flight_recorder" / "gen" / "job.py"
    env = {**os.environ, "TORCH_FR_BUFFER_SIZE": "64"}
    p = crashdoc("run", "--no-store", "-q", "--hang-after", "4", "--collect", "fr_dumps", "--format", "json", "-o",
                 str(tmp_path / "d.json"), "--capture-dir", str(tmp_path / "cap"), "--", *TORCHRUN, "--nproc-per-node", "3",
                 str(job), "--scenario", "skip", "--bad-rank", "2", "--timeout", "20", "--dump-dir", "fr_dumps",
                 data_dir=data_dir, cwd=tmp_path, env=env)
    _, err = p.communicate(timeout=400)
    text = err.decode()
    assert p.returncode == 1, text[-3000:]
    assert "rank 2 looks stuck" in text
    assert (tmp_path / "cap" / "fr_dumps").is_dir()  # where NCCL's dumps and pipes would go (gloo writes none)
    d = json.loads((tmp_path / "d.json").read_text())
    assert d["initiating_rank"] == 2
    assert d["facts"]["fr_collective"]["value"].startswith("all_reduce seq")
