"""Sharing: saved games with titles, and bulk export jobs with their archives.

``saved_games`` keeps the games a user saved under a title of theirs; ``export_jobs``
one row per bulk export of a ladder's, tournament's or user's games (its state,
progress, the server building it and, once done, the archive until it expires).

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-27 19:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | Sequence[str] | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Make the two tables."""
    op.create_table(
        "saved_games",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=100), nullable=False),
        sa.Column("title", sa.String(length=120), nullable=False),
        sa.Column("saved_at", _WHEN, nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], ondelete="CASCADE", name="fk_saved_games_user_id_users"
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], ondelete="CASCADE", name="fk_saved_games_game_id_games"
        ),
        sa.PrimaryKeyConstraint("user_id", "game_id"),
    )
    op.create_index("ix_saved_games_user_saved_at", "saved_games", ["user_id", "saved_at"])
    op.create_table(
        "export_jobs",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("target", sa.String(length=100), nullable=False),
        sa.Column("state", sa.String(length=8), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("size_bytes", sa.BigInteger(), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("server_id", sa.String(length=64), nullable=True),
        sa.Column("lease_until", _WHEN, nullable=True),
        sa.Column("archive", sa.LargeBinary(), nullable=True),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("updated_at", _WHEN, nullable=False),
        sa.Column("expires_at", _WHEN, nullable=False),
        sa.CheckConstraint(
            "state IN ('queued', 'running', 'done', 'failed')", name="ck_export_jobs_state"
        ),
        sa.CheckConstraint("kind IN ('ladder', 'tournament', 'user')", name="ck_export_jobs_kind"),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], ondelete="CASCADE", name="fk_export_jobs_owner_id_users"
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_export_jobs_owner_created", "export_jobs", ["owner_id", "created_at"])
    op.create_index("ix_export_jobs_state", "export_jobs", ["state"])


def downgrade() -> None:
    """Drop the tables (saved titles and exports are forgotten)."""
    op.drop_index("ix_export_jobs_state", table_name="export_jobs")
    op.drop_index("ix_export_jobs_owner_created", table_name="export_jobs")
    op.drop_table("export_jobs")
    op.drop_index("ix_saved_games_user_saved_at", table_name="saved_games")
    op.drop_table("saved_games")
