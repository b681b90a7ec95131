"""Rate limits counted in the database, so that every server sharing it counts the same.

Two kinds, as :mod:`snakewar.server.safety` has them in memory:

* a **token bucket** per ``(limit, client)`` (``burst`` at once, ``per_minute``
  sustained) is one row of ``rate_buckets`` holding one number, its *theoretical arrival
  time* (``tat``, the generic cell rate algorithm): a request is allowed when
  ``max(tat, now) + interval - now <= burst * interval``, and then ``tat`` becomes
  ``max(tat, now) + interval``.  That is exactly the in-memory bucket, and it is decided
  by one ``UPDATE ... WHERE`` that changes the row or not: atomic on SQLite (one writer
  at a time) and on PostgreSQL (the row is locked, and the condition read again after a
  concurrent update), with no read-modify-write race between servers.
* a **budget** of uses (``per_window`` uses in any ``window_s``, ``at_once`` going on)
  is a row of ``rate_uses`` per use.  Taking one first writes the client's lock row in
  ``rate_buckets`` (its ``tat`` set to now: a full bucket; a write locks that row on
  PostgreSQL, the database on SQLite), then counts and inserts, so two servers never
  both see room for the last use.  A
  use going on holds a lease (``active_until``): one whose server died stops counting
  as going on when it runs out.

Times are seconds since the epoch from the servers' clocks (kept in step by NTP, as
the leases of games already assume).  Rows that no longer limit anything are pruned by
:meth:`SqlLimitRepository.prune`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from snakewar.storage.database import Database
from snakewar.storage.models import RateBucketModel, RateUseModel

__all__ = ["MAX_CLIENT_KEY", "SqlLimitRepository", "UseOutcome"]

MAX_CLIENT_KEY: Final = 80
"""The longest client key stored as it is; a longer one is stored as its SHA-256."""


@dataclass(frozen=True, slots=True)
class UseOutcome:
    """What taking a use of a budget gave.

    Attributes:
        use_id: the use's row (``None``: refused).
        going_on: the client's uses going on (before this one).
        recent: the client's uses in the window (before this one).
        oldest: when the oldest of those began (``None``: none).
    """

    use_id: int | None
    going_on: int
    recent: int
    oldest: float | None


def _key(client: str) -> str:
    if len(client) <= MAX_CLIENT_KEY:
        return client
    return "sha256:" + hashlib.sha256(client.encode("utf-8", "replace")).hexdigest()


class SqlLimitRepository:
    """The rate-limit rows (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def _insert_bucket(self, session: Session, name: str, client: str, tat: float) -> None:
        dialect: Any = postgresql if self.db.dialect == "postgresql" else sqlite
        session.execute(
            dialect.insert(RateBucketModel)
            .values(name=name, client=client, tat=tat)
            .on_conflict_do_nothing(index_elements=["name", "client"])
        )

    def take_token(self, name: str, client: str, per_minute: float, burst: int, now: float) -> bool:
        """Take a token from ``client``'s bucket of limit ``name``; False if it has none."""
        client = _key(client)
        interval = 60.0 / per_minute
        bucket = RateBucketModel
        start = sa.case((bucket.tat > now, bucket.tat), else_=sa.literal(now))
        # A hair of slack: float sums of intervals must not refuse the burst's last token.
        room = burst * interval + interval * 1e-9
        with self.db.session() as session:
            for _ in range(2):
                self._insert_bucket(session, name, client, now)
                taken = session.execute(
                    sa.update(bucket)
                    .where(bucket.name == name, bucket.client == client)
                    .where(start + interval - now <= room)
                    .values(tat=start + interval)
                    .execution_options(synchronize_session=False)
                )
                if getattr(taken, "rowcount", 0) == 1:
                    return True
                # No row changed: the bucket is empty, or a prune took the (idle) row
                # between the insert and the update: then it is made again.
                if (
                    session.scalar(
                        sa.select(bucket.tat).where(bucket.name == name, bucket.client == client)
                    )
                    is not None
                ):
                    return False
            return False

    def refund_token(self, name: str, client: str, per_minute: float) -> None:
        """Give back a token ``client`` took (a request refused after all)."""
        client = _key(client)
        bucket = RateBucketModel
        with self.db.session() as session:
            session.execute(
                sa.update(bucket)
                .where(bucket.name == name, bucket.client == client)
                .values(tat=bucket.tat - 60.0 / per_minute)
                .execution_options(synchronize_session=False)
            )

    def take_use(
        self,
        name: str,
        client: str,
        *,
        per_window: int,
        window_s: float,
        at_once: int | None,
        lease_s: float,
        now: float,
    ) -> UseOutcome:
        """Count a use by ``client`` of budget ``name`` that starts now, if it has room."""
        client = _key(client)
        use = RateUseModel
        bucket = RateBucketModel
        mine = (use.name == name, use.client == client)
        with self.db.session() as session:
            # The lock: a write to the client's row, held until this transaction ends
            # (made again if a prune took it, idle, between the insert and the update).
            for _ in range(2):
                self._insert_bucket(session, name, client, now)
                locked = session.execute(
                    sa.update(bucket)
                    .where(bucket.name == name, bucket.client == client)
                    .values(tat=now)
                    .execution_options(synchronize_session=False)
                )
                if getattr(locked, "rowcount", 0) == 1:
                    break
            session.execute(sa.delete(use).where(*mine, use.expires <= now))
            going_on = session.scalar(
                sa.select(sa.func.count()).where(*mine, use.active_until > now)
            )
            window = sa.select(sa.func.count(), sa.func.min(use.at))
            recent, oldest = session.execute(window.where(*mine, use.at > now - window_s)).one()
            outcome = UseOutcome(None, int(going_on or 0), int(recent or 0), oldest)
            if at_once is not None and outcome.going_on >= at_once:
                return outcome
            if outcome.recent >= per_window:
                return outcome
            use_id = session.scalar(
                sa.insert(use)
                .values(
                    name=name,
                    client=client,
                    at=now,
                    active_until=now + lease_s,
                    expires=now + max(window_s, lease_s),
                )
                .returning(use.id)
            )
            return UseOutcome(int(use_id or 0), outcome.going_on, outcome.recent, oldest)

    def end_use(self, use_id: int) -> None:
        """The use ended: it stays counted in its window, no longer as going on."""
        with self.db.session() as session:
            session.execute(
                sa.update(RateUseModel)
                .where(RateUseModel.id == use_id)
                .values(active_until=None)
                .execution_options(synchronize_session=False)
            )

    def drop_use(self, use_id: int) -> None:
        """The use was refused after all: it counts for nothing."""
        with self.db.session() as session:
            session.execute(sa.delete(RateUseModel).where(RateUseModel.id == use_id))

    def going_on(self, name: str, client: str, now: float) -> int:
        """``client``'s uses of budget ``name`` going on now."""
        client = _key(client)
        use = RateUseModel
        with self.db.session() as session:
            found = session.scalar(
                sa.select(sa.func.count()).where(
                    use.name == name, use.client == client, use.active_until > now
                )
            )
            return int(found or 0)

    def prune(self, now: float, idle_s: float = 60.0) -> int:
        """Delete the rows that limit nothing any more; how many went.

        A bucket whose ``tat`` is ``idle_s`` behind ``now`` is full (a missing row is a
        full bucket too); a use past its ``expires`` is out of its window and its lease.
        """
        with self.db.session() as session:
            gone = session.execute(
                sa.delete(RateBucketModel).where(RateBucketModel.tat < now - idle_s)
            )
            used = session.execute(sa.delete(RateUseModel).where(RateUseModel.expires <= now))
            return int(getattr(gone, "rowcount", 0)) + int(getattr(used, "rowcount", 0))
