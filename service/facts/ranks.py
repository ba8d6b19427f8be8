"""Ranks, timeline and collateral: which rank failed first, and which errors only followed from it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.models import ErrorEvent, LineRef, MaskedFile

# Line prefixes that name the rank, in the forms launchers print. Each yields the global rank.
_RANK_PREFIXES: tuple[re.Pattern[str], ...] = (
    # torch >= 2.2 with TORCH_SHOW_CPP_STACKTRACES / torchrun --log-line-prefix: "[rank3]: Traceback ..."
    re.compile(r"^(?:\S+: )?\[rank(\d+)\]:"),
    # torchrun --tee / --redirects with role prefix: "[default3]:[W ProcessGroupNCCL.cpp...]"
    re.compile(r"^(?:\S+: )?\[default(\d+)\]:"),
    # srun -l and torchrun --tee 3: "3: Traceback (most recent call last):"
    re.compile(r"^\s{0,3}(\d{1,4}): "),
    # Open MPI --tag-output: "[1,3]<stdout>:loss 0.1"
    re.compile(r"^\[\d+,(\d+)\]<std(?:out|err)>:"),
    # "[host:3] ..." / "[<HOST_1>:3]:" (masked host with rank)
    re.compile(r"^\[[\w<>.-]+:(\d+)\]:? "),
    # loguru / custom: "rank=3 |", "[RANK 3]", "Rank 3:"
    re.compile(r"^.{0,40}?\b[Rr][Aa][Nn][Kk][ =:]?(\d+)\]?[:|] "),
)
_RANK_IN_MESSAGE = re.compile(r"\b(?:global[_ ])?rank[ =:]+(\d+)\b|\[Rank (\d+)\]", re.I)
_RANK_FILE = re.compile(r"(?:rank|worker|proc|gpu)[_-]?(\d+)(?:\D|$)", re.I)

# Timestamps: "2024-05-01 12:00:03,123", "2024-05-01T12:00:03.123Z", glog "[E501 12:00:03.123456" / "E0501 12:00:03".
_ISO_TS = re.compile(r"(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,6}))?")
_GLOG_TS = re.compile(r"(?:^|[\[\s:])[IWEF](\d{1,2}?)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{1,9})")


def line_rank(text: str) -> int | None:
    for pattern in _RANK_PREFIXES:
        m = pattern.match(text)
        if m:
            return int(m.group(1))
    return None


def file_rank(name: str) -> int | None:
    m = _RANK_FILE.search(name.rsplit("/", 1)[-1])
    return int(m.group(1)) if m else None


def timestamp_key(text: str) -> tuple[int, ...] | None:
    """A sortable (month, day, h, m, s, µs) for the line's first timestamp, or None."""
    m = _ISO_TS.search(text[:80])
    if m:
        frac = int((m.group(7) or "0").ljust(6, "0"))
        return (int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5)), int(m.group(6)), frac)
    m = _GLOG_TS.search(text[:60])
    if m:
        month, day, h, mi, sec, fraction = m.groups()
        return (int(month), int(day), int(h), int(mi), int(sec), int(fraction[:6].ljust(6, "0")))
    return None


@dataclass(frozen=True)
class ErrorPattern:
    kind: str
    pattern: re.Pattern[str]
    collateral: bool
    why: str = ""


def _err(kind: str, pattern: str, collateral: bool = False, why: str = "") -> ErrorPattern:
    return ErrorPattern(kind, re.compile(pattern), collateral, why)


# Error lines, collateral first: a line that matches a collateral pattern is collateral even if it
# also says "Error". Order matters.
ERROR_PATTERNS: tuple[ErrorPattern, ...] = (
    # "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1021, OpType=ALLREDUCE...)"
    _err("collective-timeout", r"Watchdog caught collective operation timeout|Some NCCL operations have failed or timed out|collective operation timeout|ran for \d+ milliseconds before timing out|Timed out waiting \d+ms for send operation|ProcessGroupGloo.*(?:timed out|Timed out)", True,
         "a rank waiting in a collective times out when another rank stopped participating"),
    # "RuntimeError: [../third_party/gloo/...] Connection closed by peer [10.0.0.2]:12345"
    _err("peer-gone", r"Connection (?:reset|closed) by peer|Broken pipe|NCCL communicator was aborted|Socket Timeout|remote process exited or there was a network error|ECONNRESET|recv: Connection refused|peer has closed", True,
         "the connection broke because the peer process had already died"),
    # torchrun: "Sending process 1234 closing signal SIGTERM"
    _err("launcher-sigterm", r"closing signal SIGTERM|Received SIGTERM|SignalException: Process \d+ got signal: 15|got signal: 15|terminate called after.*SIGTERM|signal 15", True,
         "the launcher terminates the surviving ranks after the first one fails"),
    # "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:"
    _err("child-failed", r"ChildFailedError|failed \(exitcode: -?\d+\) local_rank|^\s*Root Cause \(first observed failure\)|^\s*Failures:|subprocess\.CalledProcessError", True,
         "the launcher's summary of a rank's exit, not a cause"),
    # DeepSpeed: "exception raised in another rank"; "Process group aborted"; "[Rank 1] Process group watchdog thread terminated"
    _err("aborted", r"exception raised in another rank|another rank (?:failed|exited)|ProcessGroupNCCL is aborting|Process group watchdog thread terminated|To avoid data inconsistency, we are taking the entire process down|Aborting process group|ncclCommAbort|TCPStore.*(?:Broken|closed)|Failed to recv, got 0 bytes|DistNetworkError", True,
         "teardown after another rank's failure"),
    # Cause candidates.
    _err("cuda-error", r"CUDA error|CUDA out of memory|OutOfMemoryError|CUBLAS_STATUS|CUDNN_STATUS|cudaError|device-side assert|illegal memory access|no kernel image"),
    _err("nccl-error", r"ncclUnhandledCudaError|ncclSystemError|ncclInternalError|ncclInvalidUsage|ncclRemoteError|NCCL error|NET/IB.*error|Duplicate GPU detected"),
    _err("killed", r"\bKilled\b|exitcode\s*:\s*-9|Signal 9 \(SIGKILL\)|oom-kill|Out of memory: Killed process|OOMKilled|exit code 137|SIGKILL"),
    _err("signal", r"Signal \d+ \(SIG\w+\) received|Fatal Python error|Segmentation fault|SIGSEGV|SIGBUS|Bus error|core dumped|SIGHUP|death signal"),
    _err("hardware", r"NVRM: Xid|fallen off the bus|uncorrectable ECC|ECC error"),
    _err("scheduler", r"CANCELLED AT .* DUE TO|DUE TO TIME LIMIT|DUE TO PREEMPTION|JOB \d+ ON \S+ CANCELLED"),
    # A Python exception line: "RuntimeError: ...", "torch.OutOfMemoryError: ...", "ValueError: ..."
    _err("exception", r"^(?:\[?[\w<>.:-]*\]?:? ?)?(?:[a-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Interrupt)\b(?::|$)"),  # the exception line ends its traceback: the header and `raise` frames are not events
)


def classify(text: str) -> ErrorPattern | None:
    for ep in ERROR_PATTERNS:
        if ep.pattern.search(text):
            return ep
    return None


def scan_events(files: list[MaskedFile]) -> tuple[list[ErrorEvent], list[int], dict[tuple[str, int], int | None]]:
    """Error events across every file, in timeline order; the ranks seen; the rank of each event line."""
    events: list[tuple[tuple[int, ...], int, ErrorEvent]] = []
    ranks: set[int] = set()
    rank_of: dict[tuple[str, int], int | None] = {}
    for file_index, f in enumerate(files):
        default_rank = file_rank(f.name)
        if default_rank is not None:
            ranks.add(default_rank)
        last_ts: tuple[int, ...] = ()
        for i, text in enumerate(f.lines, start=1):
            rank = line_rank(text)
            if rank is None:
                rank = default_rank
            else:
                ranks.add(rank)
            ts = timestamp_key(text)
            if ts:
                last_ts = ts
            if len(text) > 4000 or not any(c in text for c in "EeKkSsTtCcNnXxDd"):
                continue
            ep = classify(text)
            if ep is None:
                continue
            if rank is None:
                m = _RANK_IN_MESSAGE.search(text)
                if m:
                    rank = int(m.group(1) or m.group(2))
            rank_of[(f.name, i)] = rank
            ref = LineRef(file=f.name, line=i, rank=rank, text=text.strip()[:500])
            ev = ErrorEvent(ref=ref, kind=ep.kind, collateral=ep.collateral, why=ep.why)
            # Lines without a timestamp inherit the last one seen in their file; order within a file is kept.
            events.append((last_ts, file_index * 10_000_000 + i, ev))
    has_ts = any(ts for ts, _, _ in events)
    if has_ts:
        events.sort(key=lambda t: (t[0] or (99,), t[1]))
    else:
        events.sort(key=lambda t: t[1])
    ordered = [ev.model_copy(update={"order": n}) for n, (_, _, ev) in enumerate(events)]
    return ordered, sorted(ranks), rank_of
