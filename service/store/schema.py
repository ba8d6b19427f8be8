"""Tables. Only masked text and diagnoses are stored: never a raw log."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, DateTime, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class DiagnosisRow(Base):
    __tablename__ = "diagnoses"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    workspace_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    entry_id: Mapped[str | None] = mapped_column(String(80), nullable=True)
    confidence: Mapped[float] = mapped_column(Float)
    composer: Mapped[str] = mapped_column(String(120))
    body: Mapped[str] = mapped_column(Text)  # the Diagnosis JSON
    excerpt: Mapped[str] = mapped_column(Text)  # masked excerpt (JSON list of {file, line, rank, text})


class MessageRow(Base):
    __tablename__ = "messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    diagnosis_id: Mapped[str] = mapped_column(ForeignKey("diagnoses.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    role: Mapped[str] = mapped_column(String(16))  # "user" | "assistant"
    body: Mapped[str] = mapped_column(Text)  # masked question, or the answer JSON

    __table_args__ = (Index("ix_messages_diagnosis", "diagnosis_id", "id"),)


# ---------------------------------------------------------------- accounts (migration 0002)


class WorkspaceRow(Base):
    """An organisation: its base plan, and an evaluation plan until ``plan_until`` when a code was redeemed."""

    __tablename__ = "workspaces"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    plan: Mapped[str] = mapped_column(String(16))  # the base plan: "free" | "scale"
    trial_plan: Mapped[str | None] = mapped_column(String(16), nullable=True)  # from a redeemed evaluation code
    trial_daily: Mapped[int | None] = mapped_column(Integer, nullable=True)
    plan_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ApiKeyRow(Base):
    """An API key: only its SHA-256 is kept; ``prefix`` (the part before the secret) finds it."""

    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    workspace_id: Mapped[str] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"), index=True)
    prefix: Mapped[str] = mapped_column(String(32), unique=True)
    key_hash: Mapped[str] = mapped_column(String(64))
    label: Mapped[str | None] = mapped_column(String(80), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class UsageRow(Base):
    """How many of a kind ("diagnosis" | "question") a subject (workspace id or "anon:<ip>") used on a UTC day."""

    __tablename__ = "usage_daily"

    subject: Mapped[str] = mapped_column(String(80), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    count: Mapped[int] = mapped_column(Integer)


class EvalCodeRow(Base):
    """A single-use evaluation code (only its SHA-256 is kept): ``plan`` for ``days`` with ``daily`` diagnoses."""

    __tablename__ = "eval_codes"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    plan: Mapped[str] = mapped_column(String(16))
    days: Mapped[int] = mapped_column(Integer)
    daily: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    redeemed_by: Mapped[str | None] = mapped_column(ForeignKey("workspaces.id", ondelete="SET NULL"), nullable=True)
    redeemed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


# ---------------------------------------------------------------- API conventions (migration 0003)


class IdempotencyRow(Base):
    """A POST's ``Idempotency-Key`` within its caller's scope: the request's fingerprint and, once done, its answer.

    ``state`` is "pending" while the first request runs (its ``expires_at`` is then short, so a replica that died
    mid-request frees the key) and "done" with the answer kept until ``expires_at``."""

    __tablename__ = "idempotency_keys"

    scope: Mapped[str] = mapped_column(String(80), primary_key=True)  # the caller: a workspace id or "anon:<address>"
    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)  # SHA-256 of the key the client chose
    fingerprint: Mapped[str] = mapped_column(String(64))  # SHA-256 of the route and the request's content
    state: Mapped[str] = mapped_column(String(16))  # "pending" | "done"
    status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    body: Mapped[str | None] = mapped_column(Text, nullable=True)  # the answer's JSON (masked text only)
    resource_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)  # the diagnosis it made or is about
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class ShareRow(Base):
    """A diagnosis's share link: the nonce its signed token covers; ``revoked_at`` set when the link was revoked.

    Deleted with its diagnosis (so the link answers 404); a new nonce makes every earlier link of it invalid."""

    __tablename__ = "share_links"

    diagnosis_id: Mapped[str] = mapped_column(ForeignKey("diagnoses.id", ondelete="CASCADE"), primary_key=True)
    nonce: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class ServiceSecretRow(Base):
    """A secret made once for the whole deployment (every replica reads the same one): the share-link key when
    ``CRASHDOC_SHARE_SECRET`` is not set."""

    __tablename__ = "service_secrets"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
# ---------------------------------------------------------------- jobs (migration 0004)


class JobRow(Base):
    """A unit of background work (service/jobs): accepted once, run by a worker, retried with backoff.

    ``payload`` holds only masked text (a masked run, a masked question), compressed. ``scope`` + ``key`` is the
    caller's idempotency key: the same key from the same caller finds the job it made, on any replica."""

    __tablename__ = "jobs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    kind: Mapped[str] = mapped_column(String(24))  # "diagnose" | "slack" | "alert"
    scope: Mapped[str] = mapped_column(String(80))  # who may see it: a workspace id, "anon:<ip>", "slack:<team>"
    key: Mapped[str | None] = mapped_column(String(200), nullable=True)  # the caller's idempotency key
    workspace_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    status: Mapped[str] = mapped_column(String(16), index=True)  # queued | running | done | failed
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer)
    payload: Mapped[str] = mapped_column(Text)  # base64 of zlib'd JSON, masked text only
    result: Mapped[str | None] = mapped_column(Text, nullable=True)  # JSON
    error: Mapped[str | None] = mapped_column(Text, nullable=True)  # JSON {code, message}
    # What the job was counted against, given back when it fails for good.
    usage_subject: Mapped[str | None] = mapped_column(String(80), nullable=True)
    usage_kind: Mapped[str | None] = mapped_column(String(16), nullable=True)
    usage_day: Mapped[date | None] = mapped_column(Date, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    run_after: Mapped[datetime] = mapped_column(DateTime(timezone=True))  # not before (backoff)
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)  # a running claim
    delivered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)  # reply posted
    # The request behind ``key`` (migration 0008): the same key with another request is refused, not taken for a retry.
    fingerprint: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # JSON: the attempts' side effects, {step: "started" | "done" | a kept value}; a step found "started" by a later
    # attempt was under way when its process died, and is not done again (service/jobs/kinds.py).
    steps: Mapped[str | None] = mapped_column(Text, nullable=True)

    __table_args__ = (Index("ux_jobs_scope_key", "scope", "key", unique=True), Index("ix_jobs_due", "status", "run_after"))


# ---------------------------------------------------------------- fleet (migration 0005)


class WorkspaceSecretRow(Base):
    """The key a workspace's pseudonyms are made with (HMAC): the same node is the same pseudonym in every diagnosis
    of one workspace, and another workspace cannot match it. Made on first use; never leaves the database."""

    __tablename__ = "workspace_secrets"

    scope: Mapped[str] = mapped_column(String(80), primary_key=True)  # a workspace id, or "anon"
    secret: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class OccurrenceRow(Base):
    """One diagnosis as an occurrence of a failure group (its fingerprint)."""

    __tablename__ = "occurrences"

    diagnosis_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    scope: Mapped[str] = mapped_column(String(80))  # the workspace id, or "anon"
    fingerprint: Mapped[str] = mapped_column(String(16))
    entry_id: Mapped[str | None] = mapped_column(String(80), nullable=True)
    title: Mapped[str] = mapped_column(String(200))
    category: Mapped[str | None] = mapped_column(String(40), nullable=True)
    template: Mapped[str] = mapped_column(Text)  # the decisive line with what varies replaced (masked text)
    hosts: Mapped[str] = mapped_column(Text)  # JSON list of the workspace's node pseudonyms
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_occurrences_scope_fp", "scope", "fingerprint", "created_at"),)


class NodeSightingRow(Base):
    """A node (a host, or a GPU by its UUID) named by a diagnosis, as the workspace's pseudonym, with the evidence."""

    __tablename__ = "node_sightings"

    diagnosis_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    node: Mapped[str] = mapped_column(String(40), primary_key=True)  # node-<hmac>, gpu-<hmac>
    scope: Mapped[str] = mapped_column(String(80))
    hardware: Mapped[bool] = mapped_column(Integer)  # a hardware-class failure (category hardware, or an Xid)
    entry_id: Mapped[str | None] = mapped_column(String(80), nullable=True)
    xid: Mapped[str | None] = mapped_column(String(16), nullable=True)
    pci: Mapped[str | None] = mapped_column(String(200), nullable=True)  # bus ids on the evidence lines
    evidence: Mapped[str] = mapped_column(Text)  # the masked line that names it
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_node_sightings_scope_node", "scope", "node"),)


class AlertSubscriptionRow(Base):
    """A workspace's subscription: where to send (a signed webhook, or a Slack incoming webhook) and on what."""

    __tablename__ = "alert_subscriptions"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    scope: Mapped[str] = mapped_column(String(80), index=True)
    kind: Mapped[str] = mapped_column(String(16))  # "webhook" | "slack"
    url: Mapped[str] = mapped_column(Text)
    secret: Mapped[str] = mapped_column(String(64))  # signs webhook bodies (HMAC-SHA256); shown once when made
    events: Mapped[str] = mapped_column(Text)  # JSON list: new_group, group_threshold, flagged_node
    threshold: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))




# ---------------------------------------------------------------- feedback (migration 0007)


class FeedbackRow(Base):
    """A user's verdict on a diagnosis: right cause, or wrong and (maybe) what it was; the note is masked."""

    __tablename__ = "feedback"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    diagnosis_id: Mapped[str] = mapped_column(ForeignKey("diagnoses.id", ondelete="CASCADE"), index=True)
    workspace_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    verdict: Mapped[str] = mapped_column(String(8))  # "right" | "wrong"
    label: Mapped[str | None] = mapped_column(String(80), nullable=True)  # the entry id the user says it was
    note: Mapped[str | None] = mapped_column(Text, nullable=True)  # "it was ...", masked like a question
    source: Mapped[str] = mapped_column(String(16))  # "web" | "api" | "slack"
