"""The API's one mapping of the error tree to HTTP: ``{"error": {"code", "message"}}`` with the right status."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from service.errors import CrashdocError, QuotaExceeded

log = logging.getLogger("crashdoc.api")


def error_body(code: str, message: str, request_id: str | None = None) -> dict[str, object]:
    body: dict[str, object] = {"code": code, "message": message}
    if request_id:
        body["request_id"] = request_id
    return {"error": body}


def install(app: FastAPI) -> None:
    @app.exception_handler(CrashdocError)
    async def _crashdoc(request: Request, exc: CrashdocError) -> JSONResponse:
        rid = getattr(request.state, "request_id", None)
        if exc.status >= 500:
            log.warning("request %s failed: %s", rid, exc.code)
        headers = {"Retry-After": str(exc.retry_after_s)} if isinstance(exc, QuotaExceeded) else None
        return JSONResponse(error_body(exc.code, str(exc), rid), status_code=exc.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        msg = f"Invalid request: {where}: {first.get('msg', 'invalid')}" if where else "Invalid request."
        return JSONResponse(error_body("bad_request", msg, getattr(request.state, "request_id", None)), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse(
            error_body(code, str(exc.detail), getattr(request.state, "request_id", None)),
            status_code=exc.status_code,
            headers=getattr(exc, "headers", None),
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        rid = getattr(request.state, "request_id", None)
        log.error("request %s: unexpected %s", rid, exc.__class__.__name__)
        return JSONResponse(error_body("internal", "Something went wrong on our side; the request id helps us find it.", rid), status_code=500)
