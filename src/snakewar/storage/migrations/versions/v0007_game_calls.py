"""The request inspector's table: ``game_calls``, each turn's calls of a game.

Only games that keep their calls (a local server's) have rows; deleting a game
deletes them.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``game_calls``."""
    op.create_table(
        "game_calls",
        sa.Column(
            "game_id",
            sa.String(length=100),
            sa.ForeignKey("games.id", ondelete="CASCADE", name="fk_game_calls_game_id_games"),
            primary_key=True,
        ),
        sa.Column("turn", sa.Integer(), primary_key=True),
        sa.Column("calls", sa.JSON(none_as_null=True), nullable=False),
    )


def downgrade() -> None:
    """Drop ``game_calls`` (the recorded calls are lost)."""
    op.drop_table("game_calls")
