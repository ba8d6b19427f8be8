"""Across runs: each stored diagnosis becomes an occurrence of a failure group (its fingerprint) and the nodes it
names are recorded as the workspace's pseudonyms, so that what repeats is seen: ``GET /v1/failures``, flagged nodes,
and the alerts on both.

    host_key(store, workspace_id)       the keyed-hash function masking uses for this workspace's hosts
    record_diagnosis(store, d, ...)     the occurrence and node sightings of a stored diagnosis
    records.failures / flagged_nodes    the views
"""

from __future__ import annotations

from collections.abc import Callable

from service.fleet import records
from service.fleet.nodes import keyed
from service.models import Diagnosis
from service.store import Store

__all__ = ["host_key", "record_diagnosis", "records"]


def host_key(store: Store, workspace_id: str | None) -> Callable[[str], str]:
    secret = records.secret_for(store, records.scope_of(workspace_id))
    return lambda value: keyed(secret, value)


def record_diagnosis(store: Store, d: Diagnosis, workspace_id: str | None, hosts: dict[str, str]) -> None:
    scope = records.scope_of(workspace_id)
    records.record(store, d, scope, hosts, records.secret_for(store, scope))
