"""One timeline of error lines across ranks and files: which rank failed first, and which errors only followed.

Every error line becomes an event, classified by ``ERROR_PATTERNS`` as a cause candidate or as collateral
(with why). Events are ordered by timestamp where lines have one (a line without inherits the last one
seen in its file) and by position otherwise. The initiating rank is the rank of the first non-collateral
event; when that event names no rank, the launchers' own summaries decide (torchrun's error files and its
"Root Cause (first observed failure)" block, DeepSpeed's and srun's exit lines), and for a pure collective
timeout the one rank that never reported the timeout.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from service.facts.ranks import RANK_IN_MESSAGE, RankMap, epoch_key, timestamp_key
from service.models import ErrorEvent, LineRef, MaskedFile


@dataclass(frozen=True)
class ErrorPattern:
    kind: str
    pattern: re.Pattern[str]
    collateral: bool
    why: str = ""


def _err(kind: str, pattern: str, collateral: bool = False, why: str = "") -> ErrorPattern:
    return ErrorPattern(kind, re.compile(pattern), collateral, why)


# Error lines, collateral first: a line that matches a collateral pattern is collateral even if it also says
# "Error". Order matters.
ERROR_PATTERNS: tuple[ErrorPattern, ...] = (
    # "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1021, OpType=ALLREDUCE, ...)";
    # gloo "Timed out waiting 1800000ms for recv operation to complete"; "Rank 1 failed to pass monitoredBarrier"
    _err("collective-timeout",
         r"Watchdog caught collective operation timeout|Some NCCL operations have failed or timed out|collective operation timeout|"
         r"ran for \d+ milliseconds before timing out|Timed out waiting \d+ms for (?:send|recv) operation|ProcessGroupGloo.*[Tt]imed out|"
         r"Timeout at NCCL work|Heartbeat monitor timed out|failed to pass monitoredBarrier|Application timeout caused pair closure",
         True, "a rank waiting in a collective times out when another rank stopped participating"),
    # gloo "RuntimeError: [../third_party/gloo/.../pair.cc:534] Connection closed by peer [10.0.0.2]:12345"; NCCL
    # "remote process exited or there was a network error"; c10d store "Connection reset by peer" / "Broken pipe"
    _err("peer-gone",
         r"Connection (?:reset|closed) by (?:remote )?peer|Broken pipe|NCCL communicator was aborted|\bSocket Timeout\b|"
         r"remote process exited or there was a network error|ECONNRESET|recv: Connection refused|peer has closed|"
         r"Connection refused\) \(|failed to recv, got 0 bytes|Failed to recv, got 0 bytes|Stop_waiting response is expected",
         True, "the connection broke because the peer process had already died"),
    # torchrun "Sending process 1234 closing signal SIGTERM"; DeepSpeed "[launch.py:316:sigkill_handler] Killing subprocess 1234"
    _err("launcher-sigterm",
         r"closing signal SIGTERM|Received SIGTERM|SignalException: Process \d+ got signal: 15|got signal: 15\b|"
         r"Signal 15 \(SIGTERM\)|exitcode\s*:\s*-15\b|Received 15 death signal|sigkill_handler\] Killing subprocess|"
         r"srun: (?:forcing job termination|error: .*: task \d+: Terminated)|STEP [\d.]+ ON \S+ CANCELLED AT (?!.*DUE TO)",
         True, "the launcher terminates the surviving ranks after the first one fails"),
    # torchrun's summary: "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:", "failed (exitcode: 1) local_rank: 0";
    # DeepSpeed "[launch.py:322:sigkill_handler] [...] exits with return code = 1"; srun "srun: error: node-1: task 3: Exited with exit code 1"
    _err("launcher-summary",
         r"ChildFailedError|failed \(exitcode: -?\d+\) local_rank|^\s*Root Cause \(first observed failure\)|^\s*Failures:|"
         r"subprocess\.CalledProcessError|exits with return code = |: tasks? [\d,-]+: Exited with exit code|"
         r"Worker group FAILED|FAILED with no error file|RayTaskError|TrainingFailedError",
         True, "the launcher's summary of a rank's exit, not a cause"),
    # DeepSpeed "exception raised in another rank"; "ProcessGroupNCCL is aborting"; the watchdog's abort
    _err("aborted",
         r"exception raised in another rank|another rank (?:failed|exited)|ProcessGroupNCCL is aborting|Process group watchdog thread terminated|"
         r"To avoid data inconsistency, we are taking the entire process down|Aborting process group|ncclCommAbort|TCPStore.*(?:Broken|closed)|"
         r"DistNetworkError|terminate called after throwing an instance of 'c10::DistBackendError'|"
         r"Stopping worker group|Rendezvous .* closed|Rendezvous is closed",
         True, "teardown after another rank's failure"),
    # Cause candidates.
    _err("cuda-error", r"CUDA error|CUDA out of memory|OutOfMemoryError|CUBLAS_STATUS|CUDNN_STATUS|cudaError|device-side assert|illegal memory access|no kernel image"),
    _err("nccl-error", r"ncclUnhandledCudaError|ncclSystemError|ncclInternalError|ncclInvalidUsage|ncclRemoteError|NCCL error|NET/IB.*error|Duplicate GPU detected|NCCL WARN"),
    _err("killed", r"\bKilled\b|exitcode\s*:\s*-9\b|Signal 9 \(SIGKILL\)|oom-kill|Out of memory: Killed process|OOMKilled|exit code 137|SIGKILL"),
    _err("signal", r"Signal \d+ \(SIG\w+\) received|Fatal Python error|Segmentation fault|SIGSEGV|SIGBUS|Bus error|core dumped|SIGHUP|death signal|exitcode\s*:\s*-\d+\b"),
    _err("hardware", r"NVRM: Xid|fallen off the bus|uncorrectable ECC|ECC error"),
    _err("scheduler", r"CANCELLED AT .* DUE TO|DUE TO TIME LIMIT|DUE TO PREEMPTION|JOB \d+ ON \S+ CANCELLED"),
    # A Python exception line: "RuntimeError: ...", "torch.OutOfMemoryError: ...", "ValueError: ..." (the line that ends
    # a traceback; the header and `raise` frames are not events)
    _err("exception", r"^(?:\[?[\w<>.:, -]*\]?(?:<std\w+>)?:? ?)?(?:[a-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Interrupt)\b(?::|$)"),
)
_CHEAP = re.compile(r"[Ee]rror|[Ee]xception|Interrupt|[Kk]ill|[Ss]ignal|SIG|[Tt]imed? ?out|[Ff]ail|peer|Broken|CANCELLED|Xid|NCCL WARN|"
                    r"ECC|fault|core dumped|Bus error|exitcode|return code|exit code|abort|Abort|closing signal|OOM|Out of memory")

# torchrun's summary block (between "Failures:" and the closing "=====" rule), one entry per failed rank:
#   "[1]:" / "  rank      : 1 (local_rank: 1)" / "  exitcode  : -9 (pid: 1235)" / "  traceback : Signal 9 (SIGKILL) received by PID 1235"
_BLOCK_START = re.compile(r"^\s*(?:Failures:|Root Cause \(first observed failure\):)")
_BLOCK_END = re.compile(r"^\s*={20,}\s*$")
_BLOCK_RANK = re.compile(r"^\s*rank\s*:\s*(\d+) \(local_rank")
_ROOT_CAUSE = re.compile(r"Root Cause \(first observed failure\)")
# DeepSpeed's launcher: "[launch.py:322:sigkill_handler] ['/usr/bin/python3', '-u', 'train.py', '--local_rank=1', ...] exits with return code = 1"
_DS_EXIT = re.compile(r"sigkill_handler\].*--local_rank=(\d+).* exits with return code = (-?\d+)")
# srun: "srun: error: gpu-node-3: task 11: Exited with exit code 1"; "srun: error: gpu-node-3: task 11: Killed"
_SRUN_TASK = re.compile(r"srun: error: \S+: task (\d+): (?:Exited with exit code [1-9]|Killed|Segmentation fault|Aborted)")
# the rank a desync report or a monitored barrier names: "Rank 5 failed to pass monitoredBarrier", "Ranks 5, 6 failed to pass"
_NAMED_CULPRIT = re.compile(r"Ranks? (\d+)(?:, \d+)* failed to pass monitoredBarrier|Rank (\d+) is not joining")
_SIGABRT = re.compile(r"Signal 6 \(SIGABRT\)|exitcode\s*:\s*-6\b|Fatal Python error: Aborted|SIGABRT")


def classify(text: str) -> ErrorPattern | None:
    if not _CHEAP.search(text):
        return None
    for ep in ERROR_PATTERNS:
        if ep.pattern.search(text):
            return ep
    return None


@dataclass
class Timeline:
    """The ordered events, the ranks seen, the rank of every event line, and what the launchers summarised."""

    events: list[ErrorEvent]
    ranks_seen: list[int]
    rank_of: dict[tuple[str, int], int | None]
    launcher_first: list[tuple[int, LineRef, str]]  # (rank, line, which summary), in order of authority
    named_culprits: list[tuple[int, LineRef]]


def _error_file_event(f: MaskedFile, rank: int | None) -> tuple[tuple[int, ...], ErrorEvent] | None:
    """torchrun's error file (``attempt_0/3/error.json``): the worker's exception and the time it was raised."""
    text = "\n".join(f.lines).strip()
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    msg = data.get("message") if isinstance(data, dict) else None
    if isinstance(msg, dict):
        message = str(msg.get("message", ""))
        extra = msg.get("extraInfo") or {}
        ts = extra.get("timestamp") if isinstance(extra, dict) else None
    else:
        message, ts = str(msg or ""), None
    if not message:
        return None
    last = [ln for ln in message.splitlines() if ln.strip()][-1] if message.strip() else message
    key: tuple[int, ...] = ()
    try:
        key = epoch_key(float(ts)) if ts is not None else ()
    except (TypeError, ValueError, OverflowError, OSError):
        key = ()
    ref = LineRef(file=f.name, line=1, rank=rank, text=last.strip()[:500])
    return key, ErrorEvent(ref=ref, kind="exception", collateral=False, timestamp=None)


def scan(files: Sequence[MaskedFile], rm: RankMap) -> Timeline:
    """Error events across every file, in timeline order, with the launchers' summaries on the side."""
    raw: list[tuple[tuple[int, ...], int, ErrorEvent]] = []
    ranks: set[int] = set()
    rank_of: dict[tuple[str, int], int | None] = {}
    launcher: list[tuple[int, int, LineRef, str]] = []  # (authority, position, ...)
    culprits: list[tuple[int, LineRef]] = []
    for file_index, f in enumerate(files):
        base = file_index * 10_000_000
        default_rank = rm.by_file.get(f.name)
        if default_rank is not None:
            ranks.add(default_rank)
        if f.name.endswith(".json"):
            found = _error_file_event(f, default_rank)
            if found:
                key, ev = found
                raw.append((key, base + 1, ev))
                if default_rank is not None:
                    launcher.append((0, base, ev.ref, "torchrun's error file"))
            continue
        last_ts: tuple[int, ...] = ()
        in_block = root_cause = False
        block_rank: int | None = None
        for i, text in enumerate(f.lines, start=1):
            stripped = re.sub(r"^(?:[\w<>.-]+: )?(?:\[(?:rank|default)\d+\]:)?", "", text)
            if _BLOCK_START.match(stripped):
                in_block, block_rank = True, None
                root_cause = root_cause or bool(_ROOT_CAUSE.search(stripped))
            elif in_block and _BLOCK_END.match(stripped):
                in_block = root_cause = False
            elif in_block and (m := _BLOCK_RANK.match(stripped)):
                block_rank = int(m.group(1))
                ranks.add(block_rank)
                if root_cause:
                    launcher.append((1, base + i, LineRef(file=f.name, line=i, rank=block_rank, text=text.strip()), "torchrun's 'first observed failure' block"))
            rank = block_rank if in_block and block_rank is not None else rm.rank_of(f.name, text)
            if rank is not None and not in_block:
                ranks.add(rank)
            ts = timestamp_key(text)
            if ts:
                last_ts = ts
            if len(text) > 4000:
                continue
            if (m := _DS_EXIT.search(text)) and m.group(2) != "0":
                launcher.append((2, base + i, LineRef(file=f.name, line=i, rank=int(m.group(1)), text=text.strip()[:500]), "DeepSpeed's launcher (first exit it saw)"))
            elif m := _SRUN_TASK.search(text):
                launcher.append((3, base + i, LineRef(file=f.name, line=i, rank=int(m.group(1)), text=text.strip()[:500]), "srun's task exit line"))
            if m := _NAMED_CULPRIT.search(text):
                culprits.append((int(m.group(1) or m.group(2)), LineRef(file=f.name, line=i, rank=rank, text=text.strip()[:500])))
            ep = classify(text)
            if ep is None:
                continue
            if rank is None:
                m = RANK_IN_MESSAGE.search(text)
                if m:
                    rank = int(next(g for g in m.groups() if g is not None))
            rank_of[(f.name, i)] = rank
            ref = LineRef(file=f.name, line=i, rank=rank, text=text.strip()[:500])
            ev = ErrorEvent(ref=ref, kind=ep.kind, collateral=ep.collateral, why=ep.why)
            raw.append((last_ts, base + i, ev))
    if any(ts for ts, _, _ in raw):
        raw.sort(key=lambda t: (t[0] or (99,), t[1]))
    else:
        raw.sort(key=lambda t: t[1])
    events = [ev.model_copy(update={"order": n}) for n, (_, _, ev) in enumerate(raw)]
    launcher.sort(key=lambda t: (t[0], t[1]))
    return Timeline(
        events=_abort_after_timeout(events),
        ranks_seen=sorted(ranks),
        rank_of=rank_of,
        launcher_first=[(ref.rank, ref, what) for _, _, ref, what in launcher if ref.rank is not None],
        named_culprits=culprits,
    )


def _abort_after_timeout(events: list[ErrorEvent]) -> list[ErrorEvent]:
    """A SIGABRT on a rank whose collective had already timed out is the watchdog taking the process down."""
    timed_out: set[int | None] = set()
    out: list[ErrorEvent] = []
    for e in events:
        if e.kind == "collective-timeout":
            timed_out.add(e.ref.rank)
        elif not e.collateral and e.ref.rank in timed_out and _SIGABRT.search(e.ref.text):
            e = e.model_copy(update={"collateral": True, "why": "the NCCL watchdog aborts a rank whose collective timed out"})
        out.append(e)
    return out


def first_failure(events: list[ErrorEvent], strong_lines: set[tuple[str, int]]) -> ErrorEvent | None:
    """The first non-collateral error; on the same rank, a line a strong rule matched wins over an earlier generic one."""
    causes = [e for e in events if not e.collateral]
    if not causes:
        return None
    first = causes[0]
    for e in causes:
        if (e.ref.file, e.ref.line) in strong_lines and (first.ref.rank is None or e.ref.rank in (first.ref.rank, None)):
            return e
    return first


def silent_rank(events: list[ErrorEvent], ranks_seen: list[int], world_size: int | None) -> int | None:
    """In a pure collective timeout, the one rank that never reported the timeout is the one the others waited for."""
    waited = {e.ref.rank for e in events if e.kind == "collective-timeout" and e.ref.rank is not None}
    if len(waited) < 2:
        return None
    world = set(range(world_size)) if world_size else set(ranks_seen)
    missing = world - waited
    return next(iter(missing)) if len(missing) == 1 else None
