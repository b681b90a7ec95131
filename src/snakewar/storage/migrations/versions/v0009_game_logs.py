"""What a game logged about each seat: ``game_logs`` (a Halite bot's error log).

A finished game keeps, per seat that has one, the log the game wrote about it: the
engine's errors and what the bot wrote to stderr.  Its owner reads it to learn why the
bot failed; deleting the game deletes its logs.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27 04:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``game_logs``."""
    op.create_table(
        "game_logs",
        sa.Column(
            "game_id",
            sa.String(length=100),
            sa.ForeignKey("games.id", ondelete="CASCADE", name="fk_game_logs_game_id_games"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("log", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    """Drop ``game_logs`` (the logs are lost)."""
    op.drop_table("game_logs")
