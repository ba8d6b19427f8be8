"""Typed values that pass between the pipeline's stages.

    ingest -> RawRun -> mask -> MaskedLog -> extract_facts -> Facts
           -> retrieve -> list[Hit] -> compose -> Diagnosis
"""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import compress

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from retrieval.hit import Hit as Hit


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


# ---------------------------------------------------------------- ingest


class Source(_Frozen):
    """One input file: a name and its bytes (maybe compressed), or where to read them (a path, ``-`` for stdin)."""

    name: str
    data: bytes = b""
    path: str | None = None


class LogFile(_Frozen):
    """One decoded file: text lines with ANSI sequences, NULs and carriage-return redraws removed."""

    name: str
    lines: list[str]
    bytes_in: int = 0
    truncated_lines: int = 0
    notes: list[str] = Field(default_factory=list)  # what reading it noticed ("not UTF-8: read as Latin-1")
    nonblank: bool = True  # some line has more than whitespace
    dropped: int = 0  # lines the prefilter did not select: left empty, only counted
    repeats: int = 0  # candidate lines only counted, their shape already kept often enough on that rank


class RawRun(_Frozen):
    """The decoded files of ONE run. Never stored, never logged: the masker is its only reader."""

    files: list[LogFile]

    @property
    def line_count(self) -> int:
        return sum(len(f.lines) for f in self.files)


# ---------------------------------------------------------------- mask


class MaskedFile(_Frozen):
    name: str
    lines: list[str]
    dropped: int = 0  # of ``lines``, how many are empty because the prefilter did not select them
    _numbered: tuple[object, int, tuple[tuple[int, str], ...]] | None = PrivateAttr(default=None)

    def numbered(self) -> tuple[tuple[int, str], ...]:
        """(line number, text) of the non-empty lines, in order: what the facts read. A 1 GB run's selection is
        a list of millions of lines, nearly all left empty by the prefilter; each pass of the facts stage walks
        this instead (made once per file, in C: ``compress``; made again if ``lines`` was replaced or grown)."""
        cached = self._numbered
        if cached is not None and cached[0] is self.lines and cached[1] == len(self.lines):
            return cached[2]
        numbers = list(compress(range(1, len(self.lines) + 1), self.lines))
        found = tuple(zip(numbers, [self.lines[n - 1] for n in numbers], strict=True))
        self._numbered = (self.lines, len(self.lines), found)
        return found


class MaskedLog(_Frozen):
    """What leaves the masker: the only form of the log anything downstream sees."""

    files: list[MaskedFile]
    counts: dict[str, int] = Field(default_factory=dict)

    def line(self, file: str, line: int) -> str | None:
        """Text of ``line`` (1-based) in ``file``, or None when there is no such line."""
        for f in self.files:
            if f.name == file:
                return f.lines[line - 1] if 0 < line <= len(f.lines) else None
        return None

    @property
    def line_count(self) -> int:
        return sum(len(f.lines) for f in self.files)


# ---------------------------------------------------------------- facts


class LineRef(_Frozen):
    """A line of the masked log: where it is, which rank printed it, and its text."""

    file: str
    line: int
    rank: int | None = None
    text: str


class Fact(_Frozen):
    name: str
    value: str
    file: str
    line: int
    source: str  # the fact rule that produced it

    def public(self) -> dict[str, object]:
        return {"value": self.value, "file": self.file, "line": self.line, "source": self.source}


class RuleHit(_Frozen):
    """A signature rule that fired: the entry it proposes, how strongly, and the lines that matched."""

    rule_id: str
    entry_id: str
    strength: float
    lines: list[LineRef]
    reasons: list[str] = Field(default_factory=list)


class ErrorEvent(_Frozen):
    """An error line on the timeline, classified as a cause candidate or as collateral."""

    ref: LineRef
    kind: str  # short label: "oom", "nccl-timeout", "sigterm", ...
    collateral: bool
    why: str = ""
    order: int = 0  # position on the cross-rank timeline
    timestamp: str | None = None


class Collateral(_Frozen):
    rank: int | None
    file: str
    line: int
    text: str
    why: str


class Facts(_Frozen):
    """Everything the deterministic stage knows about the run, each item with its source line."""

    values: dict[str, Fact] = Field(default_factory=dict)
    rule_hits: list[RuleHit] = Field(default_factory=list)
    events: list[ErrorEvent] = Field(default_factory=list)
    ranks_seen: list[int] = Field(default_factory=list)
    initiating_rank: int | None = None
    initiating_event: ErrorEvent | None = None
    collateral: list[Collateral] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    def get(self, name: str) -> str | None:
        fact = self.values.get(name)
        return fact.value if fact else None


# ---------------------------------------------------------------- retrieve


# ``Hit`` is retrieval's own value type (retrieval imports nothing from service/); re-exported here.


# ---------------------------------------------------------------- compose (the JSON contract)


class Candidate(BaseModel):
    entry_id: str
    title: str
    score: float
    sources: list[str]
    source_scores: dict[str, float] = Field(default_factory=dict)


class Evidence(BaseModel):
    file: str
    line: int
    rank: int | None = None
    text: str


class FactOut(BaseModel):
    value: str
    file: str
    line: int
    source: str


class CollateralOut(BaseModel):
    rank: int | None = None
    file: str
    line: int
    text: str
    why: str


class TimelineEvent(BaseModel):
    """One error line on the cross-rank timeline, as the page's swimlane and the JSON show it."""

    order: int  # position on the timeline (timestamps where lines have them, else where they were printed)
    rank: int | None = None
    file: str
    line: int
    kind: str
    collateral: bool
    first: bool = False  # the first failure: what the initiating rank is taken from
    timestamp: str | None = None
    text: str


class RunAnswer(BaseModel):
    """The answer about this run, shown first everywhere: one sentence from its facts, and why crashdoc thinks so.

    The decisive line is ``evidence[0]`` and the first fix ``fix[0]``; they are not repeated here."""

    sentence: str
    step: str | None = None  # the step the run reached when it failed (the fact ``failure_step``)
    deciding_facts: list[str] = Field(default_factory=list)  # the facts that decided the cause, most telling first
    why: list[str] = Field(default_factory=list)  # the rule contributions, facts and scores that decided, in words


class DecisiveError(BaseModel):
    """The line the root cause must explain: the initiating rank's exception and message, or the first fatal line."""

    file: str
    line: int
    rank: int | None = None
    text: str
    kind: str  # its triage kind: user-code, library, environment, hardware, launcher (kb/triage/)
    explained_by: str | None = None  # the top candidate, when its signals explain it; None: the answer is "unknown"
    why: str | None = None  # which of that entry's signals is in the line


class Diagnosis(BaseModel):
    """The JSON contract served by the CLI (``--format json``) and the API. Names are stable."""

    id: str
    entry_id: str | None
    title: str
    category: str | None
    confidence: float
    summary: str
    candidates: list[Candidate]
    evidence: list[Evidence]
    facts: dict[str, FactOut]
    initiating_rank: int | None
    collateral: list[CollateralOut]
    timeline: list[TimelineEvent] = Field(default_factory=list)  # every error line in timeline order (the first 200)
    fix: list[str]
    verify: list[str]
    masked: dict[str, int]
    timings_ms: dict[str, float]
    kb_version: str
    composer: str
    notes: list[str] = Field(default_factory=list)
    explanation: str | None = None
    answer: RunAnswer | None = None  # None only on diagnoses stored before it existed
    setup: dict[str, str] = Field(default_factory=dict)  # env:NAME and arg:--name the log shows (crashdoc diff)
    files: list[dict[str, object]] = Field(default_factory=list)
    llm: dict[str, object] | None = None
    decisive: DecisiveError | None = None
    related: list[str] = Field(default_factory=list)  # near entries whose signals do not explain the decisive line
    created_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    # A share link: opens the diagnosis read-only without an API key (revocable); set by the service, null from the CLI.
    url: str | None = None
