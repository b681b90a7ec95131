"""Uploaded bots are built: the build's status, its one-line error, its log and result.

An upload in a compiled language (C++, Java, Go, Rust...) is built in a sandbox when it
is uploaded; ``snakes.build`` keeps the built folder (a ``.tar.gz``: what its games
run), addressed by ``build_sha256`` as the archive is by ``archive_sha256``;
``build_status`` says ``ready`` or ``failed``, ``build_error`` why in one line, and
``build_log`` what the build printed (its owner's to read).  Uploads stored before have
no build (null): they run from their archive, as they did.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-27 19:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | Sequence[str] | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the build's columns (null for every snake stored so far)."""
    with op.batch_alter_table("snakes") as batch:
        batch.add_column(sa.Column("build_status", sa.String(length=8), nullable=True))
        batch.add_column(sa.Column("build_error", sa.String(length=300), nullable=True))
        batch.add_column(sa.Column("build_log", sa.Text(), nullable=True))
        batch.add_column(sa.Column("build", sa.LargeBinary(), nullable=True))
        batch.add_column(sa.Column("build_sha256", sa.String(length=64), nullable=True))
    op.create_index("ix_snakes_build_sha256", "snakes", ["build_sha256"])


def downgrade() -> None:
    """Drop the build's columns (built bots are forgotten: they would run from source)."""
    op.drop_index("ix_snakes_build_sha256", table_name="snakes")
    with op.batch_alter_table("snakes") as batch:
        for name in ("build_sha256", "build", "build_log", "build_error", "build_status"):
            batch.drop_column(name)
