"""Alembic revisions of the store's schema, oldest first (``v0001_initial`` ...)."""
