"""Slack request signing: every request to ``/slack/*`` carries Slack's HMAC of its body; refuse the rest.

slack_sdk's ``SignatureVerifier`` checks the HMAC; the checks before it exist to tell the caller which of
the three things is wrong (no signature, a stale or replayed timestamp, a signature that does not match).
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from slack_sdk.signature import Clock, SignatureVerifier

from service.errors import AuthError

MAX_AGE_S = 5 * 60  # Slack's own rule: older requests may be replays

_WHERE = "Only Slack may call /slack/*: the request must carry X-Slack-Signature and X-Slack-Request-Timestamp."


class _FixedClock(Clock):
    def __init__(self, now: float) -> None:
        self._now = now

    def now(self) -> float:
        return self._now


def verify_request(secret: str, body: bytes, headers: Mapping[str, str], *, now: float | None = None) -> None:
    """Raise ``AuthError`` unless ``body`` was signed with ``secret`` by Slack within the last 5 minutes."""
    lower = {k.lower(): v for k, v in headers.items()}
    timestamp = lower.get("x-slack-request-timestamp", "").strip()
    signature = lower.get("x-slack-signature", "").strip()
    if not timestamp or not signature:
        raise AuthError("The request is not signed by Slack.", hint=_WHERE)
    if not timestamp.isdigit():
        raise AuthError("The Slack request timestamp is not a number.", hint=_WHERE)
    clock_now = time.time() if now is None else now
    if abs(clock_now - int(timestamp)) > MAX_AGE_S:
        raise AuthError(
            "The Slack request timestamp is more than 5 minutes away from this server's clock; replays are refused.",
            hint="If Slack sent it just now, check the server clock (NTP).",
        )
    try:
        valid = SignatureVerifier(secret, clock=_FixedClock(clock_now)).is_valid(body, timestamp, signature)
    except UnicodeDecodeError:  # Slack sends form-encoded ASCII; anything else was not signed by it
        valid = False
    if not valid:
        raise AuthError(
            "The Slack signature does not match the request.",
            hint="Check that CRASHDOC_SLACK_SIGNING_SECRET is the app's Signing Secret (Basic Information page).",
        )

