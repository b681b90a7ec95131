"""The first schema: games and their frames.

Revision ID: 0001
Revises:
Create Date: 2025-06-01 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``games`` and ``frames``."""
    op.create_table(
        "games",
        sa.Column("id", sa.String(length=100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("ruleset", sa.Text(), nullable=False),
        sa.Column("map", sa.Text(), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("timeout_ms", sa.Integer(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("config", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("result", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("winner_name", sa.Text(), nullable=True),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column(
            "snakes",
            sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(), "postgresql"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "status IN ('running', 'complete', 'aborted', 'cancelled')", name="ck_games_status"
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_games_created_at", "games", ["created_at"])
    op.create_index("ix_games_status_created_at", "games", ["status", "created_at"])
    op.create_table(
        "frames",
        sa.Column("game_id", sa.String(length=100), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("frame", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("replay_line", sa.JSON(none_as_null=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name="fk_frames_game_id_games", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "turn"),
    )


def downgrade() -> None:
    """Drop ``frames`` and ``games``."""
    op.drop_table("frames")
    op.drop_index("ix_games_status_created_at", table_name="games")
    op.drop_index("ix_games_created_at", table_name="games")
    op.drop_table("games")
