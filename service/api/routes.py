"""The REST endpoints. They hold no pipeline logic: they read input, call ``diagnose()``, answer JSON."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from anyio import to_thread
from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from service.api.account_routes import DiagnosisId
from service.api.deps import CallerDep, EngineDep, pool_for, read_sources, spending
from service.api.errors import error_body
from service.chat.models import ChatEvent
from service.errors import CrashdocError, NotFound
from service.models import Diagnosis
from service.pipeline import ask, ask_stream, diagnose, history_of

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


@router.get("/healthz", tags=["service"])
def healthz(engine: EngineDep) -> dict[str, Any]:
    return {"status": "ok", "kb_version": engine.kb.version, "entries": len(engine.kb)}


@router.post("/v1/diagnoses", status_code=201, response_model=Diagnosis, tags=["diagnoses"], openapi_extra=_LOG_BODY)
async def create_diagnosis(request: Request, engine: EngineDep, who: CallerDep) -> Diagnosis:
    """Diagnose the files of one run: the log as the raw body (text/plain, gzip accepted) or multipart `files`."""
    async with spending(request, who, "diagnosis"):
        sources = await read_sources(request, engine.limits)
        return await to_thread.run_sync(lambda: diagnose(engine, sources, workspace_id=who.workspace_id),
                                        limiter=pool_for(request, sources))


@router.get("/v1/diagnoses/{diagnosis_id}", response_model=Diagnosis, tags=["diagnoses"])
def get_diagnosis(diagnosis_id: DiagnosisId, engine: EngineDep, who: CallerDep) -> Diagnosis:
    return engine.store.get(diagnosis_id, who.workspace_id)


@router.get("/v1/kb", tags=["encyclopedia"])
def list_entries(engine: EngineDep) -> dict[str, Any]:
    kb = engine.kb
    entries = [
        {"id": e.id, "title": e.title, "category": e.meta.category, "summary": e.meta.summary, "tags": e.meta.tags}
        for e in sorted(kb.entries.values(), key=lambda e: (e.meta.category, e.id))
    ]
    return {"kb_version": kb.version, "entries": entries}


@router.get("/v1/kb/{entry_id}", tags=["encyclopedia"])
def get_entry(entry_id: str, engine: EngineDep) -> dict[str, Any]:
    entry = engine.kb.get(entry_id)
    if entry is None:
        raise NotFound(f"No entry '{entry_id}'.", hint="GET /v1/kb lists the entries.")
    return {
        **entry.meta.model_dump(mode="json"),
        "sections": entry.sections,
        "markdown": Path(entry.path).read_text(encoding="utf-8"),
    }


class Question(BaseModel):
    question: str = Field(min_length=1, max_length=20_000, description="a follow-up question about the diagnosis")


@router.post("/v1/diagnoses/{diagnosis_id}/messages", status_code=201, tags=["chat"])
async def post_message(diagnosis_id: DiagnosisId, body: Question, request: Request, engine: EngineDep, who: CallerDep) -> dict[str, Any]:
    """Ask a follow-up question; the answer cites entry sections, log lines and facts."""
    async with spending(request, who, "question"):
        asked, answered = await to_thread.run_sync(
            lambda: ask(engine, diagnosis_id, body.question, workspace_id=who.workspace_id))
    return {"question": asked.model_dump(), "answer": answered.model_dump()}


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


@router.post("/v1/diagnoses/{diagnosis_id}/messages/stream", tags=["chat"], response_class=StreamingResponse, responses=_SSE_DOC)
async def stream_message(diagnosis_id: DiagnosisId, body: Question, request: Request, engine: EngineDep, who: CallerDep) -> StreamingResponse:
    """Ask a follow-up question and read the answer as server-sent events (for the chat on the page)."""
    async with spending(request, who, "question"):
        events = await to_thread.run_sync(
            lambda: ask_stream(engine, diagnosis_id, body.question, workspace_id=who.workspace_id))
    return StreamingResponse(_sse(events, getattr(request.state, "request_id", None)), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@router.get("/v1/diagnoses/{diagnosis_id}/messages", tags=["chat"])
def get_messages(diagnosis_id: DiagnosisId, engine: EngineDep, who: CallerDep) -> dict[str, Any]:
    return {"messages": [m.model_dump() for m in history_of(engine, diagnosis_id, who.workspace_id)]}
