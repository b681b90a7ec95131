"""Continuous ladders: their settings, their scheduled games, and leases.

* ``ladders`` gets the settings of a ladder that plays on by itself: ``continuous``,
  ``paused``, ``games_in_flight``, ``games_per_hour`` and ``daily_cap`` (games per
  entrant per 24 hours, ``NULL``: no cap); existing ladders are not continuous.
* ``ladder_matches`` and ``ladder_match_seats``: each game the scheduler started, until
  it is settled once (rated, or void), and its seats (the daily cap is counted on them).
* ``leases``: named leases that elect one holder among the servers sharing the database
  (the ladder scheduler's is ``ladder-scheduler``).

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-27 15:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Add the ladder settings, ``ladder_matches``, ``ladder_match_seats`` and ``leases``."""
    with op.batch_alter_table("ladders") as batch:
        batch.add_column(
            sa.Column("continuous", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch.add_column(
            sa.Column("paused", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch.add_column(
            sa.Column("games_in_flight", sa.Integer(), server_default="1", nullable=False)
        )
        batch.add_column(
            sa.Column("games_per_hour", sa.Integer(), server_default="60", nullable=False)
        )
        batch.add_column(sa.Column("daily_cap", sa.Integer(), nullable=True))
    op.create_table(
        "ladder_matches",
        sa.Column("game_id", sa.String(length=100), primary_key=True),
        sa.Column(
            "ladder_id",
            sa.Integer(),
            sa.ForeignKey("ladders.id", ondelete="CASCADE", name="fk_ladder_matches_ladder_id"),
            nullable=False,
        ),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("holder", sa.String(length=64), nullable=False),
        sa.Column("started_at", _WHEN, nullable=False),
        sa.Column("state", sa.String(length=8), nullable=False),
        sa.Column("number", sa.Integer(), nullable=True),
        sa.Column("settled_at", _WHEN, nullable=True),
        sa.CheckConstraint("state IN ('playing', 'rated', 'void')", name="ck_ladder_matches_state"),
    )
    op.create_index(
        "ix_ladder_matches_ladder_started", "ladder_matches", ["ladder_id", "started_at"]
    )
    op.create_index("ix_ladder_matches_state", "ladder_matches", ["state"])
    op.create_table(
        "ladder_match_seats",
        sa.Column(
            "game_id",
            sa.String(length=100),
            sa.ForeignKey(
                "ladder_matches.game_id",
                ondelete="CASCADE",
                name="fk_ladder_match_seats_game_id",
            ),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column(
            "ladder_id",
            sa.Integer(),
            sa.ForeignKey("ladders.id", ondelete="CASCADE", name="fk_ladder_match_seats_ladder_id"),
            nullable=False,
        ),
        sa.Column("entrant", sa.String(length=100), nullable=False),
    )
    op.create_index("ix_ladder_match_seats_entrant", "ladder_match_seats", ["ladder_id", "entrant"])
    op.create_table(
        "leases",
        sa.Column("name", sa.String(length=64), primary_key=True),
        sa.Column("holder", sa.String(length=64), nullable=True),
        sa.Column("until", _WHEN, nullable=True),
        sa.Column("since", _WHEN, nullable=True),
        sa.Column("term", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    """Drop the tables and the settings (scheduled games' records go; rated games stay)."""
    op.drop_table("leases")
    op.drop_index("ix_ladder_match_seats_entrant", table_name="ladder_match_seats")
    op.drop_table("ladder_match_seats")
    op.drop_index("ix_ladder_matches_state", table_name="ladder_matches")
    op.drop_index("ix_ladder_matches_ladder_started", table_name="ladder_matches")
    op.drop_table("ladder_matches")
    with op.batch_alter_table("ladders") as batch:
        for column in ("daily_cap", "games_per_hour", "games_in_flight", "paused", "continuous"):
            batch.drop_column(column)
