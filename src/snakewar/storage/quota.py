"""What each user stores: the bytes of their uploads (replays and bot archives), and a cap.

A user's stored bytes are the ``.hlt`` files they uploaded (games of source ``upload``
that they own) and the archives of their uploaded bots.  Games the server played are
not counted: the server's own caps bound them.  Nothing new is kept: the sums are
read from the rows themselves (``length()`` of the stored bytes, which PostgreSQL
answers from the value's header, without reading it), so deleting an upload frees its
room at once.

:func:`hold_quota` is called in the transaction that stores an upload: it locks the
owner first, so two uploads of one user, on one server or several sharing a database,
cannot both pass the check and together go past the quota.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from snakewar.errors import TooLargeError
from snakewar.storage.database import StoreError
from snakewar.storage.models import GameModel, SnakeModel, UserModel

__all__ = ["UPLOAD_SOURCE", "QuotaExceededError", "hold_quota", "stored_by_user", "stored_bytes"]

UPLOAD_SOURCE = "upload"
"""The ``source`` of a game stored from a user's upload (counted against their quota)."""


class QuotaExceededError(StoreError, TooLargeError):
    """Raised when an upload would take its owner past their storage quota (413)."""


def _replays() -> sa.Select[Any]:
    size = sa.func.coalesce(sa.func.sum(sa.func.length(GameModel.replay)), 0)
    return (
        sa.select(GameModel.owner_id, size)
        .where(GameModel.source == UPLOAD_SOURCE, GameModel.owner_id.is_not(None))
        .group_by(GameModel.owner_id)
    )


def _archives() -> sa.Select[Any]:
    # A built bot is stored beside its sources: both count.
    size = sa.func.coalesce(sa.func.sum(sa.func.length(SnakeModel.archive)), 0) + sa.func.coalesce(
        sa.func.sum(sa.func.length(SnakeModel.build)), 0
    )
    return sa.select(SnakeModel.owner_id, size).group_by(SnakeModel.owner_id)


def stored_bytes(session: Session, owner_id: int) -> int:
    """The bytes ``owner_id``'s uploaded replays and bot archives take."""
    total = 0
    for query in (
        _replays().where(GameModel.owner_id == owner_id),
        _archives().where(SnakeModel.owner_id == owner_id),
    ):
        for _, size in session.execute(query):
            total += int(size or 0)
    return total


def stored_by_user(session: Session) -> dict[int, int]:
    """Every user's stored bytes, by user id (users who store nothing are left out)."""
    totals: dict[int, int] = {}
    for query in (_replays(), _archives()):
        for owner_id, size in session.execute(query):
            totals[int(owner_id)] = totals.get(int(owner_id), 0) + int(size or 0)
    return totals


def hold_quota(session: Session, owner_id: int, adding: int, quota: int | None) -> None:
    """Lock ``owner_id`` for this transaction and refuse ``adding`` bytes past ``quota``.

    ``quota`` ``None`` stores without a cap (an admin, a local server) but still locks,
    so that a capped upload running beside it counts it.

    Raises:
        QuotaExceededError: naming what the owner stores, the upload's size and the quota.
    """
    # A write first: it locks the owner's row (PostgreSQL) or the database (SQLite) until
    # the upload is stored, where a read would let two transactions both see room.
    session.execute(
        sa.update(UserModel).where(UserModel.id == owner_id).values(role=UserModel.role)
    )
    if quota is None:
        return
    used = stored_bytes(session, owner_id)
    if used + adding > quota:
        raise QuotaExceededError(
            f"storage quota: you store {used} bytes of uploads and this one is {adding} "
            f"bytes; the quota is {quota} bytes per user (delete an upload or an "
            "uploaded snake to make room)"
        )
