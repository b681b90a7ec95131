"""Wake-ups when stored games change: PostgreSQL ``LISTEN``, or polling on SQLite.

Every write of a game on PostgreSQL notifies :data:`~snakewar.storage.games.NOTIFY_CHANNEL`
in its own transaction (:mod:`snakewar.storage.games`), whichever process wrote it (a
web replica, a worker).  One :class:`GameEvents` per process listens and wakes the
code waiting on that game (:meth:`GameEvents.subscribe`), which then reads the database:
a notification only says *look again*, the database says what changed.  So nothing is
lost when notifications are: when the listening connection drops (PostgreSQL
restarted, the connection killed) it reconnects with a bounded backoff, and on every
(re)connection it wakes every waiter, since it may have missed anything meanwhile.

SQLite has no notifications: the waiters are woken every :data:`POLL_S` seconds
instead (while there are any), and read the database then.

A waiter holds a :class:`Subscription` while it waits, woken by any notification since
its previous :meth:`~Subscription.wait`, so a write between its read and its next wait
is never missed::

    with events.subscribe(game_id) as changes:
        while True:
            ...  # read the game from the database
            await changes.wait(timeout=5.0)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from dataclasses import dataclass
from typing import Any, Final

import sqlalchemy as sa

from snakewar.storage.games import NOTIFY_CHANNEL
from snakewar.storage.models import MAX_ID_LENGTH

__all__ = [
    "BACKOFF_MAX_S",
    "BACKOFF_MIN_S",
    "MAX_PAYLOAD",
    "POLL_S",
    "GameEvent",
    "GameEvents",
    "Subscription",
    "parse_payload",
]

log = logging.getLogger("snakewar.storage.events")

POLL_S: Final = 0.25
"""How often waiters are woken where the database has no notifications (SQLite)."""

BACKOFF_MIN_S: Final = 0.1
"""The first wait before connecting the listener again after it dropped."""

BACKOFF_MAX_S: Final = 5.0
"""The longest wait between two tries to connect the listener again."""

MAX_PAYLOAD: Final = MAX_ID_LENGTH + 24
"""The longest notification payload read (``<game id>:<event>``); longer ones are ignored."""

_MAX_TURN_DIGITS: Final = 12
_NAMED_EVENTS: Final = frozenset({"end", "status", "restart"})


@dataclass(frozen=True, slots=True)
class GameEvent:
    """One notification: something happened to a game.

    Attributes:
        game_id: the game.
        event: a frame's turn (decimal digits), ``end``, ``status`` or ``restart``.
    """

    game_id: str
    event: str


def parse_payload(payload: object) -> GameEvent | None:
    """The event a notification's payload names; ``None`` for a malformed one.

    Anyone who may connect to the database can notify the channel: a payload is checked
    (its size, its shape) before it is used, and only ever wakes waiters.
    """
    if not isinstance(payload, str) or not 0 < len(payload) <= MAX_PAYLOAD:
        return None
    game_id, sep, event = payload.rpartition(":")
    if not sep or not 0 < len(game_id) <= MAX_ID_LENGTH:
        return None
    turn = event.isascii() and event.isdigit() and len(event) <= _MAX_TURN_DIGITS
    if not turn and event not in _NAMED_EVENTS:
        return None
    return GameEvent(game_id, event)


class Subscription:
    """A waiter on one game's changes (see :meth:`GameEvents.subscribe`).

    Woken by any notification of its game (or of every game: a reconnection, a poll)
    since its previous :meth:`wait`.
    """

    def __init__(self, events: GameEvents, game_id: str) -> None:
        self.game_id = game_id
        self._events = events
        self._woken = asyncio.Event()
        self.closed = False

    def wake(self) -> None:
        """Wake it (the next :meth:`wait` returns at once)."""
        self._woken.set()

    async def wait(self, timeout: float | None = None) -> bool:
        """Wait for a change since the previous wait; ``False`` if ``timeout`` passed first.

        A wake-up says the game may have changed: read it again either way.
        """
        try:
            if self._woken.is_set():
                pass  # at once, whatever the timeout (wait_for(..., 0) would time out)
            elif timeout is None:
                await self._woken.wait()
            else:
                await asyncio.wait_for(self._woken.wait(), timeout)
        except TimeoutError:
            return False
        self._woken.clear()
        return True

    def close(self) -> None:
        """Stop waiting: it is forgotten (idempotent)."""
        if not self.closed:
            self.closed = True
            self._events._remove(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


class GameEvents:
    """The process's wake-ups on stored games' changes (one per process and database).

    Args:
        url: the database's SQLAlchemy URL (with its password: the listener logs in
            with it).  A PostgreSQL URL listens on :data:`NOTIFY_CHANNEL`; any other
            (SQLite) polls.
        poll_s: how often a polling one wakes its waiters.
        backoff_max_s: the longest wait between two tries to reconnect the listener.
    """

    def __init__(
        self,
        url: str | sa.URL,
        *,
        poll_s: float = POLL_S,
        backoff_max_s: float = BACKOFF_MAX_S,
    ) -> None:
        parsed = sa.make_url(url)
        self.listens = parsed.get_backend_name() == "postgresql"
        """Whether it listens (PostgreSQL) rather than polls (SQLite)."""
        self._conninfo = _conninfo(parsed) if self.listens else ""
        self.poll_s = poll_s
        self.backoff_max_s = backoff_max_s
        self._waiters: dict[str, set[Subscription]] = {}
        self._task: asyncio.Task[None] | None = None
        self._connected = asyncio.Event()
        self.connects = 0
        """How many times the listener connected (PostgreSQL): 1 plus its reconnections."""
        self.backend_pid: int | None = None
        """The PostgreSQL backend process of the listening connection (``None``: none now)."""
        self.notifications = 0
        """Notifications received (well-formed ones)."""

    @classmethod
    def for_engine(cls, engine: sa.Engine, **options: Any) -> GameEvents:
        """The events of the database ``engine`` connects to."""
        return cls(engine.url, **options)

    @property
    def waiters(self) -> int:
        """How many subscriptions wait now."""
        return sum(len(subs) for subs in self._waiters.values())

    @property
    def connected(self) -> bool:
        """Whether it listens now (always ``True`` for a polling one once started)."""
        return self._connected.is_set()

    async def start(self) -> None:
        """Start listening (or polling) in the background; returns at once."""
        if self._task is not None:
            return
        if self.listens:
            self._task = asyncio.create_task(self._listen(), name="game events listener")
        else:
            self._connected.set()
            self._task = asyncio.create_task(self._poll(), name="game events poller")

    async def wait_connected(self, timeout: float) -> bool:
        """Wait until it listens; ``False`` if ``timeout`` passed first."""
        try:
            await asyncio.wait_for(self._connected.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def close(self) -> None:
        """Stop listening; every waiter is woken (and reads the database one last time)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._connected.clear()
        self.wake_all()

    def subscribe(self, game_id: str) -> Subscription:
        """Wait on ``game_id``'s changes from now on (close it, or use it as a context)."""
        sub = Subscription(self, game_id)
        self._waiters.setdefault(game_id, set()).add(sub)
        return sub

    async def wait(self, game_id: str, timeout: float | None = None) -> bool:
        """Wait for the next change of ``game_id``; ``False`` if ``timeout`` passed first."""
        with self.subscribe(game_id) as sub:
            return await sub.wait(timeout)

    def _remove(self, sub: Subscription) -> None:
        subs = self._waiters.get(sub.game_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._waiters[sub.game_id]

    def wake(self, game_id: str) -> None:
        """Wake the waiters of ``game_id``."""
        for sub in self._waiters.get(game_id, ()):
            sub.wake()

    def wake_all(self) -> None:
        """Wake every waiter (each reads its game again)."""
        for subs in self._waiters.values():
            for sub in subs:
                sub.wake()

    def dispatch(self, payload: object) -> GameEvent | None:
        """Wake the waiters a notification's payload names; the event, or ``None`` if malformed."""
        event = parse_payload(payload)
        if event is not None:
            self.notifications += 1
            self.wake(event.game_id)
        return event

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(self.poll_s)
            self.wake_all()

    def _backoff(self, attempt: int) -> float:
        # Jittered: replicas that lost the database together do not all come back at once.
        ceiling = min(self.backoff_max_s, BACKOFF_MIN_S * 2.0 ** min(attempt, 16))
        return ceiling * random.uniform(0.5, 1.0)

    async def _listen(self) -> None:
        import psycopg  # the PostgreSQL driver, only needed here

        attempt = 0
        while True:
            try:
                connection = await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True)
                async with connection:
                    await connection.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    self.backend_pid = connection.info.backend_pid
                    self.connects += 1
                    attempt = 0
                    self._connected.set()
                    # What happened while nobody listened is in the database: look again.
                    self.wake_all()
                    async for notification in connection.notifies():
                        self.dispatch(notification.payload)
                # The stream of notifications ends only with its connection.
                raise psycopg.OperationalError("the listening connection closed")
            except (psycopg.Error, OSError) as exc:
                if self._connected.is_set():
                    log.warning("game events: the listening connection dropped: %s", _first(exc))
                else:
                    log.warning("game events: cannot listen (try %d): %s", attempt + 1, _first(exc))
                self._connected.clear()
                self.backend_pid = None
                await asyncio.sleep(self._backoff(attempt))
                attempt += 1


def _first(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _conninfo(url: sa.URL) -> str:
    """The libpq connection string of a SQLAlchemy PostgreSQL URL (its query kept)."""
    from psycopg.conninfo import make_conninfo

    params: dict[str, Any] = url.translate_connect_args(username="user", database="dbname")
    for key, value in url.query.items():
        params[key] = value if isinstance(value, str) else value[-1]
    # A peer that vanished without closing (a network cut) is noticed in about 20 s.
    params.setdefault("keepalives", 1)
    params.setdefault("keepalives_idle", 10)
    params.setdefault("keepalives_interval", 5)
    params.setdefault("keepalives_count", 2)
    params.setdefault("application_name", "snakewar-events")
    return make_conninfo("", **params)
