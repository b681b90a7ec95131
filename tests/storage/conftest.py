"""The database fixtures of the server tests: SQLite always, PostgreSQL when configured."""

from tests.server.conftest import db_url, store

__all__ = ["db_url", "store"]
