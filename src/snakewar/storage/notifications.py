"""Notifications: users' settings and the outbox (``notify_settings``, ``notifications``).

A message is queued once per user and channel (:meth:`SqlNotificationRepository.enqueue`),
as ``pending``, or as ``capped`` when the user already got their hourly share on that
channel: the cap is counted here, in the database, so every server sharing it keeps
the same one.  Any server's worker then claims due messages for a while
(:meth:`~SqlNotificationRepository.claim`: a row claimed by one is left alone by the
others until the claim runs out, so a server that dies mid-send delays its messages,
never loses them) and records how each went: ``sent``, tried again later, or ``failed``
once its attempts are spent.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

import sqlalchemy as sa

from snakewar.storage.database import Database
from snakewar.storage.models import NotificationModel, NotifySettingsModel, UserModel

__all__ = [
    "CHANNELS",
    "NOTIFICATION_STATES",
    "Notification",
    "NotifySettings",
    "SqlNotificationRepository",
]

CHANNELS: Final = ("webhook", "email")
"""The ways a user is told."""

NOTIFICATION_STATES: Final = ("pending", "sent", "failed", "capped")
"""A message's states: waiting (or being tried again), delivered, given up, over the cap."""

MAX_ERROR: Final = 300


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _aware(when: dt.datetime) -> dt.datetime:
    # SQLite gives naive datetimes back (stored as UTC).
    return when if when.tzinfo is not None else when.replace(tzinfo=dt.UTC)


@dataclass(frozen=True, slots=True)
class NotifySettings:
    """Where and about what a user is told.

    Attributes:
        webhook_url: the webhook messages are posted to (``None``: none).
        email: the address e-mails go to (``None``: none).
        events: each event's channels (events not named: not told).
    """

    webhook_url: str | None = None
    email: str | None = None
    events: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def target(self, channel: str) -> str | None:
        """Where ``channel``'s messages go (``None``: the channel is not set up)."""
        return self.webhook_url if channel == "webhook" else self.email


@dataclass(frozen=True, slots=True)
class Notification:
    """One message to one user on one channel (a row of ``notifications``)."""

    id: int
    user_id: int
    channel: str
    event: str
    target: str
    title: str
    body: str
    link: str | None
    state: str
    attempts: int
    error: str | None
    created_at: dt.datetime
    sent_at: dt.datetime | None


def _settings(row: NotifySettingsModel | None) -> NotifySettings:
    if row is None:
        return NotifySettings()
    events = {
        str(event): tuple(c for c in channels if c in CHANNELS)
        for event, channels in (row.events or {}).items()
    }
    return NotifySettings(row.webhook_url, row.email, events)


def _notification(row: NotificationModel) -> Notification:
    return Notification(
        id=row.id,
        user_id=row.user_id,
        channel=row.channel,
        event=row.event,
        target=row.target,
        title=row.title,
        body=row.body,
        link=row.link,
        state=row.state,
        attempts=row.attempts,
        error=row.error,
        created_at=_aware(row.created_at),
        sent_at=_aware(row.sent_at) if row.sent_at is not None else None,
    )


class SqlNotificationRepository:
    """Users' notification settings and the outbox (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- settings ---------------------------------------------------------------------

    def settings(self, user_id: int) -> NotifySettings:
        """``user_id``'s settings (none yet: told about nothing)."""
        with self.db.session() as session:
            return _settings(session.get(NotifySettingsModel, user_id))

    def save_settings(self, user_id: int, settings: NotifySettings) -> NotifySettings:
        """Replace ``user_id``'s settings (checked by the caller); returns them as stored."""
        events = {event: list(channels) for event, channels in settings.events.items()}
        with self.db.session() as session:
            row = session.get(NotifySettingsModel, user_id)
            if row is None:
                row = NotifySettingsModel(user_id=user_id)
                session.add(row)
            row.webhook_url = settings.webhook_url
            row.email = settings.email
            row.events = events
            row.updated_at = _now()
            session.flush()
            return _settings(row)

    def subscribers(
        self, event: str, user_ids: Sequence[int] | None = None, *, admins: bool = False
    ) -> list[int]:
        """The enabled users told about ``event``: among ``user_ids``, or admins only."""
        query = (
            sa.select(NotifySettingsModel.user_id, NotifySettingsModel.events)
            .join(UserModel, UserModel.id == NotifySettingsModel.user_id)
            .where(UserModel.disabled.is_(False))
            .order_by(NotifySettingsModel.user_id)
        )
        if user_ids is not None:
            query = query.where(NotifySettingsModel.user_id.in_(list(user_ids)))
        if admins:
            query = query.where(UserModel.role == "admin")
        with self.db.session() as session:
            rows = session.execute(query).all()
        return [user_id for user_id, events in rows if (events or {}).get(event)]

    # -- the outbox -------------------------------------------------------------------

    def enqueue(
        self,
        user_id: int,
        event: str,
        title: str,
        body: str,
        link: str | None,
        *,
        per_hour: int,
        channels: Sequence[str] | None = None,
    ) -> list[Notification]:
        """Queue ``event``'s message on each channel ``user_id`` chose for it (or ``channels``).

        A channel whose last hour holds ``per_hour`` messages already (sent, pending or
        failed: each was an attempt to reach the user) gets the row as ``capped``.
        The user's settings row is written first (a lock until the end), so that two
        servers queueing at once cannot both pass the cap.
        """
        now = _now()
        made: list[NotificationModel] = []
        with self.db.session() as session:
            # Written first, so that the count below is one server's at a time: the
            # write locks the user's row on PostgreSQL and the database on SQLite (as
            # the rate limits' budgets do, snakewar.storage.limits).
            session.execute(
                sa.update(NotifySettingsModel)
                .where(NotifySettingsModel.user_id == user_id)
                .values(updated_at=NotifySettingsModel.updated_at)
            )
            row = session.get(NotifySettingsModel, user_id)
            settings = _settings(row)
            chosen = settings.events.get(event, ()) if channels is None else channels
            for channel in chosen:
                target = settings.target(channel)
                if not target:
                    continue
                recent = session.execute(
                    sa.select(sa.func.count())
                    .select_from(NotificationModel)
                    .where(
                        NotificationModel.user_id == user_id,
                        NotificationModel.channel == channel,
                        NotificationModel.state != "capped",
                        NotificationModel.created_at > now - dt.timedelta(hours=1),
                    )
                ).scalar_one()
                item = NotificationModel(
                    user_id=user_id,
                    channel=channel,
                    event=event,
                    target=target,
                    title=title,
                    body=body,
                    link=link,
                    state="pending" if recent < per_hour else "capped",
                    attempts=0,
                    error=None if recent < per_hour else f"over the cap of {per_hour} an hour",
                    created_at=now,
                    next_at=now,
                )
                session.add(item)
                made.append(item)
            session.flush()
            return [_notification(item) for item in made]

    def claim(self, holder: str, limit: int, claim_s: float) -> list[Notification]:
        """Claim up to ``limit`` due pending messages for ``claim_s`` seconds (oldest first)."""
        now = _now()
        free = sa.or_(
            NotificationModel.claimed_until.is_(None), NotificationModel.claimed_until < now
        )
        claimed = []
        with self.db.session() as session:
            ids = (
                session.execute(
                    sa.select(NotificationModel.id)
                    .where(
                        NotificationModel.state == "pending", NotificationModel.next_at <= now, free
                    )
                    .order_by(NotificationModel.next_at, NotificationModel.id)
                    .limit(limit)
                )
                .scalars()
                .all()
            )
            for item_id in ids:
                # Claimed only if nobody claimed it meanwhile (another server's worker).
                done = session.execute(
                    sa.update(NotificationModel)
                    .where(
                        NotificationModel.id == item_id, NotificationModel.state == "pending", free
                    )
                    .values(claimed_by=holder, claimed_until=now + dt.timedelta(seconds=claim_s))
                )
                if getattr(done, "rowcount", 0) == 1:
                    claimed.append(item_id)
            rows = (
                session.execute(
                    sa.select(NotificationModel)
                    .where(NotificationModel.id.in_(claimed))
                    .order_by(NotificationModel.id)
                )
                .scalars()
                .all()
            )
            return [_notification(row) for row in rows]

    def _finish(self, item_id: int, holder: str, **values: object) -> None:
        with self.db.session() as session:
            session.execute(
                sa.update(NotificationModel)
                .where(NotificationModel.id == item_id, NotificationModel.claimed_by == holder)
                .values(claimed_by=None, claimed_until=None, **values)
            )

    def sent(self, item_id: int, holder: str) -> None:
        """Record that the message was delivered."""
        self._finish(
            item_id,
            holder,
            state="sent",
            sent_at=_now(),
            error=None,
            attempts=NotificationModel.attempts + 1,
        )

    def retry(self, item_id: int, holder: str, error: str, after_s: float) -> None:
        """Record a failed attempt; the message is tried again in ``after_s`` seconds."""
        self._finish(
            item_id,
            holder,
            error=error[:MAX_ERROR],
            next_at=_now() + dt.timedelta(seconds=after_s),
            attempts=NotificationModel.attempts + 1,
        )

    def failed(self, item_id: int, holder: str, error: str) -> None:
        """Record the last failed attempt: the message is given up."""
        self._finish(
            item_id,
            holder,
            state="failed",
            error=error[:MAX_ERROR],
            attempts=NotificationModel.attempts + 1,
        )

    def prune(self, older_than: dt.timedelta) -> int:
        """Forget the messages done with (sent, failed, capped) older than that; how many."""
        with self.db.session() as session:
            done = session.execute(
                sa.delete(NotificationModel).where(
                    NotificationModel.state != "pending",
                    NotificationModel.created_at < _now() - older_than,
                )
            )
            return int(getattr(done, "rowcount", 0) or 0)

    # -- reading ----------------------------------------------------------------------

    def recent(self, user_id: int | None = None, limit: int = 20) -> list[Notification]:
        """The latest messages, newest first: ``user_id``'s, or everyone's."""
        query = sa.select(NotificationModel).order_by(NotificationModel.id.desc()).limit(limit)
        if user_id is not None:
            query = query.where(NotificationModel.user_id == user_id)
        with self.db.session() as session:
            return [_notification(row) for row in session.execute(query).scalars().all()]

    def counts(self) -> dict[str, int]:
        """How many messages are in each state."""
        with self.db.session() as session:
            rows = session.execute(
                sa.select(NotificationModel.state, sa.func.count()).group_by(
                    NotificationModel.state
                )
            ).all()
        found = {state: 0 for state in NOTIFICATION_STATES}
        found.update({str(state): int(count) for state, count in rows})
        return found
