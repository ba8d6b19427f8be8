"""The workspace endpoints: plan and usage, redeeming an evaluation code, the history of diagnoses.

Every route reads and deletes through the caller's workspace id, so a workspace only ever sees its own
diagnoses: another workspace's id answers 404, exactly like an id that does not exist.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request, Response

from service.api.deps import CallerDep, accounts, require_json, require_workspace
from service.api.schemas import AllowanceOut, DiagnosisItem, DiagnosisPage, RedeemIn, UsageOut, WorkspaceOut
from service.settings import Settings
from service.store.accounts import KINDS, Workspace, allowance, next_utc_midnight, utc_now

router = APIRouter()

# What a diagnosis id can look like (``d_`` and URL-safe characters); anything else is a 422, not a lookup.
DiagnosisId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
                                  description="a diagnosis id, e.g. d_3kq9XyZ0abcdEFgh")]


def _settings(request: Request) -> Settings:
    return request.app.state.settings  # type: ignore[no-any-return]


def workspace_out(request: Request, ws: Workspace) -> WorkspaceOut:
    now = utc_now()
    allowed = allowance(ws, _settings(request), now)
    used = accounts(request).usage(ws.id, now.date())
    return WorkspaceOut(
        id=ws.id,
        name=ws.name,
        plan=allowed.plan,
        base_plan=ws.plan,
        plan_until=allowed.until.isoformat(timespec="seconds") if allowed.until else None,
        allowance=AllowanceOut(diagnoses_per_day=allowed.diagnoses, questions_per_day=allowed.questions),
        used_today=UsageOut(diagnoses=used[KINDS[0]], questions=used[KINDS[1]]),
        resets_at=next_utc_midnight(now).isoformat(timespec="seconds"),
    )


@router.get("/v1/workspace", response_model=WorkspaceOut, tags=["workspace"])
def get_workspace(request: Request, who: CallerDep) -> WorkspaceOut:
    """The caller's workspace: its plan, its daily allowance and what it used today."""
    return workspace_out(request, require_workspace(who, "Reading a workspace"))


@router.post("/v1/workspace/redeem", response_model=WorkspaceOut, tags=["workspace"], dependencies=[Depends(require_json)])
def redeem_code(body: RedeemIn, request: Request, who: CallerDep) -> WorkspaceOut:
    """Redeem a single-use evaluation code: its plan for its days, then the workspace falls back to its plan."""
    ws = require_workspace(who, "Redeeming an evaluation code")
    return workspace_out(request, accounts(request).redeem(ws.id, body.code))


@router.get("/v1/diagnoses", response_model=DiagnosisPage, tags=["diagnoses"])
def list_diagnoses(
    request: Request,
    who: CallerDep,
    limit: Annotated[int, Query(ge=1, le=100, description="page size")] = 20,
    offset: Annotated[int, Query(ge=0, le=1_000_000, description="items to skip; `next_offset` of the previous page")] = 0,
) -> DiagnosisPage:
    """The workspace's own diagnoses, newest first (masked data only)."""
    ws = require_workspace(who, "Listing diagnoses")
    found, total = request.app.state.engine.store.history(ws.id, limit=limit, offset=offset)
    items = [
        DiagnosisItem(id=d.id, created_at=d.created_at, entry_id=d.entry_id, title=d.title, category=d.category,
                      confidence=d.confidence, summary=d.summary, composer=d.composer)
        for d in found
    ]
    more = offset + len(items) < total and bool(items)
    return DiagnosisPage(items=items, total=total, limit=limit, offset=offset, next_offset=offset + len(items) if more else None)


@router.delete("/v1/diagnoses/{diagnosis_id}", status_code=204, response_class=Response, tags=["diagnoses"])
def delete_diagnosis(diagnosis_id: DiagnosisId, request: Request, who: CallerDep) -> Response:
    """Delete one of the caller's diagnoses with its chat. Another workspace's diagnosis is a 404."""
    request.app.state.engine.store.delete(diagnosis_id, who.workspace_id)
    return Response(status_code=204)
