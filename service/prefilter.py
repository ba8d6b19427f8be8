"""Look only where the failure is: which lines of a big log reach masking, the facts and the rules.

A 1 GB log is millions of progress lines around a few dozen that say what happened. While ingest reads a
file in blocks, each line is reduced to its *shape* (lowercased, ASCII digits folded to 0: ``step 1234 loss
2.31`` and ``step 1235 loss 2.30`` are one shape; a number of another width is another) and each distinct shape is asked once whether it holds a
needle (``is_candidate``). A line is a candidate when it does; candidates are kept with ``BEFORE``/``AFTER`` lines of context,
at most ``REPEATS`` times per shape and rank (the rest are counted), together with the first ``HEAD`` and
the last ``TAIL`` lines of each file (banners, the launcher's summary) and the last line of each routine
shape per rank prefix (each rank's last step and memory reading). Every other line is only counted and left
as an empty line, so every kept line keeps its number. The unmasked
text decides what to look at and is then dropped: only the selection goes on to be masked.

The needles are derived from the rules (``needles()``): for each pattern of the fact rules, the signature
rules (their matches, needs, unless and line boosts), the error classes of the timeline and the line
patterns of the rank map and the derived facts, a literal every match must contain (``requirements``), the
one that no routine line (``ROUTINE``) holds when the pattern has one. Patterns that read the routine lines
themselves (the step counter, memory readings, line prefixes, timestamps) are listed in ``COUNTED`` with
why: what they need is in each file's tail. ``HAND_NEEDLES`` adds what no single pattern names (traceback
frames). Ingest feeds the blocks (``service.ingest.select_lines``); ``tests/test_prefilter.py`` checks every rule row fires through the prefilter and that the eval's
diagnoses are the same with and without it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import re._parser as sre_parse  # type: ignore[import-not-found]  # CPython 3.11+, as service.facts.literals
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from service import linear_regex
from service.facts import derived, events, literals, ranks, timeline
from service.facts.literals import requirements
from service.facts.ranks import timestamp_key
from service.facts.rules import RULES
from service.facts.sources import FACT_RULES

HEAD = 50  # first lines of each file: launcher banners, environment dumps (fewer per file past 8 files, HEAD_MIN)
HEAD_MIN = 10
TAIL = 4000  # last lines of a one-file run (divided among the files of a multi-file run, at least TAIL_MIN each)
TAIL_MIN = 20
BEFORE, AFTER = 3, 8  # context around each candidate line (AFTER: an entry of torchrun's summary is 7 lines)
REPEATS = 64  # a candidate shape is kept this many times per rank tag, then only counted
MAX_KEPT = 400_000  # lines kept per run; past it candidates are only counted (and a note says so)
_MAX_SHAPES = 200_000  # cached verdicts (cleared when full); routine shapes whose last line is kept
_TIMESTAMP_LOOKBACK = 200  # lines searched back from an undated candidate for the last timestamped line
_PREFIX_CHARS = 16  # a bracketed line prefix kept unfolded in the key of a routine shape: "[rank592]:[2024-"

# Real lines a big run prints by the million. A needle that one of them holds is avoided when the pattern
# offers another (a line such a needle picks is still analysed only REPEATS times per shape and rank).
ROUTINE = (
    # a warning with its source path, printed every few hundred steps by every rank
    "[rank3]:/usr/local/lib/python3.11/site-packages/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: "
    "the use_reentrant parameter should be passed explicitly.",
    # a training loop's progress line (every rank, every step)
    "[rank3]:[2024-05-01 12:00:03,123] [INFO] [train.py:203] step 1234 | loss 2.3456 | lr 3.00e-04 | grad_norm 0.987 | "
    "tokens/s 118234 | mem 61.23GiB",
    # Hugging Face Trainer's log dict
    "{'loss': 2.3456, 'grad_norm': 0.987, 'learning_rate': 3e-05, 'epoch': 0.12}",
    # DeepSpeed's step report
    "[2024-05-01 12:00:03,123] [INFO] [logging.py:96:log_dist] [Rank 0] step=1200, skipped=0, lr=[0.0003], mom=[(0.9, 0.95)]",
    # NCCL INFO at start-up, a few dozen per rank (not "... via P2P/CUMEM/read": the transport is a fact)
    "gpu-node-003:41003:41003 [3] NCCL INFO Channel 00/08 :    0   1   2   3   4   5   6   7",
    # tqdm and Lightning progress bars
    " 37%|███▋      | 1850/5000 [1:02:11<1:45:50,  2.02s/it]",
    "Epoch 3:  45%|████▌     | 450/1000 [05:12<06:21,  1.44it/s, v_num=0, train_loss=2.31]",
)

# Patterns that read routine lines, with why the tail (or the kept lines themselves) is enough.
COUNTED: dict[str, str] = {
    "derived._STEP": "the last step: the tail of each file holds each rank's last progress lines",
    "derived._TQDM": "the training bar's position: in the tail",
    "derived._COUNTER": "ties a memory reading to the loop: read on the kept progress lines",
    "derived._MEM_READING": "memory readings before the failure: in the tail",
    "derived._JSON_ENABLED": '"enabled": true after "bf16": {, kept as its context',
    "ranks._RANK_PREFIXES": "who printed a line: applied to every kept line",
    "ranks._TORCHRUN_LOCAL": "the [defaultN]: prefix: applied to every kept line",
    "ranks._TORCHRUN_HINT": "its [defaultN]: branch is every line of a torchrun --tee log; any kept one sets it",
    "ranks._NUMERIC": "srun --label's 'N: ' prefix: counted on the kept lines",
    "ranks._HOST_PREFIX": "a pdsh host prefix: applied to every kept line",
    "ranks._NODE_TAG": "a [nodeN] prefix: applied to every kept line",
    "ranks._LOCAL_INDEX": "the local index in a line: applied to every kept line",
    "ranks.RANK_IN_MESSAGE": "a rank named inside a kept message",
    "ranks._RANK_FILE": "file names, not lines",
    "ranks._LOCAL_RANK_DIR": "file names, not lines",
    "ranks._NODE_DIR": "file names, not lines",
    "ranks._PID_IN_LINE": "a pid prefix: applied to every kept line",
    "ranks._ISO_TS": "timestamps: read on the kept lines",
    "ranks._US_TS": "timestamps: read on the kept lines",
    "ranks._GLOG_TS": "timestamps: read on the kept lines",
    "timeline._BLOCK_FIELD": "the time/exitcode/error_file fields of torchrun's summary: context of its rank line",
    "timeline._BLOCK_END": "the ===== line that closes torchrun's summary: context",
    "timeline._PREFIX": "line prefixes: applied to every kept line",
    "timeline._EXCEPTION_LINE": "the exception line that ends a traceback: context of the frames",
    "timeline._FRAME": "traceback frames: HAND_NEEDLES",
}

# Lowercased needles no single pattern requires.
HAND_NEEDLES = (
    'file "',  # a traceback frame: '  File "/workspace/train.py", line 412, in <module>'
    "during handling of the above exception",  # chained tracebacks
    "the above exception was the direct cause",
    "exception in thread",  # "Exception in thread Thread-3 (_pin_memory_loop):"
)

_FOLD = str.maketrans("0123456789", "0000000000")
# The rank tag at the start of a candidate: "[rank3]:", "[default3]:", "3: " (srun --label), "[1,3]<stdout>:"
_RANK_TAG = re.compile(r"^\s*(?:[\w<>.-]+: )?(?:\[(?:rank|default)?(\d+)\]:|(\d{1,4}): |\[\d+,(\d+)\]<std)")


def _module_patterns() -> Iterator[tuple[str, re.Pattern[str]]]:
    for module in (derived, events, ranks, timeline):
        short = module.__name__.rsplit(".", 1)[1]
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                yield f"{short}.{name}", value
            elif isinstance(value, tuple) and value and all(isinstance(v, re.Pattern) for v in value):
                for v in value:
                    yield f"{short}.{name}", v


def sources() -> Iterator[tuple[str, str, int]]:
    """(where, pattern, flags) for every line pattern the facts stage applies, COUNTED ones left out."""
    for fr in FACT_RULES:
        yield f"fact {fr.id}", fr.pattern.pattern, fr.pattern.flags
    for rule in RULES:
        for compiled in rule.compiled:
            yield f"rule {rule.id}", compiled.pattern, compiled.flags
        for p in (*rule.needs, *rule.unless, *(b.line for b in rule.boosts if b.line)):
            yield f"rule {rule.id} (context)", p, re.M
    for ep in events.ERROR_PATTERNS:
        yield f"event {ep.kind}", ep.pattern.pattern, ep.pattern.flags
    counted = {id(p) for where, p in _module_patterns() if where in COUNTED}  # also where another module imports it
    for where, pattern in _module_patterns():
        if id(pattern) not in counted and where != "events._CHEAP":  # _CHEAP: a pre-check of ERROR_PATTERNS, covered above
            yield where, pattern.pattern, pattern.flags


def _routine(lit: str) -> bool:
    return any(lit.translate(_FOLD) in line.lower().translate(_FOLD) for line in ROUTINE)


# A digit the pattern names itself ("cu1\d\d", "exitcode: -9", [0-7]): folded shapes cannot confirm it.
_PARSED_DIGIT = re.compile(r"LITERAL, (?:4[89]|5[0-7])\)|RANGE, \((?:4[89]|5[0-7]),")


def _names_a_digit(pattern: str, flags: int) -> bool:
    return bool(_PARSED_DIGIT.search(repr(sre_parse.parse(pattern, flags).data)))


@dataclass(frozen=True)
class Needles:
    literals: frozenset[str]  # lowercased, digits folded: a shape holding one is a candidate
    # (literal, pattern): a literal routine lines hold too ("torch" is in every site-packages path); a shape holding
    # it is a candidate only if the pattern matches the shape (sound: folding keeps a digit a digit)
    confirmed: tuple[tuple[str, re.Pattern[str]], ...]
    by_line: tuple[tuple[str, re.Pattern[str]], ...]  # the same for patterns that name a digit: confirmed on the line itself
    underivable: tuple[str, ...]  # patterns with no literal every match contains: their lines come as context only


_primed: Needles | None = None


@lru_cache(maxsize=1)
def needles() -> Needles:
    """The needles of the rules loaded in this process: read by ``prime`` when it ran, else derived."""
    return _primed or derive_needles()


def _cache_key() -> str:
    h = hashlib.sha256(json.dumps([list(sources()), HAND_NEEDLES, ROUTINE]).encode())
    for module in (__file__, literals.__file__):
        h.update(Path(module).read_bytes())
    return h.hexdigest()[:16]


def prime(cache_dir: Path) -> None:
    """Derive the needles once per set of rules, not once per process: kept in ``cache_dir/needles-<key>.json``,
    the key hashing every pattern with its flags and the code that derives them (a rule added or edited is a new
    key). A file that cannot be read is derived again and rewritten."""
    global _primed
    if _primed is not None or needles.cache_info().currsize:
        return
    path = cache_dir / f"needles-{_cache_key()}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        _primed = Needles(frozenset(data["literals"]), tuple((lit, re.compile(p, f)) for lit, p, f in data["confirmed"]),
                          tuple((lit, re.compile(p, f)) for lit, p, f in data["by_line"]), tuple(data["underivable"]))
        return
    except (OSError, ValueError, KeyError, TypeError, re.error):
        pass
    derived = _primed = derive_needles()
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps({
            "literals": sorted(derived.literals),
            "confirmed": [(lit, p.pattern, p.flags) for lit, p in derived.confirmed],
            "by_line": [(lit, p.pattern, p.flags) for lit, p in derived.by_line],
            "underivable": list(derived.underivable),
        }), encoding="utf-8")
        tmp.replace(path)
    except OSError:  # a read-only cache: derived in every process, as before
        tmp.unlink(missing_ok=True)


def derive_needles() -> Needles:
    found: set[str] = {n.translate(_FOLD) for n in HAND_NEEDLES}
    confirmed: list[tuple[str, re.Pattern[str]]] = []
    by_line: list[tuple[str, re.Pattern[str]]] = []
    underivable: list[str] = []
    for where, pattern, flags in sources():
        options = requirements(pattern, flags)
        if not options:
            underivable.append(where)
            continue
        quiet = [req for req in options if not any(_routine(lit) for lit in req)]
        if quiet:
            found.update(lit.translate(_FOLD) for lit in quiet[0])
        else:
            compiled = re.compile(pattern, flags)
            (by_line if _names_a_digit(pattern, flags) else confirmed).extend((lit, compiled) for lit in options[0])
    return Needles(frozenset(found), tuple((lit.translate(_FOLD), p) for lit, p in confirmed), tuple(by_line),
                   tuple(underivable))


@lru_cache(maxsize=1)
def _needle_pattern() -> linear_regex.Regex:
    # RE2: a few hundred literals compile in a quarter of re's time, and match in linear time
    return linear_regex.compile("|".join(re.escape(n) for n in sorted(needles().literals, key=len, reverse=True)), large=True)


NO, YES, ASK_LINE = 0, 1, 2


def verdict(shape: str) -> int:
    """Whether a line, as its shape (digits folded, case kept), may be one the facts stage reads: NO, YES, or
    ASK_LINE (only a pattern that names a digit could match it: ``line_matches`` decides on the line itself)."""
    lowered = shape.lower()
    n = needles()
    if _needle_pattern().search(lowered) or any(lit in lowered and p.search(shape) for lit, p in n.confirmed):
        return YES
    return ASK_LINE if any(lit in lowered for lit, _ in n.by_line) else NO


def line_matches(line: str) -> bool:
    lowered = line.lower()
    return any(lit in lowered and p.search(line) for lit, p in needles().by_line)


def is_candidate(line: str) -> bool:
    v = verdict(line.translate(_FOLD))
    return v == YES or (v == ASK_LINE and line_matches(line))


class Selector:
    """The selection of one file, block by block; memory is the kept lines and the caches, not the file."""

    def __init__(self, head: int, tail: int, kept_budget: list[int], verdicts: dict[str, int], routine_last: bool = True) -> None:
        self.head, self.tail_n, self.routine_last = head, tail, routine_last
        self.kept: dict[int, str] = {}
        self.counts: dict[tuple[str, str], int] = {}
        self.verdicts = verdicts
        self.budget = kept_budget  # [lines still allowed in the run], shared by the run's files
        self.lines = 0
        self.repeats = 0  # candidates only counted: their shape was already kept REPEATS times on that rank
        self.over = 0  # candidates only counted: the run's MAX_KEPT was reached
        self.tail: list[str] = []
        self.last: dict[str, tuple[int, str]] = {}  # the last line of each routine shape (and rank prefix)
        self.nonblank = False
        self.after = 0  # context lines still owed to the previous block's last candidate
        self._needle = verdict

    def _keep(self, n: int, text: str) -> None:
        if n not in self.kept:
            self.kept[n] = text
            self.budget[0] -= 1

    def feed(self, block: str) -> None:
        self.nonblank = self.nonblank or not (block.isspace() or not block)
        raw = block.split("\n")
        shapes = block.translate(_FOLD).split("\n")
        base = self.lines
        for j in range(min(self.after, len(raw))):
            self._keep(base + j + 1, raw[j])
        self.after = max(0, self.after - len(raw))
        for j in range(max(0, min(self.head - base, len(raw)))):
            self._keep(base + j + 1, raw[j])
        verdicts, needle, last = self.verdicts, self._needle, self.last
        for i, shape in enumerate(shapes):
            hit = verdicts.get(shape)
            if hit is None:
                if len(verdicts) >= _MAX_SHAPES:
                    verdicts.clear()
                hit = verdicts[shape] = needle(shape)
            if hit == ASK_LINE:
                hit = line_matches(raw[i])
            if hit:
                self._candidate(raw, shapes, i, base)
            elif self.routine_last and "mem" not in shape and "alloc" not in shape:
                # the last line of each routine shape, per rank: "[rank592]:[2024-" keeps its digits (the rank's
                # last step); a line without a bracketed prefix is its shape alone. Not memory readings: a few
                # readings out of many would look like growth (``derived._memory_growth``); the tail has the last ones
                key = raw[i][:_PREFIX_CHARS] + shape[_PREFIX_CHARS:] if shape.startswith("[") else shape
                if key in last or len(last) < _MAX_SHAPES:
                    last[key] = (base + i + 1, raw[i])
        self.lines += len(raw)
        self.tail = (self.tail + raw)[-(self.tail_n + BEFORE) :]

    def _candidate(self, raw: list[str], shapes: list[str], i: int, base: int) -> None:
        text = raw[i]
        m = _RANK_TAG.match(text)
        key = (next((g for g in m.groups() if g), "") if m else "", shapes[i])
        seen = self.counts.get(key, 0)
        if seen >= REPEATS:
            self.repeats += 1
            return
        if self.budget[0] <= 0:
            self.over += 1
            return
        if len(self.counts) < _MAX_SHAPES:
            self.counts[key] = seen + 1
        for j in range(i - BEFORE, i):
            if j >= 0:
                self._keep(base + j + 1, raw[j])
            elif -j <= len(self.tail):  # the end of the previous block
                self._keep(base + j + 1, self.tail[j])
        self._keep(base + i + 1, text)
        if timestamp_key(text) is None:  # the timeline dates a line by the last timestamp before it: keep that line
            for j in range(i - BEFORE - 1, max(-1, i - _TIMESTAMP_LOOKBACK), -1):
                if raw[j] and timestamp_key(raw[j]) is not None:
                    self._keep(base + j + 1, raw[j])
                    break
        for j in range(i + 1, min(len(raw), i + 1 + AFTER)):
            self._keep(base + j + 1, raw[j])
        self.after = max(self.after, i + 1 + AFTER - len(raw))

    def finish(self) -> None:
        for n, text in self.last.values():
            self._keep(n, text)
        tail = self.tail[-self.tail_n :] if self.tail_n else []
        first = self.lines - len(tail) + 1
        for k, text in enumerate(tail):
            self._keep(first + k, text)


@dataclass
class RunSelection:
    """What is shared by the files of one run while they are selected."""

    files: int
    kept_budget: list[int]
    verdicts: dict[str, int]
    head: int = HEAD
    tail: int = TAIL  # of the whole run: each file gets its share, at least TAIL_MIN
    routine_last: bool = True  # keep the last line of each routine shape (off: the needles' test alone)

    @classmethod
    def for_run(cls, files: int, head: int = HEAD, tail: int = TAIL, routine_last: bool = True) -> RunSelection:
        return cls(files, [MAX_KEPT], {}, head, tail, routine_last)

    def selector(self) -> Selector:
        """Each file's share of the run's head and tail (a 1,024-file run keeps 10 and 20 lines of each)."""
        files = max(1, self.files)
        head = max(min(HEAD_MIN, self.head), min(self.head, self.head * 8 // files))
        tail = max(min(TAIL_MIN, self.tail), self.tail // files)
        return Selector(head, tail, self.kept_budget, self.verdicts, self.routine_last)
