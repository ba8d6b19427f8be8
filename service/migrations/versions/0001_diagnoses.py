"""diagnoses and chat messages

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "diagnoses",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("workspace_id", sa.String(32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("entry_id", sa.String(80), nullable=True),
        sa.Column("confidence", sa.Float, nullable=False),
        sa.Column("composer", sa.String(120), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("excerpt", sa.Text, nullable=False),
    )
    op.create_index("ix_diagnoses_workspace_id", "diagnoses", ["workspace_id"])
    op.create_index("ix_diagnoses_created_at", "diagnoses", ["created_at"])
    op.create_table(
        "messages",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("diagnosis_id", sa.String(32), sa.ForeignKey("diagnoses.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
    )
    op.create_index("ix_messages_diagnosis", "messages", ["diagnosis_id", "id"])


def downgrade() -> None:
    op.drop_table("messages")
    op.drop_table("diagnoses")
