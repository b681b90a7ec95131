"""Log-in backoff per account: ``login_failures`` and ``login_devices``.

Failed log-ins in a row are counted per account name (and per browser that logged in
to that account before), in the database, so that every server sharing it slows the
same guesser down, whichever address each guess comes from.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``login_failures`` and ``login_devices``."""
    op.create_table(
        "login_failures",
        sa.Column("key", sa.String(length=80), primary_key=True),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_failed_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_login_failures_last_failed_at", "login_failures", ["last_failed_at"])
    op.create_table(
        "login_devices",
        sa.Column("id", sa.String(length=64), primary_key=True),
        sa.Column(
            "user_id",
            sa.Integer(),
            sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_login_devices_user_id_users"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_login_devices_user_id", "login_devices", ["user_id"])


def downgrade() -> None:
    """Drop both tables (the counts and trusted browsers are forgotten)."""
    op.drop_index("ix_login_devices_user_id", table_name="login_devices")
    op.drop_table("login_devices")
    op.drop_index("ix_login_failures_last_failed_at", table_name="login_failures")
    op.drop_table("login_failures")
