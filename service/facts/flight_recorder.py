"""PyTorch Flight Recorder dumps: the rank that never entered the collective the others are stuck in.

Flight Recorder keeps each rank's last collectives (``TORCH_FR_BUFFER_SIZE``); a rank's buffer is written by
``torch._C._distributed_c10d._dump_fr_trace()`` (a pickle) or ``_dump_fr_trace_json()``, by the program or by
NCCL's dump on timeout (``TORCH_NCCL_DUMP_ON_TIMEOUT=1``, one ``nccl_trace_rank_<N>`` file per rank). A dump is
untrusted input: the pickle is read by an unpickler that builds only plain containers and scalars (it refuses
every class), and the JSON form is read as JSON.

    ingest: render(bytes) -> text lines, one per collective ("[flight recorder] pg=0 ... seq=5 op=gloo:all_reduce ...")
    mask:   those lines are masked like any log line (stack frames carry paths and user names)
    facts:  analyze(files, rank of each file) -> FlightReport: line the ranks up by sequence id per process group
"""

from __future__ import annotations

import io
import json
import pickle
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from service.models import LineRef, MaskedFile

__all__ = ["Collective", "FlightReport", "analyze", "is_dump", "is_dump_name", "might_be_dump", "render"]

_PICKLE_PROTOCOL = re.compile(rb"^\x80[\x02-\x05]")
# the names dumps get: the program's "fr_dumps/rank_3" / "rank_3.json" / "rank3.pkl", NCCL's dump on timeout
# "nccl_trace_rank_3" (TORCH_NCCL_DEBUG_INFO_TEMP_FILE's default prefix and the rank)
_DUMP_NAME = re.compile(r"^(?:\w*_)?rank_?\d+(?:\.pkl|\.pickle|\.json)?$")
_PREFIX = "[flight recorder]"
_MAX_ENTRIES = 5000  # TORCH_FR_BUFFER_SIZE defaults to 2000
# frames inside torch itself say nothing about the program: "/opt/venv/.../torch/distributed/distributed_c10d.py"
_TORCH_FRAME = re.compile(r"/torch/(?:distributed|nn/parallel|utils|_dynamo)/|c10d_logger\.py$")


class _PlainUnpickler(pickle.Unpickler):
    """Builds dicts, lists, tuples, strings and numbers only: any class or function in the stream is refused."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"a Flight Recorder dump holds no objects, but this one names {module}.{name}")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("a Flight Recorder dump holds no persistent references")


def _load(data: bytes) -> dict[str, Any] | None:
    """The dump as plain data, or None when the bytes are not a Flight Recorder dump (or not a safe one)."""
    try:
        if _PICKLE_PROTOCOL.match(data):
            value = _PlainUnpickler(io.BytesIO(data)).load()
        elif data.lstrip()[:1] == b"{" and b'"entries"' in data[:200_000]:
            value = json.loads(data)
        else:
            return None
    except (pickle.UnpicklingError, ValueError, EOFError, TypeError, RecursionError, MemoryError, IndexError, KeyError):
        return None
    if not isinstance(value, dict) or not isinstance(value.get("entries"), list) or ("version" not in value and "pg_config" not in value):
        return None
    return value


def is_dump_name(name: str) -> bool:
    """Whether a file without a log suffix is named like a rank's Flight Recorder dump (worth reading from a directory)."""
    return bool(_DUMP_NAME.match(name.rsplit("/", 1)[-1]))


def might_be_dump(head: bytes) -> bool:
    """Whether a file's first bytes could start a dump: a pickle, or JSON whose first keys include "entries"."""
    return bool(_PICKLE_PROTOCOL.match(head)) or (head.lstrip()[:1] == b"{" and b'"entries"' in head[:4096])


def is_dump(data: bytes) -> bool:
    """Whether these bytes are a Flight Recorder dump this module can read."""
    return _load(data) is not None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(", ", ": ")) if value is not None else ""


def _frames(entry: dict[str, Any]) -> str:
    """The program's own frames, innermost first ("train.py:62 main < train.py:70 <module>")."""
    out = []
    for frame in entry.get("frames") or []:
        if not isinstance(frame, dict):
            continue
        filename = str(frame.get("filename", ""))
        if _TORCH_FRAME.search(filename):
            continue
        out.append(f"{filename}:{frame.get('line', '?')} {frame.get('name', '?')}")
    return " < ".join(out[:4])


def render(data: bytes) -> list[str] | None:
    """The dump as text lines (what masking and the facts stage read), or None when it is not a dump (or a hostile one:
    values nested too deep to print)."""
    dump = _load(data)
    if dump is None:
        return None
    try:
        return _render(dump)
    except (RecursionError, ValueError, TypeError):
        return None


def _render(dump: dict[str, Any]) -> list[str]:
    lines = [f"{_PREFIX} version={_text(dump.get('version'))} entries={len(dump['entries'])}"]
    config = dump.get("pg_config")
    if isinstance(config, dict):
        for name, pg in list(config.items())[:100]:
            if isinstance(pg, dict):
                lines.append(f"{_PREFIX} process group '{name}' desc={_text(pg.get('desc'))} ranks={_text(pg.get('ranks'))}")
    status = dump.get("pg_status")
    if isinstance(status, dict):
        for pg_id, st in list(status.items())[:100]:
            if isinstance(st, dict):
                lines.append(f"{_PREFIX} pg={pg_id} last_enqueued={st.get('last_enqueued_collective')} "
                             f"last_started={st.get('last_started_collective')} last_completed={st.get('last_completed_collective')}")
    for entry in dump["entries"][-_MAX_ENTRIES:]:
        if not isinstance(entry, dict):
            continue
        group = entry.get("process_group")
        pg_name = group[1] if isinstance(group, (list, tuple)) and len(group) > 1 else ""
        p2p = bool(entry.get("is_p2p"))
        seq = entry.get("p2p_seq_id") if p2p else entry.get("collective_seq_id")
        lines.append(
            f"{_PREFIX} pg={entry.get('pg_id')} ({pg_name}) {'p2p' if p2p else 'seq'}={seq} op={entry.get('profiling_name')} "
            f"in={_text(entry.get('input_sizes'))} out={_text(entry.get('output_sizes'))} dtypes={_text(entry.get('input_dtypes'))} "
            f"state={entry.get('state')} frames={_frames(entry)}"
        )
    return lines


# the lines render() writes, read back after masking:
# "[flight recorder] pg=0 (default_pg) seq=5 op=gloo:all_reduce in=[[4096]] out=[[4096]] dtypes=["Float"] state=scheduled frames=..."
_ENTRY = re.compile(r"^\[flight recorder\] pg=(\S+) \(([^)]*)\) seq=(\d+) op=(\S+) in=(.*?) out=(.*?) dtypes=(.*?) state=(\S*) frames=(.*)$")
# "[flight recorder] process group '0' desc=default_pg ranks=[0, 1, 2, 3]" (torch 2.10 dumps name the default group '')
_GROUP = re.compile(r"^\[flight recorder\] process group '[^']*' desc=(\S*) ranks=\[([\d, ]*)\]")


@dataclass(frozen=True)
class Collective:
    """One rank's record of one collective."""

    rank: int
    pg: str
    pg_name: str
    seq: int
    op: str
    sizes: str
    dtypes: str
    state: str
    frames: str
    ref: LineRef

    @property
    def name(self) -> str:
        """The op without its backend: "all_reduce" for "nccl:all_reduce"."""
        return self.op.split(":", 1)[-1]


@dataclass
class FlightReport:
    """What the dumps say: the rank(s) behind, the collective the others are in, and how the ranks differ."""

    lagging: list[int]  # the ranks that never entered the collective (or entered another one)
    waiting: list[int]  # the ranks in it
    collective: Collective | None  # the collective the others are in, as one of them recorded it
    kind: str  # "not-entered", "other-collective", "sizes", "dtypes", "no-dump"
    lagging_at: list[Collective] = field(default_factory=list)  # where each lagging rank was instead
    no_dump: list[int] = field(default_factory=list)  # ranks of the group that left no dump
    dumped: list[int] = field(default_factory=list)

    def sentence(self) -> str:
        """One line a person reads: who is behind, in which collective, with its sizes and frames."""
        ranks = ", ".join(map(str, self.lagging))
        c = self.collective
        if c is None:
            return f"Flight Recorder: rank(s) {ranks} left no dump"
        where = f"{c.name} (seq {c.seq} of process group {c.pg} {c.pg_name}, input sizes {c.sizes}, dtypes {c.dtypes})"
        others = ", ".join(map(str, self.waiting))
        if self.kind == "not-entered":
            last = "; ".join(f"rank {x.rank} last recorded {x.name} seq {x.seq}" for x in self.lagging_at)
            text = f"rank(s) {ranks} never entered {where} that ranks {others} are in" + (f" ({last})" if last else "")
        elif self.kind == "no-dump":
            text = f"rank(s) {ranks} left no dump and the ranks that did ({others}) are all in {where}"
        elif self.kind == "other-collective":
            instead = "; ".join(f"rank {x.rank} called {x.name} at {x.frames or 'an unknown frame'}" for x in self.lagging_at)
            text = f"rank(s) {ranks} called another collective where ranks {others} called {where}: {instead}"
        else:
            got = "; ".join(f"rank {x.rank} passed sizes {x.sizes}, dtypes {x.dtypes}" for x in self.lagging_at)
            text = f"rank(s) {ranks} passed other {self.kind} to {where} than ranks {others}: {got}"
        if c.frames:
            text += f"; the others wait at {c.frames}"
        if self.no_dump and self.kind != "no-dump":
            text += f"; no dump from rank(s) {', '.join(map(str, self.no_dump))}"
        return f"Flight Recorder: {text}"


def _parse(files: Sequence[MaskedFile], rank_of_file: Callable[[str], int | None]) -> tuple[dict[int, list[Collective]], set[int]]:
    by_rank: dict[int, list[Collective]] = {}
    members: set[int] = set()
    for f in files:
        rank = rank_of_file(f.name)
        if rank is None or not f.lines or not f.lines[0].startswith(_PREFIX):
            continue
        by_rank.setdefault(rank, [])
        for i, text in enumerate(f.lines, start=1):
            if (g := _GROUP.match(text)) and g.group(1) in ("default_pg", ""):
                members.update(int(r) for r in g.group(2).split(",") if r.strip().isdigit())
            m = _ENTRY.match(text)
            if m:
                ref = LineRef(file=f.name, line=i, rank=rank, text=text[:500])
                by_rank[rank].append(Collective(rank, m.group(1), m.group(2), int(m.group(3)), m.group(4), m.group(5),
                                                m.group(7), m.group(8), m.group(9), ref))
    return by_rank, members


def _minority(groups: dict[tuple[str, ...], list[Collective]]) -> tuple[list[Collective], list[Collective]] | None:
    """(the odd ones, the majority) when one way of calling the collective has fewer ranks than another."""
    ordered = sorted(groups.values(), key=len)
    if len(ordered) < 2 or len(ordered[0]) == len(ordered[-1]):
        return None
    odd = [c for g in ordered[:-1] for c in g]
    return odd, ordered[-1]


def analyze(files: Sequence[MaskedFile], rank_of_file: Callable[[str], int | None]) -> FlightReport | None:
    """Line the dumps up by sequence id per process group; the first sequence id the ranks disagree on decides."""
    by_rank, members = _parse(files, rank_of_file)
    if len(by_rank) < 2 and not (by_rank and members):
        return None
    dumped = sorted(by_rank)
    no_dump = sorted(members - set(dumped))
    table: dict[tuple[str, int], dict[int, Collective]] = {}
    for rank, entries in by_rank.items():
        for c in entries:
            table.setdefault((c.pg, c.seq), {}).setdefault(rank, c)
    for pg, seq in sorted(table, key=lambda k: (k[0] != "0", k[0], k[1])):
        row = table[(pg, seq)]
        in_group = [r for r in dumped if any(c.pg == pg for c in by_rank[r])]
        present = sorted(row.values(), key=lambda c: c.rank)
        # behind: its record of the group ends before seq (a buffer that starts after seq only rolled over)
        missing = [r for r in in_group if r not in row and max(c.seq for c in by_rank[r] if c.pg == pg) < seq]
        if missing and len(missing) < len(present):
            lagging_at = [max((c for c in by_rank[r] if c.pg == pg), key=lambda c: c.seq) for r in missing]
            return FlightReport(missing, [c.rank for c in present], present[0], "not-entered", lagging_at, no_dump, dumped)
        for kind, key in (("other-collective", lambda c: (c.op,)), ("sizes", lambda c: (c.sizes,)), ("dtypes", lambda c: (c.dtypes,))):
            groups: dict[tuple[str, ...], list[Collective]] = {}
            for c in present:
                groups.setdefault(key(c), []).append(c)
            split = _minority(groups)
            if split is not None:
                odd, majority = split
                return FlightReport(sorted(c.rank for c in odd), [c.rank for c in majority], majority[0], kind, odd, no_dump, dumped)
    if len(no_dump) == 1:
        last = max((c for r in dumped for c in by_rank[r] if c.pg == "0"), key=lambda c: c.seq, default=None)
        waiting = dumped if last is None else [r for r in dumped if any(c.seq == last.seq and c.pg == "0" for c in by_rank[r])]
        return FlightReport(no_dump, waiting, last, "no-dump", [], no_dump, dumped)
    return None
