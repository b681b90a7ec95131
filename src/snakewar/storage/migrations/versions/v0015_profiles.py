"""Profiles and ladders like the arena's: per-seat game statistics, placement games.

``games.stats`` keeps each seat's secondary statistics of a finished game (the game's
own: food eaten, halite collected...), which ladders average beside the rating;
``ladders.placement_games`` is how many games an entrant plays unranked ("in
placement") before it gets a rank (10, as the official arena); ``snakes.tags`` the
words an owner gives a snake (language, style) for the directory's search.  Two indexes serve the
games of a ladder, a tournament (``source``) and a user (``owner_id``), newest first.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-27 19:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``games.stats``, ``ladders.placement_games``, ``snakes.tags``, two indexes."""
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("stats", sa.JSON(none_as_null=True), nullable=True))
    with op.batch_alter_table("ladders") as batch:
        batch.add_column(
            sa.Column("placement_games", sa.Integer(), server_default="10", nullable=False)
        )
    with op.batch_alter_table("snakes") as batch:
        batch.add_column(sa.Column("tags", sa.JSON(none_as_null=True), nullable=True))
    op.create_index("ix_games_source_created_at", "games", ["source", "created_at"])
    op.create_index("ix_games_owner_id_created_at", "games", ["owner_id", "created_at"])


def downgrade() -> None:
    """Drop them again (statistics and placement settings are lost)."""
    op.drop_index("ix_games_owner_id_created_at", table_name="games")
    op.drop_index("ix_games_source_created_at", table_name="games")
    with op.batch_alter_table("snakes") as batch:
        batch.drop_column("tags")
    with op.batch_alter_table("ladders") as batch:
        batch.drop_column("placement_games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("stats")
