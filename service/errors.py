"""The error tree. Each error says what the user should do.

    CrashdocError
    ├── InputError              bad input: the user can fix it (exit 2, HTTP 4xx)
    │   ├── EmptyInput          nothing to diagnose                        (422)
    │   ├── BinaryInput         not a text log                             (415)
    │   ├── TooLarge            over a size or count limit                 (413)
    │   ├── UnsupportedType     a Content-Type the route does not read     (415)
    │   ├── KeyReused           an Idempotency-Key used for another request (422)
    │   └── BadRequest          malformed request                          (400/422)
    ├── NotAcceptable           no representation the Accept header allows  (406)
    ├── InFlight                the same Idempotency-Key is still running   (409, Retry-After)
    ├── NotFound                no such diagnosis, entry or case            (404)
    │   └── Gone                a share link that was revoked               (410)
    ├── AuthError               missing or wrong credentials                (401/403)
    ├── QuotaExceeded           plan allowance spent                        (429)
    ├── ConfigError             the installation is misconfigured           (exit 2, 500)
    ├── StoreError              the database is unavailable                 (503)
    └── LLMError                the LLM failed; callers fall back to the deterministic composer

Third-party exceptions (SQLAlchemy, litellm, Presidio) are translated where they are called.
The CLI, the API and Slack each map this tree once.
"""

from __future__ import annotations


class CrashdocError(Exception):
    code = "error"
    status = 500

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} {self.hint}" if self.hint else self.message


class InputError(CrashdocError):
    code = "bad_input"
    status = 422


class EmptyInput(InputError):
    code = "empty_input"
    status = 422


class BinaryInput(InputError):
    code = "binary_input"
    status = 415


class TooLarge(InputError):
    code = "too_large"
    status = 413


class BadRequest(InputError):
    code = "bad_request"
    status = 400


class UnsupportedType(InputError):
    code = "unsupported_media_type"
    status = 415


class KeyReused(InputError):
    code = "idempotency_key_reused"
    status = 422


class NotAcceptable(CrashdocError):
    code = "not_acceptable"
    status = 406


class InFlight(CrashdocError):
    code = "idempotency_in_flight"
    status = 409

    def __init__(self, message: str, *, retry_after_s: int, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.retry_after_s = retry_after_s


class NotFound(CrashdocError):
    code = "not_found"
    status = 404


class Gone(NotFound):
    code = "gone"
    status = 410


class AuthError(CrashdocError):
    code = "unauthorized"
    status = 401


class Forbidden(AuthError):
    code = "forbidden"
    status = 403


class QuotaExceeded(CrashdocError):
    code = "quota_exceeded"
    status = 429

    def __init__(self, message: str, *, retry_after_s: int, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.retry_after_s = retry_after_s


class ConfigError(CrashdocError):
    code = "config_error"
    status = 500


class StoreError(CrashdocError):
    code = "store_unavailable"
    status = 503


class LLMError(CrashdocError):
    code = "llm_error"
    status = 502


class LLMBusy(LLMError):
    """Every slot of the LLM pool is taken: the call was not made (a job may make it later)."""

    code = "llm_busy"
