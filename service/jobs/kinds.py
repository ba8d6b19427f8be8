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


def masked_of(payload: dict[str, Any]) -> Any:
    from service.pipeline import Masked

    return Masked(MaskedLog.model_validate(payload["log"]), list(payload["notes"]), dict(payload["timings"]))


def run_diagnose(engine: Engine, jobs: Jobs, job: Job, final: bool) -> dict[str, Any]:
    """An accepted upload (read and masked when it was accepted): the rest of the pipeline, stored once."""
    from service.pipeline import diagnose_masked

    d = diagnose_masked(engine, masked_of(unpack(job.payload)), workspace_id=job.workspace_id,
                        diagnosis_id=diagnosis_id_of(job.id))
    return {"diagnosis_id": d.id, "entry_id": d.entry_id}


def run_slack(engine: Engine, jobs: Jobs, job: Job, final: bool) -> dict[str, Any]:
    """A Slack reply (a command's or an interaction's): made and posted once (service/slack/replies.py)."""
    from service.slack import replies

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


Kind = Callable[["Engine", Jobs, Job, bool], dict[str, Any]]

KINDS: dict[str, Kind] = {
    "diagnose": run_diagnose,
    "slack": run_slack,
    "alert": run_alert,
}
