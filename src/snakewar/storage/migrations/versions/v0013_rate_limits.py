"""Rate limits shared by the servers of one database: ``rate_buckets`` and ``rate_uses``.

A public server's per-client limits (games created, log-in attempts, uploads, snake
tester runs) were counted in each process: two replicas, or ``snakewar serve --workers
2``, gave every client twice the rate.  Counted here, every server sharing the
database enforces the same limit.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27 15:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``rate_buckets`` and ``rate_uses``."""
    op.create_table(
        "rate_buckets",
        sa.Column("name", sa.String(length=32), primary_key=True),
        sa.Column("client", sa.String(length=80), primary_key=True),
        sa.Column("tat", sa.Float(), nullable=False),
    )
    op.create_index("ix_rate_buckets_tat", "rate_buckets", ["tat"])
    op.create_table(
        "rate_uses",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("client", sa.String(length=80), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("active_until", sa.Float(), nullable=True),
        sa.Column("expires", sa.Float(), nullable=False),
    )
    op.create_index("ix_rate_uses_name_client_at", "rate_uses", ["name", "client", "at"])
    op.create_index("ix_rate_uses_expires", "rate_uses", ["expires"])


def downgrade() -> None:
    """Drop both tables (the counts start again from nothing)."""
    op.drop_index("ix_rate_uses_expires", table_name="rate_uses")
    op.drop_index("ix_rate_uses_name_client_at", table_name="rate_uses")
    op.drop_table("rate_uses")
    op.drop_index("ix_rate_buckets_tat", table_name="rate_buckets")
    op.drop_table("rate_buckets")
