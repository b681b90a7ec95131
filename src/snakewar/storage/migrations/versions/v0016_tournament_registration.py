"""Tournaments people enter: registration, caps, a start time and the scheduler's notes.

``tournament_settings`` holds, per tournament, who may enter snakes themselves
(``registration``: ``closed``, ``open`` or ``owner``) and until when
(``registration_closes_at``), the caps (``max_entrants``, ``per_owner``), when the
tournament scheduler starts it (``starts_at``; ``NULL``: its admin does) and how long it
waits between rounds (``round_gap_s``), who made it (``creator_id``), the ladder it last
qualified its entrants from (``qualifier``), and the scheduler's notes (``next_round_at``,
``finished_at``).  Tournaments made before have no row: closed, uncapped, unscheduled.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-27 19:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Add ``tournament_settings``."""
    op.create_table(
        "tournament_settings",
        sa.Column(
            "tournament_id",
            sa.String(length=100),
            sa.ForeignKey(
                "tournaments.id", ondelete="CASCADE", name="fk_tournament_settings_tournament_id"
            ),
            primary_key=True,
        ),
        sa.Column("registration", sa.String(length=8), nullable=False),
        sa.Column("registration_closes_at", _WHEN, nullable=True),
        sa.Column("max_entrants", sa.Integer(), nullable=True),
        sa.Column("per_owner", sa.Integer(), nullable=True),
        sa.Column("starts_at", _WHEN, nullable=True),
        sa.Column("round_gap_s", sa.Integer(), nullable=False),
        sa.Column(
            "creator_id",
            sa.Integer(),
            sa.ForeignKey(
                "users.id", ondelete="SET NULL", name="fk_tournament_settings_creator_id_users"
            ),
            nullable=True,
        ),
        sa.Column("qualifier", sa.JSON(), nullable=True),
        sa.Column("next_round_at", _WHEN, nullable=True),
        sa.Column("finished_at", _WHEN, nullable=True),
        sa.CheckConstraint(
            "registration IN ('closed', 'open', 'owner')",
            name="ck_tournament_settings_registration",
        ),
    )
    op.create_index(
        "ix_tournament_settings_starts_at", "tournament_settings", ["starts_at"], unique=False
    )


def downgrade() -> None:
    """Drop ``tournament_settings`` (every tournament is closed and unscheduled again)."""
    op.drop_index("ix_tournament_settings_starts_at", table_name="tournament_settings")
    op.drop_table("tournament_settings")
