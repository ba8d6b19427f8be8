"""``POST /slack/commands`` and ``POST /slack/interactions``: signed by Slack, answered within its 3 seconds.

Fast answers (help, usage, kb search, a log too long) come back in the HTTP response. Slow ones
(a diagnosis, a follow-up) are acknowledged at once and posted to the ``response_url`` by a background task.
"""

from __future__ import annotations

import json
import logging
from functools import partial
from typing import Any
from urllib.parse import parse_qs

from anyio import to_thread
from fastapi import APIRouter, BackgroundTasks, Request, Response
from fastapi.responses import JSONResponse

from service.api import deps
from service.api.deps import Spent, refunding
from service.errors import BadRequest, ConfigError, TooLarge
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
from service.slack.respond import check_response_url, deliver
from service.slack.verify import verify_request
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


async def _spend(request: Request, team_id: str, kind: str) -> Spent | dict[str, Any] | None:
    """Count one ``kind`` for the Slack workspace: what to refund if the work fails (None: nothing was
    counted, there is no limit), or the message to send instead when its day's allowance is spent."""
    settings = deps.settings(request)
    limit = (settings.slack_team_daily if kind == "diagnosis" else settings.slack_team_questions_daily) or None
    if limit is None:
        return None
    spent = await deps.consume(request, f"slack:{team_id or 'unknown'}", kind, limit)
    if spent is not None:
        return spent
    log.info("slack workspace over its daily %s allowance", kind)
    return blocks.quota_message(limit, USAGE_NOUNS[kind], until_reset(utc_now())[1])


def _response_url(settings: Settings, value: object) -> str:
    return check_response_url(str(value or ""), allow_insecure=settings.slack_allow_insecure_response_url)


@router.post("/commands", summary="Slack slash command /crashdoc")
async def slash_command(request: Request, background: BackgroundTasks) -> Response:
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
            if isinstance(spent := await _spend(request, form.get("team_id", ""), "diagnosis"), dict):
                return JSONResponse(spent)
            job = refunding(spent, partial(handlers.diagnose_pasted, engine, text, settings.public_url))
            background.add_task(deliver, url, job, what="diagnose")
            lines = len(text.strip().splitlines())
            message = blocks.ack_message(
                f":hourglass_flowing_sand: Diagnosing your log ({lines} line{'s' if lines != 1 else ''})… "
                "It is masked before anything reads it; the diagnosis will appear here in a few seconds."
            )
        case Ask(diagnosis_id=diagnosis_id, question=question):
            url = _response_url(settings, form.get("response_url"))
            if isinstance(spent := await _spend(request, form.get("team_id", ""), "question"), dict):
                return JSONResponse(spent)
            job = refunding(spent, partial(handlers.answer_question, engine, diagnosis_id, question, settings.public_url))
            background.add_task(deliver, url, job, what="ask")
            message = blocks.ack_message(f":hourglass_flowing_sand: Looking into your question on `{diagnosis_id}`…")
    return JSONResponse(message)


@router.post("/interactions", summary="Slack interactivity (the follow-up button and question box)")
async def interaction(request: Request, background: BackgroundTasks) -> Response:
    form = await _signed_form(request)
    try:
        payload = json.loads(form.get("payload", ""))
    except ValueError as exc:
        raise BadRequest("The interaction has no JSON payload.", hint="Slack sends it in the `payload` form field.") from exc
    if not isinstance(payload, dict) or payload.get("type") != "block_actions":
        return Response(status_code=200)  # shortcuts, views: nothing crashdoc offers
    settings, engine = deps.settings(request), deps.engine(request)
    for action in payload.get("actions") or []:
        if not isinstance(action, dict):
            continue
        action_id = action.get("action_id")
        if action_id == blocks.ACTION_FOLLOWUP:
            diagnosis_id = str(action.get("value") or "")
            if not DIAGNOSIS_ID.match(diagnosis_id):
                raise BadRequest("The follow-up button names no diagnosis.")
            url = _response_url(settings, payload.get("response_url"))
            prompt = partial(blocks.followup_prompt, diagnosis_id, DEFAULT_COMMAND, settings.max_question_chars)
            background.add_task(deliver, url, prompt, what="follow-up prompt")
            log.info("slack interaction follow-up prompt")
        elif action_id == blocks.ACTION_ASK:
            diagnosis_id = str(action.get("block_id") or "").removeprefix(blocks.ASK_BLOCK_PREFIX)
            if not DIAGNOSIS_ID.match(diagnosis_id):
                raise BadRequest("The question box names no diagnosis.")
            url = _response_url(settings, payload.get("response_url"))
            question = str(action.get("value") or "")
            team = payload.get("team")
            team_id = str(team.get("id") or "") if isinstance(team, dict) else ""
            if isinstance(spent := await _spend(request, team_id, "question"), dict):
                background.add_task(deliver, url, partial(dict, spent), what="allowance")
                continue
            job = refunding(spent, partial(handlers.answer_question, engine, diagnosis_id, question, settings.public_url))
            background.add_task(deliver, url, job, what="ask")
            log.info("slack interaction ask")
        # ACTION_OPEN (a link button) and anything else: Slack reports the click; nothing to do.
    return Response(status_code=200)
