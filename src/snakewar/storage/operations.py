"""What an operator asks of the database: games by status, errors, sign-ups, space used.

Read-only queries for the admin dashboard (:mod:`snakewar.server.routers.admin`); each
is one short statement, bounded by its ``limit``.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from snakewar.storage.database import Database
from snakewar.storage.models import GameLogModel, GameModel, SnakeModel, UserModel

__all__ = ["BotError", "DiskUse", "FailedGame", "OperationsQueries", "SignUp"]

MAX_TEXT = 300
"""The most characters of a reason or a log line shown."""

LOG_TAIL = 2000
"""The characters read of the end of each bot error log."""


def _aware(when: dt.datetime) -> dt.datetime:
    return when if when.tzinfo is not None else when.replace(tzinfo=dt.UTC)


@dataclass(frozen=True, slots=True)
class FailedGame:
    """A game that ended without a result because something failed."""

    id: str
    game: str
    title: str
    reason: str
    at: dt.datetime


@dataclass(frozen=True, slots=True)
class BotError:
    """The end of what a game logged about one seat's bot (its error log)."""

    game_id: str
    game: str
    seat: int
    text: str
    at: dt.datetime


@dataclass(frozen=True, slots=True)
class SignUp:
    """An account, newest first."""

    name: str
    role: str
    disabled: bool
    created_at: dt.datetime


@dataclass(frozen=True, slots=True)
class DiskUse:
    """Space the database takes, and the part of it that is replay files and archives.

    Attributes:
        database_bytes: the whole database (SQLite: its files; PostgreSQL: the
            database's size as it reports it); ``None`` for a database in memory.
        replay_bytes: stored replay files (games kept whole).
        archive_bytes: uploaded bot archives.
        games: stored games.
        frames: stored frames (games stored turn by turn).
    """

    database_bytes: int | None
    replay_bytes: int
    archive_bytes: int
    games: int
    frames: int


def _tail(column: Any, count: int) -> Any:
    """The column's last ``count`` characters, cut by the database (logs are long)."""
    length = sa.func.length(column)
    return sa.func.substr(column, sa.case((length > count, length - (count - 1)), else_=1))


def _last_lines(text: str, count: int = 3) -> str:
    """A log's last ``count`` lines with words in them, as one line: where its error is."""
    lines = [line.strip() for line in text.splitlines() if any(c.isalnum() for c in line)]
    joined = " · ".join(lines[-count:])
    return joined if len(joined) <= MAX_TEXT else "…" + joined[-(MAX_TEXT - 1) :]


class OperationsQueries:
    """The dashboard's queries on ``db``."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def games_by_status(self) -> dict[str, int]:
        """Stored games by status (every status present, zero if none)."""
        with self.db.session() as session:
            rows = session.execute(
                sa.select(GameModel.status, sa.func.count()).group_by(GameModel.status)
            ).all()
        counts = {status: 0 for status in ("running", "complete", "aborted", "cancelled")}
        counts.update({str(status): int(count) for status, count in rows})
        return counts

    def failed_games(self, limit: int = 20) -> list[FailedGame]:
        """The latest aborted games, with why (the stored reason, or the lease's end)."""
        with self.db.session() as session:
            rows = session.execute(
                sa.select(
                    GameModel.id,
                    GameModel.game,
                    GameModel.title,
                    GameModel.failure,
                    GameModel.updated_at,
                )
                .where(GameModel.status == "aborted")
                .order_by(GameModel.updated_at.desc())
                .limit(limit)
            ).all()
        return [
            FailedGame(
                id,
                game,
                title,
                (failure or "its server stopped (its lease ran out)")[:MAX_TEXT],
                _aware(at),
            )
            for id, game, title, failure, at in rows
        ]

    def bot_errors(self, limit: int = 20) -> list[BotError]:
        """The latest games' bot error logs (the end of each, where the error is)."""
        with self.db.session() as session:
            rows = session.execute(
                sa.select(
                    GameLogModel.game_id,
                    GameModel.game,
                    GameLogModel.seat,
                    _tail(GameLogModel.log, LOG_TAIL),
                    GameModel.updated_at,
                )
                .join(GameModel, GameModel.id == GameLogModel.game_id)
                .order_by(GameModel.updated_at.desc(), GameLogModel.seat)
                .limit(limit)
            ).all()
        return [
            BotError(game_id, game, seat, _last_lines(text or ""), _aware(at))
            for game_id, game, seat, text, at in rows
        ]

    def sign_ups(self, limit: int = 20) -> list[SignUp]:
        """The newest accounts."""
        with self.db.session() as session:
            rows = session.execute(
                sa.select(UserModel.name, UserModel.role, UserModel.disabled, UserModel.created_at)
                .order_by(UserModel.created_at.desc(), UserModel.id.desc())
                .limit(limit)
            ).all()
        return [SignUp(name, role, disabled, _aware(at)) for name, role, disabled, at in rows]

    def disk_use(self) -> DiskUse:
        """What the database takes (see :class:`DiskUse`)."""
        with self.db.session() as session:
            replay, games = session.execute(
                sa.select(
                    sa.func.coalesce(sa.func.sum(sa.func.length(GameModel.replay)), 0),
                    sa.func.count(),
                ).select_from(GameModel)
            ).one()
            archives = session.execute(
                sa.select(sa.func.coalesce(sa.func.sum(sa.func.length(SnakeModel.archive)), 0))
            ).scalar_one()
            frames = session.execute(sa.text("SELECT count(*) FROM frames")).scalar_one()
            total: int | None = None
            if self.db.dialect == "postgresql":
                total = int(
                    session.execute(
                        sa.text("SELECT pg_database_size(current_database())")
                    ).scalar_one()
                )
        if self.db.dialect == "sqlite":
            total = self._sqlite_bytes()
        return DiskUse(total, int(replay), int(archives), int(games), int(frames))

    def _sqlite_bytes(self) -> int | None:
        path = self.db.engine.url.database
        if not path or path == ":memory:":
            return None
        # The database file and its write-ahead log and shared memory, when present.
        return sum(
            os.path.getsize(name)
            for name in (path, f"{path}-wal", f"{path}-shm", f"{path}-journal")
            if os.path.exists(name)
        )
