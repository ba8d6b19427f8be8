"""The REST endpoints. They hold no pipeline logic: they read input, call ``diagnose()``, answer JSON.

Conventions (each has a test): ``Idempotency-Key`` on the POSTs that create (``idempotency``), ``Location`` on 201,
415 for a Content-Type a route does not read, ``RateLimit-*`` headers where a use is counted (``deps.spending``),
``Accept: text/markdown`` for a diagnosis (``negotiate``), an operation id and a typed model for every answer.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote

from anyio import to_thread
from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import StreamingResponse

from service.api import negotiate
from service.api.account_routes import DiagnosisId
from service.api.deps import (
    CallerDep,
    EngineDep,
    pool_for,
    public_base,
    queue,
    read_sources,
    require_json,
    shares,
    spending,
    with_url,
)
from service.api.deps import engine as app_engine
from service.api.errors import error_body
from service.api.idempotency import IDEMPOTENCY_RESPONSES, IdempotencyKey, fingerprint, once
from service.api.job_routes import accept_diagnosis, wants_async
from service.api.schemas import (
    Conversation,
    EntryIndex,
    EntryOut,
    EntrySummary,
    Exchange,
    Health,
    Question,
    ShareLink,
)
from service.chat.models import ChatEvent
from service.diff import RunDiff, diff_with
from service.errors import CrashdocError, NotFound
from service.feedback import Feedback, FeedbackIn
from service.feedback import record as record_feedback
from service.jobs.kinds import compose_later
from service.models import Diagnosis
from service.pipeline import ask, ask_stream, diagnose, history_of
from service.render import to_markdown
from service.store.shares import share_url

log = logging.getLogger("crashdoc.api")

router = APIRouter()

_LOG_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "text/plain": {"schema": {"type": "string"}, "example": "Traceback (most recent call last): ..."},
            "multipart/form-data": {
                "schema": {"type": "object", "properties": {"files": {"type": "array", "items": {"type": "string", "format": "binary"}}}}
            },
        },
    }
}
_MARKDOWN = {"text/markdown": {"schema": {"type": "string"}, "example": "**Rank 3 failed first** ..."}}
_LOCATION = {"Location": {"description": "the new resource", "schema": {"type": "string"}}}
_NEGOTIATED = "JSON, or with `Accept: text/markdown` the PR-comment markdown (406 when neither is acceptable)"


def _diagnosis_response(d: Diagnosis, media: str, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """The diagnosis as the negotiated media type."""
    headers = {"Vary": "Accept", **(headers or {})}
    if media == negotiate.MARKDOWN:
        return Response(to_markdown(d), status_code=status, media_type="text/markdown; charset=utf-8", headers=headers)
    return Response(d.model_dump_json(), status_code=status, media_type=negotiate.JSON, headers=headers)


@router.get("/healthz", tags=["service"], response_model=Health)
async def healthz(request: Request) -> Health:
    """On the event loop, not in the request threads: it answers while every one of them is busy. (The engine
    was warmed by the app's lifespan, so nothing here loads or blocks.)"""
    engine = app_engine(request)
    return Health(status="ok", kb_version=engine.kb.version, entries=len(engine.kb))


@router.post("/v1/diagnoses", status_code=201, response_model=Diagnosis, tags=["diagnoses"], openapi_extra=_LOG_BODY,
             responses={201: {"description": f"the diagnosis: {_NEGOTIATED}", "headers": _LOCATION, "content": _MARKDOWN},
                        202: {"description": "accepted (`Prefer: respond-async`): the job, `Location: /v1/jobs/{id}`"},
                        **IDEMPOTENCY_RESPONSES})
async def create_diagnosis(request: Request, engine: EngineDep, who: CallerDep, key: IdempotencyKey = None) -> Response:
    """Diagnose the files of one run: the log as the raw body (text/plain, gzip accepted) or multipart `files`.
    With `Prefer: respond-async`: `202` and `Location: /v1/jobs/{id}` at once, the diagnosis made by a worker."""
    if wants_async(request):
        return await accept_diagnosis(request, engine, who)
    media = negotiate.choose(request.headers.get("accept"))
    sources = await read_sources(request, engine.limits)

    # With an LLM whose pool is full, the answer is the deterministic one at once and a job composes it later.
    later = partial(compose_later, engine, scope=who.subject, workspace_id=who.workspace_id) if engine.settings.llm_model else None

    async def work() -> Diagnosis:
        async with spending(request, who, "diagnosis"):
            d = await to_thread.run_sync(lambda: diagnose(engine, sources, workspace_id=who.workspace_id, before_save=later),
                                         limiter=pool_for(request, sources))
        if d.llm and d.llm.get("follow_up_job"):
            await to_thread.run_sync(queue(request.app).notify, str(d.llm["follow_up_job"]))
        return d

    print_ = fingerprint("POST /v1/diagnoses", *(part for s in sources for part in (s.name, s.data)))
    answer = await once(request, who, key, print_, Diagnosis, work, resource=lambda d: d.id)
    headers = {"Location": f"/v1/diagnoses/{quote(answer.value.id)}"}
    if answer.replayed:
        headers["Idempotent-Replayed"] = "true"
    d = await to_thread.run_sync(with_url, request, answer.value)
    return _diagnosis_response(d, media, 201, headers)


@router.get("/v1/diagnoses/{diagnosis_id}", response_model=Diagnosis, tags=["diagnoses"],
            responses={200: {"description": f"the diagnosis: {_NEGOTIATED}", "content": _MARKDOWN}})
def get_diagnosis(diagnosis_id: DiagnosisId, request: Request, engine: EngineDep, who: CallerDep) -> Response:
    """A stored diagnosis of the caller's."""
    media = negotiate.choose(request.headers.get("accept"))
    return _diagnosis_response(with_url(request, engine.store.get(diagnosis_id, who.workspace_id)), media)


@router.post("/v1/diagnoses/{diagnosis_id}/share", response_model=ShareLink, tags=["diagnoses"])
def share_diagnosis(diagnosis_id: DiagnosisId, request: Request, engine: EngineDep, who: CallerDep) -> ShareLink:
    """A new share link for the diagnosis (also after a revocation): every earlier link of it stops working."""
    engine.store.get(diagnosis_id, who.workspace_id)  # 404 unless it is the caller's
    return ShareLink(url=share_url(public_base(request), shares(request).rotate(diagnosis_id)))


@router.delete("/v1/diagnoses/{diagnosis_id}/share", status_code=204, response_class=Response, tags=["diagnoses"])
def revoke_share(diagnosis_id: DiagnosisId, request: Request, engine: EngineDep, who: CallerDep) -> Response:
    """Revoke the diagnosis's share link: it answers 410 until a new one is made (the diagnosis stays)."""
    engine.store.get(diagnosis_id, who.workspace_id)
    shares(request).revoke(diagnosis_id)
    return Response(status_code=204)


@router.get("/v1/kb", tags=["encyclopedia"], response_model=EntryIndex)
def list_entries(engine: EngineDep) -> EntryIndex:
    """The encyclopedia's entries, by category."""
    kb = engine.kb
    entries = [
        EntrySummary(id=e.id, title=e.title, category=e.meta.category, summary=e.meta.summary, tags=e.meta.tags)
        for e in sorted(kb.entries.values(), key=lambda e: (e.meta.category, e.id))
    ]
    return EntryIndex(kb_version=kb.version, entries=entries)


@router.get("/v1/kb/{entry_id}", tags=["encyclopedia"], response_model=EntryOut)
def get_entry(entry_id: str, engine: EngineDep) -> EntryOut:
    """One entry: its front matter, sections and markdown."""
    entry = engine.kb.get(entry_id)
    if entry is None:
        raise NotFound(f"No entry '{entry_id}'.", hint="GET /v1/kb lists the entries.")
    return EntryOut(**entry.meta.model_dump(), sections=entry.sections,
                    markdown=Path(entry.path).read_text(encoding="utf-8"))


@router.post("/v1/diagnoses/{diagnosis_id}/messages", status_code=201, tags=["chat"], response_model=Exchange,
             dependencies=[Depends(require_json)],
             responses={201: {"description": "the question and its answer", "headers": _LOCATION}, **IDEMPOTENCY_RESPONSES})
async def ask_question(diagnosis_id: DiagnosisId, body: Question, request: Request, response: Response, engine: EngineDep,
                       who: CallerDep, key: IdempotencyKey = None) -> Exchange:
    """Ask a follow-up question; the answer cites entry sections, log lines and facts."""

    async def work() -> Exchange:
        async with spending(request, who, "question"):
            asked, answered = await to_thread.run_sync(
                lambda: ask(engine, diagnosis_id, body.question, workspace_id=who.workspace_id))
        return Exchange(question=asked, answer=answered)

    print_ = fingerprint(f"POST /v1/diagnoses/{diagnosis_id}/messages", body.question)
    answer = await once(request, who, key, print_, Exchange, work, resource=lambda _: diagnosis_id)
    response.headers["Location"] = f"/v1/diagnoses/{quote(diagnosis_id)}/messages"
    if answer.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return answer.value


_SSE_DOC: dict[int | str, dict[str, Any]] = {200: {"description": "`event: delta` (LLM text as it arrives, whole lines, checked; none without an LLM), "
                               "`event: withdraw` when the text shown failed the checks (take it back), then one "
                               "`event: answer` with the validated `{question, answer}`; `event: error` if it fails midway",
                  "content": {"text/event-stream": {"schema": {"type": "string"}}}}}


def _sse(events: Iterator[ChatEvent], request_id: str | None) -> Iterator[str]:
    """Server-sent events; an error after the stream has started becomes an ``error`` event."""
    try:
        for e in events:
            yield f"event: {e.kind}\ndata: {json.dumps(e.data)}\n\n"
    except CrashdocError as exc:
        yield f"event: error\ndata: {json.dumps(error_body(exc.code, str(exc), request_id))}\n\n"
    except Exception as exc:
        log.error("request %s: stream failed: %s", request_id, exc.__class__.__name__)
        body = error_body("internal", "Something went wrong on our side; the request id helps us find it.", request_id)
        yield f"event: error\ndata: {json.dumps(body)}\n\n"


@router.post("/v1/diagnoses/{diagnosis_id}/messages/stream", tags=["chat"], response_class=StreamingResponse, responses=_SSE_DOC,
             dependencies=[Depends(require_json)])
async def ask_question_streamed(diagnosis_id: DiagnosisId, body: Question, request: Request, engine: EngineDep, who: CallerDep) -> StreamingResponse:
    """Ask a follow-up question and read the answer as server-sent events (for the chat on the page)."""
    async with spending(request, who, "question"):
        events = await to_thread.run_sync(
            lambda: ask_stream(engine, diagnosis_id, body.question, workspace_id=who.workspace_id))
    return StreamingResponse(_sse(events, getattr(request.state, "request_id", None)), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@router.get("/v1/diagnoses/{diagnosis_id}/messages", tags=["chat"], response_model=Conversation)
def list_messages(diagnosis_id: DiagnosisId, engine: EngineDep, who: CallerDep) -> Conversation:
    """The conversation about a diagnosis, oldest first."""
    return Conversation(messages=history_of(engine, diagnosis_id, who.workspace_id))


@router.post("/v1/diagnoses/{diagnosis_id}/feedback", status_code=201, tags=["feedback"])
def post_feedback(diagnosis_id: DiagnosisId, body: FeedbackIn, engine: EngineDep, who: CallerDep) -> Feedback:
    """Say whether the cause is right: `{"verdict": "right"}`, or `{"verdict": "wrong", "label": "<entry id>",
    "note": "what it was"}`. Stored with the workspace's diagnosis; `crashdoc feedback export` turns wrong-cause
    reports into eval case skeletons."""
    return record_feedback(engine, diagnosis_id, body, source="api", workspace_id=who.workspace_id)


@router.post("/v1/diagnoses/{diagnosis_id}/diff", tags=["diagnoses"], openapi_extra=_LOG_BODY)
async def diff_with_good_run(diagnosis_id: DiagnosisId, request: Request, engine: EngineDep, who: CallerDep) -> RunDiff:
    """Compare the diagnosed run with a good run's log (sent like a log to diagnose): the versions, topology,
    precision, optimizer, ZeRO stage, environment variables and launcher arguments that changed. Nothing is stored."""
    d = await to_thread.run_sync(lambda: engine.store.get(diagnosis_id, who.workspace_id))
    sources = await read_sources(request, engine.limits)
    return await to_thread.run_sync(lambda: diff_with(engine, d, sources), limiter=pool_for(request, sources))
