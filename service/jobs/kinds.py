"""What each kind of job does, listed once in ``KINDS``. Each takes the job (one attempt) and returns its result.

A job is retried after an attempt that raised, so each kind is idempotent: a diagnosis is stored under the id
derived from the job's (an earlier attempt's is found, not made again) and a reply is posted only while the
job has none delivered. ``final`` says this attempt is the last: a reply must then say what went wrong.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from service.jobs.records import Job, Jobs, diagnosis_id_of, unpack
from service.models import MaskedLog

log = logging.getLogger("crashdoc.jobs")

if TYPE_CHECKING:
    from service.pipeline import Engine


def permanent(exc: BaseException) -> bool:
    from service.jobs.queue import permanent as is_permanent

    return is_permanent(exc)


class DeliveryFailed(Exception):
    """The receiving end did not take the reply (unreachable, 429 or 5xx): the attempt is retried."""


def masked_payload(masked: Any) -> dict[str, Any]:
    """A ``pipeline.Masked`` as a job's payload (masked text only)."""
    return {"log": masked.log.model_dump(mode="json"), "notes": masked.notes, "timings": masked.timings}


def _masked(payload: dict[str, Any]) -> Any:
    from service.pipeline import Masked

    return Masked(MaskedLog.model_validate(payload["log"]), list(payload["notes"]), dict(payload["timings"]))


def run_diagnose(engine: Engine, jobs: Jobs, job: Job, final: bool) -> dict[str, Any]:
    """An accepted upload (read and masked when it was accepted): the rest of the pipeline, stored once."""
    from service.pipeline import diagnose_masked

    d = diagnose_masked(engine, _masked(unpack(job.payload)), workspace_id=job.workspace_id,
                        diagnosis_id=diagnosis_id_of(job.id))
    return {"diagnosis_id": d.id, "entry_id": d.entry_id}


def run_slack(engine: Engine, jobs: Jobs, job: Job, final: bool) -> dict[str, Any]:
    """A Slack reply: make the message (a diagnosis, an answer, or one given) and post it to the response_url once."""
    from service.slack import blocks, handlers, respond

    p = unpack(job.payload)
    if job.delivered_at is not None:
        return {"delivered": True}
    result: dict[str, Any] = {}
    try:
        if p["op"] == "diagnose":
            message = handlers.diagnose_masked_paste(engine, _masked(p["masked"]), diagnosis_id_of(job.id), p.get("public_url"))
            result["diagnosis_id"] = diagnosis_id_of(job.id)
        elif p["op"] == "ask":
            message = handlers.answer_question(engine, p["diagnosis_id"], p["question"], p.get("public_url"))
        else:
            message = p["message"]
    except Exception as exc:
        if permanent(exc) or final:  # the user hears why, once; the job is then failed
            ref = secrets.token_hex(4)
            log.info("job %s: slack %s failed (ref %s): %s", job.id, p["op"], ref, getattr(exc, "code", type(exc).__name__))
            _post_once(jobs, job, p["response_url"], blocks.error_message(exc, ref), respond)
        raise
    _post_once(jobs, job, p["response_url"], message, respond)
    return {**result, "delivered": True}


def _post_once(jobs: Jobs, job: Job, url: str, message: dict[str, Any], respond: Any) -> None:
    status = respond.post(url, message)
    if status == 400 and "blocks" in message:  # Slack refused the blocks: the plain text still says the outcome
        status = respond.post(url, respond.plain(message))
    if status is None or status == 429 or status >= 500:
        raise DeliveryFailed(f"the response_url answered {status}")
    jobs.mark_delivered(job.id)  # 2xx, or a 4xx that a retry would not change


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


Kind = Callable[["Engine", Jobs, Job, bool], dict[str, Any]]

KINDS: dict[str, Kind] = {
    "diagnose": run_diagnose,
    "slack": run_slack,
    "alert": run_alert,
}
