"""API conventions: idempotency keys, share links, the deployment's own secrets

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "idempotency_keys",
        sa.Column("scope", sa.String(80), primary_key=True),
        sa.Column("key_hash", sa.String(64), primary_key=True),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("status", sa.Integer, nullable=True),
        sa.Column("body", sa.Text, nullable=True),
        sa.Column("resource_id", sa.String(32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_idempotency_keys_resource_id", "idempotency_keys", ["resource_id"])
    op.create_index("ix_idempotency_keys_expires_at", "idempotency_keys", ["expires_at"])
    op.create_table(
        "share_links",
        sa.Column("diagnosis_id", sa.String(32), sa.ForeignKey("diagnoses.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("nonce", sa.String(32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "service_secrets",
        sa.Column("name", sa.String(40), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("service_secrets")
    op.drop_table("share_links")
    op.drop_index("ix_idempotency_keys_expires_at", "idempotency_keys")
    op.drop_index("ix_idempotency_keys_resource_id", "idempotency_keys")
    op.drop_table("idempotency_keys")
