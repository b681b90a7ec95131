"""Alembic's environment for the game store, run by every migration command.

:class:`~snakewar.storage.database.Database` hands in its own connection (in
``config.attributes["connection"]``); the command line
(``python -m snakewar.storage.migrations``) gives a URL instead.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context

from snakewar.storage.models import Base

# Any fixed number: PostgreSQL's advisory lock key for "migrating the game store".
_MIGRATION_LOCK_KEY = 0x534E414B  # "SNAK"


def _run(connection: sa.Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # SQLite cannot ALTER most things: Alembic copies the table instead.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            # Two servers starting at once: the second waits, then finds the schema current.
            connection.execute(
                sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK_KEY}
            )
        context.run_migrations()


def _main() -> None:
    config = context.config
    connection = config.attributes.get("connection")
    if isinstance(connection, sa.Connection):
        _run(connection)
        return
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no database: set sqlalchemy.url or pass a connection")
    if context.is_offline_mode():
        context.configure(
            url=url,
            target_metadata=Base.metadata,
            literal_binds=True,
            dialect_opts={"paramstyle": "named"},
        )
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    try:
        with engine.connect() as own:
            _run(own)
            own.commit()
    finally:
        engine.dispose()


_main()
