"""jobs: durable background work (service/jobs); on PostgreSQL also procrastinate's own schema

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(24), nullable=False),
        sa.Column("scope", sa.String(80), nullable=False),
        sa.Column("key", sa.String(200), nullable=True),
        sa.Column("workspace_id", sa.String(32), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("max_attempts", sa.Integer, nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("usage_subject", sa.String(80), nullable=True),
        sa.Column("usage_kind", sa.String(16), nullable=True),
        sa.Column("usage_day", sa.Date, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("run_after", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ux_jobs_scope_key", "jobs", ["scope", "key"], unique=True)
    op.create_index("ix_jobs_status", "jobs", ["status"])
    op.create_index("ix_jobs_due", "jobs", ["status", "run_after"])
    if op.get_bind().dialect.name == "postgresql":
        from service.jobs.queue import procrastinate_schema

        op.execute(procrastinate_schema())


def downgrade() -> None:
    op.drop_table("jobs")
