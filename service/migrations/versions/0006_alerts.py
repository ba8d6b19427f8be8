"""alerts: a workspace's subscriptions to new failure groups, groups passing N occurrences and flagged nodes

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "alert_subscriptions",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("scope", sa.String(80), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("secret", sa.String(64), nullable=False),
        sa.Column("events", sa.Text, nullable=False),
        sa.Column("threshold", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_alert_subscriptions_scope", "alert_subscriptions", ["scope"])


def downgrade() -> None:
    op.drop_table("alert_subscriptions")
