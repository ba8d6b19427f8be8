"""Jobs over HTTP: ``GET /v1/jobs/{id}``, and the async form of ``POST /v1/diagnoses`` (``Prefer: respond-async``)
that answers ``202`` with ``Location: /v1/jobs/{id}`` at once; the job's result names the diagnosis.

A job is seen only by the caller that made it (its workspace, or the same anonymous address): any other id
answers 404. ``Idempotency-Key`` on the async form finds the job already accepted for that key, on any replica,
and spends nothing again; the same key with another request (other files or content) is a 422, as on the
synchronous form.
"""

from __future__ import annotations

from typing import Annotated, Any

from anyio import to_thread
from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from service.api import deps
from service.api.deps import CallerDep, EngineDep
from service.api.idempotency import fingerprint
from service.errors import BadRequest, NotFound
from service.jobs import Job, Jobs, OverAllowance, Spend
from service.jobs.records import masked_payload
from service.pipeline import read_and_mask
from service.store.accounts import allowance, utc_now

router = APIRouter()

JobId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$", description="a job id, e.g. j_3kq9XyZ0abcdEFgh")]
MAX_KEY_CHARS = 200


class JobOut(BaseModel):
    id: str
    kind: str = Field(description="diagnose | slack | alert | compose (the LLM's composition of a diagnosis answered "
                      "deterministically while the LLM was busy)")
    status: str = Field(description="queued | running | done | failed")
    attempts: int
    max_attempts: int
    created_at: str
    updated_at: str
    result: dict[str, Any] | None = Field(description="when done: for a diagnosis, its `diagnosis_id` and `diagnosis_url`")
    error: dict[str, Any] | None = Field(description="the last attempt's error: `code`, `message`")


def job_out(job: Job) -> JobOut:
    result = dict(job.result) if job.result else None
    if result and "diagnosis_id" in result:
        result["diagnosis_url"] = f"/v1/diagnoses/{result['diagnosis_id']}"
    return JobOut(id=job.id, kind=job.kind, status=job.status, attempts=job.attempts, max_attempts=job.max_attempts,
                  created_at=job.created_at.isoformat(timespec="seconds"),
                  updated_at=job.updated_at.isoformat(timespec="seconds"), result=result, error=job.error)


@router.get("/v1/jobs/{job_id}", response_model=JobOut, tags=["jobs"])
def get_job_status(job_id: JobId, engine: EngineDep, who: CallerDep) -> JobOut:
    """A job this caller made: its status, attempts, and (when done) what it produced."""
    job = Jobs(engine.store).get(job_id, who.subject)
    if job is None:
        raise NotFound(f"No job '{job_id}'.", hint="Check the id: the Location header of the 202 names it.")
    return job_out(job)


def wants_async(request: Request) -> bool:
    """RFC 7240: ``Prefer: respond-async``."""
    prefs = ",".join(request.headers.getlist("prefer")).lower()
    return any(p.strip().split(";")[0].strip() == "respond-async" for p in prefs.split(","))


def idempotency_key(request: Request) -> str | None:
    key = request.headers.get("idempotency-key")
    if key is None:
        return None
    key = key.strip()
    if not key or len(key) > MAX_KEY_CHARS or not key.isprintable():
        raise BadRequest(f"The Idempotency-Key must be 1 to {MAX_KEY_CHARS} printable characters.",
                         hint="Send a UUID, the same one for each retry of one request.")
    return key


def accepted(job: Job, created: bool) -> JSONResponse:
    body = job_out(job).model_dump(mode="json")
    return JSONResponse(body, status_code=202, headers={"Location": f"/v1/jobs/{job.id}",
                                                        "Idempotent-Replayed": "false" if created else "true"})


async def accept_diagnosis(request: Request, engine: EngineDep, who: CallerDep) -> JSONResponse:
    """The async form of POST /v1/diagnoses: read and mask now, the rest on a worker; 202 with the job."""
    key, jobs = idempotency_key(request), Jobs(engine.store)
    sources = await deps.read_sources(request, engine.limits)
    print_ = fingerprint("POST /v1/diagnoses respond-async", *(part for s in sources for part in (s.name, s.data)))
    if key is not None and (found := await to_thread.run_sync(jobs.find, who.subject, key, print_)) is not None:
        return accepted(found, False)  # a retry of the same request (another one under this key: KeyReused, 422)
    masked = await to_thread.run_sync(lambda: read_and_mask(engine, sources), limiter=deps.pool_for(request, sources))
    allowed = allowance(who.workspace, deps.settings(request), utc_now())
    limit = allowed.limit("diagnosis")
    spend = None if (who.workspace is None and limit is None) else Spend(who.subject, "diagnosis", limit, utc_now().date())
    try:
        job, created = await to_thread.run_sync(lambda: jobs.submit(
            "diagnose", masked_payload(masked), scope=who.subject, workspace_id=who.workspace_id, key=key, spend=spend,
            fingerprint=print_ if key is not None else None))
    except OverAllowance:
        assert limit is not None
        raise deps.quota_exceeded(who, allowed, "diagnosis", limit) from None
    if created:
        await to_thread.run_sync(deps.queue(request.app).notify, job.id)
    return accepted(job, created)
