"""What every front end over HTTP needs: the API, the web pages and Slack import it from here.

    engine(request) -> Engine            the process's ``Engine`` (``EngineDep``), and its settings
    caller(request) -> Caller            FastAPI dependency: the workspace of ``Authorization: Bearer <key>``,
                                         or anonymous (when ``allow_anonymous``); 401 otherwise
    spending(request, caller, kind)      counts one diagnosis or question against the caller's daily
                                         allowance before the work (429 with Retry-After when spent) and
                                         gives it back if the request then fails; the answer's RateLimit-*
                                         headers say what is left (``rate_limit_headers``)
    consume(...) -> Spent | None         the same count for any subject; ``Spent.refund()`` gives it back
                                         when the work fails
    shares(request) -> ShareLinks        the share links (signed with the deployment's secret), made once per app
    with_url(request, diagnosis)         the diagnosis with its share link as ``url``
    read_body, read_sources              a request's log, raw body or multipart files, within the limits
                                         (415 for another Content-Type)
    require_json                         route dependency: 415 unless the body is application/json (or +json)
    client_address(request)              the caller's address: X-Forwarded-For only from a trusted proxy
    queue(app)                           the process's job queue (service/jobs), made once

A wrong or revoked key is refused even where anonymous use is allowed: a bot with a broken key should
hear about it, not silently drop to the anonymous allowance. The key itself is never logged.
"""

from __future__ import annotations

import ipaddress
import logging
import threading
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import date
from typing import Annotated, Any

from anyio import CapacityLimiter, to_thread
from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException, MultiPartParser

from service.errors import (
    AuthError,
    BadRequest,
    EmptyInput,
    QuotaExceeded,
    StoreError,
    TooLarge,
    UnsupportedType,
)
from service.ingest import Limits
from service.jobs import queue_for
from service.models import Diagnosis, Source
from service.pipeline import Engine
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
from service.store.shares import ShareLinks, share_url

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


def engine(request: Request) -> Engine:
    """The dependency: the process's engine (``create_app`` puts it on the app)."""
    return request.app.state.engine  # type: ignore[no-any-return]


EngineDep = Annotated[Engine, Depends(engine)]


def settings(request: Request) -> Settings:
    return request.app.state.settings  # type: ignore[no-any-return]


def accounts(request: Request) -> Accounts:
    return Accounts(engine(request).store)


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
    if not settings(request).allow_anonymous:
        raise AuthError("This service needs an API key.", hint="Send 'Authorization: Bearer <key>'. " + _KEY_HINT)
    return Caller(None, f"anon:{client_address(request)}")


def _networks(entries: list[str]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(e.strip(), strict=False) for e in entries if e.strip()]


def _trusted(address: str, networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip().strip("[]"))
    except ValueError:
        return False
    return any(ip in n for n in networks)


def client_address(request: Request) -> str:
    """The peer's address; when the peer is one of ``trusted_proxies``, the nearest address in X-Forwarded-For
    that is not itself a trusted proxy (the right-most untrusted hop: what the proxy saw, not what the client wrote).
    Anyone else's X-Forwarded-For is ignored, so a caller cannot rotate it to escape the anonymous allowance."""
    peer = request.client.host if request.client else "unknown"
    networks = _networks(settings(request).trusted_proxies)
    if not networks or not _trusted(peer, networks):
        return peer
    hops = [h.strip() for h in ",".join(request.headers.getlist("x-forwarded-for")).split(",") if h.strip()]
    for hop in reversed(hops):
        if not _trusted(hop, networks):
            return hop[:64]
    return hops[0][:64] if hops else peer


def queue(app: Any) -> Any:
    """The process's job queue (made on first use): ``InProcess`` on SQLite, procrastinate on PostgreSQL."""
    q = getattr(app.state, "queue", None)
    if q is None:
        with _queue_lock:
            q = getattr(app.state, "queue", None)
            if q is None:
                q = app.state.queue = queue_for(app.state.engine)
    return q


_queue_lock = threading.Lock()


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


@dataclass(frozen=True)
class Spent:
    """One use counted against a subject's allowance for a day; ``refund()`` gives it back."""

    accounts: Accounts
    subject: str
    kind: str
    day: date
    request_id: str | None = None
    used: int = 0  # the day's count with this use

    def refund(self) -> None:
        """Give the use back (the work it paid for failed). A database that is down only costs the use: logged."""
        try:
            self.accounts.refund(self.subject, self.kind, self.day)
        except StoreError:
            who = self.subject if not self.subject.startswith("anon:") else "an anonymous caller"
            log.warning("request %s: could not give back a %s to %s", self.request_id, self.kind, who)


async def consume(request: Request, subject: str, kind: str, limit: int | None) -> Spent | None:
    """Count one ``kind`` for ``subject`` today; None (nothing counted) when its allowance is already spent."""
    acc, day = accounts(request), utc_now().date()
    used = await to_thread.run_sync(acc.consume, subject, kind, limit, day)
    if used is None:
        return None
    return Spent(acc, subject, kind, day, getattr(request.state, "request_id", None), used)


@asynccontextmanager
async def spending(request: Request, who: Caller, kind: str) -> AsyncIterator[None]:
    """Count one ``kind`` for the caller around the work; 429 before any work when the allowance is spent."""
    allowed = allowance(who.workspace, settings(request), utc_now())
    limit = allowed.limit(kind)
    if who.workspace is None and limit is None:
        yield  # anonymous without a limit: nothing to count, nothing written
        return
    spent = await consume(request, who.subject, kind, limit)
    if spent is None:
        assert limit is not None
        _rate_limit(request, limit, 0)
        raise quota_exceeded(who, allowed, kind, limit)
    if limit is not None:
        _rate_limit(request, limit, limit - spent.used)
    try:
        yield
    except Exception:
        await to_thread.run_sync(spent.refund)
        if limit is not None:
            _rate_limit(request, limit, limit - spent.used + 1)
        raise


def _rate_limit(request: Request, limit: int, remaining: int) -> None:
    """What the answer's RateLimit-* headers will say (``rate_limit_headers``, added by the app's middleware)."""
    request.state.rate_limit = (limit, max(0, remaining), until_reset(utc_now())[0])


def rate_limit_headers(request: Request) -> dict[str, str]:
    """RateLimit-Limit, -Remaining, -Reset (seconds to 00:00 UTC) and -Policy for a request that counted a use
    against a daily allowance (draft-ietf-httpapi-ratelimit-headers); none for the others."""
    counted: tuple[int, int, int] | None = getattr(request.state, "rate_limit", None)
    if counted is None:
        return {}
    limit, remaining, reset = counted
    return {"RateLimit-Limit": str(limit), "RateLimit-Remaining": str(remaining), "RateLimit-Reset": str(reset),
            "RateLimit-Policy": f"{limit};w=86400"}


def shares(request: Request) -> ShareLinks:
    """The app's share links; the secret (from settings, else the database's) is read once."""
    links: ShareLinks | None = getattr(request.app.state, "share_links", None)
    if links is None:
        secret = settings(request).share_secret
        links = request.app.state.share_links = ShareLinks(engine(request).store, secret.get_secret_value() if secret else None)
    return links


def public_base(request: Request) -> str:
    """Where the service is reached from outside: ``CRASHDOC_PUBLIC_URL``, else the request's own base URL."""
    return settings(request).public_url or str(request.base_url)


def with_url(request: Request, diagnosis: Diagnosis) -> Diagnosis:
    """The diagnosis with ``url``: its share link (null once revoked). Runs a query: call it off the event loop."""
    token = shares(request).token(diagnosis.id)
    return diagnosis.model_copy(update={"url": share_url(public_base(request), token) if token else None})


# ---------------------------------------------------------------- the pool for big requests


def pool_for(request: Request, sources: list[Source]) -> CapacityLimiter | None:
    """A big upload runs in a pool of ``big_request_workers`` threads, so it never takes the threads the small
    ones run in (None: the default pool). The pool is made on first use, inside the event loop."""
    s = settings(request)
    if sum(len(src.data) for src in sources) <= s.big_request_bytes:
        return None
    pool: CapacityLimiter | None = getattr(request.app.state, "big_requests", None)
    if pool is None:
        pool = request.app.state.big_requests = CapacityLimiter(s.big_request_workers)
    return pool


# ---------------------------------------------------------------- uploads

_TEXT_TYPES = ("text/plain", "application/octet-stream", "application/gzip", "application/x-gzip", "text/x-log", "")


async def read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise TooLarge(
            f"The request body is {int(declared) / 2**20:.0f} MiB, over the {limit / 2**20:.0f} MiB limit.",
            hint="Compress the log with gzip (Content-Encoding: gzip) or send the part around the failure.",
        )
    chunks = bytearray()
    async for chunk in request.stream():
        chunks += chunk
        if len(chunks) > limit:
            raise TooLarge(
                f"The request body is over the {limit / 2**20:.0f} MiB limit.",
                hint="Compress the log with gzip (Content-Encoding: gzip) or send the part around the failure.",
            )
    request._body = bytes(chunks)  # lets request.form() parse what was already read
    return request._body


async def _parse_in_memory(request: Request, body: bytes, limits: Limits) -> FormData:
    """Starlette's multipart parser, with files kept in memory: an unmasked upload never touches disk.

    The body was already read within ``max_upload_bytes``, so holding its parts in memory costs no more.
    """

    async def once() -> AsyncGenerator[bytes, None]:
        yield body

    parser = MultiPartParser(request.headers, once(), max_files=limits.max_files + 1, max_fields=limits.max_files + 10)
    parser.spool_max_size = limits.max_upload_bytes + 1  # SpooledTemporaryFile rolls to disk only past this
    return await parser.parse()


async def read_sources(request: Request, limits: Limits) -> list[Source]:
    """The files of one run from the request, or an InputError that says how to send them."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    body = await read_body(request, limits.max_upload_bytes)
    if ctype == "multipart/form-data":
        try:
            form = await _parse_in_memory(request, body, limits)
        except (HTTPException, MultiPartException) as exc:  # the parser stops at max_files + 1 files or a malformed form
            detail = str(exc.detail if isinstance(exc, HTTPException) else exc.message)
            if "Too many" in detail:
                raise TooLarge(f"More than {limits.max_files} files is over the limit of {limits.max_files} per run.",
                               hint="Send the files of the failing ranks, or concatenate them.") from exc
            raise BadRequest(f"The multipart form could not be read: {detail}",
                             hint="Send each log file as a 'files' part of a multipart/form-data body.") from exc
        files = [v for k, v in form.multi_items() if k == "files" and isinstance(v, UploadFile)]
        if not files:
            raise BadRequest("The multipart form has no 'files' part.", hint="Send each log file as a 'files' part.")
        if len(files) > limits.max_files:
            raise TooLarge(f"{len(files)} files is over the limit of {limits.max_files} per run.",
                           hint="Send the files of the failing ranks, or concatenate them.")
        sources = [Source(name=f.filename or f"file{i}", data=await f.read()) for i, f in enumerate(files)]
        await form.close()
        return sources
    if ctype not in _TEXT_TYPES and not ctype.startswith("text/"):
        raise UnsupportedType(
            f"Unsupported content type '{ctype}'.",
            hint="Send the log as text/plain (optionally Content-Encoding: gzip) or multipart/form-data 'files'.",
        )
    if not body:
        raise EmptyInput("The request body is empty.", hint="Send the log as the body.")
    # Content-Encoding: gzip bodies are recognised by their magic bytes in ingest and decompressed there,
    # within the decompressed-size limit.
    return [Source(name=request.headers.get("x-crashdoc-filename", "log.txt")[:200] or "log.txt", data=body)]


def require_json(request: Request) -> None:
    """415 for a JSON route sent another Content-Type (FastAPI would answer a 422 about the body's shape)."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    main, _, sub = ctype.partition("/")
    if not (main == "application" and (sub == "json" or sub.endswith("+json"))):
        raise UnsupportedType(f"This route reads JSON, not '{ctype or 'no Content-Type'}'.",
                              hint="Send the body as JSON with 'Content-Type: application/json'.")
