"""Alembic environment: the URL and connection come from crashdoc's store, never from alembic.ini."""

from __future__ import annotations

from alembic import context

from service.store.schema import Base

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only through service.store.migrate()
    raise RuntimeError("run migrations through service.store.migrate()")
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
