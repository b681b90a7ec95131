"""The folder a command entrant runs in: ``workdir`` on ladder and tournament entrants.

A ladder or tournament entrant that is a command (``python3 MyBot.py``) keeps the
folder it was entered from, so that a later run started anywhere runs the bot from its
own folder.  Existing entrants keep ``NULL``: they run in the current folder, as before.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27 03:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("ladder_entries", "tournament_entrants")


def upgrade() -> None:
    """Add the nullable ``workdir`` columns."""
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("workdir", sa.Text(), nullable=True))


def downgrade() -> None:
    """Drop the ``workdir`` columns (entrants then run in the current folder)."""
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("workdir")
