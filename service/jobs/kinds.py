"""What each kind of job does, listed once in ``KINDS``. Each takes the job (one attempt) and returns its result.

A job is retried after an attempt that raised, so each kind is idempotent: a diagnosis is stored under the id
derived from the job's (an earlier attempt's is found, not made again) and a Slack reply's side effects are
steps in the job's ledger, each done at most once (service/slack/replies.py). ``final`` says this attempt is the
last: a reply must then say what went wrong.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from service.jobs.records import DeliveryFailed, Job, Jobs, diagnosis_id_of, masked_of, masked_payload, unpack
from service.models import Diagnosis
from service.slack import replies

log = logging.getLogger("crashdoc.jobs")

if TYPE_CHECKING:
    from service.pipeline import Engine


def run_diagnose(engine: Engine, jobs: Jobs, job: Job, final: bool) -> dict[str, Any]:
    """An accepted upload (read and masked when it was accepted): the rest of the pipeline, stored once."""
    from service.pipeline import diagnose_masked

    d = diagnose_masked(engine, masked_of(unpack(job.payload)), workspace_id=job.workspace_id,
                        diagnosis_id=diagnosis_id_of(job.id))
    return {"diagnosis_id": d.id, "entry_id": d.entry_id}


def run_slack(engine: Engine, jobs: Jobs, job: Job, final: bool) -> dict[str, Any]:
    """A Slack reply (a command's or an interaction's): made and posted once (service/slack/replies.py)."""
    return replies.run(engine, jobs, job, final)


def run_alert(engine: Engine, jobs: Jobs, job: Job, final: bool) -> dict[str, Any]:
    """An alert to a subscription's webhook or Slack channel, signed, posted until it is taken."""
    from service.fleet import alerts

    if job.delivered_at is not None:
        return {"delivered": True}
    status = alerts.send(engine.store, job.id, unpack(job.payload))
    if status is None or status == 429 or status >= 500:
        raise DeliveryFailed(f"the alert receiver answered {status}")
    jobs.mark_delivered(job.id)
    return {"delivered": status != 0, "status": status}


class NotStoredYet(Exception):
    """The diagnosis a follow-up composes is not stored yet (its request is finishing): the attempt is retried."""


def llm_was_busy(d: Diagnosis) -> bool:
    """The diagnosis is deterministic because the LLM pool was full (the call was never made)."""
    return d.composer == "deterministic" and bool(d.llm and d.llm.get("busy"))


def compose_later(engine: Engine, masked: Any, d: Diagnosis, *, scope: str, workspace_id: str | None) -> Diagnosis:
    """A diagnosis answered deterministically because the LLM was busy: a job composes it with the LLM on a worker
    (the masked run is its payload) and replaces the stored diagnosis when the answer validates; the note says so."""
    if not llm_was_busy(d):
        return d
    payload = {**masked_payload(masked), "diagnosis_id": d.id}
    job, _ = Jobs(engine.store).submit("compose", payload, scope=scope, workspace_id=workspace_id, key=f"compose:{d.id}")
    note = (f"The LLM's composition follows: job {job.id} (GET /v1/jobs/{job.id}) asks the model when a slot is free "
            "and, if its answer passes the checks, replaces this diagnosis under the same id.")
    return d.model_copy(update={"notes": [*d.notes, note], "llm": {**(d.llm or {}), "follow_up_job": job.id}})


def run_compose(engine: Engine, jobs: Jobs, job: Job, final: bool) -> dict[str, Any]:
    """The LLM's composition of a stored deterministic diagnosis: the rest of the pipeline again, with the model;
    stored in its place only when the model's answer was used. A model still busy is retried with the backoff."""
    from service.errors import LLMBusy
    from service.pipeline import analyse, masked_excerpt

    p = unpack(job.payload)
    diagnosis_id = p["diagnosis_id"]
    current = engine.store.find(diagnosis_id, job.workspace_id)
    if current is None:
        if final:
            return {"diagnosis_id": diagnosis_id, "composer": None}
        raise NotStoredYet(diagnosis_id)
    if current.composer != "deterministic":
        return {"diagnosis_id": diagnosis_id, "composer": current.composer}
    masked = masked_of(p)
    trace = analyse(engine, masked, diagnosis_id)
    d = trace.diagnosis
    if llm_was_busy(d) and not final:
        raise LLMBusy("The LLM is still busy.")
    if d.composer == "deterministic":  # the model answered and failed the checks, or timed out: the answer stands
        return {"diagnosis_id": diagnosis_id, "composer": "deterministic",
                "reason": str((d.llm or {}).get("fallback_reason") or "")}
    d.notes = [*d.notes, f"Composed by the LLM after a deterministic first answer (job {job.id})."]
    engine.store.replace(d, masked_excerpt(trace.log, d), job.workspace_id)
    return {"diagnosis_id": diagnosis_id, "composer": d.composer}


Kind = Callable[["Engine", Jobs, Job, bool], dict[str, Any]]

KINDS: dict[str, Kind] = {
    "diagnose": run_diagnose,
    "slack": run_slack,
    "alert": run_alert,
    "compose": run_compose,
}
