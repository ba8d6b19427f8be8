"""One timeline of error lines across ranks and files: which rank failed first, and which errors only followed.

Every error line becomes an event, classified by ``ERROR_PATTERNS`` as a cause candidate or as collateral
(with why). Events are ordered by timestamp where lines have one (a line without inherits the last one
seen in its file) and by position otherwise. The initiating rank is the rank of the first non-collateral
event; when that event names no rank, the launchers' own summaries decide (torchrun's error files and its
"Root Cause (first observed failure)" block, srun's exit lines; not DeepSpeed's, which names its last command), and for a pure collective
timeout the one rank that never reported the timeout.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from service.facts.events import ERROR_PATTERNS, EXPLAINS, ErrorPattern, Explains, classify
from service.facts.ranks import RANK_IN_MESSAGE, RankMap, epoch_key, timestamp_key, timestamp_text
from service.models import ErrorEvent, LineRef, MaskedFile

# torchrun's summary block (between "Failures:" and the closing "=====" rule), one entry per failed rank:
#   "[1]:" / "  rank      : 1 (local_rank: 1)" / "  exitcode  : -9 (pid: 1235)" / "  traceback : Signal 9 (SIGKILL) received by PID 1235"
_BLOCK_START = re.compile(r"^\s*(?:Failures:|Root Cause \(first observed failure\):)")
_BLOCK_END = re.compile(r"^\s*={20,}\s*$")
_BLOCK_RANK = re.compile(r"^\s*rank\s*:\s*(\d+) \(local_rank")
_BLOCK_FIELD = re.compile(r"^\s*(time|exitcode|error_file)\s*:\s*(.*)$")
_ROOT_CAUSE = re.compile(r"Root Cause \(first observed failure\)")
# the same entry with its line breaks lost (a paste into an issue or a chat):
# "Root Cause (first observed failure): [0]: time : 2024-05-01_12:00:03 host : gpu-01 rank2 (local rank: 2)exitcode: -9 (pid: 4242)"
_COMPACT_ENTRY = re.compile(r"\brank\s*:?\s*(\d+) \(local[_ ]rank: \d+\)\s*exitcode\s*:\s*(-?\d+) \(pid: \d+\)")
_COMPACT_TIME = re.compile(r"\btime\s*:\s*(\d{4}-\d\d-\d\d_\d\d:\d\d:\d\d)")
# torchrun's agent (all releases) as it notices the first worker that exited, on its own line:
# "failed (exitcode: 1) local_rank: 0 (pid: 14020) of binary: /opt/conda/bin/python"
_AGENT_FAILED = re.compile(r"failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: \d+\) of binary")
# torch.distributed.launch before torchrun (torch < 1.9) waits for its processes in local-rank order and raises for the
# first failed one: "subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', '--local_rank=1', ...]'
# returned non-zero exit status 1."
_LAUNCH_FAILED = re.compile(r"subprocess\.CalledProcessError: Command '\[.*?'--local_rank=(\d+)'")
# Contexts that name the rank of the traceback that follows: mp.spawn "-- Process 1 terminated with the following error:",
# Ray "ray.exceptions.RayTaskError(RuntimeError): ray::_RayTrainWorker__execute.get_next() (pid=18301, ip=...)"
_SPAWN_CONTEXT = re.compile(r"-- Process (\d+) terminated with the following error")
_RAY_CONTEXT = re.compile(r"RayTaskError\(\w*\): ray::\S+ \(pid=(\d+)")
# Only rank 0 starts the c10d TCPStore server (env:// rendezvous; torchrun's agent starts its own, outside any rank):
# "The server socket has failed to listen on any local network address" / "failed to bind to [::]:29500", and only the
# server waits for the others (TCPStore with is_master, torch 2.13 checked): "torch.distributed.DistStoreError: Timed out
# after 1800 seconds waiting for clients. 24/32 clients joined."
_STORE_SERVER = re.compile(r"The server socket has failed to (?:listen|bind)|waiting for clients\. \d+/\d+ clients joined")
_TRACEBACK_START = re.compile(r"Traceback \(most recent call last\):\s*$")
# the rank a desync report or a monitored barrier names: "Rank 5 failed to pass monitoredBarrier", "Ranks 5, 6 failed to pass"
_NAMED_CULPRIT = re.compile(r"Ranks? (\d+)(?:, \d+)* failed to pass monitoredBarrier|Rank (\d+) is not joining")
# TORCH_DISTRIBUTED_DEBUG=DETAIL, each rank comparing its collective with every rank's in rank order, reporting the first
# that differs: "RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective:
# CollectiveFingerPrint(SequenceNumber=3, OpType=ALLREDUCE, TensorShape=[4096], TensorDtypes=Float, ...), but Rank 2 is
# running collective: CollectiveFingerPrint(SequenceNumber=3, OpType=BROADCAST, ...)" (torch < 2.1: no SequenceNumber)
_MISMATCH = re.compile(r"Detected mismatch between collectives on ranks\. Rank (\d+) is running collective: CollectiveFingerPrint\("
                       r"((?:SequenceNumber=\d+, )?OpType=\w+(?:, TensorShape=\[[^\]]*\])?(?:, TensorDtypes=\w+)?).*?, but Rank (\d+) "
                       r"is running collective: CollectiveFingerPrint\(((?:SequenceNumber=\d+, )?OpType=\w+(?:, TensorShape=\[[^\]]*\])?"
                       r"(?:, TensorDtypes=\w+)?)")
_SIGABRT = re.compile(r"Signal 6 \(SIGABRT\)|exitcode\s*:\s*-6\b|Fatal Python error: Aborted|SIGABRT")
# a writer's prefix: node tag, host (worker-0: , <HOST_1>: ; never an exception type), rank tag
_PREFIX = re.compile(r"^(?:\[node[_-]?\d+\] )?(?:(?![\w.]*(?:Error|Exception|Warning)\b)[\w<>.-]*[\d<][\w<>.-]*: )?(?:\d{1,4}: )?(?:\[(?:rank|default)\d+\]:|\[\d+,\d+\]<std\w+>:|\([^)]*pid=\d+[^)]*\) )?\s*")
PREFIX = _PREFIX  # a line's rank/launcher prefix ("[rank3]: ", "[default0]:", "host: 12: "), for other stages to strip
# A launch command as a job's shell trace or prompt prints it ("+ srun ... torchrun ...", "$ python train.py"). The same
# command printed again later in one file is the job run again (a Slurm requeue appending to its output file, a retry
# loop): the errors before it ended an earlier attempt, and the last attempt's failure is what this log ends with.
_LAUNCH_COMMAND = re.compile(r"^(?:\+ |\$ |[\w.@:~/()-]+\$ )(?:srun|torchrun|deepspeed|accelerate launch|mpirun|python3?)\b.*$")
_WATCHDOG_OP = re.compile(r"WorkNCCL\(SeqNum=(\d+), OpType=(\w+)")


@dataclass
class Timeline:
    """The ordered events, the ranks seen, the rank of every event line, and what the launchers summarised."""

    events: list[ErrorEvent]
    ranks_seen: list[int]
    rank_of: dict[tuple[str, int], int | None]
    root_cause: list[RootCause]  # torchrun's error files and its 'first observed failure' block, in order of authority
    named_culprits: list[tuple[int, LineRef]]
    mismatches: list[Mismatch] = field(default_factory=list)


@dataclass(frozen=True)
class Mismatch:
    """One rank's report that its collective differs from another rank's (TORCH_DISTRIBUTED_DEBUG=DETAIL)."""

    reporter: int
    own: str  # the fingerprint: sequence number, op, shape, dtype
    other: int
    theirs: str
    ref: LineRef


@dataclass
class BlockEntry:
    """One rank's entry in torchrun's failure summary."""

    rank: int
    ref: LineRef
    root: bool
    time: str = ""
    exitcode: str = ""
    error_file: str = ""


@dataclass(frozen=True)
class RootCause:
    """What a launcher names as the first failure, and whether that says more than 'rank 0 of a tie'."""

    rank: int
    ref: LineRef
    source: str
    informative: bool


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
    lines = [ln for ln in message.splitlines() if ln.strip()]
    if not lines:
        return None
    key: tuple[int, ...] = ()
    try:
        key = epoch_key(float(ts)) if ts is not None else ()
    except (TypeError, ValueError, OverflowError, OSError):
        key = ()
    ref = LineRef(file=f.name, line=1, rank=rank, text=lines[-1].strip()[:500])
    ep = classify(lines[-1]) or ERROR_PATTERNS[-1]
    return key, ErrorEvent(ref=ref, kind=ep.kind, collateral=ep.collateral, why=ep.why)


def _same_stream(previous: str, text: str) -> bool:
    """Two lines from the same writer: the same prefix (host, node tag, rank prefix) or none at all."""
    a, b = _PREFIX.match(previous), _PREFIX.match(text)
    return (a.group(0).strip() if a else "") == (b.group(0).strip() if b else "")


def _self_named_rank(lines: list[str], i: int) -> int | None:
    """The rank an exception's continuation lines name about themselves ("... did not receive grad for rank 3").

    The next error line is another message (an OOM followed by "[Rank 0] Watchdog caught ..."): it ends the search.
    """
    for text in lines[i : i + 8]:
        if _TRACEBACK_START.search(text) or classify(text) is not None:
            break
        m = RANK_IN_MESSAGE.search(text)
        if m:
            return int(next(g for g in m.groups() if g is not None))
    return None


@dataclass
class _FileScan:
    """Per-file state while scanning: the last timestamp, the torchrun block, the open tracebacks, the context rank."""

    last_ts: tuple[int, ...] = ()
    last_ts_text: str | None = None  # as printed, for the events that inherit it
    in_block: bool = False
    root_cause: bool = False
    block_rank: int | None = None
    entries: list[BlockEntry] = field(default_factory=list)
    context_rank: int | None = None
    last_event: tuple[int | None, int] | None = None  # (rank, line) of the previous event line
    open_tracebacks: dict[int | None, tuple[tuple[int, ...], int]] = field(default_factory=dict)
    launches: set[str] = field(default_factory=set)  # the launch commands printed so far (_LAUNCH_COMMAND)
    relaunch: int | None = None  # the last line where one of them is printed again: the job run again


def scan(files: Sequence[MaskedFile], rm: RankMap) -> Timeline:
    """Error events across every file, in timeline order, with the launchers' summaries on the side.

    An exception is placed where its traceback began: in an interleaved multi-rank stream the rank that
    started printing its traceback first failed first, although its last line may come later.
    """
    raw: list[tuple[tuple[int, ...], int, ErrorEvent]] = []
    ranks: set[int] = set()
    rank_of: dict[tuple[str, int], int | None] = {}
    root: list[RootCause] = []
    error_files: list[tuple[tuple[int, ...], RootCause]] = []  # the earliest exception recorded by @record wins
    entries: list[BlockEntry] = []
    culprits: list[tuple[int, LineRef]] = []
    mismatches: list[Mismatch] = []
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
                if default_rank is not None and not ev.collateral:
                    error_files.append((key or (99,), RootCause(default_rank, ev.ref, "torchrun's error file", informative=bool(key))))
            continue
        st = _FileScan()
        first_event = len(raw)
        for i, text in f.numbered():  # an empty line changes no state (and the prefilter leaves millions of them)
            rank = _scan_line(f, i, text, st, rm, ranks)
            if len(text) > 4000:
                continue
            if len(text) < 400 and _LAUNCH_COMMAND.match(command := text.strip()):
                if command in st.launches:
                    st.relaunch = i
                st.launches.add(command)
            if "Detected mismatch" in text and (m := _MISMATCH.search(text)):
                ref = LineRef(file=f.name, line=i, rank=int(m.group(1)), text=text.strip()[:500])
                mismatches.append(Mismatch(int(m.group(1)), m.group(2), int(m.group(3)), m.group(4), ref))
            if "ank" in text and (m := _NAMED_CULPRIT.search(text)):
                culprits.append((int(m.group(1) or m.group(2)), LineRef(file=f.name, line=i, rank=rank, text=text.strip()[:500])))
            if _TRACEBACK_START.search(text):
                st.open_tracebacks.setdefault(rank, (st.last_ts, base + i))
                continue
            ep = classify(text)
            if ep is None:
                continue
            if rank is None:
                m = RANK_IN_MESSAGE.search(text)
                rank = int(next(g for g in m.groups() if g is not None)) if m else _self_named_rank(f.lines, i)
            if rank is None and st.context_rank is not None:
                rank = st.context_rank
            if rank is None and not rm.torchrun and _STORE_SERVER.search(text):
                rank = 0
            if (rank is None and not ep.collateral and st.last_event is not None and i - st.last_event[1] <= 3
                    and _same_stream(f.lines[st.last_event[1] - 1], text)):
                rank = st.last_event[0]  # a continuation of the previous error's message
            st.last_event = (rank, i)
            rank_of[(f.name, i)] = rank
            if rank is not None:
                ranks.add(rank)
            key, position = st.last_ts, base + i
            if ep.kind in ("exception", "cuda-error", "nccl-error", "network", "usage") and not ep.collateral:
                start = st.open_tracebacks.pop(rank, None) or st.open_tracebacks.pop(None, None)
                if start is not None:
                    key, position = start
                st.context_rank = None
            ref = LineRef(file=f.name, line=i, rank=rank, text=text.strip()[:500])
            if ep.kind == "abort":
                ep = _aborted_because(f.lines, i) or ep
            printed = timestamp_text(text) or st.last_ts_text
            raw.append((key, position, ErrorEvent(ref=ref, kind=ep.kind, collateral=ep.collateral, why=ep.why, timestamp=printed)))
        for rank, (key, position) in st.open_tracebacks.items():
            unfinished = _unfinished_traceback(f.lines, position - base)
            if unfinished is not None:
                i, why = unfinished
                ref = LineRef(file=f.name, line=i, rank=rank, text=f.lines[i - 1].strip()[:500])
                raw.append((key, position, ErrorEvent(ref=ref, kind="exception", collateral=False, why=why,
                                                      timestamp=st.last_ts_text)))
        entries.extend(st.entries)
        if st.relaunch is not None:  # this file's events before it ended an earlier attempt
            why = "an earlier attempt of the job: the same launch command runs again later in this file"
            raw[first_event:] = [(k, pos, ev.model_copy(update={"collateral": True, "why": why})
                                  if ev.ref.line < st.relaunch and not ev.collateral else ev)
                                 for k, pos, ev in raw[first_event:]]
    root.extend(cause for _, cause in sorted(error_files, key=lambda t: t[0]))
    root.extend(_block_root_causes(entries))
    if any(ts for ts, _, _ in raw):
        raw.sort(key=lambda t: (t[0] or (99,), t[1]))
    else:
        raw.sort(key=lambda t: t[1])
    events = [ev.model_copy(update={"order": n}) for n, (_, _, ev) in enumerate(raw)]
    root.extend(agent_failures(events))
    return Timeline(
        events=_explained(_network_after_peer_failure(_abort_after_timeout(events))),
        ranks_seen=sorted(ranks),
        rank_of=rank_of,
        root_cause=root,
        named_culprits=culprits,
        mismatches=mismatches,
    )


_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(?::|$)")
_FRAME = re.compile(r"^(?:File \"|During handling|The above exception|Exception in thread |\^|~)")


def _body(text: str) -> str:
    """The line without its writer's prefix; its indentation stays (it tells frames from the exception line)."""
    prefix = _PREFIX.match(text)
    return text[len(prefix.group(0).rstrip()):] if prefix else text


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _unfinished_traceback(lines: list[str], start: int) -> tuple[int, str] | None:
    """The line that ends a traceback no error pattern closed: its exception line, or where the log was cut.

    None when the traceback ends in a line that is already an event (a launcher's ChildFailedError, say).
    Other ranks' lines interleaved with it are skipped, and so is the next rank's traceback printed in the
    same stream (two ranks cut mid-traceback).
    """
    header = lines[start - 1]
    base = _indent(_body(header))
    last = start
    for i in range(start + 1, min(len(lines), start + 400) + 1):
        text = lines[i - 1]
        if not text.strip() or not _same_stream(header, text):
            continue
        body = _body(text)
        if _indent(body) > base or _FRAME.match(body.lstrip()) or _TRACEBACK_START.search(body):
            last = i
            continue
        if classify(text) is not None or not _EXCEPTION_LINE.match(body.strip()):
            return None
        return i, ""  # an exception type no pattern knows (BackendCompilerFailed: ...)
    if last < len(lines) - 3:
        return None  # frames, then unrelated lines far beyond: not a log cut inside the traceback
    return last, "the log ends inside this traceback: its exception line was cut off"


def _aborted_because(lines: list[str], i: int) -> ErrorPattern | None:
    """"terminate called after throwing ..." takes the class of its "what():" line (a watchdog abort is collateral).

    Ranks interleave, so the "what():" line is the next one with the same prefix, within a few lines.
    """
    prefix = _PREFIX.match(lines[i - 1])
    own = prefix.group(0).strip() if prefix else ""
    for text in lines[i : i + 8]:
        if "what():" in text and text.strip().startswith(own):
            ep = classify(text)
            return ep if ep is not None and ep.collateral else None
    return None


def _explained(events: list[ErrorEvent]) -> list[ErrorEvent]:
    """An error another line explains (EXPLAINS: a failed op build explains the other ranks' missing library) is collateral."""
    out = events
    for rule in EXPLAINS:
        causes = [(e, m) for e in events if not e.collateral and (m := rule.cause.search(e.ref.text))]
        if not causes:
            continue

        def explained(e: ErrorEvent, rule: Explains = rule, causes: list[tuple[ErrorEvent, re.Match[str]]] = causes) -> bool:
            m = rule.effect.search(e.ref.text)
            if e.collateral or not m:
                return False
            op = m.groupdict().get("op")
            return any(c is not e and (op is None or c_m.groupdict().get("op") in (None, op)) for c, c_m in causes)

        out = [e.model_copy(update={"collateral": True, "why": rule.why}) if explained(e) else e for e in out]
    return out


def _network_after_peer_failure(events: list[ErrorEvent]) -> list[ErrorEvent]:
    """A rank's network error is collateral when another rank failed on its own (killed, crashed, raised, hung up)."""
    own = [e for e in events if not e.collateral and e.kind not in ("network", "nccl-error")]
    if not own:
        return events
    why = "a network error seen from this side of a link whose other end had failed on its own"
    return [e.model_copy(update={"collateral": True, "why": why})
            if e.kind == "network" and not e.collateral and any(o.ref.rank != e.ref.rank for o in own) else e for e in events]


def _block_root_causes(entries: list[BlockEntry]) -> list[RootCause]:
    """torchrun's root cause; informative when it has an error file, is the only genuine failure, or is the earliest.

    Without error files every entry carries the time the agent noticed the exits: a tie that torchrun breaks by
    local rank, which says nothing about who failed first.
    """
    out: list[RootCause] = []
    for e in entries:
        if not e.root:
            continue
        others = [o for o in entries if o is not e and not o.root and o.exitcode not in ("-15", "")]
        has_error_file = e.error_file not in ("", "<N/A>")
        earliest = bool(e.time) and all(o.time and o.time > e.time for o in others)
        informative = has_error_file or not others or earliest
        out.append(RootCause(e.rank, e.ref, "torchrun's 'first observed failure' block", informative))
    return out


def _scan_line(f: MaskedFile, i: int, text: str, st: _FileScan, rm: RankMap, ranks: set[int]) -> int | None:
    """Track the file's state through one line (timestamps, torchrun's summary block, contexts); return its rank."""
    stripped = _PREFIX.sub("", text, count=1) if (st.in_block or "Failures:" in text or "Root Cause" in text) else ""
    if _BLOCK_START.match(stripped):
        st.in_block, st.block_rank = True, None
        st.root_cause = st.root_cause or bool(_ROOT_CAUSE.search(stripped))
    elif st.in_block and _BLOCK_END.match(stripped):
        st.in_block = st.root_cause = False
    elif st.in_block and (m := _BLOCK_RANK.match(stripped)):
        st.block_rank = int(m.group(1))
        ranks.add(st.block_rank)
        ref = LineRef(file=f.name, line=i, rank=st.block_rank, text=text.strip())
        previous = st.entries[-1] if st.entries and st.entries[-1].rank == -1 else None
        entry = BlockEntry(rank=st.block_rank, ref=ref, root=st.root_cause, time=previous.time if previous else "")
        if previous:
            st.entries.pop()
        st.entries.append(entry)
    elif st.in_block and (m := _BLOCK_FIELD.match(stripped)):
        name, value = m.group(1), m.group(2).strip()
        if name == "time":  # comes before "rank": hold it in a placeholder entry
            st.entries.append(BlockEntry(rank=-1, ref=LineRef(file=f.name, line=i, text=""), root=st.root_cause, time=value))
        elif st.entries and st.entries[-1].rank >= 0:
            if name == "exitcode":
                st.entries[-1].exitcode = value.split()[0]
            elif name == "error_file":
                st.entries[-1].error_file = value
    if "exitcode" in text and "local" in text and (compact := list(_COMPACT_ENTRY.finditer(text))):
        return _compact_entries(f, i, text, compact, st, ranks)
    if "-- Process" in text and (m := _SPAWN_CONTEXT.search(text)):
        st.context_rank = int(m.group(1))
    elif "RayTaskError" in text and (m := _RAY_CONTEXT.search(text)):
        st.context_rank = rm.by_pid.get(int(m.group(1)))
    rank = st.block_rank if st.in_block and st.block_rank is not None else rm.rank_of(f.name, text)
    if rank is not None and not st.in_block:
        ranks.add(rank)
    ts = timestamp_key(text)
    if ts:
        st.last_ts, st.last_ts_text = ts, timestamp_text(text)
    return rank


def _compact_entries(f: MaskedFile, i: int, text: str, found: list[re.Match[str]], st: _FileScan, ranks: set[int]) -> int:
    """A failure summary whose line breaks were lost: every entry on one line; those after "Root Cause" are the root."""
    root_at = _ROOT_CAUSE.search(text)
    for m in found:
        rank = int(m.group(1))
        ranks.add(rank)
        before = text[: m.start()]
        times = _COMPACT_TIME.findall(before)
        root = st.root_cause or (root_at is not None and root_at.start() < m.start())
        ref = LineRef(file=f.name, line=i, rank=rank, text=text.strip()[:500])
        st.entries.append(BlockEntry(rank=rank, ref=ref, root=root, time=times[-1] if times else "", exitcode=m.group(2)))
    roots = [e.rank for e in st.entries if e.root and e.ref.line == i]
    return roots[0] if roots else int(found[0].group(1))


def agent_failures(events: list[ErrorEvent]) -> list[RootCause]:
    """torchrun's agent line "failed (exitcode: N) local_rank: R" (the first exit it saw, a tie broken by local rank)
    and the older launcher's CalledProcessError: what the launcher names when the ranks' own lines name nobody.

    DeepSpeed's "[...'--local_rank=7'...] exits with return code = 1" is not among them: it prints the command of the
    last process it spawned, whichever process exited (launch.py's sigkill_handler)."""
    out: list[RootCause] = []
    for e in events:
        if e.kind in ("launcher-summary", "killed") and (m := _AGENT_FAILED.search(e.ref.text)):
            rank = e.ref.rank if e.ref.rank is not None else int(m.group(2))
            out.append(RootCause(rank, e.ref, "torchrun's agent ('failed (exitcode: ...) local_rank: ...')", informative=False))
        elif e.kind == "launcher-summary" and (m := _LAUNCH_FAILED.search(e.ref.text)):
            out.append(RootCause(int(m.group(1)), e.ref, "torch.distributed.launch's CalledProcessError", informative=False))
    return out


def _abort_after_timeout(events: list[ErrorEvent]) -> list[ErrorEvent]:
    """A SIGABRT on a rank whose collective had already timed out or failed is NCCL taking the process down."""
    failed_collective: set[int | None] = set()
    out: list[ErrorEvent] = []
    for e in events:
        if e.kind in ("collective-timeout", "network", "nccl-error", "peer-gone"):
            failed_collective.add(e.ref.rank)
        elif not e.collateral and e.ref.rank in failed_collective and (e.kind == "abort" or _SIGABRT.search(e.ref.text)):
            e = e.model_copy(update={"collateral": True, "why": "NCCL aborts a rank whose collective had timed out or failed"})
        out.append(e)
    return out


def first_failure(events: list[ErrorEvent], strong_lines: set[tuple[str, int]]) -> ErrorEvent | None:
    """The first non-collateral error; a line a strong rule matched wins over an earlier generic one on the same rank."""
    causes = [e for e in events if not e.collateral]
    if not causes:
        return None
    first = causes[0]
    for e in causes:
        if (e.ref.file, e.ref.line) in strong_lines and (first.ref.rank is None or e.ref.rank in (first.ref.rank, None)):
            return e
    return first


def first_ranked(events: list[ErrorEvent], strong_lines: set[tuple[str, int]],
                 within: Sequence[int] | None = None) -> ErrorEvent | None:
    """When the first failure names no rank: the first cause on a strong rule line that does (a dmesg Xid with its pid).

    ``within``: the ranks of the first failure's node, where its host prefix names one: a rank on another node failed
    later (the rank 0 that waited for the clients this node's ranks never became), so it is not the first failure's."""
    for e in events:
        if not e.collateral and e.ref.rank is not None and (e.ref.file, e.ref.line) in strong_lines:
            return e if within is None or e.ref.rank in within else None
    return None


def message_of(text: str) -> str:
    """An error line without its rank prefix and with numbers masked: the same failure on two ranks compares equal."""
    return re.sub(r"\d+", "#", _PREFIX.sub("", text, count=1)).strip()


def same_failure(events: list[ErrorEvent], first: ErrorEvent) -> list[ErrorEvent]:
    """The cause events that print the same message as the first failure (a bug every rank hits at once)."""
    msg = message_of(first.ref.text)
    return [e for e in events if not e.collateral and message_of(e.ref.text) == msg]


def odd_collective_rank(events: list[ErrorEvent]) -> int | None:
    """Ranks timed out in different collectives: the one rank in a collective nobody else is in diverged."""
    ops: dict[int, tuple[str, str]] = {}
    for e in events:
        if e.kind == "collective-timeout" and e.ref.rank is not None and (m := _WATCHDOG_OP.search(e.ref.text)):
            ops.setdefault(e.ref.rank, (m.group(1), m.group(2)))
    if len(ops) < 3:
        return None
    counts: dict[tuple[str, str], list[int]] = {}
    for rank, op in ops.items():
        counts.setdefault(op, []).append(rank)
    if len(counts) != 2:
        return None
    (_, a), (_, b) = sorted(counts.items(), key=lambda kv: len(kv[1]))
    return a[0] if len(a) == 1 and len(b) > 1 else None


def silent_rank(events: list[ErrorEvent], ranks_seen: list[int], world_size: int | None) -> int | None:
    """In a pure collective timeout, the one rank that never reported the timeout is the one the others waited for.

    A peer that hung up counts as waiting too: gloo's "Connection closed by peer" on every rank but one (whose own
    error went elsewhere, to a redirected file) points at that one.
    """
    waited = {e.ref.rank for e in events if e.kind in ("collective-timeout", "peer-gone") and e.ref.rank is not None}
    if len(waited) < 2:
        return None
    world = set(range(world_size)) if world_size else set(ranks_seen)
    missing = world - waited
    return next(iter(missing)) if len(missing) == 1 else None


def mismatched_rank(mismatches: list[Mismatch]) -> tuple[int, str] | None:
    """The rank whose collective differs from the others', from the ranks' mismatch reports, and why.

    Each rank compares its own collective with every rank's in rank order and names the first that differs, so
    the ranks' fingerprints vote. One report alone still decides when a rank below the named one (other than the
    reporter) was passed over: it matched the reporter, so the named rank is the odd one out.
    """
    if not mismatches:
        return None
    seen: dict[int, str] = {}
    for m in mismatches:
        seen.setdefault(m.reporter, m.own)
        seen.setdefault(m.other, m.theirs)
    groups: dict[str, list[int]] = {}
    for rank, fingerprint in seen.items():
        groups.setdefault(fingerprint, []).append(rank)
    if len(groups) >= 2:
        ordered = sorted(groups.values(), key=len)
        if len(ordered[0]) == 1 and len(ordered[0]) < len(ordered[-1]):
            return ordered[0][0], f"its collective differs from that of ranks {', '.join(map(str, sorted(ordered[-1])))}"
    m = mismatches[0]
    if any(r != m.reporter for r in range(m.other)):
        return m.other, f"rank {m.reporter} found it was the first rank whose collective differed from its own"
    return m.reporter, f"rank {m.reporter} reported that its collective differs from rank {m.other}'s (one report: either may be the odd one)"
