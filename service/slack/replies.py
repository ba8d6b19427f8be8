"""Every Slack reply is a job (``kind="slack"``): the slash command's diagnosis and follow-up, and the interactions
(the message shortcut, the follow-up box and modal, share, the feedback buttons and modal, the prompts). The
request that accepted it kept only masked text in the payload (a pasted log, a question, a note) or ids (the
files of a message, a diagnosis); this runs it on a worker and posts the result once.

    payload = {"op": ..., <what the op needs>, "to": {"response_url": url} | {"channel": c, "user": u}}

Once, from the user's view, across retries and a worker that dies: each side effect of an attempt (the message
made, a feedback written, a post) is a step in the job's ledger (``Jobs.begin_step``). A step found done is not
done again; a step found under way was interrupted by the death of its process, and since Slack may already show
that post, it is not posted again (at most once: a reply is never doubled; the diagnosis is stored either way and
``GET /v1/jobs/{id}`` says ``"delivered": "unconfirmed"``). A post the receiver refused (a connection that never
opened, a 429, a 5xx) is unmarked and tried again with the job's backoff.
"""

from __future__ import annotations

import logging
import secrets
import urllib.error
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from service.errors import ConfigError, CrashdocError
from service.jobs.records import DeliveryFailed, Job, Jobs, diagnosis_id_of, masked_of, permanent, unpack
from service.slack import blocks, handlers, respond
from service.slack.blocks import SlackMessage
from service.slack.webapi import SlackApi

if TYPE_CHECKING:
    from service.pipeline import Engine

log = logging.getLogger("crashdoc.slack")

SENT, REFUSED, UNSURE = "sent", "refused", "unsure"  # what one try at a side effect did
DONE, UNCONFIRMED = "done", "unconfirmed"  # what an earlier attempt left


def once(jobs: Jobs, job: Job, step: str, do: Callable[[], str]) -> str:
    """Do ``step`` unless an earlier attempt did it or was interrupted doing it. ``do`` says what it did: SENT,
    REFUSED (known not to have taken effect: a later attempt may do it) or UNSURE (it may have: never again).
    crashdoc's own errors from ``do`` are verdicts (nothing happened); any other exception leaves the step under
    way (nobody knows what it did), so it is not done again."""
    before = jobs.begin_step(job.id, step)
    if before == DONE:
        return DONE
    if before is not None:
        log.warning("job %s: step %s was under way when an earlier attempt's process died; not done again", job.id, step)
        return UNCONFIRMED
    try:
        outcome = do()
    except CrashdocError:  # a verdict (Slack refused the call, the input is wrong): it did not take effect
        jobs.end_step(job.id, step, done=False)
        raise
    if outcome == SENT:
        jobs.end_step(job.id, step)
    elif outcome == REFUSED:
        jobs.end_step(job.id, step, done=False)
    else:
        jobs.keep(job.id, step, UNSURE)
    return outcome


def kept(jobs: Jobs, job: Job, step: str, make: Callable[[], SlackMessage]) -> SlackMessage:
    """The value an earlier attempt made under ``step``, else ``make()``'s, kept for later attempts (the answer to a
    question is made, and stored with the conversation, once)."""
    found = (job.steps or {}).get(step)
    if isinstance(found, dict):
        return found
    value = make()
    jobs.keep(job.id, step, value)
    return value


def _api(engine: Engine) -> SlackApi:
    api = SlackApi.from_settings(engine.settings)
    if api is None:
        raise ConfigError("crashdoc has no Slack bot token on this worker.",
                          hint="Set CRASHDOC_SLACK_BOT_TOKEN for the workers as for the web replicas.")
    return api


def _api_call(api: SlackApi, method: str, **args: Any) -> str:
    """One Web API call as a side effect: SENT; REFUSED when Slack asked to wait (429), failed (5xx) or could not be
    reached; ``SlackApiFailed`` (a missing scope, a revoked token) when another try would not change it."""
    try:
        api.call(method, **args)
    except ConfigError as exc:
        status = int(getattr(getattr(exc.__cause__, "response", None), "status_code", 0) or 0)
        if status == 429 or status >= 500:
            return REFUSED
        raise
    except urllib.error.URLError as exc:  # slack_sdk's transport: the connection never opened
        log.warning("slack %s unreachable: %s", method, type(exc.reason).__name__)
        return REFUSED
    return SENT


def _post_to(engine: Engine, to: dict[str, str], message: SlackMessage) -> Callable[[], str]:
    """The post of ``message`` to where the reply goes: the interaction's ``response_url``, or privately to a user in
    a channel (chat.postEphemeral, for the modals, which have no response_url)."""

    def to_url() -> str:
        url = to["response_url"]
        status, maybe = respond.send(url, message)
        if status == 400 and "blocks" in message:  # Slack refused the blocks: the plain text still says the outcome
            status, maybe = respond.send(url, respond.plain(message))
        if status is None:
            return UNSURE if maybe else REFUSED
        if status == 429 or status >= 500:
            return REFUSED
        return SENT  # 2xx, or a 4xx that another try would not change

    def privately() -> str:
        return _api_call(_api(engine), "chat.postEphemeral", channel=to["channel"], user=to["user"],
                         text=message.get("text", ""), blocks=message.get("blocks"))

    return to_url if "response_url" in to else privately


def _deliver(engine: Engine, jobs: Jobs, job: Job, to: dict[str, str], message: SlackMessage, step: str = "post") -> str:
    outcome = once(jobs, job, step, _post_to(engine, to, message))
    if outcome == REFUSED:
        raise DeliveryFailed("the reply was not taken")
    return outcome


def _share(engine: Engine, jobs: Jobs, job: Job, p: dict[str, Any]) -> SlackMessage:
    """The channel's copy, from the stored (masked) diagnosis: the card, then its details in the card's thread
    (each posted once), and the acknowledgement for the user. Without a bot token: the card itself, through the
    button's response_url."""
    d = engine.store.get(p["diagnosis_id"])
    public_url = p.get("public_url")
    if not p.get("channel"):
        return blocks.diagnosis_message(d, public_url, shared=True)
    api = _api(engine)
    card = blocks.diagnosis_message(d, public_url, shared=True)

    def post_card() -> str:
        try:
            posted = api.call("chat.postMessage", channel=p["channel"], text=card["text"], blocks=card["blocks"],
                              unfurl_links=False)
        except urllib.error.URLError:
            return REFUSED
        jobs.keep(job.id, "card_ts", {"ts": posted.get("ts")})
        return SENT

    if once(jobs, job, "card", post_card) == REFUSED:
        raise DeliveryFailed("the card was not taken")
    now = jobs.get(job.id) or job
    ts = ((now.steps or {}).get("card_ts") or {}).get("ts")
    if ts:  # the details go in the card's thread (a card whose post is unconfirmed has no known thread)
        details = blocks.details_message(d, public_url)
        thread = once(jobs, job, "thread", lambda: _api_call(api, "chat.postMessage", channel=p["channel"], thread_ts=ts,
                                                             text=details["text"], blocks=details["blocks"],
                                                             unfurl_links=False))
        if thread == REFUSED:
            raise DeliveryFailed("the card's details were not taken")
    return blocks.ack_message(f":white_check_mark: Shared `{p['diagnosis_id']}` to the channel "
                              "(the masked diagnosis only; details in its thread).")


def _feedback(engine: Engine, jobs: Jobs, job: Job, p: dict[str, Any]) -> SlackMessage:
    """A verdict from the buttons or the wrong-cause modal, written once (the note was masked when accepted)."""
    thanks: list[SlackMessage] = []

    def write() -> str:
        thanks.append(handlers.feedback(engine, p["diagnosis_id"], p["verdict"], p.get("label"), p.get("note"),
                                        p.get("public_url")))
        return SENT

    once(jobs, job, "recorded", write)
    verdict = "wrong" if p["verdict"] == "wrong" else "right"
    return thanks[0] if thanks else blocks.feedback_thanks(p["diagnosis_id"], verdict, p.get("public_url"))


def _make(engine: Engine, jobs: Jobs, job: Job, p: dict[str, Any]) -> SlackMessage:
    op, public_url = p["op"], p.get("public_url")
    if op == "diagnose":
        return handlers.diagnose_masked_paste(engine, masked_of(p["masked"]), diagnosis_id_of(job.id), public_url)
    if op == "shortcut":
        api = _api(engine) if p.get("files") else None
        return handlers.diagnose_shortcut(engine, api, p.get("files") or [], masked_of(p["masked"]) if p.get("masked") else None,
                                          diagnosis_id_of(job.id), public_url)
    if op == "ask":
        return handlers.answer_question(engine, p["diagnosis_id"], p["question"], public_url)
    if op == "share":
        return _share(engine, jobs, job, p)
    if op == "feedback":
        return _feedback(engine, jobs, job, p)
    message: SlackMessage = p["message"]
    return message


def run(engine: Engine, jobs: Jobs, job: Job, final: bool) -> dict[str, Any]:
    """One attempt at a Slack reply: make the message (once), post it (once)."""
    p = unpack(job.payload)
    to = p["to"] if "to" in p else {"response_url": p["response_url"]}  # a job accepted before interactions were jobs
    if job.delivered_at is not None:
        return {"delivered": True}
    result: dict[str, Any] = {}
    if p["op"] in ("diagnose", "shortcut"):
        result["diagnosis_id"] = diagnosis_id_of(job.id)
    try:
        message = kept(jobs, job, "message", lambda: _make(engine, jobs, job, p))
    except Exception as exc:
        if permanent(exc) or final:  # the user hears why, once; the job is then failed
            ref = secrets.token_hex(4)
            log.info("job %s: slack %s failed (ref %s): %s", job.id, p["op"], ref, getattr(exc, "code", type(exc).__name__))
            _deliver(engine, jobs, job, to, blocks.error_message(exc, ref), step="post_error")
        raise
    outcome = _deliver(engine, jobs, job, to, message)
    if outcome in (SENT, DONE):
        jobs.mark_delivered(job.id)
    return {**result, "delivered": True if outcome in (SENT, DONE) else UNCONFIRMED}
