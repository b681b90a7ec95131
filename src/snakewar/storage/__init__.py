"""Persistence: games of every game, ladders and tournaments in SQLite or PostgreSQL.

:class:`Store` opens a database (migrated to the newest schema on open) and offers one
repository per aggregate::

    store.games         played and running games with their frames (SqlGameRepository)
    store.ladders       ladders: entrants, rated games, rating history (SqlLadderRepository)
    store.tournaments   tournaments: entrants, games; brackets rebuilt (SqlTournamentRepository)
    store.accounts      users, sessions, API tokens, invitations (SqlAccountRepository)
    store.snakes        registered snakes and bots, with their owners (SqlSnakeRepository)
    store.runs          ladder and tournament runs: which server plays each (SqlRunRepository)
    store.leases        named leases electing one server for a job (SqlLeaseRepository)
    store.sharing       saved games with titles, bulk export jobs (SqlSharingRepository)
    store.profiles      games search, snake latency, ladder entry reports (SqlProfileRepository)

A :class:`Store` is an :class:`snakewar.arena.ports.ArenaStore`, so ladders and
tournaments play straight into it.  It is synchronous and thread-safe; asynchronous code
(the server) goes through :class:`AsyncStore`, which runs every call on the store's own
worker threads, never on the event loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from snakewar.storage.accounts import (
    ROLES,
    ApiToken,
    ConfusableUserNameError,
    Invite,
    InviteNotUsableError,
    SnakeExistsError,
    SnakeNotFoundError,
    SqlAccountRepository,
    SqlSnakeRepository,
    StoredSnake,
    User,
    UserExistsError,
    UserNotFoundError,
)
from snakewar.storage.database import (
    DATABASE_URL_ENV,
    MIGRATIONS_DIR,
    WRITE_RETRY_S,
    Database,
    StoreError,
    alembic_config,
    default_database_url,
    resolve_database_url,
    retried,
    retry_pause,
    retry_said,
    retrying,
    unreachable,
)
from snakewar.storage.games import (
    MAX_LIST_LIMIT,
    MAX_REPLAY_BYTES,
    GameExistsError,
    GameNotFoundError,
    GameRow,
    SqlGameRepository,
)
from snakewar.storage.ladders import SqlLadderRepository
from snakewar.storage.leases import Lease, SqlLeaseRepository
from snakewar.storage.limits import SqlLimitRepository
from snakewar.storage.models import GAME_STATUSES, ArenaRunState, GameStatus
from snakewar.storage.profiles import (
    EntryReport,
    GameFilter,
    GamePage,
    Latency,
    RatingStep,
    ScoreLine,
    SqlProfileRepository,
)
from snakewar.storage.quota import QuotaExceededError
from snakewar.storage.runs import ArenaRun, SqlRunRepository
from snakewar.storage.sharing import SqlSharingRepository
from snakewar.storage.tournaments import SqlTournamentRepository
from snakewar.storage.usernames import ReservedUserNameError

__all__ = [
    "DATABASE_URL_ENV",
    "GAME_STATUSES",
    "MAX_LIST_LIMIT",
    "MAX_REPLAY_BYTES",
    "MIGRATIONS_DIR",
    "ROLES",
    "WRITE_RETRY_S",
    "ApiToken",
    "ArenaRun",
    "ArenaRunState",
    "AsyncStore",
    "ConfusableUserNameError",
    "Database",
    "EntryReport",
    "GameExistsError",
    "GameFilter",
    "GameNotFoundError",
    "GamePage",
    "GameRow",
    "GameStatus",
    "Invite",
    "InviteNotUsableError",
    "Latency",
    "Lease",
    "QuotaExceededError",
    "RatingStep",
    "ReservedUserNameError",
    "ScoreLine",
    "SnakeExistsError",
    "SnakeNotFoundError",
    "SqlAccountRepository",
    "SqlGameRepository",
    "SqlLadderRepository",
    "SqlLeaseRepository",
    "SqlLimitRepository",
    "SqlProfileRepository",
    "SqlRunRepository",
    "SqlSharingRepository",
    "SqlSnakeRepository",
    "SqlTournamentRepository",
    "Store",
    "StoreError",
    "StoredSnake",
    "User",
    "UserExistsError",
    "UserNotFoundError",
    "alembic_config",
    "default_database_url",
    "resolve_database_url",
    "retried",
    "retrying",
    "unreachable",
]

P = ParamSpec("P")
T = TypeVar("T")


class Store:
    """A database and its repositories (see the module docstring).

    Args:
        url: as :class:`~snakewar.storage.database.Database` takes it (``None``:
            ``$SNAKEWAR_DATABASE_URL``, else SQLite in the user's data directory).

    Raises:
        StoreError: if the database cannot be opened or migrated.
    """

    def __init__(self, url: str | None = None) -> None:
        self.db = Database(url)
        self._games = SqlGameRepository(self.db)
        self._ladders = SqlLadderRepository(self.db)
        self._tournaments = SqlTournamentRepository(self.db)
        self._accounts = SqlAccountRepository(self.db)
        self._snakes = SqlSnakeRepository(self.db)
        self._runs = SqlRunRepository(self.db)
        self._limits = SqlLimitRepository(self.db)
        self._leases = SqlLeaseRepository(self.db)
        self._sharing = SqlSharingRepository(self.db)
        self._profiles = SqlProfileRepository(self.db)

    @property
    def games(self) -> SqlGameRepository:
        """Played and running games."""
        return self._games

    @property
    def ladders(self) -> SqlLadderRepository:
        """Ladders."""
        return self._ladders

    @property
    def tournaments(self) -> SqlTournamentRepository:
        """Tournaments."""
        return self._tournaments

    @property
    def accounts(self) -> SqlAccountRepository:
        """Users, sessions, API tokens and invitations."""
        return self._accounts

    @property
    def snakes(self) -> SqlSnakeRepository:
        """Registered snakes and bots."""
        return self._snakes

    @property
    def runs(self) -> SqlRunRepository:
        """Ladder and tournament runs, and the servers that play them."""
        return self._runs

    @property
    def limits(self) -> SqlLimitRepository:
        """Rate limits counted for every server sharing the database."""
        return self._limits

    @property
    def memory(self) -> bool:
        """Whether the database is SQLite in memory: this process's alone, never shared."""
        return self.dialect == "sqlite" and self.db.engine.url.database in (None, "", ":memory:")

    @property
    def leases(self) -> SqlLeaseRepository:
        """Named leases: which server holds a job that one server does at a time."""
        return self._leases

    @property
    def sharing(self) -> SqlSharingRepository:
        """Saved games with their titles, and bulk export jobs."""
        return self._sharing

    @property
    def profiles(self) -> SqlProfileRepository:
        """Games search, snake latency and ladder entry reports (profiles' queries)."""
        return self._profiles

    @property
    def url(self) -> str:
        """The database URL, password hidden."""
        return self.db.url

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self.db.dialect

    def __repr__(self) -> str:
        return f"Store({self.url!r})"

    def close(self) -> None:
        """Close every connection; the store cannot be used afterwards."""
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


class AsyncStore:
    """A :class:`Store` for asynchronous code: calls run on the store's own threads.

    The threads are the store's alone, so a slow query never takes a thread that
    other work (games, uploads) needs, and the event loop never waits on the database::

        row = await astore.run(astore.store.games.get, game_id)

    Args:
        store: the store.
        workers: worker threads (database connections in use at once).
    """

    def __init__(self, store: Store, workers: int = 4) -> None:
        self.store = store
        self._pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="store")

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args, **kwargs)`` on a store thread; its result or exception."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, functools.partial(fn, *args, **kwargs))

    async def run_retrying(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """:meth:`run`, tried again while the database cannot be reached.

        As :func:`~snakewar.storage.database.retrying` (for :data:`WRITE_RETRY_S`
        seconds, only errors that are
        :func:`~snakewar.storage.database.unreachable`), but the pauses are spent on the
        event loop, not on one of the store's threads.
        """
        deadline = time.monotonic() + WRITE_RETRY_S
        attempt = 0
        while True:
            try:
                result = await self.run(fn, *args, **kwargs)
            except Exception as exc:
                pause = retry_pause(attempt)
                if not unreachable(exc) or time.monotonic() + pause > deadline:
                    raise
                retry_said(fn, attempt, exc)
            else:
                retry_said(fn, attempt, None)
                return result
            await asyncio.sleep(pause)
            attempt += 1

    def close(self) -> None:
        """Stop the threads once the calls in progress are done."""
        self._pool.shutdown(wait=True)
