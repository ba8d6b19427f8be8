"""Which rank printed a line: launcher prefixes, per-rank file names, nodes, process ids, and timestamps.

A line's rank comes, in order, from its own prefix (``[rank3]:``, ``[default3]:``, ``3:`` of srun -l,
Open MPI's ``[1,3]<stderr>:``), from a node prefix combined with a local index (srun -l over torchrun,
pdsh/DeepSpeed ``host: `` with ``global_rank_mapping``, ``[node1]``), from a process id that NCCL, Ray,
DeepSpeed or torchrun tied to a rank, or from the file it is in (``rank_3.log``, ``attempt_0/3/stderr.log``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache

from service.models import MaskedFile

# Line prefixes that name the (global) rank, in the forms launchers print. A pdsh/DeepSpeed host prefix
# ("worker-1: ", "<HOST_2>: ") may come first.
_HOST = r"(?:[\w<>.-]+: )?"
_RANK_PREFIXES: tuple[re.Pattern[str], ...] = (
    # torch >= 2.2 worker output and c10d logs: "[rank3]: Traceback ...", "[rank3]:[W ProcessGroupNCCL.cpp:1234] ..."
    re.compile(_HOST + r"\[rank(\d+)\]:"),
    # a script's own logger format: "[rank4] 2024-05-14 08:02:42,004 INFO epoch 0 step 50/8383 loss 7.4031"
    re.compile(_HOST + r"\[rank(\d+)\] "),
    # Open MPI --tag-output: "[1,3]<stdout>:loss 0.1"
    re.compile(_HOST + r"\[\d+,(\d+)\]<std(?:out|err)>:"),
    # Lightning: "[rank: 3] Seed set to 42"
    re.compile(_HOST + r"\[rank: (\d+)\]"),
    # a script's logger with a space: "[rank 3] scoring 504 utterances (8 batches)"
    re.compile(_HOST + r"\[rank (\d+)\] "),
    # hand-rolled and masked host:rank prefixes: "[node-1:3] ...", "[<HOST_1>:3]: ..."; not Open MPI's host:pid before its
    # fixed messages: "[gpu-a017:81234] *** An error occurred in MPI_Allreduce", "[gpu-a017:81234] Local abort before MPI_INIT ...",
    # nor a logger's source file and line: "[sft.py:88] rank=6 local_rank=6 device=cuda:6"
    re.compile(r"\[(?![\w.-]*\.py:)[\w<>.-]+:(\d+)\]:? (?!\*\*\* |Local abort )"),
    # loguru / custom formats: "rank=3 | ...", "[RANK 3] ...", "Rank 3: ..."
    re.compile(r".{0,40}?\b[Rr][Aa][Nn][Kk][ =:]?(\d+)\]? ?[:|] "),
)
# torchrun --tee / --log-line-prefix-template with the role name: "[default3]:..." (a LOCAL rank: global on one node)
_TORCHRUN_LOCAL = re.compile(r"^(?:[\w<>.-]+: )?(?:\d{1,4}: )?\[default(\d+)\]:")
# srun -l (a task number) and old torchrun --tee: "3: Traceback ..."; after pdsh: "node-1: 11: ..."
_NUMERIC = re.compile(r"^(?:[\w<>.]*[\d<>-][\w<>.-]*: )?\s{0,3}(\d{1,4}): ")
# a host prefix (pdsh, DeepSpeed multi-node) or a node tag: "worker-1: ...", "<HOST_2>: ...", "[node1] ..."
_HOST_PREFIX = re.compile(r"^([\w<>.-]*[\d<>-][\w<>.-]*): (?!\s)")
_NODE_TAG = re.compile(r"^\[node[_-]?(\d+)\] ")
# what a line says about its local device: NCCL "host:pid:tid [3] NCCL WARN", OOM "(GPU 3; 79.15 GiB total capacity" /
# "GPU 3 has a total capacity" (torch 2.1 printed "GPU 3 has a total capacty"), "--local_rank=3", "local_rank=3"
_LOCAL_INDEX = re.compile(
    r"^(?:\S+: )?[\w<>.-]+:\d+:\d+ \[(\d+)\] (?:\S+ )?NCCL |\(GPU (\d+);|\bGPU (\d+) has a total capac[i]?ty|--local_rank=(\d+)|\blocal_rank[=: ]+(\d+)\b"
)
# the GPU an OOM names: "(GPU 3; 79.15 GiB total capacity; ...", "GPU 3 has a total capacity of 79.15 GiB" / "capacty" (torch 2.1)
_OOM_GPU = re.compile(r"\(GPU (\d+);|\bGPU (\d+) has a total capac[i]?ty")
# a script's own start-up line tying a rank to its device: "[sft.py:88] rank=6 local_rank=6 device=cuda:6 world_size=8",
# "rank 3 using device cuda:3"
_DEVICE_MAP = re.compile(r"\b[Rr]ank[=: ]+(\d+)\b.{0,80}?\b(?:device|using|on)[=: ](?:device )?cuda:(\d+)\b")
# one device per rank through CUDA_VISIBLE_DEVICES: every rank's OOM then says "GPU 0", which names no rank:
# "LOCAL_RANK=3 CUDA_VISIBLE_DEVICES=3", "CUDA_VISIBLE_DEVICES=3 python train.py"
_ONE_VISIBLE_DEVICE = re.compile(r"\bCUDA_VISIBLE_DEVICES=['\"]?(\d+)\b(?![,\d])")
# The rank a message names about itself: "[Rank 3] Watchdog caught ...", "[PG 0 (default_pg) Rank 3]", torch >= 2.5
# "[PG ID 0 PG GUID 0(default_pg) Rank 3] Watchdog caught ...", "global_rank=3",
# DDP "Parameters which did not receive grad for rank 3:", "NCCL communicator was aborted on rank 3",
# Open MPI "mpirun noticed that process rank 11 with PID 48213 on node gpu-b07 exited on signal 9 (Killed).",
# Open MPI's error handler, the rank of the process that raised (the vpid of "[jobid,vpid]", help-mpi-errors.txt in 4.1 and 5.0):
# "[gpu-a017:81234] *** reported by process [3415277569,1]",
# NCCL's init, each rank naming itself first (init.cc: WARN(..., rank, i, busId)): "Duplicate GPU detected : rank 1 and rank 0
# both on CUDA device 1000"
RANK_IN_MESSAGE = re.compile(
    r"\[(?:PG (?:ID )?\d+ (?:PG GUID \S+ )?(?:\([^)]*\) )?)?Rank (\d+)\]|\bglobal[_ ]rank[ =:]+(\d+)\b|did not receive grad for rank (\d+)|\bon rank (\d+)\b|^\S*\s*rank=(\d+)\b|\bprocess rank (\d+) with PID\b"
    r"|Duplicate GPU detected : rank (\d+) and rank \d+ both on|\*\*\* reported by process \[\d+,(\d+)\]"
)

# Per-rank files: "rank_3.log", "rank-3.out", "worker3.log", "proc_3.txt", "gpu3.log", Open MPI "1/rank.3/stderr"
_RANK_FILE = re.compile(r"(?:^|[/_.-])(?:rank|worker|proc|gpu)[_.-]?(\d+)(?:\D|$)", re.I)
# torchrun --log-dir: "<log_dir>/<run_id>/attempt_0/3/stderr.log" (3 is the local rank); error files ".../attempt_0/3/error.json"
_LOCAL_RANK_DIR = re.compile(r"(?:^|/)attempt_\d+/(\d+)/(?:stdout|stderr|error)\.(?:log|json|txt)$")
# Node folders of a multi-node run: "node1/...", "node-1/...", "host1/..."
_NODE_DIR = re.compile(r"(?:^|/)(?:node|host)[_-]?(\d+)/", re.I)

# Process ids tied to a rank: NCCL "gpu-node-1:4431:4609 [0] NCCL INFO comm 0x... rank 0 nranks 2 cudaDev 0";
# Ray "(ip=10.0.0.7, pid=18301) world_rank=0"; DeepSpeed "process 48213 spawned with command: [..., '--local_rank=0', ...]"
_NCCL_PID_RANK = re.compile(r"^(?:\S+: )?[\w<>.-]+:(\d+):\d+ \[\d+\] (?:\S+ )?NCCL INFO .*?\brank (\d+) nranks \d+")
_RAY_PID_RANK = re.compile(r"pid=(\d+)\)? world_rank=(\d+)")
_DS_SPAWN = re.compile(r"process (\d+) spawned with command: .*--local_rank=(\d+)")
# Lines that carry a process id: NCCL "host:4431:4609 [0] NCCL WARN ...", Ray "(RayTrainWorker pid=18301, ip=...) ...",
# dmesg "NVRM: Xid (PCI:0000:07:00): 48, pid=28813, name=python, ..."
_PID_IN_LINE = re.compile(r"^(?:\S+: )?[\w<>.-]+:(\d+):\d+ \[\d+\] (?:\S+ )?NCCL |^\((?:\w+) pid=(\d+)(?:, ip=[^)]*)?\) |NVRM: Xid \([^)]*\): \d+, pid=(\d+)")
# nvidia-smi's table row "|   4  NVIDIA A100-SXM4-80GB  On  | 00000000:87:00.0 Off |" and dmesg "NVRM: Xid (PCI:0000:87:00): 79"
# and nvidia-smi afterwards: "Unable to determine the device handle for GPU0000:00:1D.0: GPU is lost"
_SMI_BUS = re.compile(r"^\|\s+(\d+)\s+[^|]*\|\s*[0-9A-Fa-f]{4,8}:([0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})\.\d")
_XID_BUS = re.compile(r"NVRM: Xid \(PCI:[0-9A-Fa-f]{4}:([0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})\)|device handle for GPU[0-9A-Fa-f]{4,8}:([0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})\.")
# DeepSpeed multi-node: "global_rank_mapping=defaultdict(<class 'list'>, {'worker-0': [0, ..., 7], 'worker-1': [8, ..., 15]})"
_DS_MAPPING = re.compile(r"global_rank_mapping=defaultdict\(<class 'list'>, (\{.*\})\)")
# ... and its local slots per host: "WORLD INFO DICT: {'worker-0': [0, 1, 2, 3, 4, 5, 6, 7], 'worker-1': [0, 1, ..., 7]}"
_DS_WORLD_INFO = re.compile(r"WORLD INFO DICT: (\{.*\})")
# torchrun / DeepSpeed ranks per node: "nproc_per_node=8", "--nproc_per_node 8", "num_local_procs=8", "local_world_size=8"
_PER_NODE = re.compile(r"(?:nproc[_-]per[_-]node|num_local_procs|local_world_size)[=: ]+(\d+)")
# vLLM / SGLang tensor-parallel workers are ranks too: "tensor_parallel_size=2"
_TP_SIZE = re.compile(r"tensor_parallel_size=(\d+)")
# torchrun's agent names a LOCAL rank: "failed (exitcode: 1) local_rank: 1 (pid: 3102) of binary: /usr/local/bin/python"
_AGENT_LOCAL = re.compile(r"failed \(exitcode: -?\d+\) local_rank: (\d+) \(pid:")
# DeepSpeed's launcher on the first process it found exited prints the command of the LAST process it spawned (launch.py's
# sigkill_handler logs the loop variable ``cmd``; read in 0.9.5, 0.16.4 and 0.19.8), so its --local_rank names no failed rank:
# "[ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_rank=7', ...] exits with return code = 1"
_DS_LAST_COMMAND = re.compile(r"sigkill_handler\] \[.*\] exits with return code = -?\d+")
_TORCHRUN_HINT = re.compile(r"torch\.distributed\.elastic|torch/distributed/(?:run|elastic)|\btorchrun\b|\[default\d+\]:")

# Timestamps: "2024-05-01 12:00:03,123", "2024-05-01T12:00:03.123Z", torchrun's summary "2024-05-01_12:00:03",
# HF/transformers "05/01/2024 12:00:03", glog "[E501 12:00:03.123456" / "E0501 12:00:03"
_ISO_TS = re.compile(r"(\d{4})-(\d\d)-(\d\d)[ T_](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,6}))?")
_US_TS = re.compile(r"\b(\d\d)/(\d\d)/(\d{4}) (\d\d):(\d\d):(\d\d)")
_GLOG_TS = re.compile(r"(?:^|[\[\s:])[IWEF](\d{1,2}?)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{1,9})")


def line_rank(text: str, numeric: bool = True) -> int | None:
    """The global rank a line's own prefix names, or None (``numeric``: trust a bare ``3: `` srun prefix)."""
    for pattern in _RANK_PREFIXES:
        m = pattern.match(text)
        if m:
            return int(m.group(1))
    m = _TORCHRUN_LOCAL.match(text)
    if m and not (numeric and _NUMERIC.match(text)):
        return int(m.group(1))
    if numeric:
        m = _NUMERIC.match(text)
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
    return _timestamp_key(text[:100])


@lru_cache(maxsize=16384)  # keyed by the first 100 characters, all it reads: the prefilter asks again for the lines
def _timestamp_key(head: str) -> tuple[int, ...] | None:  # before each undated candidate (a traceback's frames)
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


def timestamp_text(text: str) -> str | None:
    """The line's first timestamp as printed ("2024-05-01 12:00:03,123", "E0501 12:00:03.123456"), or None."""
    head = text[:100]
    for pattern in (_ISO_TS, _US_TS):
        m = pattern.search(head)
        if m:
            return m.group(0)
    m = _GLOG_TS.search(head[:60])
    return m.group(0).lstrip("[ :") if m else None


def epoch_key(seconds: float) -> tuple[int, ...]:
    """The same key for a Unix time (torchrun's error files record one)."""
    t = datetime.fromtimestamp(seconds, tz=UTC)
    return (t.month, t.day, t.hour, t.minute, t.second, t.microsecond)


def _first_group(m: re.Match[str]) -> int:
    return int(next(g for g in m.groups() if g is not None))


@dataclass
class RankMap:
    """Everything that says which rank printed a line, gathered in one pass over the files."""

    by_file: dict[str, int | None] = field(default_factory=dict)
    by_pid: dict[int, int] = field(default_factory=dict)
    by_host: dict[str, list[int]] = field(default_factory=dict)  # node prefix -> its global ranks, in local order
    numeric_files: set[str] = field(default_factory=set)  # files whose "N: " prefixes are srun task numbers
    node_files: set[str] = field(default_factory=set)  # ... where srun ran one torchrun per node: N is the node
    file_offsets: dict[str, int] = field(default_factory=dict)  # "[default5]: ... [Rank 13]": this file's node starts at 8
    node_bases: dict[str, int] = field(default_factory=dict)  # a node's file whose lines carry ranks 4-7: its agent's local 1 is 5
    by_bus: dict[str, int] = field(default_factory=dict)  # PCI bus -> GPU index, from nvidia-smi's table
    by_gpu: dict[int, int] = field(default_factory=dict)  # GPU index -> global rank, where the script printed the pairing
    one_device_per_rank: bool = False  # CUDA_VISIBLE_DEVICES hid the other GPUs: "GPU 0" is every rank's device
    per_node: int | None = None
    multi_process: bool = False
    torchrun: bool = False  # torchrun / torch.distributed.elastic launched the ranks

    def rank_of(self, file: str, text: str) -> int | None:
        """The global rank that printed ``text`` in ``file``, or None when nothing says."""
        if "sigkill_handler" in text and _DS_LAST_COMMAND.search(text):
            return None  # the launcher's line about the LAST command it spawned, whichever process failed
        numeric = file in self.numeric_files and file not in self.node_files
        rank = line_rank(text, numeric=numeric)
        local = _TORCHRUN_LOCAL.match(text)
        if local and file in self.file_offsets and file not in self.node_files:
            return int(local.group(1)) + self.file_offsets[file]
        if rank is not None and not (file in self.node_files and local):
            return rank
        node_base = self._node_base(file, text)
        if node_base is not None:
            local = _TORCHRUN_LOCAL.match(text) or _LOCAL_INDEX.search(text)
            if local:
                return node_base + _first_group(local)
        if file in self.node_bases and "local_rank" in text and (m := _AGENT_LOCAL.search(text)):
            return self.node_bases[file] + int(m.group(1))
        m = _PID_IN_LINE.search(text)
        if m and _first_group(m) in self.by_pid:
            return self.by_pid[_first_group(m)]
        if self.by_gpu and not self.one_device_per_rank and (m := _OOM_GPU.search(text)) and _first_group(m) in self.by_gpu:
            return self.by_gpu[_first_group(m)]
        m = _XID_BUS.search(text)
        if m and self.multi_process and len(self.by_host) <= 1:
            bus = (m.group(1) or m.group(2)).lower()
            if bus in self.by_bus:
                return self.by_bus[bus]
        if node_base is None and self.multi_process:
            local = _LOCAL_INDEX.search(text)
            if (local and self.by_file.get(file) is None and len(self.by_host) <= 1
                    and not (self.one_device_per_rank and _OOM_GPU.search(text))):
                return _first_group(local)
        return self.by_file.get(file)

    def node_ranks(self, text: str) -> list[int] | None:
        """The global ranks of the node a line's host prefix names (DeepSpeed's mapping), or None."""
        m = _HOST_PREFIX.match(text)
        return self.by_host.get(m.group(1)) if m else None

    def _node_base(self, file: str, text: str) -> int | None:
        if file in self.node_files:
            m = _NUMERIC.match(text)
            if m and self.per_node:
                return int(m.group(1)) * self.per_node
            return None
        m = _NODE_TAG.match(text)
        if m and self.per_node:
            return int(m.group(1)) * self.per_node
        m = _HOST_PREFIX.match(text)
        if m and m.group(1) in self.by_host:
            return self.by_host[m.group(1)][0]
        return None


def rank_map(files: Sequence[MaskedFile], world_size: int | None = None) -> RankMap:
    """File ranks, node layouts and the process-id -> rank pairs that NCCL INFO, Ray, DeepSpeed and torchrun print."""
    rm = RankMap(by_file=file_ranks([f.name for f in files]))
    max_local = -1
    visible: set[int] = set()
    for f in files:
        offsets: set[int] = set()
        pending_rank: int | None = None
        numeric_lines = 0
        torchrun_hint = False
        prefixed: set[int] = set()
        for _, text in f.numbered():  # an empty line names no rank (and the prefilter leaves millions of them)
            if text[:1] == "[" and (r := line_rank(text, numeric=False)) is not None:
                prefixed.add(r)
            if _NUMERIC.match(text):
                numeric_lines += 1
            if not torchrun_hint and _TORCHRUN_HINT.search(text):
                torchrun_hint = True
            if (m := _TORCHRUN_LOCAL.match(text)) is not None:
                max_local = max(max_local, int(m.group(1)))
                if "Rank " in text and (g := RANK_IN_MESSAGE.search(text)) and g.group(1):
                    offsets.add(int(g.group(1)) - int(m.group(1)))
            elif text.startswith("|") and (m := _SMI_BUS.match(text)):
                rm.by_bus.setdefault(m.group(2).lower(), int(m.group(1)))
            if "NCCL INFO" in text and " nranks " in text:
                if m := _NCCL_PID_RANK.match(text):
                    rm.by_pid.setdefault(int(m.group(1)), int(m.group(2)))
            elif "world_rank=" in text:
                if m := _RAY_PID_RANK.search(text):
                    rm.by_pid.setdefault(int(m.group(1)), int(m.group(2)))
            elif "global_rank_mapping=" in text or "WORLD INFO DICT:" in text:
                _host_mapping(text, rm)
            elif "(local_rank" in text:
                m = re.search(r"rank\s*:\s*(\d+) \(local_rank", text)
                pending_rank = int(m.group(1)) if m else None
            elif pending_rank is not None and "(pid:" in text:
                if m := re.search(r"exitcode\s*:\s*-?\d+ \(pid: (\d+)\)", text):
                    rm.by_pid.setdefault(int(m.group(1)), pending_rank)
                pending_rank = None
            if "cuda:" in text and (m := _DEVICE_MAP.search(text)):
                rm.by_gpu.setdefault(int(m.group(2)), int(m.group(1)))
            if "CUDA_VISIBLE_DEVICES=" in text and (m := _ONE_VISIBLE_DEVICE.search(text)):
                visible.add(int(m.group(1)))
            if rm.per_node is None and (m := _PER_NODE.search(text)):
                rm.per_node = int(m.group(1)) or None
            if "tensor_parallel_size" in text and (m := _TP_SIZE.search(text)) and int(m.group(1)) > 1:
                world_size = max(world_size or 0, int(m.group(1)))
        if len(offsets) == 1 and (offset := offsets.pop()) > 0:
            rm.file_offsets[f.name] = offset
        _check_file_rank(f.name, prefixed, rm)
        rm.torchrun = rm.torchrun or torchrun_hint
        if numeric_lines >= 5 and numeric_lines >= 0.05 * (len(f.lines) - f.dropped):  # of the lines read, not the counted ones
            rm.numeric_files.add(f.name)
            if torchrun_hint:
                rm.node_files.add(f.name)
    rm.one_device_per_rank = len(visible) > 1
    if rm.per_node is None and max_local >= 0:
        rm.per_node = max_local + 1
    _spawned_pids(files, rm)
    rm.multi_process = bool(rm.by_pid or rm.by_host or rm.numeric_files or (world_size or 0) > 1
                            or any(r is not None for r in rm.by_file.values()))
    return rm


def _check_file_rank(name: str, prefixed: set[int], rm: RankMap) -> None:
    """A file whose lines name other ranks than its name is one node's (a pod "worker-0" holding ranks 4-7), not a rank's.

    Its ranks, when they are one contiguous block, place the agent's local ranks: local 1 there is global min + 1.
    """
    if not prefixed:
        return
    if rm.by_file.get(name) is not None and (len(prefixed) > 1 or rm.by_file[name] not in prefixed):
        rm.by_file[name] = None
    low, high = min(prefixed), max(prefixed)
    if len(prefixed) > 1 and low > 0 and high - low + 1 == len(prefixed):
        rm.node_bases[name] = low


def _host_mapping(text: str, rm: RankMap) -> None:
    """DeepSpeed's node layout: global ranks per host, or local slots per host (global = the hosts' slots in order)."""
    m = _DS_MAPPING.search(text) or _DS_WORLD_INFO.search(text)
    if not m:
        return
    try:
        mapping = ast.literal_eval(m.group(1))
    except (ValueError, SyntaxError):
        return
    if not isinstance(mapping, dict):
        return
    offset = 0
    for host, ranks in mapping.items():
        if not isinstance(ranks, list) or not ranks:
            continue
        ranks = [int(r) for r in ranks]
        if m.re is _DS_WORLD_INFO:  # local slots: the host's global ranks follow the previous hosts'
            ranks, offset = [offset + i for i in range(len(ranks))], offset + len(ranks)
        rm.by_host.setdefault(str(host), ranks)


def _spawned_pids(files: Sequence[MaskedFile], rm: RankMap) -> None:
    """DeepSpeed's launcher: "process 48213 spawned with command: [... '--local_rank=1' ...]" on each node."""
    for f in files:
        for _, text in f.numbered():
            if "spawned with command" not in text:
                continue
            m = _DS_SPAWN.search(text)
            if not m:
                continue
            host = _HOST_PREFIX.match(text)
            base = rm.by_host[host.group(1)][0] if host and host.group(1) in rm.by_host else 0
            rm.by_pid.setdefault(int(m.group(1)), base + int(m.group(2)))
