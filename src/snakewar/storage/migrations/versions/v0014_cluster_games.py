"""Games on a cluster: why a game failed, and uploaded archives by content.

``games.failure`` keeps why a game ended without a result (its worker died and the
retries ran out, say), so a failed game shows the reason with its frames;
``games.attempt`` counts the times a running game was played again from turn 0, so
that whoever follows it from the database sees that the frames started over.
``snakes.archive_sha256`` addresses an uploaded bot's archive by its SHA-256: a worker
fetches the archive by that hash, and checks it, before it runs the bot.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27 16:00:00
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the columns; hash the archives stored already."""
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("failure", sa.Text(), nullable=True))
        batch.add_column(
            sa.Column("attempt", sa.Integer(), nullable=False, server_default=sa.text("0"))
        )
    with op.batch_alter_table("snakes") as batch:
        batch.add_column(sa.Column("archive_sha256", sa.String(length=64), nullable=True))
    snakes = sa.table(
        "snakes",
        sa.column("id", sa.Integer()),
        sa.column("archive", sa.LargeBinary()),
        sa.column("archive_sha256", sa.String()),
    )
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(snakes.c.id, snakes.c.archive).where(snakes.c.archive.is_not(None))
    ).all()
    for snake_id, archive in rows:
        connection.execute(
            sa.update(snakes)
            .where(snakes.c.id == snake_id)
            .values(archive_sha256=hashlib.sha256(bytes(archive)).hexdigest())
        )
    op.create_index("ix_snakes_archive_sha256", "snakes", ["archive_sha256"])


def downgrade() -> None:
    """Drop the columns (the reasons, attempts and hashes are forgotten)."""
    op.drop_index("ix_snakes_archive_sha256", table_name="snakes")
    with op.batch_alter_table("snakes") as batch:
        batch.drop_column("archive_sha256")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("attempt")
        batch.drop_column("failure")
