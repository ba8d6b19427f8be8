"""What the launcher writes besides its console: torchrun's per-rank files, Flight Recorder dumps; the child's env.

torchrun ``--log-dir D`` (with ``--redirects``/``--tee``) writes ``D/<run_id>_<suffix>/attempt_<n>/<local_rank>/
stdout.log``, ``stderr.log`` and ``error.json``; ``service/facts/ranks.py`` reads the rank from that path.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from service.models import Source

# torchrun / python -m torch.distributed.run spell it both ways: "--log-dir D", "--log_dir=D"
_LOG_DIR_FLAGS = ("--log-dir", "--log_dir")
# Flight Recorder is on when a buffer size is set (TORCH_NCCL_TRACE_BUFFER_SIZE is the older name)
FR_BUFFER_VARS = ("TORCH_FR_BUFFER_SIZE", "TORCH_NCCL_TRACE_BUFFER_SIZE")
# where dumps go: TORCH_FR_DUMP_TEMP_FILE (TORCH_NCCL_DEBUG_INFO_TEMP_FILE before), the prefix of "<prefix><rank>"
FR_DUMP_VARS = ("TORCH_FR_DUMP_TEMP_FILE", "TORCH_NCCL_DEBUG_INFO_TEMP_FILE")
# ProcessGroupNCCL's watchdog makes the named pipe "<prefix><rank>.pipe"; a byte written to it makes the rank dump
FR_PIPE_VAR = "TORCH_NCCL_DEBUG_INFO_PIPE_FILE"
FR_DUMP_PREFIX = "nccl_trace_rank_"  # torch's default file name; service/facts/flight_recorder.py knows it


def log_dirs(command: Sequence[str]) -> list[Path]:
    """The per-rank log folders a launcher in the command was told to write (torchrun's ``--log-dir``)."""
    out: list[Path] = []
    for i, arg in enumerate(command):
        for flag in _LOG_DIR_FLAGS:
            if arg == flag and i + 1 < len(command):
                out.append(Path(command[i + 1]))
            elif arg.startswith(flag + "="):
                out.append(Path(arg.split("=", 1)[1]))
    return out


def flight_recorder_on(env: Mapping[str, str]) -> bool:
    for name in FR_BUFFER_VARS:
        try:
            if int(env.get(name, "0")) > 0:
                return True
        except ValueError:
            continue
    return False


def child_env(base: Mapping[str, str], capture_dir: Path) -> dict[str, str]:
    """The run's environment, plus: Python output unbuffered (so a crash's last lines are not lost in a buffer and
    silence means silence), and, when the run turned Flight Recorder on, dumps and the dump pipe in the capture
    folder unless the run chose its own places."""
    env = dict(base)
    env.setdefault("PYTHONUNBUFFERED", "1")
    if flight_recorder_on(env):
        fr = capture_dir / "fr_dumps"
        fr.mkdir(parents=True, exist_ok=True)
        if not any(env.get(v) for v in FR_DUMP_VARS):
            env[FR_DUMP_VARS[0]] = env[FR_DUMP_VARS[1]] = str(fr / FR_DUMP_PREFIX)
        env.setdefault(FR_PIPE_VAR, str(fr / "pipe_rank_"))
    return env


def dump_prefixes(env: Mapping[str, str]) -> list[Path]:
    return [Path(env[v]) for v in FR_DUMP_VARS if env.get(v)]


def files_since(folder: Path, since: float) -> list[Path]:
    """The files under ``folder`` written at or after ``since`` (this run's, not an earlier run's in the same dir)."""
    if not folder.is_dir():
        return []
    out = []
    for root, _, names in os.walk(folder):
        for name in names:
            p = Path(root) / name
            try:
                st = p.stat()
            except OSError:
                continue
            if st.st_mtime >= since - 1 and st.st_size > 0 and not name.endswith(".pipe"):
                out.append(p)
    return sorted(out)


def dumps_written(env: Mapping[str, str], since: float) -> list[Path]:
    """Flight Recorder dumps the run wrote to its dump prefix (``<prefix><rank>``) since it started."""
    out: set[Path] = set()
    for prefix in dump_prefixes(env):
        if prefix.parent.is_dir():
            out.update(p for p in prefix.parent.glob(prefix.name + "*")
                       if p.is_file() and not p.name.endswith(".pipe") and p.stat().st_mtime >= since - 1)
    return sorted(out)


def output_size(folders: Sequence[Path]) -> int:
    """Bytes in the per-rank files now: growth counts as output for hang detection (``--redirects`` without tee)."""
    total = 0
    for folder in folders:
        for root, _, names in os.walk(folder):
            for name in names:
                try:
                    total += (Path(root) / name).stat().st_size
                except OSError:
                    continue
    return total


def sources(console: Path, rank_files: Sequence[tuple[Path, Path]], extra: Sequence[Path]) -> list[Source]:
    """The files of the run for ``diagnose()``: the console, each per-rank file named by its path under the log
    dir (so the rank is read from ``attempt_0/3/stderr.log``), dumps and anything the user added."""
    out = [Source(name=console.name, path=str(console))]
    for root, path in rank_files:
        out.append(Source(name=str(path.relative_to(root)), path=str(path)))
    out += [Source(name=p.name if p.parent.name != "fr_dumps" else f"fr_dumps/{p.name}", path=str(p)) for p in extra]
    return out
