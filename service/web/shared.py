"""A shared diagnosis (``/s/{token}``): the page a teammate opens from a share link, without an API key.

Read-only: the diagnosis, its evidence and its conversation so far, no question box (asking spends the owner's
allowance and needs their key). A wrong token or a deleted diagnosis is a 404, a revoked link a 410.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from service.api import deps
from service.errors import Gone, NotFound
from service.web.routes import PRIVATE, diagnosis_context
from service.web.templating import page

router = APIRouter(include_in_schema=False)


@router.get("/s/{token}")
def shared_diagnosis(token: str, request: Request) -> Response:
    engine = deps.engine(request)
    try:
        shared = deps.shares(request).open(token)
        ctx = diagnosis_context(engine, shared.diagnosis_id, shared.workspace_id)
    except Gone as exc:
        return page("error.html", status=410, headers=PRIVATE, title="Link revoked", message=exc.message, hint=exc.hint)
    except NotFound:
        return page("error.html", status=404, headers=PRIVATE, title="Not found",
                    message="This link does not open a diagnosis: it is wrong, or the diagnosis was deleted.",
                    hint="Ask whoever sent it for a new link.")
    return page("diagnosis.html", headers={**PRIVATE, "Referrer-Policy": "no-referrer"}, chat_error=None,
                **{**ctx, "shared": True})
