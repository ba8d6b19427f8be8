"""``INSERT ... ON CONFLICT DO NOTHING`` on SQLite and PostgreSQL (a nested transaction elsewhere): the one way
the store claims a row that concurrent requests, on any replica, may race for."""

from __future__ import annotations

from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session


def insert_if_absent(s: Session, table: Any, values: dict[str, Any], keys: list[str]) -> bool:
    """Insert the row unless one with the same ``keys`` exists; True when this call inserted it."""
    dialect = s.get_bind().dialect.name
    stmt: Any  # the two dialects' Insert classes share on_conflict_do_nothing but no base type
    if dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        stmt = sqlite_insert(table)
    elif dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        stmt = pg_insert(table)
    else:
        try:
            with s.begin_nested():
                s.add(table(**values))
            return True
        except IntegrityError:
            return False
    stmt = stmt.values(**values).on_conflict_do_nothing(index_elements=keys).returning(getattr(table, keys[0]))
    return s.execute(stmt).scalar() is not None
