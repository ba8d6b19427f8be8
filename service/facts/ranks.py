"""Which rank printed a line: launcher prefixes, per-rank file names, process ids, and line timestamps."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from service.models import MaskedFile

# Line prefixes that name the rank, in the forms launchers print. Each yields the global rank. An optional
# pdsh/DeepSpeed host prefix ("worker-1: ", "<HOST_2>: ") may come first.
_HOST = r"(?:[\w<>.-]+: )?"
_RANK_PREFIXES: tuple[re.Pattern[str], ...] = (
    # torch >= 2.2 worker output and c10d logs: "[rank3]: Traceback ...", "[rank3]:[W ProcessGroupNCCL.cpp:1234] ..."
    re.compile(_HOST + r"\[rank(\d+)\]:"),
    # torchrun --tee / --log-line-prefix-template with the role name: "[default3]:[W ProcessGroupNCCL.cpp...]"
    re.compile(_HOST + r"\[default(\d+)\]:"),
    # Open MPI --tag-output: "[1,3]<stdout>:loss 0.1"
    re.compile(_HOST + r"\[\d+,(\d+)\]<std(?:out|err)>:"),
    # Lightning: "[rank: 3] Seed set to 42"
    re.compile(_HOST + r"\[rank: (\d+)\]"),
    # hand-rolled and masked host:rank prefixes: "[node-1:3] ...", "[<HOST_1>:3]: ..."
    re.compile(r"\[[\w<>.-]+:(\d+)\]:? "),
    # srun -l and torchrun --tee 3 (older): "3: Traceback (most recent call last):"; after pdsh: "node-1: 11: ..."
    re.compile(r"(?:[\w<>.]*[\d<>-][\w<>.-]*: )?\s{0,3}(\d{1,4}): "),
    # loguru / custom formats: "rank=3 | ...", "[RANK 3] ...", "Rank 3: ..."
    re.compile(r".{0,40}?\b[Rr][Aa][Nn][Kk][ =:]?(\d+)\]?[:|] "),
)
# The rank a message names about itself: "[Rank 3] Watchdog caught ...", "global_rank=3", "rank: 3 (local_rank"
RANK_IN_MESSAGE = re.compile(r"\[(?:PG \d+ )?Rank (\d+)\]|\bglobal[_ ]rank[ =:]+(\d+)\b|\brank[ =:]+(\d+)\b", re.I)

# Per-rank files: "rank_3.log", "rank-3.out", "worker3.log", "proc_3.txt", "gpu3.log", Open MPI "1/rank.3/stderr"
_RANK_FILE = re.compile(r"(?:^|[/_.-])(?:rank|worker|proc|gpu)[_.-]?(\d+)(?:\D|$)", re.I)
# torchrun --log-dir: "<log_dir>/<run_id>/attempt_0/3/stderr.log" (3 is the local rank); error files ".../attempt_0/3/error.json"
_LOCAL_RANK_DIR = re.compile(r"(?:^|/)attempt_\d+/(\d+)/(?:stdout|stderr|error)\.(?:log|json|txt)$")
# Node folders of a multi-node run: "node1/...", "node-1/...", "host1/..."
_NODE_DIR = re.compile(r"(?:^|/)(?:node|host)[_-]?(\d+)/", re.I)

# Process ids that name a rank: NCCL "gpu-node-1:4431:4609 [0] NCCL INFO comm 0x... rank 0 nranks 2 cudaDev 0",
# torchrun's summary "rank : 1 (local_rank: 1)" + "exitcode : 1 (pid: 4432)", Ray "(ip=10.0.0.7, pid=18301) world_rank=0"
_NCCL_PID_RANK = re.compile(r"^(?:\S+: )?[\w<>.-]+:(\d+):\d+ \[\d+\] NCCL INFO .*?\brank (\d+) nranks \d+")
_RAY_PID_RANK = re.compile(r"pid=(\d+)\)? world_rank=(\d+)")
# Lines that carry a process id in their prefix: NCCL "host:4431:4609 [0] NCCL WARN ...", Ray "(RayTrainWorker pid=18301, ip=...) ..."
_NCCL_PID_PREFIX = re.compile(r"^(?:\S+: )?[\w<>.-]+:(\d+):\d+ \[\d+\] NCCL ")
_RAY_PID_PREFIX = re.compile(r"^\((?:\w+) pid=(\d+)(?:, ip=[^)]*)?\) ")

# Timestamps: "2024-05-01 12:00:03,123", "2024-05-01T12:00:03.123Z", torchrun's summary "2024-05-01_12:00:03",
# HF/transformers "05/01/2024 12:00:03", glog "[E501 12:00:03.123456" / "E0501 12:00:03"
_ISO_TS = re.compile(r"(\d{4})-(\d\d)-(\d\d)[ T_](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,6}))?")
_US_TS = re.compile(r"\b(\d\d)/(\d\d)/(\d{4}) (\d\d):(\d\d):(\d\d)")
_GLOG_TS = re.compile(r"(?:^|[\[\s:])[IWEF](\d{1,2}?)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{1,9})")


def line_rank(text: str) -> int | None:
    """The rank a line's prefix names, or None."""
    for pattern in _RANK_PREFIXES:
        m = pattern.match(text)
        if m:
            return int(m.group(1))
    return None


def file_rank(name: str) -> int | None:
    """The rank a per-rank file's name gives (a global rank, or a local one under torchrun's --log-dir)."""
    m = _LOCAL_RANK_DIR.search(name)
    if m:
        return int(m.group(1))
    m = _RANK_FILE.search(name.rsplit("/", 1)[-1])
    if m:
        return int(m.group(1))
    m = _RANK_FILE.search(name.rsplit("/", 1)[0]) if "/" in name else None
    return int(m.group(1)) if m else None


def file_ranks(names: Sequence[str]) -> dict[str, int | None]:
    """The rank of each file of one run; local ranks under node folders become global (node * local ranks per node)."""
    out = {n: file_rank(n) for n in names}
    noded = {n: int(m.group(1)) for n in names if (m := _NODE_DIR.search(n)) and _LOCAL_RANK_DIR.search(n)}
    if noded:
        per_node = max((out[n] or 0) for n in noded) + 1
        base = min(noded.values())
        for n, node in noded.items():
            local = out[n]
            out[n] = None if local is None else (node - base) * per_node + local
    return out


def timestamp_key(text: str) -> tuple[int, ...] | None:
    """A sortable (month, day, h, m, s, µs) for the line's first timestamp, or None."""
    head = text[:100]
    m = _ISO_TS.search(head)
    if m:
        frac = int((m.group(7) or "0").ljust(6, "0"))
        return (int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5)), int(m.group(6)), frac)
    m = _US_TS.search(head)
    if m:
        return (int(m.group(1)), int(m.group(2)), int(m.group(4)), int(m.group(5)), int(m.group(6)), 0)
    m = _GLOG_TS.search(head[:60])
    if m:
        month, day, h, mi, sec, fraction = m.groups()
        return (int(month), int(day), int(h), int(mi), int(sec), int(fraction[:6].ljust(6, "0")))
    return None


def epoch_key(seconds: float) -> tuple[int, ...]:
    """The same key for a Unix time (torchrun's error files record one)."""
    t = datetime.fromtimestamp(seconds, tz=UTC)
    return (t.month, t.day, t.hour, t.minute, t.second, t.microsecond)


@dataclass
class RankMap:
    """Everything that says which rank printed a line, gathered in one pass over the files."""

    by_file: dict[str, int | None] = field(default_factory=dict)
    by_pid: dict[int, int] = field(default_factory=dict)

    def rank_of(self, file: str, text: str) -> int | None:
        rank = line_rank(text)
        if rank is not None:
            return rank
        m = _NCCL_PID_PREFIX.match(text) or _RAY_PID_PREFIX.match(text)
        if m and int(m.group(1)) in self.by_pid:
            return self.by_pid[int(m.group(1))]
        return self.by_file.get(file)


def rank_map(files: Sequence[MaskedFile]) -> RankMap:
    """File ranks and the process-id -> rank pairs that NCCL INFO, Ray and torchrun's summary print."""
    rm = RankMap(by_file=file_ranks([f.name for f in files]))
    for f in files:
        pending_rank: int | None = None
        for text in f.lines:
            if "NCCL INFO" in text and " nranks " in text:
                m = _NCCL_PID_RANK.match(text)
                if m:
                    rm.by_pid.setdefault(int(m.group(1)), int(m.group(2)))
            elif "world_rank=" in text:
                m = _RAY_PID_RANK.search(text)
                if m:
                    rm.by_pid.setdefault(int(m.group(1)), int(m.group(2)))
            elif "(local_rank" in text:
                m = re.search(r"rank\s*:\s*(\d+) \(local_rank", text)
                pending_rank = int(m.group(1)) if m else None
            elif pending_rank is not None and "(pid:" in text:
                m = re.search(r"exitcode\s*:\s*-?\d+ \(pid: (\d+)\)", text)
                if m:
                    rm.by_pid.setdefault(int(m.group(1)), pending_rank)
                pending_rank = None
    return rm
