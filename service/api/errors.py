"""The API's one mapping of the error tree to HTTP: ``{"error": {"code", "message"}}`` with the right status."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from service.errors import AuthError, CrashdocError, InFlight, QuotaExceeded, StoreError

log = logging.getLogger("crashdoc.api")


class ErrorDetail(BaseModel):
    code: str
    message: str
    request_id: str | None = None


class ErrorOut(BaseModel):
    """Every error the API answers, whatever its status."""

    error: ErrorDetail


_ERROR_STATUSES = {
    400: "malformed request", 401: "missing, wrong or revoked API key", 404: "no such diagnosis or entry (or not yours)",
    406: "no representation the Accept header allows (application/json, text/markdown)",
    413: "over a size or count limit", 415: "a Content-Type the route does not read, or not a text log",
    422: "invalid or empty input, or an Idempotency-Key reused for a different request",
    429: "the daily allowance is spent (Retry-After)", 503: "the database is unavailable (Retry-After)",
}
# Documented on every operation, so the OpenAPI schema names each status the API can answer.
ERROR_RESPONSES: dict[int | str, dict[str, object]] = {
    status: {"model": ErrorOut, "description": what} for status, what in _ERROR_STATUSES.items()
}
_STORE_RETRY_AFTER_S = 5


def _headers(exc: CrashdocError) -> dict[str, str] | None:
    if isinstance(exc, (QuotaExceeded, InFlight)):
        return {"Retry-After": str(exc.retry_after_s)}
    if isinstance(exc, StoreError):
        return {"Retry-After": str(_STORE_RETRY_AFTER_S)}
    if isinstance(exc, AuthError) and exc.status == 401:
        return {"WWW-Authenticate": 'Bearer realm="crashdoc"'}
    return None


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
        return JSONResponse(error_body(exc.code, str(exc), rid), status_code=exc.status, headers=_headers(exc))

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
