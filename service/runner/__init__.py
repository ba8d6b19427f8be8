"""``crashdoc run``: run a training command, pass its output through, keep a bounded copy, watch for a hang.

    run(options, on_hang) -> RunResult     the command's exit code, the captured files, the hang report if any

The child runs in its own process group: SIGINT, SIGTERM and SIGHUP sent to crashdoc (Ctrl-C, Slurm's
preemption) are passed to the whole group, so torchrun and every rank get them. The diagnosis of what was
captured is the caller's (``service.cli.run``), through the same ``diagnose()`` as ``crashdoc diagnose``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from service.runner import hang, launcher
from service.runner.capture import Activity, BoundedCapture, pump

__all__ = ["RunOptions", "RunResult", "run"]

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@dataclass
class RunOptions:
    command: Sequence[str]
    capture_dir: Path
    hang_after_s: float | None = 300.0  # no output for this long: record stacks and dumps (None: never)
    head_bytes: int = 1 << 20
    tail_bytes: int = 16 << 20
    collect: Sequence[Path] = ()  # more files or folders of the run to diagnose (a program's own dump dir)
    poll_s: float = 0.5


@dataclass
class RunResult:
    returncode: int  # the command's, a signal N as 128 + N like a shell
    console: Path
    rank_files: list[tuple[Path, Path]] = field(default_factory=list)  # (log dir, file)
    extra_files: list[Path] = field(default_factory=list)  # Flight Recorder dumps, --collect
    hangs: list[hang.HangReport] = field(default_factory=list)
    forwarded: list[int] = field(default_factory=list)  # the signals passed to the run
    env: dict[str, str] = field(default_factory=dict)

    def sources(self) -> list:  # type: ignore[type-arg]
        return launcher.sources(self.console, self.rank_files, self.extra_files)


def _exit_code(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode


def run(options: RunOptions, on_hang: Callable[[hang.HangReport], None] | None = None) -> RunResult:
    """Run the command to its end; its output goes through to ours unchanged while the copy is kept."""
    folder = options.capture_dir
    capture = BoundedCapture(folder, head_bytes=options.head_bytes, tail_bytes=options.tail_bytes)
    env = launcher.child_env(os.environ, folder)
    log_dirs = launcher.log_dirs(options.command)
    started = time.time()
    activity = Activity()
    try:
        child = subprocess.Popen(list(options.command), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                 process_group=0)
    except FileNotFoundError:
        capture.finish()
        raise
    assert child.stdout is not None and child.stderr is not None
    threads = [threading.Thread(target=pump, args=(stream.fileno(), out, capture, activity), daemon=True)
               for stream, out in ((child.stdout, sys.stdout.buffer), (child.stderr, sys.stderr.buffer))]
    for t in threads:
        t.start()
    result = RunResult(returncode=0, console=folder / "console.log", env=env)

    def forward(signum: int, _frame: object) -> None:
        result.forwarded.append(signum)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signum)

    previous = {s: signal.signal(s, forward) for s in FORWARDED} if threading.current_thread() is threading.main_thread() else {}
    try:
        size = launcher.output_size(log_dirs)
        reported = False
        while child.poll() is None:
            time.sleep(options.poll_s)
            now_size = launcher.output_size(log_dirs) if log_dirs else 0
            if now_size != size:
                size = now_size
                activity.touch()
            idle = activity.idle_s()
            if idle < (options.hang_after_s or 0):
                reported = False
            elif options.hang_after_s and not reported and child.poll() is None:
                reported = True
                capture.flush()
                report = hang.record(child.pid, folder, env, idle)
                result.hangs.append(report)
                if on_hang:
                    on_hang(report)
        for t in threads:
            t.join(timeout=10)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    result.returncode = _exit_code(child.returncode)
    result.console = capture.finish()
    result.rank_files = [(d, p) for d in log_dirs for p in launcher.files_since(d, started)]
    extra = launcher.dumps_written(env, started)
    for path in options.collect:
        extra += launcher.files_since(path, 0) if path.is_dir() else [path] if path.is_file() else []
    result.extra_files = sorted(set(extra))
    return result
