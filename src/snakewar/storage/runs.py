"""Ladder and tournament runs in a database several servers share: who plays which.

A run is one row of ``arena_runs`` (key ``ladder:NAME`` or ``tournament:ID``).  The
server that plays it holds a lease on it (``server_id``, ``lease_until``) and renews it
while it plays; every claim is one conditional ``UPDATE``, so of several servers that
claim a run at once exactly one gets it (PostgreSQL locks the row and checks the
condition again; SQLite has one writer at a time).  A run whose lease ran out (its
server died, or stopped and let it go) is still ``running``: the next server to look
resumes it.  An admin's stop is a flag on the row, which reaches the server that plays
it when it renews its lease (or ends the run at once when nobody plays it).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, cast

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import CursorResult

from snakewar.errors import choices_text
from snakewar.storage.database import Database, StoreError, now, utc
from snakewar.storage.models import MAX_ID_LENGTH, RUN_STATES, ArenaRunModel, ArenaRunState

__all__ = ["MAX_RUN_ERROR_LENGTH", "RUN_KINDS", "ArenaRun", "SqlRunRepository"]

RUN_KINDS: Final = ("ladder", "tournament")
"""What a run plays: a ladder's games, or a tournament to its end."""

MAX_RUN_ERROR_LENGTH: Final = 500
"""The longest reason a stopped run keeps."""


@dataclass(frozen=True, slots=True)
class ArenaRun:
    """One run's row (a plain value).

    Attributes:
        key: ``ladder:NAME`` or ``tournament:ID``.
        kind: ``ladder`` or ``tournament``.
        target: the ladder's name or the tournament's id.
        state: the run's :class:`~snakewar.storage.models.ArenaRunState`.
        stop_requested: an admin asked the server that plays it to stop it.
        games: the games a ladder run plays (``None``: a tournament, to its end).
        base: the ladder's games played when the run started.
        done: games the run played (as its server last said).
        error: why it failed.
        server_id: the server that plays it (``None``: none).
        lease_until: until when that server vouches for it.
    """

    key: str
    kind: str
    target: str
    state: ArenaRunState
    stop_requested: bool
    games: int | None
    base: int | None
    done: int
    error: str
    server_id: str | None
    lease_until: dt.datetime | None

    def held(self, when: dt.datetime | None = None) -> bool:
        """Whether a server plays it now (its lease has not run out at ``when``)."""
        if self.server_id is None or self.lease_until is None:
            return False
        return self.lease_until > (now() if when is None else when)

    def owed(self, games_played: int) -> int:
        """The games a ladder run still owes, its ladder having played ``games_played``."""
        if self.games is None or self.base is None:
            return 0
        return max(0, self.base + self.games - games_played)


class SqlRunRepository:
    """The ladder and tournament runs of a :class:`~snakewar.storage.database.Database`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def get(self, key: str) -> ArenaRun | None:
        """The run ``key`` (``None``: no run was ever recorded for it)."""
        if not _valid_key(key):
            return None
        with self._db.session() as session:
            row = session.get(ArenaRunModel, key)
            return None if row is None else _run(row)

    def runs(self, state: ArenaRunState | None = None) -> list[ArenaRun]:
        """Every run (in ``state`` only, when given), by key."""
        query = sa.select(ArenaRunModel).order_by(ArenaRunModel.key)
        if state is not None:
            _check_state(state)
            query = query.where(ArenaRunModel.state == state)
        with self._db.session() as session:
            return [_run(row) for row in session.scalars(query)]

    def keys(self, kind: str) -> set[str]:
        """The keys of every run of ``kind``, in any state."""
        _check_kind(kind)
        query = sa.select(ArenaRunModel.key).where(ArenaRunModel.kind == kind)
        with self._db.session() as session:
            return set(session.scalars(query))

    def ensure(
        self,
        key: str,
        kind: str,
        target: str,
        state: ArenaRunState = ArenaRunState.RUNNING,
        error: str = "",
    ) -> None:
        """Record a run nobody plays, unless ``key`` has a row already.

        A tournament played before runs were recorded (or by the command line) gets
        one when a server finds it unfinished: ``running``, so that one server resumes it.
        """
        _check_state(state)
        self._insert_missing(key, kind, target, state, error)

    def claim(
        self,
        key: str,
        kind: str,
        target: str,
        server_id: str,
        until: dt.datetime,
        *,
        games: int | None = None,
        base: int | None = None,
    ) -> bool:
        """Start a new run of ``key`` on ``server_id``; ``False`` if another server plays it.

        The run replaces the row's last run (done, stopped, failed, or left by a server
        that died): ``running`` from now, none of its games played.

        Raises:
            StoreError: for a bad key, kind or target.
        """
        self._insert_missing(key, kind, target, ArenaRunState.DONE)
        stamp = now()
        with self._db.session() as session:
            result = session.execute(
                sa.update(ArenaRunModel)
                .where(ArenaRunModel.key == key, _free(server_id, stamp))
                .values(
                    state=ArenaRunState.RUNNING.value,
                    stop_requested=False,
                    games=games,
                    base=base,
                    done=0,
                    error="",
                    server_id=server_id,
                    lease_until=_aware(until),
                    updated_at=stamp,
                )
                .execution_options(synchronize_session=False)
            )
            return _count(result) == 1

    def resume(self, key: str, server_id: str, until: dt.datetime) -> ArenaRun | None:
        """Take over a ``running`` run that nobody plays; ``None`` if it is not to resume.

        Of several servers that try at once, one gets it: the others get ``None``.
        """
        if not _valid_key(key):
            return None
        stamp = now()
        with self._db.session() as session:
            result = session.execute(
                sa.update(ArenaRunModel)
                .where(
                    ArenaRunModel.key == key,
                    ArenaRunModel.state == ArenaRunState.RUNNING.value,
                    _free(None, stamp),
                )
                .values(server_id=server_id, lease_until=_aware(until), updated_at=stamp)
                .execution_options(synchronize_session=False)
            )
            if _count(result) != 1:
                return None
            row = session.get(ArenaRunModel, key)
            return None if row is None else _run(row)

    def renew(self, server_id: str, done: Mapping[str, int], until: dt.datetime) -> dict[str, bool]:
        """Renew ``server_id``'s leases on the runs ``done`` names (with their games played).

        Returns:
            Each run it still plays, and whether an admin asked to stop it; a run left
            out was taken over by another server (this one's lease ran out meanwhile).
        """
        if not done:
            return {}
        stamp = now()
        held: dict[str, bool] = {}
        with self._db.session() as session:
            for key, count in done.items():
                session.execute(
                    sa.update(ArenaRunModel)
                    .where(
                        ArenaRunModel.key == key,
                        ArenaRunModel.server_id == server_id,
                        ArenaRunModel.state == ArenaRunState.RUNNING.value,
                    )
                    .values(lease_until=_aware(until), done=int(count), updated_at=stamp)
                    .execution_options(synchronize_session=False)
                )
            rows = session.execute(
                sa.select(ArenaRunModel.key, ArenaRunModel.stop_requested).where(
                    ArenaRunModel.key.in_(list(done)),
                    ArenaRunModel.server_id == server_id,
                    ArenaRunModel.state == ArenaRunState.RUNNING.value,
                )
            )
            for key, stop in rows:
                held[key] = bool(stop)
        return held

    def finish(
        self, key: str, server_id: str, state: ArenaRunState, done: int, error: str = ""
    ) -> bool:
        """End ``server_id``'s run of ``key``: ``done``, ``stopped`` or ``failed``.

        Returns:
            ``False`` (and nothing changes) if ``server_id`` no longer plays it.
        """
        _check_state(state)
        with self._db.session() as session:
            result = session.execute(
                sa.update(ArenaRunModel)
                .where(ArenaRunModel.key == key, ArenaRunModel.server_id == server_id)
                .values(
                    state=ArenaRunState(state).value,
                    stop_requested=False,
                    done=int(done),
                    error=error[:MAX_RUN_ERROR_LENGTH],
                    server_id=None,
                    lease_until=None,
                    updated_at=now(),
                )
                .execution_options(synchronize_session=False)
            )
            return _count(result) == 1

    def release(self, server_id: str, keys: list[str] | None = None) -> int:
        """Let go of ``server_id``'s runs (all, or ``keys``); they stay ``running``.

        A server that stops mid-run calls this: the next server to look resumes them
        at once, without waiting for the lease to run out.
        """
        query = sa.update(ArenaRunModel).where(ArenaRunModel.server_id == server_id)
        if keys is not None:
            query = query.where(ArenaRunModel.key.in_(keys))
        with self._db.session() as session:
            result = session.execute(
                query.values(server_id=None, lease_until=None, updated_at=now()).execution_options(
                    synchronize_session=False
                )
            )
            return _count(result)

    def request_stop(self, key: str) -> str | None:
        """Ask that the run ``key`` stop.

        Returns:
            ``"stopping"`` if a server plays it (it stops it when it next renews its
            lease), ``"stopped"`` if nobody did (it is stopped now, not resumed), ``None``
            if it is not running.
        """
        if not _valid_key(key):
            return None
        stamp = now()
        with self._db.session() as session:
            row = session.get(ArenaRunModel, key, with_for_update=True)
            if row is None or row.state != ArenaRunState.RUNNING:
                return None
            if _run(row).held(stamp):
                row.stop_requested = True
                row.updated_at = stamp
                return "stopping"
            row.state = ArenaRunState.STOPPED.value
            row.stop_requested = False
            row.server_id = None
            row.lease_until = None
            row.updated_at = stamp
            return "stopped"

    def delete(self, key: str) -> None:
        """Forget the run ``key`` (its ladder or tournament is deleted)."""
        if not _valid_key(key):
            return
        with self._db.session() as session:
            session.execute(sa.delete(ArenaRunModel).where(ArenaRunModel.key == key))

    def _insert_missing(
        self, key: str, kind: str, target: str, state: ArenaRunState, error: str = ""
    ) -> None:
        _check_kind(kind)
        if not _valid_key(key) or not 0 < len(target) <= MAX_ID_LENGTH:
            raise StoreError(f"run {key[:120]!r}: expected a ladder name or tournament id")
        values: dict[str, Any] = {
            "key": key,
            "kind": kind,
            "target": target,
            "state": ArenaRunState(state).value,
            "stop_requested": False,
            "done": 0,
            "error": error[:MAX_RUN_ERROR_LENGTH],
            "updated_at": now(),
        }
        with self._db.session() as session:
            # Two servers may record it at once: the second insert does nothing.
            insert: Any = (
                postgresql.insert(ArenaRunModel)
                if session.get_bind().dialect.name == "postgresql"
                else sqlite.insert(ArenaRunModel)
            )
            session.execute(insert.values(**values).on_conflict_do_nothing(index_elements=["key"]))


def _free(server_id: str | None, when: dt.datetime) -> Any:
    """The condition a run meets when ``server_id`` may take it: nobody else plays it."""
    lapsed = sa.or_(
        ArenaRunModel.server_id.is_(None),
        ArenaRunModel.lease_until.is_(None),
        ArenaRunModel.lease_until <= when,
    )
    if server_id is None:
        return lapsed
    return sa.or_(lapsed, ArenaRunModel.server_id == server_id)


def _count(result: Any) -> int:
    return int(cast(CursorResult[Any], result).rowcount)


def _valid_key(key: object) -> bool:
    return isinstance(key, str) and 0 < len(key) <= MAX_ID_LENGTH + 16


def _check_kind(kind: object) -> None:
    if kind not in RUN_KINDS:
        raise StoreError(f"run kind {kind!r}: expected one of {choices_text(RUN_KINDS)}")


def _check_state(state: object) -> None:
    if state not in RUN_STATES:
        raise StoreError(f"run state {state!r}: expected one of {choices_text(RUN_STATES)}")


def _aware(when: dt.datetime) -> dt.datetime:
    if when.tzinfo is None:
        raise StoreError(f"lease end {when!r}: expected a timezone-aware time")
    return when.astimezone(dt.UTC)


def _run(row: ArenaRunModel) -> ArenaRun:
    return ArenaRun(
        key=row.key,
        kind=row.kind,
        target=row.target,
        state=ArenaRunState(row.state),
        stop_requested=bool(row.stop_requested),
        games=row.games,
        base=row.base,
        done=row.done,
        error=row.error,
        server_id=row.server_id,
        lease_until=None if row.lease_until is None else utc(row.lease_until),
    )
