"""What a hang leaves, taken before the watchdog kills the run: every rank's Python stack, Flight Recorder dumps.

    processes(root pid) -> the ranks' processes (the topmost process of the tree whose env has RANK)
    stacks: ``py-spy dump`` of each (when py-spy is installed: ``pip install 'crashdoc[hang]'``)
    flight recorder: a byte written to each rank's dump pipe (NCCL's ``TORCH_NCCL_DEBUG_INFO_PIPE_FILE``)
    stuck_ranks(stacks): the ranks whose program frame differs from the others' (the others wait for them)
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import site
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from service.runner.launcher import FR_PIPE_VAR

# py-spy dump: 'Thread 794 (idle): "MainThread"' then frames innermost first: '    all_reduce (torch/distributed/x.py:3252)'
_THREAD = re.compile(r'^Thread (?:0x[0-9A-Fa-f]+|\d+) \((?:idle|active|gil)[^)]*\)(?:: "(.*)")?')
_FRAME = re.compile(r"^\s+(\S.*?) \((.+?):(\d+)\)\s*$")
# frames of the libraries, not of the program: where a rank waits, not where its code is
_LIBRARY = re.compile(r"(?:^|/)(?:site-packages|dist-packages|lib/python\d\.\d+)/|^<frozen |^threading\.py$")
# a collective or a wait for one in the innermost frames: "all_reduce", "barrier", "wait", "recv", "_wait_for_pending_works"
_COLLECTIVE = re.compile(r"^(?:all_reduce|all_gather\w*|reduce_scatter\w*|broadcast\w*|barrier|monitored_barrier|reduce|"
                         r"all_to_all\w*|gather|scatter|send|recv|isend|irecv|batch_isend_irecv|wait|_wait\w*|synchronize)$")


@functools.cache
def _installed_top_levels() -> frozenset[str]:
    """Top-level names in site-packages: py-spy shortens a library's path to "torch/distributed/x.py"."""
    names: set[str] = set()
    for folder in {*site.getsitepackages(), site.getusersitepackages()}:
        with contextlib.suppress(OSError):
            names.update(n.removesuffix(".py") for n in os.listdir(folder))
    return frozenset(names)


def _is_library(path: str) -> bool:
    return bool(_LIBRARY.search(path)) or (not path.startswith("/") and path.split("/", 1)[0] in _installed_top_levels() and "/" in path)


@dataclass(frozen=True)
class RankProcess:
    pid: int
    rank: int | None
    cmdline: str


@dataclass
class Stack:
    """A rank's main-thread stack, innermost frame first, as (function, file, line)."""

    rank: int | None
    pid: int
    frames: list[tuple[str, str, int]]

    @property
    def program_frame(self) -> tuple[str, str, int] | None:
        """The innermost frame of the program itself (not of torch or another library)."""
        return next((f for f in self.frames if not _is_library(f[1])), self.frames[0] if self.frames else None)

    @property
    def collective(self) -> str | None:
        """The torch.distributed call it is inside, if any (the outermost such library frame)."""
        names = [fn for fn, file, _ in self.frames if "torch/distributed" in file and _COLLECTIVE.match(fn)]
        return names[-1] if names else None

    def where(self) -> str:
        f = self.program_frame
        at = f"{f[0]} ({f[1]}:{f[2]})" if f else "no Python frame"
        return f"in {self.collective} at {at}" if self.collective else f"at {at}, in no collective"


@dataclass
class HangReport:
    idle_s: float
    processes: list[RankProcess]
    stacks: list[Stack] = field(default_factory=list)
    stack_files: list[Path] = field(default_factory=list)
    dumps_requested: list[Path] = field(default_factory=list)
    stuck: list[int | None] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        """What the person watching the run reads, on stderr, while the run still hangs."""
        out = [f"crashdoc run: no output for {self.idle_s:.0f} s: looks like a hang; recorded what it leaves."]
        by_rank = {s.rank: s for s in self.stacks}
        if self.stuck:
            names = ", ".join(_rank(r) for r in self.stuck)
            s = by_rank[self.stuck[0]]
            others = [x for x in self.stacks if x.rank not in self.stuck]
            waits = f"; the others ({', '.join(_rank(x.rank) for x in others)}) wait {others[0].where()}" if others else ""
            out.append(f"crashdoc run: {names} looks stuck: {s.where()}{waits}.")
        elif self.stacks:
            out.append(f"crashdoc run: no rank stands out: all {len(self.stacks)} are {self.stacks[0].where()}.")
        for s in sorted(self.stacks, key=lambda x: (x.rank is None, x.rank or 0)):
            out.append(f"  {_rank(s.rank)} (pid {s.pid}): {s.where()}")
        out += [f"crashdoc run: {n}" for n in self.notes]
        if self.stack_files:
            out.append(f"crashdoc run: stacks in {self.stack_files[0].parent}")
        return "\n".join(out) + "\n"


def _rank(r: int | None) -> str:
    return f"rank {r}" if r is not None else "the process"


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append(int(entry))
    return kids


def _environ(pid: int) -> dict[str, str]:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {}
    return dict(item.split("=", 1) for item in raw.decode(errors="replace").split("\0") if "=" in item)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def processes(root: int) -> list[RankProcess]:
    """The ranks of the run under ``root``: per chain of the tree, the topmost process with ``RANK`` in its env (its
    data-loader workers inherit the env and are skipped). A run without ranks: the Python processes under it."""
    kids = _children()
    ranks: list[RankProcess] = []
    pythons: list[RankProcess] = []

    def walk(pid: int, inherited: str | None) -> None:
        env = _environ(pid)
        rank = env.get("RANK")
        cmd = _cmdline(pid)
        if rank is not None and rank != inherited and rank.isdigit():
            ranks.append(RankProcess(pid=pid, rank=int(rank), cmdline=cmd))
            inherited = rank
        elif "python" in cmd.split(" ", 1)[0] and rank is None:
            pythons.append(RankProcess(pid=pid, rank=None, cmdline=cmd))
        for kid in kids.get(pid, []):
            walk(kid, inherited)

    walk(root, None)
    if ranks:
        return sorted(ranks, key=lambda p: p.rank or 0)
    return pythons[-1:]  # the innermost Python (a launcher script's child)


def parse_py_spy(text: str, rank: int | None, pid: int) -> Stack:
    """The main thread's frames from ``py-spy dump`` output (the thread named MainThread, else the first)."""
    threads: list[tuple[str | None, list[tuple[str, str, int]]]] = []
    for line in text.splitlines():
        m = _THREAD.match(line)
        if m:
            threads.append((m.group(1), []))
            continue
        f = _FRAME.match(line)
        if f and threads:
            threads[-1][1].append((f.group(1), f.group(2), int(f.group(3))))
    main = next((t for t in threads if t[0] == "MainThread"), threads[0] if threads else (None, []))
    return Stack(rank=rank, pid=pid, frames=main[1])


def py_spy() -> str | None:
    """py-spy beside this Python (the extra installs it into the same venv, maybe not on PATH), else on PATH."""
    beside = Path(sys.executable).parent / "py-spy"
    return str(beside) if beside.is_file() else shutil.which("py-spy")


def dump_stacks(procs: Sequence[RankProcess], folder: Path, timeout_s: float = 20.0) -> tuple[list[Stack], list[Path], list[str]]:
    """``py-spy dump`` of each rank (all at once: the run is paused a moment, not killed), saved under ``folder``."""
    exe = py_spy()
    if exe is None:
        return [], [], ["py-spy is not installed, so no Python stacks (pip install 'crashdoc[hang]')."]
    folder.mkdir(parents=True, exist_ok=True)
    running = [(p, subprocess.Popen([exe, "dump", "--pid", str(p.pid)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
               for p in procs]
    stacks, files, notes = [], [], []
    for p, proc in running:
        try:
            out, _ = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
        text = out.decode(errors="replace")
        name = folder / (f"rank_{p.rank}.txt" if p.rank is not None else f"pid_{p.pid}.txt")
        name.write_text(text)
        files.append(name)
        stack = parse_py_spy(text, p.rank, p.pid)
        if stack.frames:
            stacks.append(stack)
        else:
            notes.append(f"py-spy could not read {_rank(p.rank)} (pid {p.pid}): {text.strip().splitlines()[0] if text.strip() else 'no output'}")
    return stacks, files, notes


def stuck_ranks(stacks: Sequence[Stack]) -> list[int | None]:
    """The ranks that are not where the others are: a rank that skipped a collective, or waits elsewhere, is the one
    the rest wait for. Grouped by program frame and collective; the smallest group when one is a minority, and
    between two equal groups the one in no collective (the others wait in theirs for it)."""
    if len(stacks) < 2:
        return []
    key = {id(s): (s.program_frame, s.collective) for s in stacks}
    counts = Counter(key.values())
    if len(counts) == 1:
        return []
    groups = sorted(counts.items(), key=lambda kv: kv[1])
    smallest = groups[0][1]
    minority = [k for k, n in groups if n == smallest]
    if len(minority) == len(groups):  # every group the same size: only "in no collective" can tell them apart
        minority = [k for k in minority if k[1] is None]
        if len(minority) != 1:
            return []
    elif len(minority) > 1 and smallest * len(minority) >= len(stacks) / 2:
        return []
    return [s.rank for s in stacks if key[id(s)] in minority]


def request_flight_recorder(env: Mapping[str, str], procs: Sequence[RankProcess]) -> list[Path]:
    """Write a byte to each rank's dump pipe (``<TORCH_NCCL_DEBUG_INFO_PIPE_FILE><rank>.pipe``, made by NCCL's
    watchdog when Flight Recorder is on): the rank writes its buffer to its dump file. Non-blocking: a pipe nobody
    reads (gloo has none) is skipped."""
    prefix = env.get(FR_PIPE_VAR)
    if not prefix:
        return []
    asked = []
    for p in procs:
        if p.rank is None:
            continue
        pipe = Path(f"{prefix}{p.rank}.pipe")
        try:
            fd = os.open(pipe, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            os.write(fd, b"1")
            asked.append(pipe)
        finally:
            os.close(fd)
    return asked


def record(root: int, folder: Path, env: Mapping[str, str], idle_s: float) -> HangReport:
    """Everything above, for the run under ``root``; the stacks and the report saved in ``folder``."""
    procs = processes(root)
    report = HangReport(idle_s=idle_s, processes=procs)
    if not procs:
        report.notes.append("no Python process of the run was found to inspect.")
        return report
    report.dumps_requested = request_flight_recorder(env, procs)
    stacks, files, notes = dump_stacks(procs, folder / "stacks")
    if not stacks and files:  # a process that has just started has no interpreter state to read yet: once more
        time.sleep(1.0)
        stacks, files, notes = dump_stacks(procs, folder / "stacks")
    report.stacks, report.stack_files, report.notes = stacks, files, report.notes + notes
    report.stuck = stuck_ranks(stacks)
    if report.dumps_requested:
        report.notes.append(f"asked {len(report.dumps_requested)} rank(s) for a Flight Recorder dump.")
    (folder / "hang.txt").write_text(report.text())
    return report
