"""The paste-or-drop form of ``/`` read into the files of one run, held in memory only.

Starlette spools a multipart file over 1 MiB to a temporary file on disk; the raw log must not touch the
disk, so the parser here keeps every part in memory (the body is already bounded by the upload limit).
"""

from __future__ import annotations

from fastapi import Request
from starlette.datastructures import FormData, UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser

from service.api.deps import read_body
from service.errors import BadRequest, EmptyInput, TooLarge
from service.ingest import Limits
from service.models import Source

PASTED_NAME = "pasted.log"


async def _form(request: Request, limits: Limits) -> FormData:
    await read_body(request, limits.max_upload_bytes)
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype == "multipart/form-data":
        parser = MultiPartParser(request.headers, request.stream(), max_files=limits.max_files + 1,
                                 max_fields=8, max_part_size=limits.max_upload_bytes)
        parser.spool_max_size = limits.max_upload_bytes + 1  # never roll over to disk
        try:
            return await parser.parse()
        except MultiPartException as exc:
            raise BadRequest(f"The form could not be read: {exc.message}", hint="Paste the log or choose its files again.") from exc
    if ctype == "application/x-www-form-urlencoded":
        return await request.form(max_files=0, max_fields=8, max_part_size=limits.max_upload_bytes)
    raise BadRequest(f"Unsupported form encoding '{ctype}'.", hint="Submit the form on the page.")


async def read_run(request: Request, limits: Limits, field: str = "log") -> list[Source]:
    """The pasted text (as ``pasted.log``) and the chosen files: the files of one run."""
    form = await _form(request, limits)
    try:
        sources: list[Source] = []
        pasted = form.get(field)
        if isinstance(pasted, str) and pasted.strip():
            sources.append(Source(name=PASTED_NAME, data=pasted.encode("utf-8")))
        for i, part in enumerate(form.getlist("files")):
            if isinstance(part, UploadFile) and part.filename:
                data = await part.read()
                if data:
                    sources.append(Source(name=part.filename[:200] or f"file{i}", data=data))
    finally:
        await form.close()
    if not sources:
        raise EmptyInput("There is nothing to diagnose.", hint="Paste the log into the box or choose the log files of the run.")
    if len(sources) > limits.max_files:
        raise TooLarge(f"{len(sources)} files is over the limit of {limits.max_files} per run.", hint="Send the files of one run.")
    return sources
