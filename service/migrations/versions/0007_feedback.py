"""feedback: a user's verdict on a diagnosis (right cause, or wrong and what it was), per workspace

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "feedback",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("diagnosis_id", sa.String(32), sa.ForeignKey("diagnoses.id", ondelete="CASCADE"), nullable=False),
        sa.Column("workspace_id", sa.String(32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("verdict", sa.String(8), nullable=False),
        sa.Column("label", sa.String(80), nullable=True),
        sa.Column("note", sa.Text, nullable=True),
        sa.Column("source", sa.String(16), nullable=False),
    )
    op.create_index("ix_feedback_diagnosis_id", "feedback", ["diagnosis_id"])
    op.create_index("ix_feedback_workspace_id", "feedback", ["workspace_id"])


def downgrade() -> None:
    op.drop_index("ix_feedback_workspace_id", "feedback")
    op.drop_index("ix_feedback_diagnosis_id", "feedback")
    op.drop_table("feedback")
