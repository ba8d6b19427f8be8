"""Posting to Slack's ``response_url`` (for the jobs of service/slack/replies.py), and which addresses may be posted to.

A ``response_url`` comes inside the (signed) request, but crashdoc still posts only to Slack:
``https://hooks.slack.com/...``. Loopback http is allowed only when
``CRASHDOC_SLACK_ALLOW_INSECURE_RESPONSE_URL`` says so (tests); anything else would let a request make
the service post to an arbitrary address (SSRF).
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

import httpx

from service.errors import BadRequest
from service.slack.blocks import SlackMessage, clip

log = logging.getLogger("crashdoc.slack")

SLACK_HOOKS_HOST = "hooks.slack.com"
_LOOPBACK = {"127.0.0.1", "::1", "localhost"}
POST_TIMEOUT_S = 10.0


def _allowed(url: str, allow_insecure: bool) -> bool:
    try:
        parts = urlsplit(url)
        host, port = (parts.hostname or "").lower(), parts.port
    except ValueError:  # a malformed port or host
        return False
    if "@" in parts.netloc:  # https://hooks.slack.com@elsewhere/ is elsewhere
        return False
    if parts.scheme == "https" and host == SLACK_HOOKS_HOST and port in (None, 443):
        return True
    return allow_insecure and parts.scheme in ("http", "https") and host in _LOOPBACK


def check_response_url(url: str, *, allow_insecure: bool) -> str:
    """Return ``url`` when crashdoc may post to it; raise ``BadRequest`` otherwise."""
    if not _allowed(url, allow_insecure):
        raise BadRequest(
            "The response_url is not a Slack address (https://hooks.slack.com/...).",
            hint="Only Slack may call /slack/*; its requests carry a hooks.slack.com response_url.",
        )
    return url


def send(url: str, message: SlackMessage) -> tuple[int | None, bool]:
    """POST ``message`` to ``url``: (the HTTP status, True), or (None, whether Slack may have it all the same) when
    nothing answered: no connection means nothing was sent; a connection lost or timed out after the request went
    out may have delivered it. Never raises."""
    try:
        response = httpx.post(url, json=message, timeout=POST_TIMEOUT_S)
    except (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol) as exc:
        log.warning("slack response_url unreachable: %s", exc.__class__.__name__)
        return None, False
    except httpx.HTTPError as exc:
        log.warning("slack response_url did not answer: %s", exc.__class__.__name__)
        return None, True
    if response.status_code >= 300:
        log.warning("slack response_url answered %d", response.status_code)
    return response.status_code, True


def post(url: str, message: SlackMessage) -> int | None:
    """POST ``message`` to ``url``; the HTTP status, or None when nothing answered. Never raises."""
    return send(url, message)[0]


def plain(message: SlackMessage) -> SlackMessage:
    """The message without its blocks: what Slack still shows when it refuses the blocks (invalid_blocks)."""
    return {"response_type": message.get("response_type", "ephemeral"), "replace_original": False,
            "text": clip(str(message.get("text", "")), 3_000)}
