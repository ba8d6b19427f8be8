"""``Idempotency-Key`` for the POST routes that create: a retried request gets the first answer again.

    answer = await once(request, who, key, fingerprint(...), Diagnosis, work, resource=lambda d: d.id)

No key: ``work`` runs. A key first seen: it is claimed (in the database, so across replicas), ``work`` runs, and
its answer is kept for ``idempotency_ttl_s``; when ``work`` fails the key is released, and nothing was spent.
The same key again with the same content: the kept answer (``replayed``), no work and nothing spent; with
other content: 422; while the first still runs: 409 with Retry-After. Keys are scoped to the caller.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated, Generic, TypeVar

from anyio import CancelScope, to_thread
from fastapi import Header, Request
from pydantic import BaseModel

from service.api.deps import Caller, engine, settings
from service.api.errors import ErrorOut
from service.errors import BadRequest
from service.store.idempotency import IdempotencyKeys, Saved

M = TypeVar("M", bound=BaseModel)

IdempotencyKey = Annotated[str | None, Header(
    alias="Idempotency-Key", max_length=255,
    description="Any unique string (a UUID) per logical request, the same on its retries: a retry gets the first "
    "answer again, no second diagnosis, the allowance spent once. Kept 24 h per workspace (or address).")]

# Documented on the routes that take a key.
IDEMPOTENCY_RESPONSES: dict[int | str, dict[str, object]] = {
    409: {"model": ErrorOut, "description": "a request with this Idempotency-Key is still running (Retry-After)"},
}


@dataclass(frozen=True)
class Answer(Generic[M]):
    value: M
    replayed: bool  # the kept answer of an earlier request with the same key


def fingerprint(*parts: bytes | str) -> str:
    """What makes two requests "the same": the route and the content, each part hashed on its own."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        h.update(hashlib.sha256(data).digest())
    return h.hexdigest()


def _keys(request: Request) -> IdempotencyKeys:
    return IdempotencyKeys(engine(request).store, ttl=timedelta(seconds=settings(request).idempotency_ttl_s))


async def once(request: Request, who: Caller, key: str | None, print_: str, model: type[M],
               work: Callable[[], Awaitable[M]], *, status: int = 201,
               resource: Callable[[M], str | None] = lambda _: None) -> Answer[M]:
    if key is None:
        return Answer(await work(), replayed=False)
    if not key.strip() or not key.isascii() or not key.isprintable():
        raise BadRequest("The Idempotency-Key header must be 1 to 255 printable ASCII characters.",
                         hint="Send a UUID, the same one on each retry of the request.")
    keys = _keys(request)
    saved = await to_thread.run_sync(keys.claim, who.subject, key, print_)
    if saved is not None:
        return Answer(model.model_validate_json(saved.body), replayed=True)
    try:
        value = await work()
    except BaseException:
        with CancelScope(shield=True):  # a client that hung up still frees its key
            await to_thread.run_sync(keys.release, who.subject, key)
        raise
    await to_thread.run_sync(keys.finish, who.subject, key, Saved(status, value.model_dump_json()), resource(value))
    return Answer(value, replayed=False)
