"""Multipart uploads are parsed in memory: an unmasked log never lands in a temporary file."""

from __future__ import annotations

import asyncio

import httpx
from starlette.requests import Request

from service.api.deps import read_sources
from service.ingest import Limits

LIMITS = Limits(max_upload_bytes=8 << 20, max_decompressed_bytes=8 << 20, max_files=4, max_line_chars=1000)


def multipart_request(files: list[tuple[str, bytes]]) -> Request:
    req = httpx.Request("POST", "http://t/v1/diagnoses", files=[("files", (n, d)) for n, d in files])
    body = req.read()
    scope = {"type": "http", "method": "POST", "path": "/v1/diagnoses", "query_string": b"",
             "headers": [(k.lower().encode(), v.encode()) for k, v in req.headers.items()]}
    sent = False

    async def receive() -> dict:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return Request(scope, receive)


def test_large_files_stay_in_memory(monkeypatch):
    rolled: list[str] = []
    import tempfile

    real = tempfile.SpooledTemporaryFile.rollover

    def spy(self):  # type: ignore[no-untyped-def]
        rolled.append("rolled")
        return real(self)

    monkeypatch.setattr(tempfile.SpooledTemporaryFile, "rollover", spy)
    big = b"[rank0]: step 1 loss 0.5 token=hf_Vq3LmZ8xTn2KpR7wYc5HbJ4dGs9AeF1uXo\n" * 40_000  # ~2.7 MB
    sources = asyncio.run(read_sources(multipart_request([("rank_0.log", big), ("rank_1.log", b"ok\n")]), LIMITS))
    assert [s.name for s in sources] == ["rank_0.log", "rank_1.log"]
    assert sources[0].data == big
    assert rolled == []  # Starlette's default would have spooled the 2.7 MB part to disk


def test_a_big_upload_runs_in_the_bounded_pool_and_a_small_one_in_the_default():
    from types import SimpleNamespace

    from service.api.deps import pool_for
    from service.models import Source
    from service.settings import Settings

    app = SimpleNamespace(state=SimpleNamespace(settings=Settings(big_request_bytes=1000, big_request_workers=2)))
    request = SimpleNamespace(app=app)

    async def pools() -> tuple[object, object, object]:
        return (pool_for(request, [Source(name="a.log", data=b"x" * 1000)]),  # type: ignore[arg-type]
                pool_for(request, [Source(name="a.log", data=b"x" * 600), Source(name="b.log", data=b"x" * 600)]),  # type: ignore[arg-type]
                pool_for(request, [Source(name="c.log", data=b"x" * 5000)]))  # type: ignore[arg-type]

    small, big, again = asyncio.run(pools())
    assert small is None
    assert big is again and big.total_tokens == 2  # type: ignore[attr-defined]
