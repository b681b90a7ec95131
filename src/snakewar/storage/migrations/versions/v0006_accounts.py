"""Accounts and what they own: users, sessions, API tokens, invites, registered snakes.

``games`` gains ``owner_id``: who started a game (null for the server's own games,
ladders and tournaments, and every game stored before accounts existed), and
``server_id`` and ``lease_until``: which server plays a running game, and until when
it vouches for it.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON(none_as_null=True)
_WHEN = sa.DateTime(timezone=True)


def _user_fk(table: str, *, nullable: bool = False) -> sa.Column[int]:
    return sa.Column(
        "user_id",
        sa.Integer(),
        sa.ForeignKey(
            "users.id",
            ondelete="SET NULL" if nullable else "CASCADE",
            name=f"fk_{table}_user_id_users",
        ),
        nullable=nullable,
    )


def upgrade() -> None:
    """Create the account tables; add ``games.owner_id``."""
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(length=32), nullable=False, unique=True),
        sa.Column("password_hash", sa.Text(), nullable=False),
        sa.Column("role", sa.String(length=8), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(length=64), primary_key=True),
        _user_fk("sessions"),
        sa.Column("csrf", sa.String(length=64), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("expires_at", _WHEN, nullable=False),
    )
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        _user_fk("api_tokens"),
        sa.Column("label", sa.String(length=64), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False, unique=True),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("last_used_at", _WHEN, nullable=True),
        sa.Column("revoked_at", _WHEN, nullable=True),
    )
    op.create_table(
        "invites",
        sa.Column("code_hash", sa.String(length=64), primary_key=True),
        _user_fk("invites", nullable=True),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("expires_at", _WHEN, nullable=False),
        sa.Column("used_by", sa.String(length=32), nullable=True),
    )
    for table in ("sessions", "api_tokens", "invites"):
        op.create_index(f"ix_{table}_user_id", table, ["user_id"])
    op.create_table(
        "snakes",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "owner_id",
            sa.Integer(),
            sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_snakes_owner_id_users"),
            nullable=False,
        ),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("argv", _JSON, nullable=True),
        sa.Column("language", sa.String(length=16), nullable=True),
        sa.Column("archive", sa.LargeBinary(), nullable=True),
        sa.Column("workdir", sa.Text(), nullable=True),
        sa.Column("visibility", sa.String(length=8), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("updated_at", _WHEN, nullable=False),
        sa.UniqueConstraint("owner_id", "name", name="uq_snakes_owner_name"),
        sa.CheckConstraint("kind IN ('url', 'program', 'upload')", name="ck_snakes_kind"),
        sa.CheckConstraint("visibility IN ('public', 'private')", name="ck_snakes_visibility"),
    )
    op.create_index("ix_snakes_owner_id", "snakes", ["owner_id"])
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("owner_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("server_id", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("lease_until", _WHEN, nullable=True))
        batch.create_foreign_key(
            "fk_games_owner_id_users", "users", ["owner_id"], ["id"], ondelete="SET NULL"
        )


def downgrade() -> None:
    """Drop the account tables and ``games.owner_id`` (accounts are lost)."""
    with op.batch_alter_table("games") as batch:
        batch.drop_constraint("fk_games_owner_id_users", type_="foreignkey")
        batch.drop_column("owner_id")
        batch.drop_column("server_id")
        batch.drop_column("lease_until")
    op.drop_index("ix_snakes_owner_id", table_name="snakes")
    op.drop_table("snakes")
    for table in ("invites", "api_tokens", "sessions"):
        op.drop_index(f"ix_{table}_user_id", table_name=table)
        op.drop_table(table)
    op.drop_table("users")
