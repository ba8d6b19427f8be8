"""The decisive error: the one line of a log that the root cause must explain, and whether an entry explains it.

The line is the initiating rank's first failure (its exception and message, as the timeline found it); where the log
has no such event, or only a bare signal, the first fatal line a triage kind names (kb/triage/) instead, else the
launcher's summary. An entry explains it when one of its own signals is in the line or in the traceback and message
around it: a pattern of one of its rules, or a fragment of its ``signals.messages``. An entry that does not is at
most related: crashdoc then answers "unknown" with the decisive line and the triage of its kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from retrieval.kb import Entry
from service.compose.triage import TriageKind, classify, matching_kind
from service.facts.rules import RULES, Rule
from service.facts.rules.cuda import HARDWARE_XID
from service.facts.timeline import PREFIX
from service.models import Facts, LineRef, MaskedLog

_BEFORE = 60  # traceback lines above the decisive line that still belong to it
_AFTER = 30  # message lines below it (a multi-line message: protobuf's workarounds, torch's weights-only advice)
_TRACEBACK_LINE = re.compile(r'^(?:\s|Traceback \(most recent call last\)|During handling of the above|The above exception|'
                             r'Original Traceback|\[Previous line repeated|[\w.]+(?:Error|Exception|Exit|Interrupt)\b)')
_NEW_RECORD = re.compile(r"^(?:[IWEF]\d{4} |\d{4}-\d\d-\d\d|\[\d{4}-\d\d-\d\d|\[?(?:INFO|WARNING|ERROR|DEBUG)\b|\+ |\$ )")
_GENERIC_KINDS = ("signal", "killed", "abort")
_GPU_KINDS = ("cuda-error", "nccl-error", "network")  # errors a GPU's own hardware fault is reported as
_HARDWARE_XID = re.compile(HARDWARE_XID)  # a bare "core dumped" or SIGKILL says less than a fatal line before it
_WS = re.compile(r"\s+")
_WHOLE_TYPE = re.compile(r"(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt)")  # a bare "AssertionError" is whole


@dataclass(frozen=True)
class Decisive:
    ref: LineRef
    block: list[str]  # the traceback and message around it, rank prefixes stripped, the decisive line last of the traceback
    kind: TriageKind
    cut: bool = False  # the log ends on this line: it may be cut short before its message is whole
    # False when the line tells little of its own: only collateral (a timeout, the launcher's summary), a bare signal
    # with no fatal line before it, or a line cut too short to read. The rest of the log decides then, as without one.
    firm: bool = True


def _strip(text: str) -> str:
    return PREFIX.sub("", text, count=1)


def _prefix(text: str) -> str:
    m = PREFIX.match(text)
    return text[: m.end()].rstrip() if m else ""


def block_of(log: MaskedLog, ref: LineRef) -> list[str]:
    """The decisive line with the traceback above it and the message lines below it, from the same stream (the same
    rank prefix), prefixes stripped."""
    f = next((f for f in log.files if f.name == ref.file), None)
    if f is None or not 0 < ref.line <= len(f.lines):
        return [_strip(ref.text)]
    i = ref.line - 1
    own = _prefix(f.lines[i])
    up: list[str] = []
    for j in range(i - 1, max(-1, i - 1 - _BEFORE), -1):
        text = f.lines[j]
        if _prefix(text) != own:
            continue  # another rank's line interleaved
        body = _strip(text)
        if not body.strip() or not _TRACEBACK_LINE.match(body):
            break
        up.append(body)
        if body.startswith("Traceback (most recent call last)"):
            break
    down: list[str] = []
    blank = False
    for text in f.lines[i + 1 : i + 1 + _AFTER]:
        if _prefix(text) != own:
            continue
        body = _strip(text)
        if not body.strip():
            if blank:
                break  # two blank lines end a message; one separates its paragraphs
            blank = True
            continue
        if _NEW_RECORD.match(body) or body.startswith("Traceback (most recent call last)"):
            break
        blank = False
        down.append(body)
    return [*reversed(up), _strip(f.lines[i]), *down]


# A wrapper's lines: they say how an error was carried (a re-raise, a chained exception), not what it was.
_HEADER = re.compile(r"^(?:Original )?Traceback \(most recent call last\)|^During handling of the above|^The above exception")
# DataLoader's re-raise: "IndexError: Caught IndexError in DataLoader worker process 3." then the worker's own
# "Original Traceback (most recent call last):" ending in the original exception, which is the decisive one.
_REraised = re.compile(r"Caught \w+ in DataLoader worker process \d+")
_EXCEPTION = re.compile(r"^(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt)\b(?::|$)")


def _original(log: MaskedLog, ref: LineRef) -> LineRef:
    """For a re-raised worker exception, the original exception line at the end of the worker's traceback."""
    if not _REraised.search(ref.text):
        return ref
    f = next((f for f in log.files if f.name == ref.file), None)
    if f is None:
        return ref
    own = _prefix(ref.text)
    for n in range(ref.line + 1, min(len(f.lines), ref.line + 120) + 1):
        text = f.lines[n - 1]
        if _prefix(text) == own and _EXCEPTION.match(_strip(text)) and not _REraised.search(text):
            return ref.model_copy(update={"line": n, "text": text})
    return ref


# Informational lines are never fatal: "host:6135:6135 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open
# shared object file", vLLM "INFO 11-30 10:12:01 [...]", DeepSpeed "[INFO] [...]", glog "I1130 12:00:01.221871 ..."
_NOISE = re.compile(r"NCCL (?:INFO|WARN)|\bINFO \d\d-\d\d |\[INFO\]|^I\d{4} |\bWarning\b|\bwarnings?\.warn|UserWarning|FutureWarning")
# With no cause event, the collateral line that says most: a timeout or a peer gone before the launcher's teardown.
_COLLATERAL_ORDER = ("collective-timeout", "peer-gone", "aborted", "scheduler", "launcher-summary", "launcher-sigterm", "interrupt")


def _fatal_line(log: MaskedLog, kinds: dict[str, TriageKind]) -> LineRef | None:
    """The first line a triage kind names as fatal (in the order of the files), for a log without a cause event."""
    for f in log.files:
        for n, text in f.numbered():
            if not _NOISE.search(text) and matching_kind(_strip(text), kinds):
                return LineRef(file=f.name, line=n, text=text)
    return None


def _most_telling(facts: Facts) -> LineRef | None:
    ranked = sorted(facts.events, key=lambda e: (_COLLATERAL_ORDER.index(e.kind) if e.kind in _COLLATERAL_ORDER
                                                 else len(_COLLATERAL_ORDER), e.order))
    return ranked[0].ref if ranked else None


def find_decisive(log: MaskedLog, facts: Facts, kinds: dict[str, TriageKind]) -> Decisive | None:
    first = facts.initiating_event
    ref = first.ref if first is not None else None
    firm = True
    if first is None or first.kind in _GENERIC_KINDS:
        fatal = _fatal_line(log, kinds)
        machine = fatal is not None and matching_kind(_strip(fatal.text), kinds) is kinds.get("hardware")
        if fatal is not None and (ref is None or machine or (fatal.file == ref.file and fatal.line <= ref.line)):
            # the machine's line about the failing process counts as that rank's (dmesg: "Sending SIGBUS to python:221804")
            ref = fatal.model_copy(update={"rank": ref.rank if ref is not None else None})
        else:
            firm = False  # a bare signal with no fatal line before it
    xid = facts.values.get("xid")
    if (first is not None and first.kind in _GPU_KINDS and xid is not None and _HARDWARE_XID.match(xid.value)
            and (first.ref.file, first.ref.line) != (xid.file, xid.line)):
        # the GPU reported a hardware fault (dmesg "NVRM: Xid (...): 119, ... GSP"): the CUDA or NCCL error after it
        # follows from it, and the machine's line is the one the cause must explain
        line = next((f.lines[xid.line - 1] for f in log.files if f.name == xid.file and 0 < xid.line <= len(f.lines)), None)
        if line is not None:
            ref = LineRef(file=xid.file, line=xid.line, rank=first.ref.rank, text=line)
    if ref is None:
        ref = _most_telling(facts)
        if ref is None:
            return None
        firm = False
    original = _original(log, ref)
    block = block_of(log, original)
    if original is not ref:  # the re-raise and its wrapper text belong to it (DataLoader's "Caught ... in worker")
        block = [*block_of(log, ref), *block]
        ref = original
    line_at = len(block) - 1 - next((k for k, text in enumerate(reversed(block)) if text == _strip(ref.text)), 0)
    f = next((f for f in log.files if f.name == ref.file), None)
    body = _strip(ref.text).strip()
    cut = (f is not None and not any(text.strip() for text in f.lines[ref.line:])) or body.startswith('File "')
    in_frame = line_at >= 1 and block[line_at - 1].lstrip().startswith('File "')  # a frame's source line: cut in a traceback
    unreadable = (body.startswith('File "') or in_frame
                  or (re.fullmatch(r"[\w.]+", body) is not None and not _WHOLE_TYPE.fullmatch(body)))
    if unreadable:
        firm = False  # "[rank0]:_pickle.Unpick", a frame with no exception after it: too little to hold anything to
    return Decisive(ref=ref, block=block, kind=classify(block[: line_at + 1], kinds), cut=cut, firm=firm)


def _normal(text: str) -> str:
    return _WS.sub(" ", text).strip().lower()


_RULES_OF: dict[str, list[Rule]] = {}
for _rule in RULES:
    _RULES_OF.setdefault(_rule.entry, []).append(_rule)


IN_LINE, BY_CONTEXT = 0, 1  # how an entry explains: by a signal in the decisive lines, or by the rest of the log


def explanation(entry: Entry, decisive: Decisive, facts: Facts) -> tuple[int, str] | None:
    """How and why this entry explains the decisive error (which of its signals is there), or None when none is.

    Its signals: a pattern of one of its rules that fired on this log (needs met, no unless present) on a line of the
    decisive block; a fragment of its messages in the block; or a fact it requires, printed before the error by the
    same process or by the machine: a strong cause rule of the entry on an earlier line of the same rank that the
    timeline did not call collateral ("ERROR: Unexpected bus error encountered in worker" before the worker's exit),
    or on a line no rank printed in another file (dmesg's Xid). A log cut inside the decisive line is explained by
    any fired rule of the entry and by a fragment its cut message begins."""
    lines = [text for text in decisive.block if not _HEADER.match(text)]
    joined = _normal(" ".join(lines))
    # A look-alike the entry itself names ("less likely when ... 'DUE TO NODE FAILURE' ...") in the decisive lines:
    # the entry says this line is not its own.
    own = [_normal(m) for m in entry.meta.signals.messages]
    for phrase in (a or b or c for item in entry.meta.signals.less_likely_when for a, b, c in _QUOTED.findall(item)):
        p = _normal(phrase)
        if len(p) >= 16 and p in joined and not any(p in m or m in p for m in own):  # not one of its own messages
            return None
    fired = {h.rule_id: h for h in facts.rule_hits if h.entry_id == entry.id}
    for rule in _RULES_OF.get(entry.id, []):
        if rule.id not in fired or (decisive.firm and rule.id in _CONSEQUENCES):
            continue  # a rule for how a failure ends (a cancel, a watchdog, the launcher's summary) names no cause
        for text in lines:
            if any(p.search(text) for p in rule.compiled) and not any(x.search(text) for x in rule.excluded):
                return IN_LINE, f"its rule {rule.id} matches the decisive line"
    joined = _normal(" ".join(lines))
    for fragment in entry.meta.signals.messages:
        if len(fragment) >= 8 and _normal(fragment) in joined:
            return IN_LINE, f"its message {fragment!r} is in the decisive line"
    # The message as another release words it: most words of a long message variant in the decisive line itself
    # ("Connection error, and we cannot find the requested files in the cached path" for "... in the disk cache").
    line = _strip(decisive.ref.text)
    said = _words(line)
    for fragment in entry.meta.signals.messages:
        want = _words(fragment)
        # a name in the message ("cpu_adam.so", "GLIBCXX_3.4.30") must be there as it is: the words around it are
        # what every such message says ("cannot open shared object file")
        names = {t for t in _NAME.findall(fragment) if len(t) >= 4}
        if names and not all(t in line for t in names):
            continue
        if len(want) >= _REWORDED_MIN_WORDS and len(want & said) / len(want) >= _REWORDED_SHARE:
            return IN_LINE, f"the decisive line words its message {fragment!r} another way"
    ref = decisive.ref
    collateral = {(e.ref.file, e.ref.line) for e in facts.events if e.collateral}
    machine_lines = {(e.ref.file, e.ref.line) for e in facts.events if e.kind in _MACHINE_KINDS}
    if not decisive.firm:
        return BY_CONTEXT, "the decisive line tells little of its own (collateral, a bare signal or cut short): the rest of the log decides"
    for hit in fired.values():
        if hit.strength < _STRONG or hit.rule_id in _CONSEQUENCES:
            continue
        for at in hit.lines:
            if (at.file, at.line) in collateral:
                continue
            same_rank_before = at.file == ref.file and at.line < ref.line and at.rank == ref.rank
            machine = (at.file != ref.file and at.rank is None) or (at.file, at.line) in machine_lines
            if same_rank_before or machine:
                return BY_CONTEXT, f"its rule {hit.rule_id} matches {at.file}:{at.line}, a fact the decisive error follows from"
    if decisive.cut:
        if fired:
            return BY_CONTEXT, f"the log is cut inside the decisive line; its rule {next(iter(fired))} fired"
        tail = _normal(PREFIX.sub("", ref.text, count=1).split(": ", 1)[-1])
        if len(tail) >= 20 and any(_normal(f).startswith(tail[:60]) or tail[:60] in _normal(f) for f in entry.meta.signals.messages):
            return BY_CONTEXT, "the log is cut inside the decisive line, which begins one of its messages"
    return None


_STRONG = 0.5
_REWORDED_MIN_WORDS = 6  # distinct words (3+ letters) of a message variant, for it to be recognised reworded
_REWORDED_SHARE = 0.75


_QUOTED = re.compile(r"'([^']+)'|\"([^\"]+)\"|`([^`]+)`")
_NAME = re.compile(r"[A-Za-z][\w.]*(?:_|\d)[\w.]*")


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9_]{3,}", text.lower()))


_MACHINE_KINDS = ("hardware", "killed", "scheduler")  # what the machine or the scheduler did to the process
_CONSEQUENCES = frozenset(r.id for r in RULES if r.consequence or r.summary)
