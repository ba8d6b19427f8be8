"""Who is calling, and what it may spend.

    caller(request) -> Caller            FastAPI dependency: the workspace of ``Authorization: Bearer <key>``,
                                         or anonymous (when ``allow_anonymous``); 401 otherwise
    spending(request, caller, kind)      counts one diagnosis or question against the caller's daily
                                         allowance before the work (429 with Retry-After when spent) and
                                         gives it back if the request then fails

A wrong or revoked key is refused even where anonymous use is allowed: a bot with a broken key should
hear about it, not silently drop to the anonymous allowance. The key itself is never logged.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated

from anyio import to_thread
from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from service.errors import AuthError, QuotaExceeded, StoreError
from service.settings import Settings
from service.store.accounts import (
    USAGE_NOUNS,
    Accounts,
    Allowance,
    Workspace,
    allowance,
    until_reset,
    utc_now,
)

log = logging.getLogger("crashdoc.api")

_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="apiKey",
    description="A workspace's API key (`crashdoc admin key create WORKSPACE`). Optional where the service "
    "allows anonymous use.",
)
_KEY_HINT = "An administrator makes keys with `crashdoc admin key create WORKSPACE`."


@dataclass(frozen=True)
class Caller:
    workspace: Workspace | None  # None: anonymous
    subject: str  # whose counters: the workspace id, or "anon:<client address>"

    @property
    def workspace_id(self) -> str | None:
        return self.workspace.id if self.workspace else None


def accounts(request: Request) -> Accounts:
    return Accounts(request.app.state.engine.store)


def _settings(request: Request) -> Settings:
    return request.app.state.settings  # type: ignore[no-any-return]


def caller(request: Request, _doc: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> Caller:
    """The dependency: a workspace from the bearer key, or anonymous; raises AuthError (401)."""
    header = request.headers.get("authorization")
    if header is not None:
        scheme, _, key = header.strip().partition(" ")
        key = key.strip()
        if scheme.lower() != "bearer" or not key:
            raise AuthError("The Authorization header must be 'Bearer <API key>'.", hint=_KEY_HINT)
        ws = accounts(request).authenticate(key)
        if ws is None:
            raise AuthError("This API key is not valid: it is wrong or was revoked.", hint=_KEY_HINT)
        return Caller(ws, ws.id)
    if not _settings(request).allow_anonymous:
        raise AuthError("This service needs an API key.", hint="Send 'Authorization: Bearer <key>'. " + _KEY_HINT)
    return Caller(None, f"anon:{request.client.host if request.client else 'unknown'}")


CallerDep = Annotated[Caller, Depends(caller)]


def require_workspace(who: Caller, what: str) -> Workspace:
    if who.workspace is None:
        raise AuthError(f"{what} needs an API key.", hint="Send 'Authorization: Bearer <key>'. " + _KEY_HINT)
    return who.workspace


def quota_exceeded(who: Caller, allowed: Allowance, kind: str, limit: int) -> QuotaExceeded:
    """The 429: what was spent, when it comes back, and how to get more."""
    retry, wait = until_reset(utc_now())
    noun = USAGE_NOUNS[kind]
    back = f"It resets at 00:00 UTC (in {wait})."
    if who.workspace is None:
        return QuotaExceeded(
            f"Anonymous use is limited to {limit} {noun} a day from one address, and today's are used.",
            retry_after_s=retry, hint=f"{back} Send a workspace's API key (Authorization: Bearer <key>) to use its allowance.",
        )
    return QuotaExceeded(
        f"Workspace '{who.workspace.name}' has used its {limit} {noun} for today ({allowed.plan} plan).",
        retry_after_s=retry,
        hint=f"{back} For more, redeem an evaluation code (POST /v1/workspace/redeem) or ask for a larger plan.",
    )


@asynccontextmanager
async def spending(request: Request, who: Caller, kind: str) -> AsyncIterator[None]:
    """Count one ``kind`` for the caller around the work; 429 before any work when the allowance is spent."""
    now = utc_now()
    allowed = allowance(who.workspace, _settings(request), now)
    limit = allowed.limit(kind)
    if who.workspace is None and limit is None:
        yield  # anonymous without a limit: nothing to count, nothing written
        return
    acc, day = accounts(request), now.date()
    if await to_thread.run_sync(acc.consume, who.subject, kind, limit, day) is None:
        assert limit is not None
        raise quota_exceeded(who, allowed, kind, limit)
    try:
        yield
    except Exception:
        try:
            await to_thread.run_sync(acc.refund, who.subject, kind, day)
        except StoreError:
            log.warning("request %s: could not give back a %s to %s", getattr(request.state, "request_id", None),
                        kind, who.subject if who.workspace else "an anonymous caller")
        raise
