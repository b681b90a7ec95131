"""Opening a database: URLs, the SQLAlchemy engine, sessions and migrations.

SQLite is the default (a file in the user's data directory); PostgreSQL is used by URL.
Opening a :class:`Database` upgrades it to the newest schema with the packaged Alembic
migrations (``snakewar/storage/migrations``), so a fresh database and an old one both end
up current.  A new revision is made with ``python -m snakewar.storage.migrations revision
--autogenerate -m "what changed"``.

The database is synchronous and thread-safe (one engine, one session per call):
asynchronous code calls it from worker threads (:class:`snakewar.storage.AsyncStore`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final, ParamSpec, TypeVar

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.util import CommandError
from platformdirs import user_data_dir
from sqlalchemy import event
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, OperationalError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from snakewar import __version__
from snakewar.errors import SnakewarError, choices_text

__all__ = [
    "DATABASE_URL_ENV",
    "MIGRATIONS_DIR",
    "WRITE_RETRY_S",
    "Database",
    "StoreError",
    "alembic_config",
    "default_database_url",
    "resolve_database_url",
    "retried",
    "retrying",
    "unreachable",
]

P = ParamSpec("P")
T = TypeVar("T")

log = logging.getLogger("snakewar.storage")

DATABASE_URL_ENV: Final = "SNAKEWAR_DATABASE_URL"
"""The environment variable that names the database when none is given."""

MIGRATIONS_DIR: Final = Path(__file__).with_name("migrations")
"""The packaged Alembic environment (``env.py``, ``versions/``)."""

_SQLITE_DRIVERS: Final = ("sqlite", "sqlite+pysqlite")
_POSTGRES_DRIVERS: Final = ("postgresql", "postgresql+psycopg", "postgres")


class StoreError(SnakewarError, ValueError):
    """Raised for a database that cannot be opened or a request the store refuses."""


CLOSE_WAIT_S: Final = 30.0
"""The longest :meth:`Database.close` waits for sessions in progress on other threads."""

WRITE_RETRY_S: Final = 120.0
"""How long a game's write is tried again while the database cannot be reached (a
PostgreSQL server restarting, a failover): long enough for a restart, bounded so that a
database gone for good ends the game (aborted, its frames kept) rather than hanging it."""

RETRY_PAUSE_MIN_S: Final = 0.1
RETRY_PAUSE_MAX_S: Final = 2.0


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` means the database could not be reached, not that it refused.

    A connection lost or refused (the server restarting, shutting down, not up yet), or
    a connection the pool found dead: the same call may well succeed a moment later.
    A constraint, a bad value or a :class:`StoreError` is the database's answer, and
    would be the same again.
    """
    if isinstance(exc, OperationalError):
        return True
    return isinstance(exc, DBAPIError) and bool(exc.connection_invalidated)


def retry_pause(attempt: int) -> float:
    """How long to wait before try ``attempt + 1`` of a call the database missed."""
    return min(RETRY_PAUSE_MAX_S, RETRY_PAUSE_MIN_S * 2.0 ** min(attempt, 16))


def retry_said(fn: Callable[..., Any], attempt: int, exc: BaseException | None) -> None:
    """Log a retried write: its first miss (``exc``), and its success after misses."""
    name = getattr(fn, "__name__", "a write")
    if exc is not None and attempt == 0:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        log.warning(
            "snakewar: %s cannot reach the database (%s); trying again for up to %g s",
            name,
            first[:300],
            WRITE_RETRY_S,
        )
    elif exc is None and attempt > 0:
        log.warning("snakewar: %s reached the database again after %d tries", name, attempt + 1)


def retried(fn: Callable[P, T]) -> Callable[P, T]:
    """``fn``, each call of it made through :func:`retrying`."""

    @functools.wraps(fn)
    def call(*args: P.args, **kwargs: P.kwargs) -> T:
        return retrying(fn, *args, **kwargs)

    return call


def retrying(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)``, tried again while the database cannot be reached.

    For the writes of a game being played (a frame, its end): a short outage of the
    database delays the game instead of losing it.  Tries for :data:`WRITE_RETRY_S`
    seconds (pausing between tries, up to :data:`RETRY_PAUSE_MAX_S`); only errors for
    which :func:`unreachable` holds are tried again.  Blocks the calling thread.

    Raises:
        Exception: ``fn``'s error, when it is not :func:`unreachable` or the time is up.
    """
    deadline = time.monotonic() + WRITE_RETRY_S
    attempt = 0
    while True:
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:
            pause = retry_pause(attempt)
            if not unreachable(exc) or time.monotonic() + pause > deadline:
                raise
            retry_said(fn, attempt, exc)
        else:
            retry_said(fn, attempt, None)
            return result
        time.sleep(pause)
        attempt += 1


def default_database_url() -> str:
    """Return the default database: ``snakewar.db`` in the user's data directory.

    The directory (``platformdirs.user_data_dir("snakewar")``) is created.

    Raises:
        StoreError: if it cannot be created.
    """
    directory = Path(user_data_dir("snakewar", appauthor=False))
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"cannot make the data directory {str(directory)!r} for the default database: "
            f"{exc.strerror or exc}; give a database URL (--database or ${DATABASE_URL_ENV})"
        ) from None
    return URL.create("sqlite", database=str(directory / "snakewar.db")).render_as_string()


def resolve_database_url(url: str | None = None) -> str:
    """Return the database URL that opening ``url`` means.

    ``url`` when given, otherwise ``$SNAKEWAR_DATABASE_URL`` when set and not
    empty, otherwise :func:`default_database_url`.
    """
    if url is not None:
        return url
    return os.environ.get(DATABASE_URL_ENV, "").strip() or default_database_url()


def _parse_url(text: object) -> URL:
    """Parse and check a database URL; ``postgresql://`` means the psycopg 3 driver."""
    if not isinstance(text, str) or not text.strip():
        raise StoreError(
            f"database URL {text!r} is empty; expected 'sqlite:///PATH' or "
            "'postgresql+psycopg://USER:PASSWORD@HOST/DB'"
        )
    try:
        url = make_url(text.strip())
    except ArgumentError:
        # The text itself may hold a password: name only its scheme.
        scheme = text.partition(":")[0]
        raise StoreError(
            f"database URL with scheme {scheme!r} cannot be parsed; expected "
            "'sqlite:///PATH' or 'postgresql+psycopg://USER:PASSWORD@HOST/DB'"
        ) from None
    if url.drivername in _POSTGRES_DRIVERS:
        url = url.set(drivername="postgresql+psycopg")
    elif url.drivername not in _SQLITE_DRIVERS:
        raise StoreError(
            f"database driver {url.drivername!r} is not supported; expected one of "
            f"{choices_text(('sqlite', 'postgresql+psycopg'))}"
        )
    return url


def alembic_config(url: str | None = None) -> Config:
    """Return an Alembic config for the packaged migrations (no ``alembic.ini`` needed).

    Args:
        url: the database that ``env.py`` connects to when no connection is handed
            to it in ``config.attributes["connection"]`` (command-line use).
    """
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # "os" silences Alembic's warning about the legacy way of splitting paths.
    config.set_main_option("path_separator", "os")
    # Revision files are named v0002_what_changed.py: valid module names for mypy.
    config.set_main_option("file_template", "v%%(rev)s_%%(slug)s")
    if url is not None:
        full = _parse_url(url).render_as_string(hide_password=False)
        config.set_main_option("sqlalchemy.url", full.replace("%", "%%"))
    return config


def dumps(value: Any) -> str:
    """Compact JSON text (UTF-8, no spaces): how JSON columns and replay lines are written."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def utc(value: dt.datetime) -> dt.datetime:
    """A stored time as an aware UTC time (SQLite gives back naive datetimes: stored as UTC)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC)


def now() -> dt.datetime:
    """The current time, UTC."""
    return dt.datetime.now(dt.UTC)


def _configure_sqlite(engine: Engine, memory: bool) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        try:
            # SQLite leaves foreign keys off unless asked, on every connection.
            cursor.execute("PRAGMA foreign_keys=ON")
            if not memory:
                # WAL: readers (the web pages) never wait for the game writers.
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA synchronous=NORMAL")
                # A writer waits for another instead of failing at once.
                cursor.execute("PRAGMA busy_timeout=10000")
        finally:
            cursor.close()


def _check_foreign_keys(connection: sa.Connection, url: str) -> None:
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if broken:
        table, _rowid, parent, _key = broken[0]
        raise StoreError(
            f"cannot migrate database {url!r}: {len(broken)} rows of {table!r} point to "
            f"missing rows of {parent!r}"
        )


class Database:
    """One database: SQLite or PostgreSQL, migrated to the newest schema on open.

    Args:
        url: a SQLAlchemy URL: ``sqlite:///PATH`` (``sqlite://``: an in-memory
            database on one shared connection, for tests),
            ``postgresql+psycopg://USER:PASSWORD@HOST/DB`` (``postgresql://`` means the
            same).  ``None``: ``$SNAKEWAR_DATABASE_URL`` if set, else ``snakewar.db``
            in the user's data directory.

    Raises:
        StoreError: if the URL is malformed or names another database, or the
            database cannot be opened or migrated.
    """

    def __init__(self, url: str | None = None) -> None:
        parsed = _parse_url(resolve_database_url(url))
        self._url = parsed
        self._closed = False
        # Sessions in progress, so that close() waits for them (see close).
        self._active = 0
        self._idle = threading.Condition()
        self._engine = self._create_engine(parsed)
        self._sessions = sessionmaker(self._engine, expire_on_commit=False)
        # An in-memory database is one connection shared by every thread (each new
        # connection would see an empty database): its transactions take turns.
        self._serial: threading.RLock | None = (
            threading.RLock() if isinstance(self._engine.pool, StaticPool) else None
        )
        try:
            self._migrate()
        except Exception:
            self._engine.dispose()
            raise

    @staticmethod
    def _create_engine(url: URL) -> Engine:
        options: dict[str, Any] = {"json_serializer": dumps, "connect_args": {}}
        memory = False
        if url.get_backend_name() == "sqlite":
            memory = url.database in (None, "", ":memory:")
            # Worker threads use the database.
            options["connect_args"]["check_same_thread"] = False
            if memory:
                # One shared connection, or every session would see its own empty db.
                options["poolclass"] = StaticPool
        else:
            # A restarted PostgreSQL server must not break the next request.
            options["pool_pre_ping"] = True
        try:
            engine = sa.create_engine(url, **options)
        except (ArgumentError, NoSuchModuleError, ImportError) as exc:
            raise StoreError(
                f"cannot use database {url.render_as_string(hide_password=True)!r}: {exc}"
                + (
                    " (install psycopg: pip install 'psycopg[binary]')"
                    if url.get_backend_name() == "postgresql"
                    else ""
                )
            ) from None
        if url.get_backend_name() == "sqlite":
            _configure_sqlite(engine, memory)
        return engine

    def _migrate(self) -> None:
        config = alembic_config()
        sqlite = self.dialect == "sqlite"
        try:
            with self._engine.connect() as connection:
                if sqlite:
                    # Alembic rebuilds SQLite tables (copy, drop, rename); with foreign keys
                    # on, dropping ``games`` would delete every frame (ON DELETE CASCADE).
                    # The pragma only takes effect outside a transaction.
                    connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
                    connection.commit()
                try:
                    with connection.begin():
                        config.attributes["connection"] = connection
                        command.upgrade(config, "head")
                        if sqlite:
                            _check_foreign_keys(connection, self.url)
                finally:
                    if sqlite:
                        connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                        connection.commit()
        except DBAPIError as exc:
            raise StoreError(
                f"cannot open database {self.url!r}: {str(exc.orig).strip().splitlines()[0]}"
            ) from None
        except CommandError as exc:
            # Most likely a revision id from a newer Snakewar that this one lacks.
            raise StoreError(
                f"cannot migrate database {self.url!r}: {exc}; if a newer Snakewar wrote it, "
                f"upgrade Snakewar (this is {__version__})"
            ) from None

    @property
    def url(self) -> str:
        """The database URL, password hidden."""
        return self._url.render_as_string(hide_password=True)

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (for maintenance and tests; prefer the repositories)."""
        return self._engine

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self._engine.dialect.name

    def __repr__(self) -> str:
        return f"Database({self.url!r})"

    def ping(self) -> None:
        """Ask the database a trivial question (raises what reaching it raises)."""
        with self.session() as session:
            session.execute(sa.text("SELECT 1"))

    def close(self) -> None:
        """Close every connection; the database cannot be used afterwards.

        Sessions in progress on other threads are waited for (at most
        :data:`CLOSE_WAIT_S`): a connection they hold is closed when they end, not
        left open in a pool nobody refers to (the engine's ``dispose`` leaves checked-out
        connections alone).
        """
        with self._idle:
            self._closed = True
            self._idle.wait_for(lambda: self._active == 0, CLOSE_WAIT_S)
        self._engine.dispose()

    @contextmanager
    def session(self) -> Iterator[Session]:
        """One session and transaction, committed on success.

        Raises:
            StoreError: if the database is closed.
        """
        with self._idle:
            if self._closed:
                raise StoreError(f"the store {self.url!r} is closed")
            self._active += 1
        try:
            with contextlib.ExitStack() as stack:
                if self._serial is not None:
                    stack.enter_context(self._serial)
                session = stack.enter_context(self._sessions())
                stack.enter_context(session.begin())
                yield session
        finally:
            with self._idle:
                self._active -= 1
                self._idle.notify_all()
