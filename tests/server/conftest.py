"""Fixtures shared by the server tests: a fresh database on SQLite and on PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from snakewar.storage import Store
from tests.system_tools import postgres_url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database: a SQLite file, or a new schema in the PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'games.db'}"
        return
    url = sa.make_url(postgres_url()).set(drivername="postgresql+psycopg")
    schema = f"snakewar_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(url, poolclass=sa.NullPool)
    with admin.begin() as connection:
        connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        # Every connection of the store works in the test's own schema.
        scoped = url.update_query_dict({"options": f"-csearch_path={schema}"})
        yield scoped.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    opened = Store(db_url)
    try:
        yield opened
    finally:
        opened.close()
