"""Named leases in the database: one holder at a time among the servers that share it.

A lease is one row of ``leases`` (``name``, ``holder``, ``until``, ``since``, ``term``).
A server *acquires* it when nobody holds it or the holder's ``until`` has passed, and
keeps it by *renewing* it before then; it *releases* it when it stops cleanly, so that
the next server need not wait for it to run out.  Every change is one conditional
statement, so of several servers that try at once exactly one wins: PostgreSQL locks
the row and checks the condition again after the winner commits; SQLite has one
writer at a time.

Time is the database's: on PostgreSQL every call reads ``clock_timestamp()`` (servers on
several machines then agree however their clocks drift); SQLite, one file on one
machine, uses that machine's clock.  Either way times are timezone-aware UTC.

``term`` counts the changes of hands: a holder that sees the term it acquired still
there knows nobody held the lease in between.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Final, cast

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import Session

from snakewar.storage.database import Database, StoreError, utc
from snakewar.storage.models import LeaseModel

__all__ = ["MAX_HOLDER_LENGTH", "MAX_LEASE_NAME_LENGTH", "Lease", "SqlLeaseRepository"]

MAX_LEASE_NAME_LENGTH: Final = 64
"""The longest lease name."""

MAX_HOLDER_LENGTH: Final = 64
"""The longest holder id."""

_LONGEST_LEASE_S: Final = 24 * 3600.0


@dataclass(frozen=True, slots=True)
class Lease:
    """A lease as stored (a plain value).

    Attributes:
        name: the lease.
        holder: who holds it (``None``: released, or never taken).
        until: until when the holder holds it (the database's time).
        since: when the holder took it.
        term: how many times it changed hands.
        now: the database's time when it was read.
    """

    name: str
    holder: str | None
    until: dt.datetime | None
    since: dt.datetime | None
    term: int
    now: dt.datetime

    @property
    def held(self) -> bool:
        """Whether somebody holds it (at :attr:`now`)."""
        return self.holder is not None and self.until is not None and self.until > self.now

    def held_by(self, holder: str) -> bool:
        """Whether ``holder`` holds it (at :attr:`now`)."""
        return self.held and self.holder == holder

    @property
    def left_s(self) -> float:
        """Seconds until it runs out (0 if it is not held)."""
        if not self.held or self.until is None:
            return 0.0
        return (self.until - self.now).total_seconds()


class SqlLeaseRepository:
    """The leases of a :class:`~snakewar.storage.database.Database`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def acquire(self, name: str, holder: str, seconds: float) -> Lease | None:
        """Take the lease ``name`` for ``seconds``, or renew it if ``holder`` has it.

        Returns:
            The lease now held by ``holder``; ``None`` if another holder has it.

        Raises:
            StoreError: for a bad name, holder or duration.
        """
        _check(name, holder, seconds)
        self._insert_missing(name)
        with self._db.session() as session:
            now = _now(session)
            until = now + dt.timedelta(seconds=seconds)
            row = LeaseModel.__table__.c
            result = session.execute(
                sa.update(LeaseModel)
                .where(
                    LeaseModel.name == name,
                    sa.or_(
                        LeaseModel.holder == holder,
                        LeaseModel.holder.is_(None),
                        LeaseModel.until.is_(None),
                        LeaseModel.until <= now,
                    ),
                )
                .values(
                    holder=holder,
                    until=until,
                    # A new holder: a new term, from now; the same one keeps both.
                    since=sa.case((row.holder == holder, row.since), else_=now),
                    term=sa.case((row.holder == holder, row.term), else_=row.term + 1),
                )
                .execution_options(synchronize_session=False)
            )
            if _count(result) != 1:
                return None
            return _lease(_get(session, name), now)

    def renew(self, name: str, holder: str, seconds: float) -> Lease | None:
        """Extend ``holder``'s lease ``name`` by ``seconds`` from now, if it still holds it.

        A holder whose lease ran out but that nobody took yet gets it back (nobody
        held it meanwhile: its term is unchanged).

        Returns:
            The renewed lease; ``None`` if another holder has it (or nobody does).
        """
        _check(name, holder, seconds)
        with self._db.session() as session:
            now = _now(session)
            result = session.execute(
                sa.update(LeaseModel)
                .where(LeaseModel.name == name, LeaseModel.holder == holder)
                .values(until=now + dt.timedelta(seconds=seconds))
                .execution_options(synchronize_session=False)
            )
            if _count(result) != 1:
                return None
            return _lease(_get(session, name), now)

    def release(self, name: str, holder: str) -> bool:
        """Let go of ``holder``'s lease ``name`` (the next to ask gets it at once).

        Returns:
            ``False`` if ``holder`` did not hold it.
        """
        if not _valid(name, MAX_LEASE_NAME_LENGTH) or not _valid(holder, MAX_HOLDER_LENGTH):
            return False
        with self._db.session() as session:
            result = session.execute(
                sa.update(LeaseModel)
                .where(LeaseModel.name == name, LeaseModel.holder == holder)
                .values(holder=None, until=None, since=None)
                .execution_options(synchronize_session=False)
            )
            return _count(result) == 1

    def get(self, name: str) -> Lease | None:
        """The lease ``name`` as stored (``None``: never taken)."""
        if not _valid(name, MAX_LEASE_NAME_LENGTH):
            return None
        with self._db.session() as session:
            now = _now(session)
            row = session.get(LeaseModel, name)
            return None if row is None else _lease(row, now)

    def now(self) -> dt.datetime:
        """The time leases are measured by (the database's on PostgreSQL), aware UTC."""
        with self._db.session() as session:
            return _now(session)

    def _insert_missing(self, name: str) -> None:
        with self._db.session() as session:
            # Two servers may make it at once: the second insert does nothing.
            insert: Any = (
                postgresql.insert(LeaseModel)
                if session.get_bind().dialect.name == "postgresql"
                else sqlite.insert(LeaseModel)
            )
            session.execute(
                insert.values(
                    name=name, holder=None, until=None, since=None, term=0
                ).on_conflict_do_nothing(index_elements=["name"])
            )


def database_now(session: Session) -> dt.datetime:
    """The time by which leases are measured, in ``session``: aware UTC.

    PostgreSQL's ``clock_timestamp()`` (the server's clock, whichever machine asks);
    SQLite's is this machine's clock (an SQLite file is shared on one machine only).
    """
    return _now(session)


def _now(session: Session) -> dt.datetime:
    if session.get_bind().dialect.name == "postgresql":
        value = session.execute(sa.select(sa.func.clock_timestamp())).scalar_one()
        return utc(cast(dt.datetime, value))
    return dt.datetime.now(dt.UTC)


def _get(session: Session, name: str) -> LeaseModel:
    row = session.execute(sa.select(LeaseModel).where(LeaseModel.name == name)).scalar_one()
    session.refresh(row)
    return row


def _lease(row: LeaseModel, now: dt.datetime) -> Lease:
    return Lease(
        name=row.name,
        holder=row.holder,
        until=None if row.until is None else utc(row.until),
        since=None if row.since is None else utc(row.since),
        term=int(row.term),
        now=now,
    )


def _count(result: Any) -> int:
    return int(cast(CursorResult[Any], result).rowcount)


def _valid(text: object, longest: int) -> bool:
    return isinstance(text, str) and 0 < len(text) <= longest


def _check(name: str, holder: str, seconds: float) -> None:
    if not _valid(name, MAX_LEASE_NAME_LENGTH):
        raise StoreError(f"lease name {str(name)[:80]!r}: expected 1 to 64 characters")
    if not _valid(holder, MAX_HOLDER_LENGTH):
        raise StoreError(f"lease holder {str(holder)[:80]!r}: expected 1 to 64 characters")
    if not 0 < seconds <= _LONGEST_LEASE_S:
        raise StoreError(f"lease of {seconds!r} s: expected more than 0 and at most a day")
