"""A small client of the crashdoc service, for bots, CI and ``crashdoc diagnose --server URL``.

    with Client("https://crashdoc.example", api_key="cdk_...") as c:
        d = c.diagnose([("rank_0.log", text)])     # a Diagnosis (the JSON contract); d.url opens for the team
        c.diagnosis(d.id); c.markdown(d.id); c.ask(d.id, "why rank 3?"); c.diagnoses(); c.delete(d.id)
        c.share(d.id); c.revoke_share(d.id)             # a new link; revoke it (410)

Errors: an answer other than 2xx raises ``ApiError``, built from the API's error JSON (``status``, ``code``,
``message``, ``request_id``, ``retry_after_s``); a service that cannot be reached raises ``Unreachable`` once the
retries are spent. Both are ``CrashdocError``s, so the CLI maps them like any other (exit 2, one line).

Retries: a connection failure, a timeout, 502/503/504 and 409 ``idempotency_in_flight`` (the first attempt is
still running) are retried with backoff, honouring ``Retry-After`` up to ``max_wait_s``. A 429 (the daily
allowance is spent until 00:00 UTC) is not retried. Every POST carries one ``Idempotency-Key`` across all its
attempts, so a retry whose first attempt did reach the service gets that first answer again: no second
diagnosis, and the allowance is spent once.
"""

from __future__ import annotations

import gzip
import random
import time
import uuid
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel

from service.api.schemas import Conversation, DiagnosisPage, Exchange, ShareLink, WorkspaceOut
from service.errors import CrashdocError
from service.models import Diagnosis

M = TypeVar("M", bound=BaseModel)

USER_AGENT = "crashdoc-client/1"
_RETRY_STATUSES = frozenset({502, 503, 504})


class ApiError(CrashdocError):
    """The service answered with an error: its status, code and message, and the request id to quote."""

    def __init__(self, status: int, code: str, message: str, *, request_id: str | None = None,
                 retry_after_s: int | None = None) -> None:
        hint = f"(HTTP {status}, {code}" + (f", request {request_id})" if request_id else ")")
        super().__init__(message, hint=hint)
        self.status, self.code, self.request_id, self.retry_after_s = status, code, request_id, retry_after_s

    @property
    def retryable(self) -> bool:
        return self.status in _RETRY_STATUSES or (self.status == 409 and self.code == "idempotency_in_flight")


class Unreachable(CrashdocError):
    """No answer from the service (connection refused, DNS, timeouts), after the retries."""

    code = "unreachable"
    status = 503


def _retry_after(response: httpx.Response) -> int | None:
    value = response.headers.get("retry-after", "")
    return int(value) if value.isdigit() else None


def error_from(response: httpx.Response) -> ApiError:
    """The API's ``{"error": {"code", "message", "request_id"}}`` as an ``ApiError`` (or what a proxy sent instead)."""
    rid = response.headers.get("x-request-id")
    try:
        body = response.json()
        err = body["error"]
        code, message = str(err["code"]), str(err["message"])
        rid = err.get("request_id") or rid
    except (ValueError, KeyError, TypeError):
        code, message = "http_error", f"The service answered {response.status_code} {response.reason_phrase}."
    return ApiError(response.status_code, code, message, request_id=rid, retry_after_s=_retry_after(response))


class Client:
    """The crashdoc REST API over httpx. ``transport`` is for tests; ``sleep`` too (retry waits)."""

    def __init__(self, base_url: str, api_key: str | None = None, *, timeout_s: float = 300.0, retries: int = 3,
                 max_wait_s: float = 30.0, transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self.http = httpx.Client(base_url=base_url.rstrip("/"), headers=headers, timeout=httpx.Timeout(timeout_s, connect=10.0),
                                 transport=transport)
        self.retries, self.max_wait_s, self.sleep = retries, max_wait_s, sleep

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: tuple[type[BaseException] | None, BaseException | None, TracebackType | None]) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    # ------------------------------------------------------------ the calls

    def diagnose(self, files: Sequence[tuple[str, bytes | str]] | bytes | str, *, idempotency_key: str | None = None,
                 compress: bool = True) -> Diagnosis:
        """Diagnose the files of one run: ``[(name, content), ...]`` (or one log as bytes/str). Gzipped on the wire."""
        if isinstance(files, (bytes, str)):
            files = [("log.txt", files)]
        parts = [("files", (name, _payload(data, compress), "application/octet-stream")) for name, data in files]
        r = self._send("POST", "/v1/diagnoses", files=parts, idempotency_key=idempotency_key or new_key())
        return _model(Diagnosis, r)

    def diagnosis(self, diagnosis_id: str) -> Diagnosis:
        return _model(Diagnosis, self._send("GET", f"/v1/diagnoses/{_segment(diagnosis_id)}"))

    def markdown(self, diagnosis_id: str) -> str:
        """The diagnosis as the PR-comment markdown (``Accept: text/markdown``)."""
        r = self._send("GET", f"/v1/diagnoses/{_segment(diagnosis_id)}", headers={"Accept": "text/markdown"})
        return r.text

    def diagnoses(self, *, limit: int = 20, offset: int = 0) -> DiagnosisPage:
        return _model(DiagnosisPage, self._send("GET", "/v1/diagnoses", params={"limit": limit, "offset": offset}))

    def delete(self, diagnosis_id: str) -> None:
        self._send("DELETE", f"/v1/diagnoses/{_segment(diagnosis_id)}")

    def ask(self, diagnosis_id: str, question: str, *, idempotency_key: str | None = None) -> Exchange:
        r = self._send("POST", f"/v1/diagnoses/{_segment(diagnosis_id)}/messages", json={"question": question},
                       idempotency_key=idempotency_key or new_key())
        return _model(Exchange, r)

    def messages(self, diagnosis_id: str) -> Conversation:
        return _model(Conversation, self._send("GET", f"/v1/diagnoses/{_segment(diagnosis_id)}/messages"))

    def share(self, diagnosis_id: str) -> ShareLink:
        """A new share link for the diagnosis (also after a revocation); its earlier links stop working."""
        return _model(ShareLink, self._send("POST", f"/v1/diagnoses/{_segment(diagnosis_id)}/share"))

    def revoke_share(self, diagnosis_id: str) -> None:
        """The diagnosis's link answers 410 until ``share`` makes a new one."""
        self._send("DELETE", f"/v1/diagnoses/{_segment(diagnosis_id)}/share")

    def workspace(self) -> WorkspaceOut:
        return _model(WorkspaceOut, self._send("GET", "/v1/workspace"))

    # ------------------------------------------------------------ one request, retried

    def _send(self, method: str, path: str, *, idempotency_key: str | None = None, headers: dict[str, str] | None = None,
              **kwargs: Any) -> httpx.Response:
        headers = dict(headers or {})
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        attempt = 0
        while True:
            try:
                r = self.http.request(method, path, headers=headers, **kwargs)
            except httpx.TransportError as exc:  # connect, read and write failures, timeouts
                if attempt >= self.retries or (method == "POST" and not idempotency_key):
                    raise Unreachable(f"crashdoc at {self.http.base_url} did not answer: {exc.__class__.__name__}.",
                                      hint="Check the URL and that the service is up, then retry.") from exc
                self._wait(attempt, None)
                attempt += 1
                continue
            if r.is_success:
                return r
            error = error_from(r)
            if not error.retryable or attempt >= self.retries:
                raise error
            self._wait(attempt, error.retry_after_s)
            attempt += 1

    def _wait(self, attempt: int, retry_after_s: int | None) -> None:
        backoff = min(self.max_wait_s, 0.5 * 2**attempt) * (0.5 + random.random() / 2)
        self.sleep(min(self.max_wait_s, float(retry_after_s)) if retry_after_s is not None else backoff)


def new_key() -> str:
    """A fresh Idempotency-Key: one per logical request, the same for its retries."""
    return str(uuid.uuid4())


def _payload(data: bytes | str, compress: bool) -> bytes:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if not compress or raw[:2] == b"\x1f\x8b":
        return raw
    return gzip.compress(raw, compresslevel=6, mtime=0)  # mtime=0: the same log is the same bytes (one fingerprint)


def _segment(value: str) -> str:
    from urllib.parse import quote

    return quote(value, safe="")


def _model(model: type[M], response: httpx.Response) -> M:
    try:
        return model.model_validate_json(response.content)
    except ValueError as exc:
        raise ApiError(response.status_code, "unexpected_response",
                       f"The service's answer is not a {model.__name__}: is this URL a crashdoc service?",
                       request_id=response.headers.get("x-request-id")) from exc
