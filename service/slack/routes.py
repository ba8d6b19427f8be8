"""``POST /slack/commands`` and ``POST /slack/interactions``: signed by Slack, answered within its 3 seconds.

Fast answers (help, usage, kb search, a log too long) come back in the HTTP response. Everything else is
acknowledged at once and posted by a job (service/jobs, service/slack/replies.py): a slash command's diagnosis or
follow-up, and every interaction (the message shortcut, the follow-up box and modal, share, the feedback buttons
and modal, the prompts). A job is accepted once per Slack ``trigger_id`` (a request Slack retries, or a load
balancer sends again to another replica, finds its job), counted against the team's allowance in the same
transaction, keeps only masked text, survives the replica that took it, is retried, and is posted once.
"""

from __future__ import annotations

import hashlib
import json
import logging
from functools import partial
from typing import Any
from urllib.parse import parse_qs

from anyio import to_thread
from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from service.api import deps
from service.errors import BadRequest, ConfigError, TooLarge
from service.jobs import Jobs, OverAllowance, Spend
from service.jobs.records import masked_payload
from service.models import Source
from service.pipeline import read_and_mask
from service.settings import Settings
from service.slack import blocks, handlers
from service.slack.commands import (
    DIAGNOSIS_ID,
    Ask,
    Diagnose,
    Help,
    SearchKb,
    TooLong,
    Usage,
    parse,
    unescape,
)
from service.slack.respond import check_response_url
from service.slack.verify import verify_request
from service.slack.webapi import SlackApi
from service.store.accounts import USAGE_NOUNS, until_reset, utc_now

log = logging.getLogger("crashdoc.slack")

router = APIRouter(prefix="/slack", tags=["slack"])

# A command is under 4,000 characters; an interaction carries the message it came from (up to 50 blocks).
MAX_BODY_BYTES = 1024 * 1024
DEFAULT_COMMAND = "/crashdoc"


class SlackNotConfigured(ConfigError):
    """No signing secret: nothing can be verified, so Slack is off (the rest of the service is fine)."""

    code = "slack_not_configured"
    status = 503


async def _read_body(request: Request) -> bytes:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise TooLarge("The Slack request is too large.", hint="Slack requests are small; this one is not from Slack.")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise TooLarge("The Slack request is too large.", hint="Slack requests are small; this one is not from Slack.")
        chunks.append(chunk)
    return b"".join(chunks)


async def _signed_form(request: Request) -> dict[str, str]:
    """The form fields of a request Slack signed; refused before anything else is read or done."""
    secret = deps.settings(request).slack_signing_secret
    if secret is None or not secret.get_secret_value().strip():
        raise SlackNotConfigured(
            "Slack is not set up on this server.",
            hint="Set CRASHDOC_SLACK_SIGNING_SECRET to the Slack app's Signing Secret (README, section Slack).",
        )
    body = await _read_body(request)
    verify_request(secret.get_secret_value(), body, request.headers)
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True)
    except UnicodeDecodeError as exc:
        raise BadRequest("The Slack request is not form-encoded text.") from exc
    return {k: v[0] for k, v in fields.items()}


async def _reply(request: Request, team_id: str, op: dict[str, Any], key: str | None, kind: str | None) -> dict[str, Any] | None:
    """Accept a Slack reply as a job (``op`` is its payload: masked text only), counted as one ``kind`` for the Slack
    workspace when that has a limit. None when accepted (or already accepted under ``key``); the message to send
    instead when the team's allowance for the day is spent."""
    settings, engine = deps.settings(request), deps.engine(request)
    op = {**op, "public_url": settings.public_url}  # links point where this service says it is
    limit = None
    if kind is not None:
        limit = (settings.slack_team_daily if kind == "diagnosis" else settings.slack_team_questions_daily) or None
    scope = f"slack:{team_id or 'unknown'}"
    spend = Spend(scope, kind, limit, utc_now().date()) if kind is not None and limit is not None else None
    jobs = Jobs(engine.store)
    try:
        job, created = await to_thread.run_sync(lambda: jobs.submit("slack", op, scope=scope, key=key, spend=spend))
    except OverAllowance:
        assert kind is not None and limit is not None
        log.info("slack workspace over its daily %s allowance", kind)
        return blocks.quota_message(limit, USAGE_NOUNS[kind], until_reset(utc_now())[1])
    if created:
        await to_thread.run_sync(deps.queue(request.app).notify, job.id)
    log.info("slack job %s (%s) %s", job.id, op["op"], "accepted" if created else "found (a retry)")
    return None


async def _reply_later(request: Request, team_id: str, op: dict[str, Any], key: str | None, kind: str | None = None) -> None:
    """``_reply`` for an interaction, which answers Slack with an empty 200: when the team's allowance is spent,
    that message is itself a job, posted where the reply would have gone."""
    if (over := await _reply(request, team_id, op, key, kind)) is not None:
        told = {"op": "message", "to": op["to"], "message": over}
        await _reply(request, team_id, told, f"{key}:over" if key else None, None)


def _key(value: object, suffix: str = "") -> str | None:
    """The idempotency key of a Slack request: its ``trigger_id`` (one per invocation), when it has one, with a hash
    of what was asked (``suffix``): a retried request finds its job, a different request never does."""
    text = str(value or "").strip()
    return f"{text[:150]}:{hashlib.sha256(suffix.encode('utf-8')).hexdigest()[:24]}" if text else None


def _response_url(settings: Settings, value: object) -> str:
    return check_response_url(str(value or ""), allow_insecure=settings.slack_allow_insecure_response_url)


@router.post("/commands", summary="Slack slash command /crashdoc")
async def slash_command(request: Request) -> Response:
    form = await _signed_form(request)
    if form.get("ssl_check") == "1":  # Slack checking the certificate; nothing to do
        return Response(status_code=200)
    settings, engine = deps.settings(request), deps.engine(request)
    command = form.get("command") or DEFAULT_COMMAND
    parsed = parse(unescape(form.get("text", "")))
    log.info("slack command %s", type(parsed).__name__.lower())
    message: dict[str, Any]
    match parsed:
        case Help():
            message = blocks.help_message(command)
        case Usage():
            message = blocks.usage_message(parsed, command)
        case TooLong(chars=chars):
            message = blocks.too_long_message(chars, settings.public_url, command)
        case SearchKb(words=words):
            entries = await to_thread.run_sync(handlers.search_kb, engine, words)
            message = blocks.kb_message(words, entries, command, settings.public_url)
        case Diagnose(log=text):
            url = _response_url(settings, form.get("response_url"))
            source = Source(name=handlers.PASTED_LOG_NAME, data=text.encode("utf-8"))
            masked = await to_thread.run_sync(read_and_mask, engine, [source])  # only masked text is kept
            op = {"op": "diagnose", "to": {"response_url": url}, "masked": masked_payload(masked)}
            key = _key(form.get("trigger_id"), form.get("text", ""))
            if (over := await _reply(request, form.get("team_id", ""), op, key, "diagnosis")):
                return JSONResponse(over)
            lines = len(text.strip().splitlines())
            message = blocks.ack_message(
                f":hourglass_flowing_sand: Diagnosing your log ({lines} line{'s' if lines != 1 else ''})… "
                "It is masked before anything reads it; the diagnosis will appear here in a few seconds."
            )
        case Ask(diagnosis_id=diagnosis_id, question=question):
            url = _response_url(settings, form.get("response_url"))
            op = {"op": "ask", "to": {"response_url": url}, "diagnosis_id": diagnosis_id,
                  "question": await to_thread.run_sync(handlers.mask_question, engine, question)}
            key = _key(form.get("trigger_id"), form.get("text", ""))
            if (over := await _reply(request, form.get("team_id", ""), op, key, "question")):
                return JSONResponse(over)
            message = blocks.ack_message(f":hourglass_flowing_sand: Looking into your question on `{diagnosis_id}`…")
    return JSONResponse(message)


def _id_of(value: object) -> str:
    return str(value.get("id") or "") if isinstance(value, dict) else ""


def _trigger(payload: dict[str, Any], *what: object) -> str | None:
    """The interaction's idempotency key: its trigger_id, with its response_url (also one per invocation) and what it
    asks for. A request Slack sends again carries all three unchanged."""
    return _key(payload.get("trigger_id"), json.dumps([str(payload.get("response_url") or ""), *(str(w) for w in what)]))


async def _message_shortcut(request: Request, payload: dict[str, Any]) -> Response:
    """ "Diagnose with crashdoc" on a message: its files and snippets (or its text) are the run; the result is private.
    The files are read by the job (only their ids are kept); a text is masked now."""
    settings, engine = deps.settings(request), deps.engine(request)
    url = _response_url(settings, payload.get("response_url"))
    found = payload.get("message")
    message: dict[str, Any] = found if isinstance(found, dict) else {}
    files = [str(f.get("id")) for f in (message.get("files") or []) if isinstance(f, dict) and f.get("id")]
    text = str(message.get("text") or "")
    op: dict[str, Any] = {"op": "shortcut", "to": {"response_url": url}, "files": files}
    if not files and text.strip():
        source = Source(name=handlers.MESSAGE_LOG_NAME, data=text.encode("utf-8"))
        op["masked"] = masked_payload(await to_thread.run_sync(read_and_mask, engine, [source]))
    await _reply_later(request, _id_of(payload.get("team")), op, _trigger(payload, "shortcut", message.get("ts"), files), "diagnosis")
    log.info("slack shortcut diagnose (%d file(s))", len(files))
    return Response(status_code=200)


def _privately(settings: Settings, payload: dict[str, Any], channel: str) -> dict[str, str]:
    """Where a modal's answer goes: to its author, privately, in the channel of the card (a modal has no response_url)."""
    if SlackApi.from_settings(settings) is None or not channel:
        raise BadRequest("The modal names no channel to answer in.")
    return {"channel": channel, "user": _id_of(payload.get("user"))}


async def _modal_submitted(request: Request, payload: dict[str, Any]) -> Response:
    """The follow-up modal's question: answered privately to its author in the channel the card was in."""
    settings, engine = deps.settings(request), deps.engine(request)
    found = payload.get("view")
    view: dict[str, Any] = found if isinstance(found, dict) else {}
    try:
        meta = json.loads(view.get("private_metadata") or "{}")
        question = str(view["state"]["values"][blocks.MODAL_QUESTION_BLOCK][blocks.ACTION_ASK]["value"] or "")
    except (ValueError, KeyError, TypeError) as exc:
        raise BadRequest("The follow-up modal came back without its question.") from exc
    diagnosis_id, channel = str(meta.get("diagnosis") or ""), str(meta.get("channel") or "")
    if not DIAGNOSIS_ID.match(diagnosis_id) or SlackApi.from_settings(settings) is None:
        raise BadRequest("The follow-up modal names no diagnosis.")
    op = {"op": "ask", "to": _privately(settings, payload, channel), "diagnosis_id": diagnosis_id,
          "question": await to_thread.run_sync(handlers.mask_question, engine, question)}
    await _reply_later(request, _id_of(payload.get("team")), op, _trigger(payload, "modal-ask", diagnosis_id, question), "question")
    log.info("slack modal ask")
    return Response(status_code=200)  # an empty 200 closes the modal


async def _wrong_submitted(request: Request, payload: dict[str, Any]) -> Response:
    """The wrong-cause modal: the entry it was and the user's words, stored; thanks privately in the channel."""
    settings, engine = deps.settings(request), deps.engine(request)
    found = payload.get("view")
    view: dict[str, Any] = found if isinstance(found, dict) else {}
    try:
        meta = json.loads(view.get("private_metadata") or "{}")
        values = view["state"]["values"]
        label = str(values[blocks.WRONG_LABEL_BLOCK][blocks.WRONG_LABEL_BLOCK].get("value") or "")
        note = str(values[blocks.WRONG_NOTE_BLOCK][blocks.WRONG_NOTE_BLOCK].get("value") or "")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BadRequest("The wrong-cause modal came back without its fields.") from exc
    diagnosis_id, channel = str(meta.get("diagnosis") or ""), str(meta.get("channel") or "")
    if not DIAGNOSIS_ID.match(diagnosis_id) or SlackApi.from_settings(settings) is None:
        raise BadRequest("The wrong-cause modal names no diagnosis.")
    if label.strip() and engine.kb.get(label.strip().lower()) is None:  # said in the modal, where it can be fixed
        return JSONResponse({"response_action": "errors", "errors": {
            blocks.WRONG_LABEL_BLOCK: "Not an encyclopedia entry id: leave it empty and say what it was below."}})
    note = await to_thread.run_sync(handlers.mask_question, engine, note) if note.strip() else ""  # the job keeps it masked
    op = {"op": "feedback", "to": _privately(settings, payload, channel), "diagnosis_id": diagnosis_id,
          "verdict": "wrong", "label": label, "note": note}
    await _reply_later(request, _id_of(payload.get("team")), op, _trigger(payload, "modal-wrong", diagnosis_id, label, note))
    return Response(status_code=200)


@router.post("/interactions", summary="Slack interactivity (buttons, the follow-up modal, the message shortcut)")
async def interaction(request: Request) -> Response:
    form = await _signed_form(request)
    try:
        payload = json.loads(form.get("payload", ""))
    except ValueError as exc:
        raise BadRequest("The interaction has no JSON payload.", hint="Slack sends it in the `payload` form field.") from exc
    if not isinstance(payload, dict):
        return Response(status_code=200)
    if payload.get("type") == "message_action" and payload.get("callback_id") == blocks.SHORTCUT_DIAGNOSE:
        return await _message_shortcut(request, payload)
    view = payload.get("view")
    if payload.get("type") == "view_submission" and isinstance(view, dict) and view.get("callback_id") == blocks.MODAL_ASK:
        return await _modal_submitted(request, payload)
    if payload.get("type") == "view_submission" and isinstance(view, dict) and view.get("callback_id") == blocks.MODAL_WRONG:
        return await _wrong_submitted(request, payload)
    if payload.get("type") != "block_actions":
        return Response(status_code=200)  # other shortcuts, views: nothing crashdoc offers
    settings, engine = deps.settings(request), deps.engine(request)
    api = SlackApi.from_settings(settings)
    team = _id_of(payload.get("team"))
    channel = _id_of(payload.get("channel")) or _id_of((payload.get("container") or {}) if isinstance(payload.get("container"), dict) else None)
    for action in payload.get("actions") or []:
        if not isinstance(action, dict):
            continue
        action_id = action.get("action_id")
        if action_id == blocks.ACTION_SHARE:
            diagnosis_id = str(action.get("value") or "")
            if not DIAGNOSIS_ID.match(diagnosis_id):
                raise BadRequest("The share button names no diagnosis.")
            url = _response_url(settings, payload.get("response_url"))
            # With a bot token: the card and its details posted to the channel. Without: the stored, masked card
            # through the button's response_url.
            op = {"op": "share", "to": {"response_url": url}, "diagnosis_id": diagnosis_id,
                  "channel": channel if api is not None else ""}
            await _reply_later(request, team, op, _trigger(payload, action_id, diagnosis_id))
            log.info("slack interaction share")
        elif action_id in (blocks.ACTION_RIGHT, blocks.ACTION_WRONG):
            diagnosis_id = str(action.get("value") or "")
            if not DIAGNOSIS_ID.match(diagnosis_id):
                raise BadRequest("The feedback button names no diagnosis.")
            trigger = str(payload.get("trigger_id") or "")
            if action_id == blocks.ACTION_WRONG and api is not None and trigger and channel:
                wrong = blocks.wrong_cause_modal(diagnosis_id, channel)
                await to_thread.run_sync(partial(api.call, "views.open", trigger_id=trigger, view=wrong))
                continue
            url = _response_url(settings, payload.get("response_url"))
            verdict = "right" if action_id == blocks.ACTION_RIGHT else "wrong"
            op = {"op": "feedback", "to": {"response_url": url}, "diagnosis_id": diagnosis_id, "verdict": verdict}
            await _reply_later(request, team, op, _trigger(payload, action_id, diagnosis_id))
            log.info("slack interaction feedback %s", verdict)
        elif action_id == blocks.ACTION_FOLLOWUP:
            diagnosis_id = str(action.get("value") or "")
            if not DIAGNOSIS_ID.match(diagnosis_id):
                raise BadRequest("The follow-up button names no diagnosis.")
            trigger = str(payload.get("trigger_id") or "")
            if api is not None and trigger and channel:  # the modal, opened now: a trigger_id lives 3 seconds
                view_ = blocks.followup_modal(diagnosis_id, channel, settings.max_question_chars)
                await to_thread.run_sync(partial(api.call, "views.open", trigger_id=trigger, view=view_))
                log.info("slack interaction follow-up modal")
                continue
            url = _response_url(settings, payload.get("response_url"))
            prompt = blocks.followup_prompt(diagnosis_id, DEFAULT_COMMAND, settings.max_question_chars)
            op = {"op": "message", "to": {"response_url": url}, "message": prompt}
            await _reply_later(request, team, op, _trigger(payload, action_id, diagnosis_id))
            log.info("slack interaction follow-up prompt")
        elif action_id == blocks.ACTION_ASK:
            diagnosis_id = str(action.get("block_id") or "").removeprefix(blocks.ASK_BLOCK_PREFIX)
            if not DIAGNOSIS_ID.match(diagnosis_id):
                raise BadRequest("The question box names no diagnosis.")
            url = _response_url(settings, payload.get("response_url"))
            question = str(action.get("value") or "")
            op = {"op": "ask", "to": {"response_url": url}, "diagnosis_id": diagnosis_id,
                  "question": await to_thread.run_sync(handlers.mask_question, engine, question)}
            await _reply_later(request, team, op, _trigger(payload, action_id, diagnosis_id, question), "question")
            log.info("slack interaction ask")
        # ACTION_OPEN (a link button) and anything else: Slack reports the click; nothing to do.
    return Response(status_code=200)
