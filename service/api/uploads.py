"""Reading a request's log: a raw body (text/plain, maybe gzip) or multipart files, within the limits."""

from __future__ import annotations

from fastapi import Request
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException

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


async def read_sources(request: Request, limits: Limits) -> list[Source]:
    """The files of one run from the request, or an InputError that says how to send them."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    body = await read_body(request, limits.max_upload_bytes)
    if ctype == "multipart/form-data":
        try:
            form = await request.form(max_files=limits.max_files + 1, max_fields=limits.max_files + 10)
        except HTTPException as exc:  # Starlette's multipart parser stops at max_files + 1 files or a malformed form
            if "Too many" in str(exc.detail):
                raise TooLarge(f"More than {limits.max_files} files is over the limit of {limits.max_files} per run.",
                               hint="Send the files of the failing ranks, or concatenate them.") from exc
            raise BadRequest(f"The multipart form could not be read: {exc.detail}",
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
