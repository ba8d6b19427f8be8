"""What the fleet views read and write: each stored diagnosis as an occurrence of its failure group and the nodes
it names; the groups of a workspace (``failures``) and its flagged nodes (``flagged_nodes``).

    secret_for(store, scope) -> bytes        the workspace's pseudonym key (made once, shared by every replica)
    record(store, d, scope, hosts)           the occurrence and the sightings of a stored diagnosis
    failures(store, scope) -> [Group]        count, first and last seen, runs, hosts per fingerprint
    flagged_nodes(store, scope, min_jobs)    nodes in hardware-class failures of at least ``min_jobs`` runs
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from service.errors import StoreError
from service.fleet.fingerprint import fingerprint
from service.fleet.nodes import is_hardware, sightings
from service.models import Diagnosis
from service.store import Store
from service.store.schema import NodeSightingRow, OccurrenceRow, WorkspaceSecretRow

ANONYMOUS = "anon"


def scope_of(workspace_id: str | None) -> str:
    return workspace_id or ANONYMOUS


def secret_for(store: Store, scope: str) -> bytes:
    """The scope's HMAC key; the first caller makes it (two replicas racing: the unique key keeps one)."""
    with store.session() as s:
        row = s.get(WorkspaceSecretRow, scope)
        if row is not None:
            return bytes.fromhex(row.secret)
    try:
        with store.session() as s:
            s.add(WorkspaceSecretRow(scope=scope, secret=secrets.token_hex(32), created_at=datetime.now(UTC)))
    except StoreError as exc:
        if not isinstance(exc.__cause__, IntegrityError):
            raise
    with store.session() as s:
        made = s.get(WorkspaceSecretRow, scope)
        assert made is not None
        return bytes.fromhex(made.secret)


@dataclass(frozen=True)
class Recorded:
    fingerprint: str
    count: int  # the group's occurrences, this one included
    nodes: list[str]  # the nodes this diagnosis named


def record(store: Store, d: Diagnosis, scope: str, hosts: dict[str, str], secret: bytes) -> Recorded | None:
    """The diagnosis as an occurrence, and its node sightings; a second call for the same diagnosis does nothing
    (None)."""
    fp, decisive = fingerprint(d)
    seen = sightings(d, hosts, secret)
    now = datetime.now(UTC)
    hardware = is_hardware(d)
    xid = d.facts["xid"].value if "xid" in d.facts else None
    with store.session() as s:
        if s.get(OccurrenceRow, d.id) is not None:
            return None
        s.add(OccurrenceRow(diagnosis_id=d.id, scope=scope, fingerprint=fp, entry_id=d.entry_id, title=d.title[:200],
                            category=d.category, template=decisive, created_at=now,
                            hosts=json.dumps(sorted({s.node for s in seen if s.node.startswith("node-")}))))
        for sight in seen:
            s.add(NodeSightingRow(diagnosis_id=d.id, node=sight.node, scope=scope, hardware=int(hardware),
                                  entry_id=d.entry_id, xid=xid, pci=sight.pci, evidence=sight.evidence, created_at=now))
        s.flush()
        count = s.scalar(select(func.count()).where(OccurrenceRow.scope == scope, OccurrenceRow.fingerprint == fp))
    return Recorded(fp, int(count or 0), [sight.node for sight in seen])


@dataclass
class Group:
    fingerprint: str
    entry_id: str | None
    title: str
    category: str | None
    template: str
    count: int
    first_seen: datetime
    last_seen: datetime
    runs: list[str] = field(default_factory=list)  # the diagnoses (one per run), newest first
    hosts: list[str] = field(default_factory=list)  # node pseudonyms


def _aware(t: datetime) -> datetime:
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def failures(store: Store, scope: str, *, limit: int = 50, runs_per_group: int = 20) -> list[Group]:
    """The scope's failure groups, the most recent first."""
    with store.session() as s:
        rows = s.execute(
            select(OccurrenceRow.fingerprint, func.count(), func.min(OccurrenceRow.created_at), func.max(OccurrenceRow.created_at))
            .where(OccurrenceRow.scope == scope).group_by(OccurrenceRow.fingerprint)
            .order_by(func.max(OccurrenceRow.created_at).desc()).limit(limit)
        ).all()
        groups: list[Group] = []
        for fp, count, first, last in rows:
            members = s.scalars(select(OccurrenceRow).where(OccurrenceRow.scope == scope, OccurrenceRow.fingerprint == fp)
                                .order_by(OccurrenceRow.created_at.desc(), OccurrenceRow.diagnosis_id)).all()
            latest = members[0]
            hosts = sorted({h for m in members for h in json.loads(m.hosts)})
            groups.append(Group(fp, latest.entry_id, latest.title, latest.category, latest.template, int(count),
                                _aware(first), _aware(last), [m.diagnosis_id for m in members[:runs_per_group]], hosts))
        return groups


@dataclass
class FlaggedNode:
    node: str
    jobs: int  # distinct runs (diagnoses) with a hardware-class failure naming it
    first_seen: datetime
    last_seen: datetime
    evidence: list[dict[str, str | None]]  # per run: diagnosis id, entry, Xid, PCI bus ids, the line


def flagged_nodes(store: Store, scope: str, min_jobs: int) -> list[FlaggedNode]:
    """Nodes named by hardware-class failures of at least ``min_jobs`` distinct runs, the most named first."""
    with store.session() as s:
        rows = s.execute(
            select(NodeSightingRow.node, func.count(func.distinct(NodeSightingRow.diagnosis_id)))
            .where(NodeSightingRow.scope == scope, NodeSightingRow.hardware == 1)
            .group_by(NodeSightingRow.node)
            .having(func.count(func.distinct(NodeSightingRow.diagnosis_id)) >= min_jobs)
        ).all()
        out: list[FlaggedNode] = []
        for node, jobs in rows:
            seen = s.scalars(select(NodeSightingRow).where(NodeSightingRow.scope == scope, NodeSightingRow.node == node,
                                                           NodeSightingRow.hardware == 1)
                             .order_by(NodeSightingRow.created_at)).all()
            out.append(FlaggedNode(node, int(jobs), _aware(seen[0].created_at), _aware(seen[-1].created_at),
                                   [{"diagnosis_id": r.diagnosis_id, "entry_id": r.entry_id, "xid": r.xid, "pci": r.pci,
                                     "line": r.evidence} for r in seen]))
        return sorted(out, key=lambda n: (-n.jobs, n.node))
