"""The first rank when the first failure's own line names none: what the rest of the log says about it.

Each reading is narrow and says why in a note:
- a launcher's agent that was itself signalled (torchrun "Received 1 death signal, shutting down workers") stopped its
  own workers first: the ranks of the processes it then signals;
- every rank raised (as many tracebacks as ranks, none naming its rank): no rank is first, rank 0 is reported;
- the first failure is in a file of the run that names no rank (dmesg, the launcher's log) and the run shows one rank only,
  by its own per-rank file (rank_3.log): that rank (a fallback, after the launchers' summaries);
- a collective whose sizes differ between ranks (gloo "Received data size doesn't match expected size") and one rank
  whose own line differs from every other rank's only in a number ("[rank 3] scoring 504 utterances" where the others
  say 502): that rank's data is the odd one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from service.facts.ranks import RankMap, line_rank
from service.models import ErrorEvent, LineRef, MaskedFile

# torchrun's agent signalled itself (SIGHUP of a closed SSH session, SIGTERM of a scheduler): "W1003 03:13:56.761658 77410
# torch/distributed/elastic/agent/server/api.py:696] Received 1 death signal, shutting down workers", then one line per
# worker: "... multiprocessing/api.py:897] Sending process 77430 closing signal SIGHUP"
_AGENT_SIGNALLED = re.compile(r"Received \d+ death signal, shutting down workers")
_AGENT_STOPS = re.compile(r"Sending process (\d+) closing signal SIG\w+")
_TRACEBACK = re.compile(r"Traceback \(most recent call last\):\s*$")
# the header of a chained exception's second traceback is the same process: "During handling of the above exception,
# another exception occurred:" / "The above exception was the direct cause of the following exception:"
# a launcher's own traceback starts in its entry point: '  File "/opt/venv/bin/torchrun", line 8, in <module>'
_LAUNCHER_FRAME = re.compile(r'File "[^"]*/bin/(?:torchrun|accelerate|deepspeed|lightning)"|torch/distributed/(?:run|launch)\.py"')
_CHAINED = re.compile(r"During handling of the above exception|The above exception was the direct cause")
# collectives whose buffers differ in size between ranks: gloo "[enforce fail at .../gloo/transport/tcp/pair.cc:456]
# op.preamble.length <= op.nbytes. 224 vs 216. Received data size doesn't match expected size."
_SIZE_MISMATCH = re.compile(r"Received data size doesn't match expected size|op\.preamble\.length <= op\.nbytes")
# a rank's marker inside its own line, removed before two ranks' lines are compared: "[rank 3]", "[rank3]:", "rank=3", "Rank 3:"
_RANK_MARK = re.compile(r"\b[Rr]ank[ =:]?\s*\d+\]?:?")
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class Reading:
    rank: int
    note: str


def agent_stopped_ranks(files: Sequence[MaskedFile], first: ErrorEvent, rm: RankMap, ranks_seen: Sequence[int]) -> Reading | None:
    """The first failure is the agent's own death signal: the lowest rank among the workers it then stopped."""
    if first.ref.rank is not None or not _AGENT_SIGNALLED.search(first.ref.text):
        return None
    f = next((f for f in files if f.name == first.ref.file), None)
    if f is None:
        return None
    pids = [int(m.group(1)) for text in f.lines[first.ref.line : first.ref.line + 200]
            if "closing signal" in text and (m := _AGENT_STOPS.search(text))]
    ranks = [rm.by_pid[p] for p in pids if p in rm.by_pid]
    if not ranks and pids:
        # no line ties its processes to ranks (gloo prints no NCCL INFO): the ranks its own file's lines name, else, when
        # no line anywhere names a rank beyond its workers' number, the only node's ranks 0..n-1
        ranks = sorted({r for _, text in f.numbered() if text[:1] == "[" and (r := line_rank(text, numeric=False)) is not None})
        if not ranks and all(r < len(pids) for r in ranks_seen):
            ranks = list(range(len(pids)))
    if not ranks:
        return None
    shown = ", ".join(map(str, sorted(set(ranks))))
    return Reading(min(ranks), f"the launcher's agent was signalled first ({first.ref.file}:{first.ref.line}) and stopped its "
                               f"own workers, ranks {shown}: they went first, any other rank's error followed")


def every_rank_raised(files: Sequence[MaskedFile], world_size: int | None, first: ErrorEvent | None, rm: RankMap) -> Reading | None:
    """As many tracebacks as ranks and none naming its rank: every rank raised, and no line says which was first.

    A traceback whose line names its rank, a chained exception's second one and a launcher's own (its first frame is
    torchrun's, accelerate's or deepspeed's entry point) are not a rank's."""
    if first is None or first.ref.rank is not None or not world_size or world_size < 2:
        return None
    count = 0
    for f in files:
        previous = ""
        for n, text in f.numbered():  # the non-empty lines: an empty one changes neither the count nor ``previous``
            if ("Traceback" in text and _TRACEBACK.search(text) and not _CHAINED.search(previous)
                    and rm.rank_of(f.name, text) is None and not _LAUNCHER_FRAME.search(" ".join(f.lines[n : n + 2]))):
                count += 1
            if text.strip():
                previous = text
    if count < world_size:
        return None
    return Reading(0, f"all {world_size} ranks raised ({count} tracebacks, none naming its rank) and no line says which was "
                      "first; rank 0 is reported")


def odd_sized_rank(files: Sequence[MaskedFile], first: ErrorEvent, rm: RankMap) -> Reading | None:
    """A size mismatch in a collective, and the one rank whose own line differs from all the others' in a number."""
    if not _SIZE_MISMATCH.search(first.ref.text):
        return None
    by_shape: dict[str, dict[int, set[str]]] = {}
    refs: dict[tuple[str, int], LineRef] = {}
    for f in files:
        for i, text in f.numbered():
            if len(text) > 300 or not _DIGITS.search(text):
                continue
            rank = rm.rank_of(f.name, text)
            if rank is None:
                continue
            body = _RANK_MARK.sub("", text, count=1).strip()
            shape = _DIGITS.sub("#", body)
            by_shape.setdefault(shape, {}).setdefault(rank, set()).add(body)
            refs.setdefault((shape, rank), LineRef(file=f.name, line=i, rank=rank, text=text.strip()[:500]))
    odd: dict[int, LineRef] = {}
    for shape, per_rank in by_shape.items():
        if len(per_rank) < 3 or any(len(v) != 1 for v in per_rank.values()):
            continue  # a line each rank prints once, on three ranks at least (progress lines repeat)
        groups: dict[str, list[int]] = {}
        for rank, bodies in per_rank.items():
            groups.setdefault(next(iter(bodies)), []).append(rank)
        if len(groups) == 2 and (lone := [r for r in groups.values() if len(r) == 1]) and len(lone) == 1:
            odd[lone[0][0]] = refs[(shape, lone[0][0])]
    if len(odd) != 1:
        return None
    rank, ref = next(iter(odd.items()))
    return Reading(rank, f"the ranks' buffers differ in size ({first.ref.file}:{first.ref.line}) and rank {rank} is the one whose "
                         f"own line differs from every other rank's ({ref.file}:{ref.line}: {ref.text[:80]})")


def only_rank_file(first: ErrorEvent, rm: RankMap, ranks_seen: Sequence[int]) -> Reading | None:
    """The first failure is in a rankless file of the run and one rank alone is shown, only by its own file's name.

    A user who kept dmesg (or the launcher's log) and the one rank's log that mattered: that rank. Not when any line
    names another rank, nor when two per-rank files are there."""
    if first.ref.rank is not None or rm.by_file.get(first.ref.file) is not None:
        return None
    named = {name: rank for name, rank in rm.by_file.items() if rank is not None}
    if len(named) != 1 or list(ranks_seen) != list(named.values()):
        return None
    name, rank = next(iter(named.items()))
    return Reading(rank, f"the first error ({first.ref.file}:{first.ref.line}) is in a file that names no rank, and the only "
                         f"rank the run shows is rank {rank}, by its own file {name}")
