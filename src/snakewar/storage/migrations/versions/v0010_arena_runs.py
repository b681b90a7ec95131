"""Runs that servers sharing a database resume once: ``arena_runs``, games recorded once.

* ``arena_runs``: one row per ladder or tournament run, with the server that plays it
  and its lease, so that of several servers exactly one resumes a run its server left,
  an admin's stop reaches the server that plays it, and a crashed ladder run knows the
  games it still owes.
* ``tournament_games`` gets a unique index on ``(tournament_id, match_id, number)``:
  a match's game is recorded once.  Two servers that both resumed a tournament (before
  this revision) may have recorded a game twice, which left its bracket unloadable; the
  later copies are deleted first (the earliest is the game as it was first recorded, and
  every copy is the same game: the same id, seed and seats).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Create ``arena_runs``; record each tournament game once."""
    op.create_table(
        "arena_runs",
        sa.Column("key", sa.String(length=116), primary_key=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("target", sa.String(length=100), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("stop_requested", sa.Boolean(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=True),
        sa.Column("base", sa.Integer(), nullable=True),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("server_id", sa.String(length=64), nullable=True),
        sa.Column("lease_until", _WHEN, nullable=True),
        sa.Column("updated_at", _WHEN, nullable=False),
        sa.CheckConstraint(
            "state IN ('running', 'stopped', 'failed', 'done')", name="ck_arena_runs_state"
        ),
    )
    games = sa.table(
        "tournament_games",
        sa.column("tournament_id", sa.String),
        sa.column("ordinal", sa.Integer),
        sa.column("match_id", sa.String),
        sa.column("number", sa.Integer),
    )
    earlier = games.alias("earlier")
    op.execute(
        sa.delete(games).where(
            sa.exists().where(
                earlier.c.tournament_id == games.c.tournament_id,
                earlier.c.match_id == games.c.match_id,
                earlier.c.number == games.c.number,
                earlier.c.ordinal < games.c.ordinal,
            )
        )
    )
    op.create_index(
        "ux_tournament_games_match_number",
        "tournament_games",
        ["tournament_id", "match_id", "number"],
        unique=True,
    )


def downgrade() -> None:
    """Drop ``arena_runs`` and the index (the deleted copies stay deleted)."""
    op.drop_index("ux_tournament_games_match_number", table_name="tournament_games")
    op.drop_table("arena_runs")
