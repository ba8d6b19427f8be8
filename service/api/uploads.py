"""Reading a request's log: a raw body (text/plain, maybe gzip) or multipart files, within the limits."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from fastapi import Request
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException, MultiPartParser

from service.errors import BadRequest, EmptyInput, TooLarge
from service.ingest import Limits
from service.models import Source

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
        raise BadRequest(
            f"Unsupported content type '{ctype}'.",
            hint="Send the log as text/plain (optionally Content-Encoding: gzip) or multipart/form-data 'files'.",
        )
    if not body:
        raise EmptyInput("The request body is empty.", hint="Send the log as the body.")
    # Content-Encoding: gzip bodies are recognised by their magic bytes in ingest and decompressed there,
    # within the decompressed-size limit.
    return [Source(name=request.headers.get("x-crashdoc-filename", "log.txt")[:200] or "log.txt", data=body)]
