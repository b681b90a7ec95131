"""Sharing: the games users saved (with their titles) and bulk export jobs.

A saved game is one row of ``saved_games`` per user and game: saving again retitles it.

An export job is a row of ``export_jobs``: made ``queued`` by :meth:`SqlSharingRepository.
create_job` (which refuses a user past their jobs in flight, in the same transaction, so two
requests at once cannot both pass), claimed ``running`` by the server that builds it
(with a lease it renews as it writes: :meth:`~SqlSharingRepository.progress`), then
``done`` with its archive, or ``failed`` with the reason.  A job whose server stopped
(its lease ran out) is failed by :meth:`~SqlSharingRepository.fail_expired`, so nobody
waits for it for ever; finished jobs and their archives go once they expire
(:meth:`~SqlSharingRepository.delete_expired`).

The games of an export are read by :meth:`~SqlSharingRepository.game_ids`: a ladder's
rated games, a tournament's games or the games a user started, the newest first, at most
``limit`` of them, finished ones only (a running game has no replay yet).
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

import sqlalchemy as sa
from sqlalchemy.engine import CursorResult
from sqlalchemy.exc import IntegrityError

from snakewar.errors import ConflictError, NotFoundError
from snakewar.storage.database import Database, StoreError, now, utc
from snakewar.storage.models import (
    MAX_ID_LENGTH,
    ExportJobModel,
    GameModel,
    GameStatus,
    LadderGameModel,
    LadderModel,
    SavedGameModel,
    TournamentGameModel,
    TournamentModel,
    UserModel,
)

__all__ = [
    "EXPORT_KINDS",
    "EXPORT_STATES",
    "MAX_TITLE_LENGTH",
    "ExportJob",
    "JobsInFlightError",
    "SavedGame",
    "SqlSharingRepository",
]

MAX_TITLE_LENGTH: Final = 120
"""The longest title of a saved game."""

EXPORT_KINDS: Final = ("ladder", "tournament", "user")
"""What an export may be of."""

EXPORT_STATES: Final = ("queued", "running", "done", "failed")
"""The states of an export job."""


class JobsInFlightError(StoreError, ConflictError):
    """Raised when a user asks for an export while their last ones still run (409)."""


@dataclass(frozen=True, slots=True)
class SavedGame:
    """A game a user saved: its id, their title, when; the game's own listing fields."""

    game_id: str
    title: str
    saved_at: dt.datetime
    game: str
    status: str
    turns: int
    entrants: list[str]


@dataclass(frozen=True, slots=True)
class ExportJob:
    """An export job as stored, without its archive (a plain value)."""

    id: str
    owner_id: int
    kind: str
    target: str
    state: str
    total: int
    done: int
    size: int
    error: str
    created_at: dt.datetime
    updated_at: dt.datetime
    expires_at: dt.datetime
    server_id: str | None = None
    lease_until: dt.datetime | None = None

    @property
    def finished(self) -> bool:
        """Whether it is over (``done`` or ``failed``)."""
        return self.state in ("done", "failed")


_JOB_COLUMNS: Final = (
    ExportJobModel.id,
    ExportJobModel.owner_id,
    ExportJobModel.kind,
    ExportJobModel.target,
    ExportJobModel.state,
    ExportJobModel.total,
    ExportJobModel.done,
    ExportJobModel.size_bytes,
    ExportJobModel.error,
    ExportJobModel.created_at,
    ExportJobModel.updated_at,
    ExportJobModel.expires_at,
    ExportJobModel.server_id,
    ExportJobModel.lease_until,
)


def _job(row: Any) -> ExportJob:
    return ExportJob(
        id=row.id,
        owner_id=int(row.owner_id),
        kind=row.kind,
        target=row.target,
        state=row.state,
        total=int(row.total),
        done=int(row.done),
        size=int(row.size_bytes),
        error=row.error,
        created_at=utc(row.created_at),
        updated_at=utc(row.updated_at),
        expires_at=utc(row.expires_at),
        server_id=row.server_id,
        lease_until=None if row.lease_until is None else utc(row.lease_until),
    )


def _check_title(title: object) -> str:
    if not isinstance(title, str) or not title.strip() or len(title) > MAX_TITLE_LENGTH:
        raise StoreError(
            f"title {title!r} is not valid; expected 1 to {MAX_TITLE_LENGTH} characters"
        )
    return title.strip()


class SqlSharingRepository:
    """Saved games and export jobs of a :class:`~snakewar.storage.database.Database`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # -- saved games --

    def save_game(self, user_id: int, game_id: str, title: str) -> SavedGame:
        """Save ``game_id`` for ``user_id`` under ``title`` (again: a new title).

        Raises:
            NotFoundError: no stored game ``game_id``.
            StoreError: a bad title.
        """
        title = _check_title(title)
        with self._db.session() as session:
            if session.get(GameModel, game_id) is None:
                raise NotFoundError(f"no stored game with id {game_id!r}")
            found = session.get(SavedGameModel, (user_id, game_id))
            if found is None:
                session.add(
                    SavedGameModel(user_id=user_id, game_id=game_id, title=title, saved_at=now())
                )
            else:
                found.title = title
        saved = self.saved(user_id, game_id)
        if saved is None:  # deleted in between
            raise NotFoundError(f"no stored game with id {game_id!r}")
        return saved

    def unsave_game(self, user_id: int, game_id: str) -> bool:
        """Forget a saved game (the game stays); whether it was saved."""
        with self._db.session() as session:
            result = session.execute(
                sa.delete(SavedGameModel).where(
                    SavedGameModel.user_id == user_id, SavedGameModel.game_id == game_id
                )
            )
            return bool(cast(CursorResult[Any], result).rowcount)

    def _saved_query(self) -> Any:
        return sa.select(
            SavedGameModel.game_id,
            SavedGameModel.title,
            SavedGameModel.saved_at,
            GameModel.game,
            GameModel.status,
            GameModel.turns,
            GameModel.entrants,
        ).join(GameModel, GameModel.id == SavedGameModel.game_id)

    @staticmethod
    def _saved_row(row: Any) -> SavedGame:
        return SavedGame(
            game_id=row.game_id,
            title=row.title,
            saved_at=utc(row.saved_at),
            game=row.game,
            status=row.status,
            turns=int(row.turns),
            entrants=[str(e.get("name", "")) for e in row.entrants or []],
        )

    def saved(self, user_id: int, game_id: str) -> SavedGame | None:
        """``user_id``'s saved ``game_id``, or ``None``."""
        query = self._saved_query().where(
            SavedGameModel.user_id == user_id, SavedGameModel.game_id == game_id
        )
        with self._db.session() as session:
            row = session.execute(query).first()
            return None if row is None else self._saved_row(row)

    def saved_games(self, user_id: int, limit: int = 100, offset: int = 0) -> list[SavedGame]:
        """``user_id``'s saved games, the last saved first."""
        query = (
            self._saved_query()
            .where(SavedGameModel.user_id == user_id)
            .order_by(SavedGameModel.saved_at.desc(), SavedGameModel.game_id)
            .limit(limit)
            .offset(offset)
        )
        with self._db.session() as session:
            return [self._saved_row(row) for row in session.execute(query)]

    # -- what an export holds --

    def game_ids(self, kind: str, target: str, limit: int) -> list[str] | None:
        """The ids of the finished games an export of ``kind`` ``target`` holds.

        The newest first, at most ``limit`` of them; ``None``: no such ladder,
        tournament or user.
        """
        with self._db.session() as session:
            query: sa.Select[Any]
            if kind == "ladder":
                ladder = session.scalar(sa.select(LadderModel.id).where(LadderModel.name == target))
                if ladder is None:
                    return None
                query = (
                    sa.select(LadderGameModel.game_id)
                    .where(LadderGameModel.ladder_id == ladder)
                    .order_by(LadderGameModel.number.desc())
                )
            elif kind == "tournament":
                if session.get(TournamentModel, target) is None:
                    return None
                query = (
                    sa.select(TournamentGameModel.game_id)
                    .where(TournamentGameModel.tournament_id == target)
                    .order_by(TournamentGameModel.ordinal.desc())
                )
            elif kind == "user":
                user = session.scalar(sa.select(UserModel.id).where(UserModel.name == target))
                if user is None:
                    return None
                query = (
                    sa.select(GameModel.id)
                    .where(GameModel.owner_id == user)
                    .order_by(GameModel.created_at.desc(), GameModel.id.desc())
                )
            else:
                raise StoreError(f"kind {kind!r}: expected one of {', '.join(EXPORT_KINDS)}")
            ids = list(session.scalars(query.limit(limit)))
            # A ladder's or tournament's row may name a game deleted since: only stored ones.
            stored = set(
                session.scalars(
                    sa.select(GameModel.id).where(
                        GameModel.id.in_(ids), GameModel.status != GameStatus.RUNNING
                    )
                )
            )
            return [game_id for game_id in ids if game_id in stored]

    # -- export jobs --

    def create_job(
        self,
        owner_id: int,
        kind: str,
        target: str,
        total: int,
        *,
        server_id: str,
        lease_s: float,
        in_flight: int,
        keep_s: float,
    ) -> ExportJob:
        """A new ``queued`` job of ``total`` games for ``owner_id``, held by ``server_id``.

        Args:
            owner_id: who asked for it.
            kind: one of :data:`EXPORT_KINDS`.
            target: the ladder's name, the tournament's id or the user's name.
            total: the games it will hold.
            lease_s: how long the lease lasts.
            server_id: the server that builds it; it holds the job's lease for
                ``lease_s`` seconds, and renews it (:meth:`renew`) while it waits and builds.
            in_flight: the most unfinished jobs one user may have (this one included).
            keep_s: how long the job and its archive are kept after it is made.

        Raises:
            JobsInFlightError: ``owner_id`` has ``in_flight`` unfinished jobs already.
        """
        if kind not in EXPORT_KINDS:
            raise StoreError(f"kind {kind!r}: expected one of {', '.join(EXPORT_KINDS)}")
        if not 0 < len(target) <= MAX_ID_LENGTH:
            raise StoreError(f"target {target!r}: expected 1 to {MAX_ID_LENGTH} characters")
        when = now()
        job_id = uuid.uuid4().hex
        try:
            with self._db.session() as session:
                # A write first: it locks the owner (PostgreSQL's row, SQLite's database)
                # so that two requests at once cannot both see room.
                session.execute(
                    sa.update(UserModel).where(UserModel.id == owner_id).values(role=UserModel.role)
                )
                busy = session.scalar(
                    sa.select(sa.func.count())
                    .select_from(ExportJobModel)
                    .where(
                        ExportJobModel.owner_id == owner_id,
                        ExportJobModel.state.in_(("queued", "running")),
                    )
                )
                if int(busy or 0) >= in_flight:
                    raise JobsInFlightError(
                        f"you have {busy} export(s) in progress; at most {in_flight} at once: "
                        "wait for them to finish"
                    )
                session.add(
                    ExportJobModel(
                        id=job_id,
                        owner_id=owner_id,
                        kind=kind,
                        target=target,
                        state="queued",
                        total=total,
                        done=0,
                        size_bytes=0,
                        error="",
                        server_id=server_id,
                        lease_until=when + dt.timedelta(seconds=lease_s),
                        created_at=when,
                        updated_at=when,
                        expires_at=when + dt.timedelta(seconds=keep_s),
                    )
                )
        except IntegrityError as exc:  # the owner was deleted meanwhile
            raise StoreError(f"cannot make an export for user {owner_id}: {exc.orig}") from exc
        found = self.job(job_id)
        assert found is not None
        return found

    def job(self, job_id: str) -> ExportJob | None:
        """The job ``job_id`` (without its archive), or ``None``."""
        if not 0 < len(job_id) <= 32:
            return None
        with self._db.session() as session:
            row = session.execute(
                sa.select(*_JOB_COLUMNS).where(ExportJobModel.id == job_id)
            ).first()
            return None if row is None else _job(row)

    def jobs(self, owner_id: int | None, limit: int = 50) -> list[ExportJob]:
        """The newest jobs of ``owner_id`` (``None``: everyone's), newest first."""
        query = sa.select(*_JOB_COLUMNS).order_by(
            ExportJobModel.created_at.desc(), ExportJobModel.id
        )
        if owner_id is not None:
            query = query.where(ExportJobModel.owner_id == owner_id)
        with self._db.session() as session:
            return [_job(row) for row in session.execute(query.limit(limit))]

    def claim(self, job_id: str, lease_s: float) -> bool:
        """Start building a ``queued`` job; whether it was still queued."""
        when = now()
        with self._db.session() as session:
            result = session.execute(
                sa.update(ExportJobModel)
                .where(ExportJobModel.id == job_id, ExportJobModel.state == "queued")
                .values(
                    state="running",
                    lease_until=when + dt.timedelta(seconds=lease_s),
                    updated_at=when,
                )
            )
            return bool(cast(CursorResult[Any], result).rowcount)

    def renew(self, server_id: str, job_ids: Sequence[str], lease_s: float) -> int:
        """Renew the leases of ``server_id``'s unfinished jobs among ``job_ids``; how many."""
        if not job_ids:
            return 0
        until = now() + dt.timedelta(seconds=lease_s)
        with self._db.session() as session:
            result = session.execute(
                sa.update(ExportJobModel)
                .where(
                    ExportJobModel.id.in_(list(job_ids)),
                    ExportJobModel.server_id == server_id,
                    ExportJobModel.state.in_(("queued", "running")),
                )
                .values(lease_until=until)
            )
            return int(cast(CursorResult[Any], result).rowcount)

    def progress(self, job_id: str, done: int, written: int, lease_s: float) -> None:
        """Record a running job's progress and renew its lease."""
        when = now()
        with self._db.session() as session:
            session.execute(
                sa.update(ExportJobModel)
                .where(ExportJobModel.id == job_id, ExportJobModel.state == "running")
                .values(
                    done=done,
                    size_bytes=written,
                    lease_until=when + dt.timedelta(seconds=lease_s),
                    updated_at=when,
                )
            )

    def finish(self, job_id: str, archive: bytes, done: int) -> None:
        """A running job is done: its archive is kept (until it expires)."""
        with self._db.session() as session:
            session.execute(
                sa.update(ExportJobModel)
                .where(ExportJobModel.id == job_id, ExportJobModel.state == "running")
                .values(
                    state="done",
                    archive=archive,
                    size_bytes=len(archive),
                    done=done,
                    lease_until=None,
                    updated_at=now(),
                )
            )

    def fail(self, job_id: str, error: str) -> None:
        """A queued or running job failed, for ``error`` (the start of it is kept)."""
        with self._db.session() as session:
            session.execute(
                sa.update(ExportJobModel)
                .where(ExportJobModel.id == job_id, ExportJobModel.state.in_(("queued", "running")))
                .values(state="failed", error=error[:1000], lease_until=None, updated_at=now())
            )

    def archive(self, job_id: str) -> bytes | None:
        """A done job's archive (``None`` if it has none)."""
        with self._db.session() as session:
            data: bytes | None = session.scalar(
                sa.select(ExportJobModel.archive).where(
                    ExportJobModel.id == job_id, ExportJobModel.state == "done"
                )
            )
            return None if data is None else bytes(data)

    def fail_expired(self) -> int:
        """Fail the unfinished jobs whose lease ran out (their server stopped); how many."""
        when = now()
        with self._db.session() as session:
            result = session.execute(
                sa.update(ExportJobModel)
                .where(
                    ExportJobModel.state.in_(("queued", "running")),
                    ExportJobModel.lease_until < when,
                )
                .values(
                    state="failed",
                    error="interrupted: the server building it stopped; ask again",
                    lease_until=None,
                    updated_at=when,
                )
            )
            return int(cast(CursorResult[Any], result).rowcount)

    def delete_expired(self) -> int:
        """Delete the finished jobs (and archives) past their expiry; how many."""
        with self._db.session() as session:
            result = session.execute(
                sa.delete(ExportJobModel).where(
                    ExportJobModel.expires_at < now(),
                    ExportJobModel.state.in_(("done", "failed")),
                )
            )
            return int(cast(CursorResult[Any], result).rowcount)
