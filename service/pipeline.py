"""The one place the flow lives. The CLI, the API, Slack and the web page all call ``diagnose()``.

    ingest -> mask -> extract_facts -> retrieve -> compose -> store
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from itertools import compress
from typing import TYPE_CHECKING

from retrieval.embed import Encoder, export_dir, get_encoder, identity_of, is_exported
from retrieval.errors import RetrievalError
from retrieval.index import Index, dense_search, is_built, load_or_build
from retrieval.kb import KnowledgeBase
from retrieval.kb_cache import load_compiled
from service import chat, prefilter
from service.chat.models import ChatEvent, Message
from service.compose import compose
from service.errors import BadRequest, ConfigError, TooLarge
from service.facts import extract_facts
from service.ingest import Limits, ingest
from service.local_db import save_sqlite
from service.masking import Masker, MaskState, get_masker, mask_line, mask_segment, mask_text
from service.models import Diagnosis, Evidence, Facts, Hit, MaskedFile, MaskedLog, RawRun, Source
from service.retrieve import Query, retrieve
from service.settings import Settings

if TYPE_CHECKING:
    from service.store import Store

_EXCERPT_CONTEXT = 3
_EXCERPT_MAX_LINES = 200
_BIG_LOG_LINES = 50_000  # from this size on, the diagnosis notes what was read and what was analysed


@contextmanager
def _retrieval_errors() -> Iterator[None]:
    """Retrieval's errors (a malformed kb/ entry, a model that cannot load) into the service's tree."""
    try:
        yield
    except RetrievalError as exc:
        raise ConfigError(exc.message, hint=exc.hint or "Fix the file named, or reinstall crashdoc.") from exc


def new_id() -> str:
    return "d_" + secrets.token_urlsafe(12).replace("-", "x").replace("_", "y")


@dataclass
class Engine:
    """The heavy, shared parts of the pipeline, built lazily once per process.

    ``local``: the command line on the user's own files, which has no size cap (only the line length).
    """

    settings: Settings
    local: bool = False

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    @cached_property
    def kb(self) -> KnowledgeBase:
        with _retrieval_errors():
            return load_compiled(self.settings.kb_dir, self.settings.data_dir / "index")

    @cached_property
    def index(self) -> Index:
        with self._lock, _retrieval_errors():
            return load_or_build(self.kb, self.encoder, self.settings.data_dir / "index")

    def index_ready(self) -> bool:
        """Whether the retrieval index (and the encoder export) are cached: False means the next use builds them."""
        s, cache = self.settings, self.settings.data_dir / "index"
        with _retrieval_errors():
            exported = s.embedding_backend == "torch" or is_exported(export_dir(s.embedding_model, s.embedding_backend, cache))
            return exported and is_built(self.kb, identity_of(s.embedding_model, s.embedding_backend), cache)

    @cached_property
    def encoder(self) -> Encoder:
        s = self.settings
        with _retrieval_errors():
            return get_encoder(s.embedding_model, s.embedding_backend, s.data_dir / "index")

    @cached_property
    def masker(self) -> Masker:
        return get_masker()

    @cached_property
    def store(self) -> Store:
        from service.store import Store

        return Store(self.settings.resolved_database_url)

    def save(self, diagnosis: Diagnosis, excerpt: list[Evidence], workspace_id: str | None = None) -> None:
        """Store a diagnosis. The command line's one write into a current local SQLite file skips SQLAlchemy
        (``service.local_db``); everything else goes through ``Store``."""
        if self.local and "store" not in self.__dict__ and save_sqlite(self.settings.resolved_database_url, diagnosis,
                                                                         excerpt, workspace_id):
            return
        self.store.save(diagnosis, excerpt, workspace_id=workspace_id)

    @cached_property
    def limits(self) -> Limits:
        prefilter.prime(self.settings.data_dir / "index")  # before the first ingest: the rules' needles, once per rule set
        if self.local:
            return Limits.local(self.settings.max_line_chars)
        return Limits.from_settings(self.settings)

    def warm(self) -> None:
        """Load everything now (the service does this at start so the first request is fast)."""
        _ = self.kb, self.index
        self.masker.warm()
        dense_search(self.index, "warm-up", 1)
        if self.settings.llm_model:
            from service.llm import prepare

            prepare()


def mask_selected(run: RawRun, masker: Masker | None = None, state: MaskState | None = None) -> MaskedLog:
    """``masking.mask`` for a run the prefilter selected: the same one pseudonym table and sweep over the run,
    but only the kept lines are masked (a line left empty costs nothing)."""
    masker = masker or get_masker()
    state = state or MaskState()
    masked: list[tuple[list[str], list[int], str, int]] = []
    for f in run.files:
        lines = list(f.lines)
        kept = list(compress(range(len(lines)), lines))  # the selected lines: a big run's list is nearly all empty
        for i in kept:
            lines[i] = mask_line(lines[i], masker, state)
        masked.append((lines, kept, mask_segment(f.name, masker, state), f.dropped))
    files: list[MaskedFile] = []
    for lines, kept, name, dropped in masked:
        if state.learned:  # a name learned late (SLURM_JOB_USER=mchen on line 900) is masked on the lines before it too
            for i, line in zip(kept, state.sweep([lines[i] for i in kept]), strict=True):
                lines[i] = line
        files.append(MaskedFile(name=name, lines=lines, dropped=dropped))
    return MaskedLog(files=files, counts=dict(sorted(state.counts.items())))


def mask_for_upload(engine: Engine, sources: Sequence[Source], on_read: Callable[[int], None] | None = None) -> MaskedLog:
    """What ``crashdoc diagnose --server`` sends: the lines a diagnosis reads (the prefilter's selection), masked
    on this machine by the same masking; every other line left empty, so line numbers stay the files' own."""
    return mask_selected(ingest(sources, engine.limits, on_read=on_read), engine.masker)


def _reading_notes(raw: RawRun, log: MaskedLog) -> list[str]:
    """What ingest noticed, under the masked file names; for a big log, what was read and what was analysed."""
    notes = [f"{masked.name}: {note}" for f, masked in zip(raw.files, log.files, strict=True) for note in f.notes]
    lines = raw.line_count
    if lines >= _BIG_LOG_LINES:
        dropped = sum(f.dropped for f in raw.files)
        repeats = sum(f.repeats for f in raw.files)
        mb = sum(f.bytes_in for f in raw.files) / 1e6
        notes.append(f"read {lines:,} lines ({mb:,.0f} MB) in {len(raw.files):,} file(s); {lines - dropped:,} analysed "
                     f"(errors, warnings, fact sources with their context, each file's first and last lines), "
                     f"{repeats:,} repeats of an already kept line counted")
    return notes


def masked_excerpt(log: MaskedLog, diagnosis: Diagnosis) -> list[Evidence]:
    """What is stored besides the diagnosis: the masked lines around the evidence, nothing more."""
    wanted: dict[str, set[int]] = {}
    cited: list[tuple[str, int]] = [(e.file, e.line) for e in diagnosis.evidence]
    cited += [(c.file, c.line) for c in diagnosis.collateral[:10]]
    for file, line in cited:
        wanted.setdefault(file, set()).update(range(line - _EXCERPT_CONTEXT, line + _EXCERPT_CONTEXT + 1))
    out: list[Evidence] = []
    for f in log.files:
        for n in sorted(wanted.get(f.name, ())):
            if 0 < n <= len(f.lines):
                out.append(Evidence(file=f.name, line=n, text=f.lines[n - 1]))
    return out[:_EXCERPT_MAX_LINES]


@dataclass
class Trace:
    """Everything one pass through the pipeline produced: for the eval and ``crashdoc explain``."""

    log: MaskedLog
    facts: Facts
    query: Query
    per_source: dict[str, dict[str, float]]
    hits: list[Hit]
    diagnosis: Diagnosis
    timings: dict[str, float]


@dataclass
class Masked:
    """The first half of the pipeline: the run read and masked, with what reading noticed. Only masked text: this is
    what a job carries from the request that accepted the log to the worker that diagnoses it."""

    log: MaskedLog
    notes: list[str]
    timings: dict[str, float]
    hosts: dict[str, str] = field(default_factory=dict)  # <HOST_n> -> the workspace's pseudonym (service/fleet)


def read_and_mask(engine: Engine, sources: Sequence[Source], on_read: Callable[[int], None] | None = None,
                  host_key: Callable[[str], str] | None = None) -> Masked:
    """ingest -> mask, timed. The unmasked run is dropped before this returns; with ``host_key`` each host's
    placeholder is also mapped to its keyed pseudonym (never to the name)."""
    t0 = time.perf_counter()
    raw = ingest(sources, engine.limits, on_read=on_read)
    t1 = time.perf_counter()
    state = MaskState()
    log = mask_selected(raw, engine.masker, state)
    notes = _reading_notes(raw, log)
    del raw  # nothing downstream may see the unmasked log
    hosts = state.pseudonyms.keyed("HOST", host_key) if host_key else {}
    t2 = time.perf_counter()
    return Masked(log, notes, {"ingest": round((t1 - t0) * 1000, 2), "mask": round((t2 - t1) * 1000, 2)}, hosts)


def analyse(engine: Engine, masked: Masked, diagnosis_id: str | None = None) -> Trace:
    """facts -> retrieve -> compose on a masked run, timed per stage. Stores nothing."""
    timings = dict(masked.timings)
    log = masked.log
    t = time.perf_counter()

    def timed(stage: str) -> None:
        nonlocal t
        now = time.perf_counter()
        timings[stage] = round((now - t) * 1000, 2)
        t = now

    facts = extract_facts(log)
    timed("facts")
    found = retrieve(log, facts, engine.index)
    timed("retrieve")
    diagnosis = compose(log, facts, found.hits, engine.kb, settings=engine.settings, diagnosis_id=diagnosis_id or new_id())
    diagnosis.notes += masked.notes
    timed("compose")
    timings["total"] = round(sum(timings.values()), 2)
    diagnosis.timings_ms = dict(timings)
    return Trace(log, facts, found.query, found.per_source, found.hits, diagnosis, timings)


def run_stages(engine: Engine, sources: Sequence[Source], on_read: Callable[[int], None] | None = None) -> Trace:
    """ingest -> mask -> facts -> retrieve -> compose, timed per stage. Stores nothing."""
    return analyse(engine, read_and_mask(engine, sources, on_read))


def diagnose(
    engine: Engine,
    sources: Sequence[Source],
    *,
    store: bool = True,
    workspace_id: str | None = None,
    on_read: Callable[[int], None] | None = None,
    before_save: Callable[[Masked, Diagnosis], Diagnosis] | None = None,
) -> Diagnosis:
    """Run the whole pipeline on the files of one run; store the masked result unless told not to.

    ``on_read`` is called with the size of each chunk read (the CLI's progress); ``before_save`` may amend the
    diagnosis before it is stored (the service's LLM follow-up job)."""
    host_key = None
    if store and not engine.local:  # the service's pseudonyms per workspace; imported here: fleet brings SQLAlchemy
        from service import fleet

        host_key = fleet.host_key(engine.store, workspace_id)
    return diagnose_masked(engine, read_and_mask(engine, sources, on_read, host_key), store=store, workspace_id=workspace_id,
                           before_save=before_save)


def diagnose_masked(engine: Engine, masked: Masked, *, store: bool = True, workspace_id: str | None = None,
                    diagnosis_id: str | None = None,
                    before_save: Callable[[Masked, Diagnosis], Diagnosis] | None = None) -> Diagnosis:
    """The second half of ``diagnose()``, for a run already read and masked (a job's). With ``diagnosis_id`` it is
    idempotent: a diagnosis already stored under that id (an earlier attempt of the same job) is returned as it is."""
    if store and diagnosis_id is not None:
        existing = engine.store.find(diagnosis_id, workspace_id)
        if existing is not None:
            return existing
    trace = analyse(engine, masked, diagnosis_id)
    diagnosis = trace.diagnosis
    if before_save is not None:
        diagnosis = before_save(masked, diagnosis)
    if store:
        t0 = time.perf_counter()
        engine.save(diagnosis, masked_excerpt(trace.log, diagnosis), workspace_id=workspace_id)
        if not engine.local:  # the service's diagnoses join their failure groups (the CLI's own file does not)
            from service import fleet

            fleet.record_diagnosis(engine.store, diagnosis, workspace_id, masked.hosts, engine.settings.bad_node_min_jobs)
        diagnosis.timings_ms["store"] = round((time.perf_counter() - t0) * 1000, 2)
        diagnosis.timings_ms["total"] = round(diagnosis.timings_ms["total"] + diagnosis.timings_ms["store"], 2)
    return diagnosis


@dataclass
class _Question:
    """A checked, masked question with the stored material it is answered from."""

    diagnosis_id: str
    workspace_id: str | None
    masked: str
    diagnosis: Diagnosis
    excerpt: list[Evidence]
    history: list[Message]


def _question(engine: Engine, diagnosis_id: str, question: str, workspace_id: str | None) -> _Question:
    question = question.strip()
    if not question:
        raise BadRequest("The question is empty.", hint='Send {"question": "..."}.')
    if len(question) > engine.settings.max_question_chars:
        raise TooLarge(f"The question is over {engine.settings.max_question_chars} characters.", hint="Ask something shorter.")
    masked_q, _ = mask_text(question, engine.masker)
    d = engine.store.get(diagnosis_id, workspace_id)
    excerpt = engine.store.excerpt(diagnosis_id, workspace_id)
    history = history_of(engine, diagnosis_id, workspace_id)
    return _Question(diagnosis_id, workspace_id, masked_q, d, excerpt, history)


def _store_exchange(engine: Engine, q: _Question, reply: chat.Reply) -> tuple[Message, Message]:
    """Both messages in one transaction; returned as stored (concurrent questions cannot swap them)."""
    bodies = [("user", json.dumps({"text": q.masked})), ("assistant", reply.model_dump_json())]
    created = engine.store.add_messages(q.diagnosis_id, bodies, q.workspace_id)
    asked, answered = (_message(role, body, created) for role, body in bodies)
    return asked, answered


def _message(role: str, body: str, created: datetime) -> Message:
    data = json.loads(body)
    when = (created if created.tzinfo else created.replace(tzinfo=UTC)).isoformat(timespec="seconds")  # SQLite: naive UTC
    if role == "user":
        return Message(role=role, text=data["text"], created_at=when)
    reply = chat.Reply.model_validate(data)
    return Message(role=role, text=reply.answer, created_at=when, citations=reply.citations, composer=reply.composer,
                   notes=reply.notes)


def ask(engine: Engine, diagnosis_id: str, question: str, *, workspace_id: str | None = None) -> tuple[Message, Message]:
    """A follow-up question on a stored diagnosis: masked, answered, both stored. Returns (question, answer)."""
    q = _question(engine, diagnosis_id, question, workspace_id)
    reply = chat.answer(q.diagnosis, q.masked, q.excerpt, engine.kb, q.history, engine.settings)
    return _store_exchange(engine, q, reply)


def ask_stream(engine: Engine, diagnosis_id: str, question: str, *, workspace_id: str | None = None) -> Iterator[ChatEvent]:
    """``ask()`` for the chat page. Checks, masks and loads now, so bad input raises before any event; the
    events then come as they are iterated: the LLM's ``delta``s (none without an LLM), a ``withdraw`` when the
    deltas shown failed the checks, and one final
    ``answer`` with the validated reply (or the deterministic fallback), stored like ``ask()`` stores it."""
    q = _question(engine, diagnosis_id, question, workspace_id)

    def events() -> Iterator[ChatEvent]:
        answering = chat.answer_stream(q.diagnosis, q.masked, q.excerpt, engine.kb, q.history, engine.settings)
        while True:
            try:
                delta = next(answering)
            except StopIteration as done:
                reply: chat.Reply = done.value
                break
            if isinstance(delta, chat.Withdrawn):
                yield ChatEvent(kind="withdraw", data={"reason": delta.reason})
            else:
                yield ChatEvent(kind="delta", data={"text": delta})
        asked, answered = _store_exchange(engine, q, reply)
        yield ChatEvent(kind="answer", data={"question": asked.model_dump(), "answer": answered.model_dump()})

    return events()


def history_of(engine: Engine, diagnosis_id: str, workspace_id: str | None = None) -> list[Message]:
    return [_message(role, body, created) for role, body, created in engine.store.messages(diagnosis_id, workspace_id)]
