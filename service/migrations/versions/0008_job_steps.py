"""jobs: the request fingerprint behind an idempotency key (the same key with another body is refused) and the
ledger of an attempt's side effects (a reply under way when its process died is not posted again)

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("jobs", sa.Column("fingerprint", sa.String(64), nullable=True))
    op.add_column("jobs", sa.Column("steps", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("steps")
        batch.drop_column("fingerprint")
