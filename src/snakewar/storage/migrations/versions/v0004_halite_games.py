"""Halite III games: one row per game, its summary and its compressed .hlt replay.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-21 12:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``halite_games`` and its index on ``created_at``."""
    op.create_table(
        "halite_games",
        sa.Column("id", sa.String(length=100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("num_players", sa.Integer(), nullable=False),
        sa.Column("players", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("ranks", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("scores", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("replay", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_halite_games_created_at", "halite_games", ["created_at"], unique=False)


def downgrade() -> None:
    """Drop ``halite_games``."""
    op.drop_index("ix_halite_games_created_at", table_name="halite_games")
    op.drop_table("halite_games")
