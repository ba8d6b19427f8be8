"""fleet: workspace pseudonym keys, failure occurrences (fingerprints), node sightings

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "workspace_secrets",
        sa.Column("scope", sa.String(80), primary_key=True),
        sa.Column("secret", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "occurrences",
        sa.Column("diagnosis_id", sa.String(32), primary_key=True),
        sa.Column("scope", sa.String(80), nullable=False),
        sa.Column("fingerprint", sa.String(16), nullable=False),
        sa.Column("entry_id", sa.String(80), nullable=True),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("category", sa.String(40), nullable=True),
        sa.Column("template", sa.Text, nullable=False),
        sa.Column("hosts", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_occurrences_scope_fp", "occurrences", ["scope", "fingerprint", "created_at"])
    op.create_table(
        "node_sightings",
        sa.Column("diagnosis_id", sa.String(32), primary_key=True),
        sa.Column("node", sa.String(40), primary_key=True),
        sa.Column("scope", sa.String(80), nullable=False),
        sa.Column("hardware", sa.Integer, nullable=False),
        sa.Column("entry_id", sa.String(80), nullable=True),
        sa.Column("xid", sa.String(16), nullable=True),
        sa.Column("pci", sa.String(200), nullable=True),
        sa.Column("evidence", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_node_sightings_scope_node", "node_sightings", ["scope", "node"])


def downgrade() -> None:
    op.drop_table("node_sightings")
    op.drop_table("occurrences")
    op.drop_table("workspace_secrets")
