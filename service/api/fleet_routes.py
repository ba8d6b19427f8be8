"""What repeats across a workspace's runs: ``GET /v1/failures`` (the failure groups by fingerprint) and
``GET /v1/nodes/flagged`` (nodes in hardware-class failures of several distinct runs, with the evidence).

Both read through the caller's workspace (anonymous callers see the anonymous scope of a local install); nodes are
the workspace's pseudonyms (``node-...``, ``gpu-...``), never host names.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from service.api.deps import CallerDep, EngineDep
from service.fleet import records

router = APIRouter()


class GroupOut(BaseModel):
    fingerprint: str
    entry_id: str | None
    title: str
    category: str | None
    template: str = Field(description="the decisive line with what varies between runs replaced (masked)")
    count: int
    first_seen: str
    last_seen: str
    runs: list[str] = Field(description="the diagnoses of this group, newest first (at most 20)")
    hosts: list[str] = Field(description="node pseudonyms named by its diagnoses")


class FailuresOut(BaseModel):
    groups: list[GroupOut]


class FlaggedOut(BaseModel):
    min_jobs: int
    nodes: list[dict[str, Any]]


def group_out(g: records.Group) -> GroupOut:
    return GroupOut(fingerprint=g.fingerprint, entry_id=g.entry_id, title=g.title, category=g.category, template=g.template,
                    count=g.count, first_seen=g.first_seen.isoformat(timespec="seconds"),
                    last_seen=g.last_seen.isoformat(timespec="seconds"), runs=g.runs, hosts=g.hosts)


def flagged_out(n: records.FlaggedNode) -> dict[str, Any]:
    return {"node": n.node, "jobs": n.jobs, "first_seen": n.first_seen.isoformat(timespec="seconds"),
            "last_seen": n.last_seen.isoformat(timespec="seconds"), "evidence": n.evidence}


@router.get("/v1/failures", response_model=FailuresOut, tags=["fleet"])
def list_failures(engine: EngineDep, who: CallerDep,
                  limit: Annotated[int, Query(ge=1, le=200)] = 50) -> FailuresOut:
    """The workspace's failure groups, most recently seen first: count, first and last seen, runs, hosts."""
    groups = records.failures(engine.store, records.scope_of(who.workspace_id), limit=limit)
    return FailuresOut(groups=[group_out(g) for g in groups])


@router.get("/v1/nodes/flagged", response_model=FlaggedOut, tags=["fleet"])
def list_flagged_nodes(engine: EngineDep, who: CallerDep) -> FlaggedOut:
    """Nodes named by hardware-class failures (category hardware, or an Xid) of at least `min_jobs` distinct runs."""
    n = engine.settings.bad_node_min_jobs
    return FlaggedOut(min_jobs=n, nodes=[flagged_out(x) for x in records.flagged_nodes(engine.store, records.scope_of(who.workspace_id), n)])
