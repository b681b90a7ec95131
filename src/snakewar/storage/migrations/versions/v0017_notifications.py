"""Notifications: each user's settings and the messages queued for them.

``notify_settings`` keeps where a user is told (a webhook URL, an e-mail address) and
about what (each event's channels); ``notifications`` is the outbox: one row per
message, channel and user, delivered by any server's background worker (a claim with a
time limit keeps two servers from sending one twice), kept afterwards with its state
so that rate caps count what was sent and the account page shows what became of it.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-27 19:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Create ``notify_settings`` and ``notifications``."""
    op.create_table(
        "notify_settings",
        sa.Column(
            "user_id",
            sa.Integer(),
            sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_notify_settings_user_id_users"),
            primary_key=True,
        ),
        sa.Column("webhook_url", sa.Text(), nullable=True),
        sa.Column("email", sa.String(length=254), nullable=True),
        sa.Column("events", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("updated_at", WHEN, nullable=False),
    )
    op.create_table(
        "notifications",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "user_id",
            sa.Integer(),
            sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_notifications_user_id_users"),
            nullable=False,
        ),
        sa.Column("channel", sa.String(length=8), nullable=False),
        sa.Column("event", sa.String(length=32), nullable=False),
        sa.Column("target", sa.Text(), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("link", sa.Text(), nullable=True),
        sa.Column("state", sa.String(length=8), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("next_at", WHEN, nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("claimed_until", WHEN, nullable=True),
        sa.Column("sent_at", WHEN, nullable=True),
        sa.CheckConstraint(
            "state IN ('pending', 'sent', 'failed', 'capped')", name="ck_notifications_state"
        ),
        sa.CheckConstraint("channel IN ('webhook', 'email')", name="ck_notifications_channel"),
    )
    op.create_index(
        "ix_notifications_user_channel_created",
        "notifications",
        ["user_id", "channel", "created_at"],
    )
    op.create_index("ix_notifications_state_next_at", "notifications", ["state", "next_at"])


def downgrade() -> None:
    """Drop both tables (the settings and the outbox are forgotten)."""
    op.drop_index("ix_notifications_state_next_at", table_name="notifications")
    op.drop_index("ix_notifications_user_channel_created", table_name="notifications")
    op.drop_table("notifications")
    op.drop_table("notify_settings")
