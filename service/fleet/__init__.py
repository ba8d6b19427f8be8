"""Across runs: each stored diagnosis becomes an occurrence of a failure group (its fingerprint) and the nodes it
names are recorded as the workspace's pseudonyms, so that what repeats is seen: ``GET /v1/failures``, flagged nodes,
and the alerts on both.

    host_key(store, workspace_id)       the keyed-hash function masking uses for this workspace's hosts
    record_diagnosis(store, d, ...)     the occurrence and node sightings of a stored diagnosis
    records.failures / flagged_nodes    the views
    alerts                              subscriptions, and the alert jobs a diagnosis raises
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.fleet import alerts, records
from service.fleet.nodes import keyed
from service.models import Diagnosis
from service.store import Store

__all__ = ["host_key", "record_diagnosis", "records"]


def host_key(store: Store, workspace_id: str | None) -> Callable[[str], str]:
    secret = records.secret_for(store, records.scope_of(workspace_id))
    return lambda value: keyed(secret, value)


def record_diagnosis(store: Store, d: Diagnosis, workspace_id: str | None, hosts: dict[str, str],
                     min_jobs: int = 3) -> list[str]:
    """Record the diagnosis and accept the alerts it raises; returns the alert jobs made."""
    scope = records.scope_of(workspace_id)
    done = records.record(store, d, scope, hosts, records.secret_for(store, scope))
    if done is None or not alerts.subscriptions(store, scope):
        return []
    group = next((g for g in records.failures(store, scope, limit=200) if g.fingerprint == done.fingerprint), None)
    if group is None:
        return []
    body = {"workspace_id": workspace_id, "diagnosis_id": d.id, "group": fleet_group(group)}
    events: list[tuple[str, str, dict[str, Any]]] = []
    if done.count == 1:
        events.append(("new_group", f"new_group:{done.fingerprint}", body))
    events.append(("group_threshold", f"group_threshold:{done.fingerprint}", body))
    if done.nodes:
        for node in records.flagged_nodes(store, scope, min_jobs):
            if node.node in done.nodes:
                events.append(("flagged_node", f"flagged_node:{node.node}", {
                    "workspace_id": workspace_id, "diagnosis_id": d.id, "node": flagged(node)}))
    return alerts.raise_alerts(store, scope, events, {done.fingerprint: done.count})


def fleet_group(g: records.Group) -> dict[str, Any]:
    return {"fingerprint": g.fingerprint, "entry_id": g.entry_id, "title": g.title, "category": g.category,
            "template": g.template, "count": g.count, "first_seen": g.first_seen.isoformat(timespec="seconds"),
            "last_seen": g.last_seen.isoformat(timespec="seconds"), "runs": g.runs, "hosts": g.hosts}


def flagged(n: records.FlaggedNode) -> dict[str, Any]:
    return {"node": n.node, "jobs": n.jobs, "first_seen": n.first_seen.isoformat(timespec="seconds"),
            "last_seen": n.last_seen.isoformat(timespec="seconds"), "evidence": n.evidence}
