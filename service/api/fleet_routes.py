"""What repeats across a workspace's runs: ``GET /v1/failures`` (the failure groups by fingerprint) and
``GET /v1/nodes/flagged`` (nodes in hardware-class failures of several distinct runs, with the evidence).

Both read through the caller's workspace (anonymous callers see the anonymous scope of a local install); nodes are
the workspace's pseudonyms (``node-...``, ``gpu-...``), never host names.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from pydantic import BaseModel, Field

from service.api.deps import CallerDep, EngineDep, require_workspace
from service.fleet import alerts, flagged, records

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
    return flagged(n)


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


class SubscriptionIn(BaseModel):
    kind: str = Field(description="`webhook` (signed JSON POST) or `slack` (an incoming webhook URL)")
    url: str = Field(max_length=2000)
    events: list[str] = Field(description="any of new_group, group_threshold, flagged_node")
    threshold: int = Field(default=10, description="group_threshold: alert when a group reaches this many occurrences")


class SubscriptionOut(BaseModel):
    id: str
    kind: str
    url: str
    events: list[str]
    threshold: int
    created_at: str
    secret: str | None = Field(default=None, description="signs the webhook bodies; shown only when made")


def subscription_out(sub: alerts.Subscription, with_secret: bool = False) -> SubscriptionOut:
    return SubscriptionOut(id=sub.id, kind=sub.kind, url=sub.url, events=sub.events, threshold=sub.threshold,
                           created_at=sub.created_at.isoformat(timespec="seconds"), secret=sub.secret if with_secret else None)


@router.post("/v1/alerts", status_code=201, response_model=SubscriptionOut, tags=["fleet"])
def create_subscription(body: SubscriptionIn, engine: EngineDep, who: CallerDep) -> SubscriptionOut:
    """Subscribe a webhook or a Slack channel to new failure groups, a group reaching `threshold`, flagged nodes.
    The `secret` (for `X-Crashdoc-Signature`) is shown once."""
    ws = require_workspace(who, "Alerts")
    sub = alerts.subscribe(engine.store, ws.id, body.kind, body.url, body.events, body.threshold,
                           engine.settings.alerts_allow_insecure_urls)
    return subscription_out(sub, with_secret=True)


class SubscriptionsOut(BaseModel):
    subscriptions: list[SubscriptionOut]


@router.get("/v1/alerts", response_model=SubscriptionsOut, tags=["fleet"])
def list_subscriptions(engine: EngineDep, who: CallerDep) -> SubscriptionsOut:
    ws = require_workspace(who, "Alerts")
    return SubscriptionsOut(subscriptions=[subscription_out(s) for s in alerts.subscriptions(engine.store, ws.id)])


@router.delete("/v1/alerts/{subscription_id}", status_code=204, tags=["fleet"])
def delete_subscription(subscription_id: str, engine: EngineDep, who: CallerDep) -> Response:
    ws = require_workspace(who, "Alerts")
    alerts.unsubscribe(engine.store, ws.id, subscription_id)
    return Response(status_code=204)
