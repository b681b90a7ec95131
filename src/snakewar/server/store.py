"""Persistent games: a SQL store the server writes games into as they run.

:class:`Store` keeps every game the server plays in a SQLite file (the default)
or a PostgreSQL database, in these tables (and ``ladders`` and ``tournaments``):

``games``
    one row per game: ``id`` (the game id), ``created_at``, ``updated_at``,
    ``status`` (``running``, ``complete``, ``aborted`` or ``cancelled``),
    ``ruleset``, ``map``, ``width``, ``height``, ``seed``, ``timeout_ms``,
    ``source``, ``config`` (the replay header object,
    :func:`~snakewar.replay.header_dict`), ``result`` (the replay result line
    object, :func:`~snakewar.replay.result_dict`, or null while unfinished),
    ``winner_name``, ``turns`` (turns stored so far) and ``snakes`` (a short
    summary for listings: id, name, color, source and author of each snake).
``frames``
    one row per board state: ``(game_id, turn)`` is the key, ``frame`` the
    engine-API frame (:func:`snakewar.server.frames.frame`) and ``replay_line``
    the replay turn line (:func:`~snakewar.replay.turn_dict`) that led to it,
    null for turn 0.

``halite_games``
    one row per stored Halite III game: a summary for listings (``source``,
    ``seed``, ``width``, ``height``, ``num_players``, ``players`` (names),
    ``ranks``, ``scores``, ``turns``) and ``replay``, the compressed ``.hlt``
    bytes as the official engine writes them.

So a stored game serves the official board's ``/frames`` directly, and
:meth:`Store.export_replay_lines` rebuilds a Snakewar replay file from it,
finished or not.

The schema is managed by Alembic: opening a store upgrades the database to the
newest revision, so a fresh database and an old one both end up current.  The
migration scripts ship inside the package (``snakewar/server/migrations``); a new
revision is made with ``python -m snakewar.server.migrations revision
--autogenerate -m "what changed"``.

The store is synchronous and thread-safe (one engine, one session per call): the
server calls it from worker threads.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, cast

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.util import CommandError
from platformdirs import user_data_dir
from sqlalchemy import event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, CursorResult, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError, NoSuchModuleError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker
from sqlalchemy.pool import StaticPool

from snakewar import __version__
from snakewar.errors import SnakewarError, choices_text
from snakewar.referee.records import GameRecord, TurnRecord
from snakewar.replay.format import header_dict, result_dict, turn_dict
from snakewar.server.frames import frame

__all__ = [
    "DATABASE_URL_ENV",
    "GAME_STATUSES",
    "MAX_HALITE_REPLAY_BYTES",
    "MAX_LIST_LIMIT",
    "MIGRATIONS_DIR",
    "GameExistsError",
    "GameNotFoundError",
    "GameRow",
    "HaliteGameRow",
    "Store",
    "StoreError",
    "alembic_config",
    "default_database_url",
    "resolve_database_url",
]

DATABASE_URL_ENV: Final = "SNAKEWAR_DATABASE_URL"
"""The environment variable that names the database when ``Store()`` gets no URL."""

GAME_STATUSES: Final = ("running", "complete", "aborted", "cancelled")
"""The values of ``games.status``."""

FINISHED_STATUSES: Final = ("complete", "aborted", "cancelled")

MAX_LIST_LIMIT: Final = 1000
"""The most games :meth:`Store.list_games` returns at once."""

MAX_GAME_ID_LENGTH: Final = 100

MAX_HALITE_REPLAY_BYTES: Final = 32 * 1024 * 1024
"""The largest compressed Halite replay (``.hlt``) :meth:`Store.save_halite_game` keeps."""

MIGRATIONS_DIR: Final = Path(__file__).with_name("migrations")
"""The packaged Alembic environment (``env.py``, ``versions/``)."""

_SQLITE_DRIVERS: Final = ("sqlite", "sqlite+pysqlite")
_POSTGRES_DRIVERS: Final = ("postgresql", "postgresql+psycopg", "postgres")


# -- errors ----------------------------------------------------------------------------


class StoreError(SnakewarError, ValueError):
    """Raised for a database that cannot be opened or a request the store refuses."""


class GameExistsError(StoreError):
    """Raised when a game id is stored already."""


class GameNotFoundError(SnakewarError, LookupError):
    """Raised when no game with the given id is stored."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        super().__init__(f"no stored game with id {game_id!r}")


# -- the schema ------------------------------------------------------------------------

# Plain JSON keeps the text as written: exported replay lines keep their key order
# on PostgreSQL too, and JSON text may hold "\u0000" (JSONB refuses it).  Only the
# listing summary, which later queries may search (games of a snake), is JSONB.
_JSON = sa.JSON(none_as_null=True)
_JSON_SEARCHABLE = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(), "postgresql")


class Base(DeclarativeBase):
    """The declarative base of the store's tables (``Base.metadata`` is the schema)."""


class GameModel(Base):
    """A row of ``games``."""

    __tablename__ = "games"
    __table_args__ = (
        sa.CheckConstraint(
            "status IN ('running', 'complete', 'aborted', 'cancelled')", name="ck_games_status"
        ),
        sa.Index("ix_games_created_at", "created_at"),
        sa.Index("ix_games_status_created_at", "status", "created_at"),
    )

    id: Mapped[str] = mapped_column(sa.String(MAX_GAME_ID_LENGTH), primary_key=True)
    created_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))
    updated_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))
    status: Mapped[str] = mapped_column(sa.String(16))
    ruleset: Mapped[str] = mapped_column(sa.Text)
    map: Mapped[str] = mapped_column(sa.Text)
    width: Mapped[int] = mapped_column(sa.Integer)
    height: Mapped[int] = mapped_column(sa.Integer)
    seed: Mapped[int] = mapped_column(sa.BigInteger)
    timeout_ms: Mapped[int] = mapped_column(sa.Integer)
    source: Mapped[str] = mapped_column(sa.Text)
    config: Mapped[dict[str, Any]] = mapped_column(_JSON)
    result: Mapped[dict[str, Any] | None] = mapped_column(_JSON, nullable=True)
    winner_name: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    turns: Mapped[int] = mapped_column(sa.Integer)
    snakes: Mapped[list[dict[str, str]]] = mapped_column(_JSON_SEARCHABLE)


class FrameModel(Base):
    """A row of ``frames``."""

    __tablename__ = "frames"

    game_id: Mapped[str] = mapped_column(
        sa.String(MAX_GAME_ID_LENGTH),
        sa.ForeignKey("games.id", ondelete="CASCADE", name="fk_frames_game_id_games"),
        primary_key=True,
    )
    turn: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    frame: Mapped[dict[str, Any]] = mapped_column(_JSON)
    replay_line: Mapped[dict[str, Any] | None] = mapped_column(_JSON, nullable=True)


class LadderModel(Base):
    """A row of ``ladders``: a ladder's whole state as JSON (snakes, ratings, history)."""

    __tablename__ = "ladders"

    name: Mapped[str] = mapped_column(sa.String(100), primary_key=True)
    created_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))
    updated_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))
    state: Mapped[dict[str, Any]] = mapped_column(_JSON)


class TournamentModel(Base):
    """A row of ``tournaments``: a tournament run's whole state as JSON (bracket, games)."""

    __tablename__ = "tournaments"

    id: Mapped[str] = mapped_column(sa.String(100), primary_key=True)
    name: Mapped[str] = mapped_column(sa.Text)
    created_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))
    updated_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))
    state: Mapped[dict[str, Any]] = mapped_column(_JSON)


class HaliteGameModel(Base):
    """A row of ``halite_games``: a Halite III game's summary and its ``.hlt`` replay."""

    __tablename__ = "halite_games"
    __table_args__ = (sa.Index("ix_halite_games_created_at", "created_at"),)

    id: Mapped[str] = mapped_column(sa.String(MAX_GAME_ID_LENGTH), primary_key=True)
    created_at: Mapped[dt.datetime] = mapped_column(sa.DateTime(timezone=True))
    source: Mapped[str] = mapped_column(sa.Text)
    seed: Mapped[int] = mapped_column(sa.BigInteger)
    width: Mapped[int] = mapped_column(sa.Integer)
    height: Mapped[int] = mapped_column(sa.Integer)
    num_players: Mapped[int] = mapped_column(sa.Integer)
    players: Mapped[list[str]] = mapped_column(_JSON)
    ranks: Mapped[list[int]] = mapped_column(_JSON)
    scores: Mapped[list[int]] = mapped_column(_JSON)
    turns: Mapped[int] = mapped_column(sa.Integer)
    replay: Mapped[bytes] = mapped_column(sa.LargeBinary)


@dataclass(frozen=True, slots=True)
class GameRow:
    """One stored game's columns (a plain value: no database session behind it).

    ``created_at`` and ``updated_at`` are timezone-aware (UTC).  ``config`` is the
    replay header object and ``result`` the replay result line object (``None``
    while the game is unfinished).  ``turns`` is the number of turns stored, so
    the game has ``turns + 1`` frames.
    """

    id: str
    created_at: dt.datetime
    updated_at: dt.datetime
    status: str
    ruleset: str
    map: str
    width: int
    height: int
    seed: int
    timeout_ms: int
    source: str
    config: dict[str, Any]
    result: dict[str, Any] | None
    winner_name: str | None
    turns: int
    snakes: list[dict[str, str]]

    @property
    def finished(self) -> bool:
        """Whether the game is over (complete, aborted or cancelled)."""
        return self.status != "running"

    @property
    def winner_id(self) -> str | None:
        """The winning snake's id, if the game has a result with a winner."""
        inner = (self.result or {}).get("result")
        winner = inner.get("winner") if isinstance(inner, dict) else None
        return winner if isinstance(winner, str) else None


@dataclass(frozen=True, slots=True)
class HaliteGameRow:
    """One stored Halite III game's summary (the replay itself: :meth:`Store.halite_replay_bytes`).

    ``players``, ``ranks`` and ``scores`` are in player id order; ``turns`` is the
    number of turns played; ``replay_size`` the compressed replay's length in bytes.
    """

    id: str
    created_at: dt.datetime
    source: str
    seed: int
    width: int
    height: int
    num_players: int
    players: list[str]
    ranks: list[int]
    scores: list[int]
    turns: int
    replay_size: int

    @property
    def winner(self) -> str | None:
        """The name of the player ranked first, if any."""
        for name, rank in zip(self.players, self.ranks, strict=False):
            if rank == 1:
                return name
        return None


# -- URLs and Alembic ------------------------------------------------------------------


def default_database_url() -> str:
    """Return the default database: ``snakewar.db`` in the user's data directory.

    The directory (``platformdirs.user_data_dir("snakewar")``) is created.
    """
    directory = Path(user_data_dir("snakewar", appauthor=False))
    directory.mkdir(parents=True, exist_ok=True)
    return URL.create("sqlite", database=str(directory / "snakewar.db")).render_as_string()


def resolve_database_url(url: str | None = None) -> str:
    """Return the database URL a ``Store(url)`` opens.

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


def _dumps(value: Any) -> str:
    # The replay format's own compact JSON (UTF-8 text, no spaces).
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _utc(value: dt.datetime) -> dt.datetime:
    # SQLite gives back naive datetimes: they were stored as UTC.
    if value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _stamp(when: dt.datetime) -> str:
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


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
        finally:
            cursor.close()


# -- the store -------------------------------------------------------------------------


class Store:
    """The game store: SQLite or PostgreSQL, migrated to the newest schema on open.

    Args:
        url: a SQLAlchemy URL: ``sqlite:///PATH`` (``sqlite://``: an in-memory
            database on one shared connection, for tests), ``postgresql+psycopg://USER:PASSWORD@HOST/DB``
            (``postgresql://`` means the same).  ``None``: ``$SNAKEWAR_DATABASE_URL``
            if set, else ``snakewar.db`` in the user's data directory.

    Raises:
        StoreError: if the URL is malformed or names another database, or the
            database cannot be opened or migrated.
    """

    def __init__(self, url: str | None = None) -> None:
        parsed = _parse_url(resolve_database_url(url))
        self._url = parsed
        self._closed = False
        self._engine = self._create_engine(parsed)
        self._sessions = sessionmaker(self._engine, expire_on_commit=False)
        try:
            self._migrate()
        except Exception:
            self._engine.dispose()
            raise

    # -- opening --

    @staticmethod
    def _create_engine(url: URL) -> Engine:
        options: dict[str, Any] = {
            "json_serializer": _dumps,
            "connect_args": {},
        }
        memory = False
        if url.get_backend_name() == "sqlite":
            memory = url.database in (None, "", ":memory:")
            # The server calls the store from several worker threads.
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
        try:
            with self._engine.begin() as connection:
                config.attributes["connection"] = connection
                command.upgrade(config, "head")
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
        """The SQLAlchemy engine (for maintenance and tests; prefer the methods)."""
        return self._engine

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self._engine.dialect.name

    def __repr__(self) -> str:
        return f"Store({self.url!r})"

    def close(self) -> None:
        """Close every connection; the store cannot be used afterwards."""
        self._closed = True
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @contextmanager
    def _session(self) -> Iterator[Session]:
        """One session and transaction per call, committed on success."""
        if self._closed:
            raise StoreError(f"the store {self.url!r} is closed")
        with self._sessions() as session, session.begin():
            yield session

    # -- writing --

    def create_game(
        self,
        record: GameRecord,
        status: str = "running",
        *,
        created_at: dt.datetime | None = None,
    ) -> GameRow:
        """Store a new game: its header, frame 0 and every turn the record has so far.

        A finished ``status`` (``complete``, ``aborted``, ``cancelled``) also stores
        the result, as :meth:`finish_game` does: that imports a whole game at once.

        Args:
            record: the game (its id is the stored id).
            status: the game's status.
            created_at: when the game was created (default: now); also the replay
                header's ``created`` time.

        Raises:
            GameExistsError: if a game with this id is stored already.
            StoreError: for a bad status or record.
        """
        _check_status(status)
        _check_record(record)
        if status == "complete" and record.result is None:
            raise StoreError(f"game {record.id!r} has no result; status 'complete' needs one")
        created = _now() if created_at is None else _aware(created_at)
        values = _game_values(record, status, _stamp(created))
        exists = GameExistsError(f"a game with id {record.id!r} is stored already")
        try:
            with self._session() as session:
                if session.get(GameModel, record.id) is not None:
                    raise exists
                game = GameModel(id=record.id, created_at=created, updated_at=created, **values)
                session.add(game)
                session.flush()
                self._insert_frames(session, record, 0)
                return _row(game)
        except IntegrityError:
            # Another writer stored the same id between our check and our insert.
            raise exists from None

    def add_turn(self, record: GameRecord, turn: TurnRecord) -> None:
        """Store one turn of a running game: the frame it led to and its replay line.

        Storing a turn that is stored already does nothing, so a retry is safe.

        Raises:
            GameNotFoundError: if the game is not stored.
            StoreError: if the turn would leave a gap (turn 5 before turn 4), or the
                game is no longer running.
        """
        _check_record(record)
        _check_turn(turn)
        with self._session() as session:
            game = _get(session, record.id)
            if turn.turn < game.turns:
                return  # stored already: idempotent
            if game.status != "running":
                raise StoreError(
                    f"game {record.id!r} is {game.status}; turns are added to running games only"
                )
            if turn.turn > game.turns:
                raise StoreError(
                    f"turn {turn.turn} of game {record.id!r} would leave a gap: "
                    f"expected turn {game.turns} (turns are stored in order)"
                )
            _insert_frame_rows(session, [_turn_row(record, turn)])
            game.turns = turn.turn + 1
            game.updated_at = _now()

    def finish_game(self, record: GameRecord, status: str = "complete") -> GameRow:
        """Mark a game finished and store its result (and any turns not stored yet).

        The header is stored again from the record, so ``/start`` outcomes and
        snake metadata learnt after :meth:`create_game` are kept; its ``created``
        time stays.

        Args:
            record: the game as the referee finished it.
            status: ``complete`` (needs ``record.result``), ``aborted`` or ``cancelled``.

        Raises:
            GameNotFoundError: if the game is not stored.
            StoreError: for a bad status, or a record with fewer turns than stored.
        """
        _check_status(status)
        if status not in FINISHED_STATUSES:
            raise StoreError(
                f"finish status {status!r} is not a finished status; expected one of "
                f"{choices_text(FINISHED_STATUSES)}"
            )
        _check_record(record)
        if status == "complete" and record.result is None:
            raise StoreError(f"game {record.id!r} has no result; status 'complete' needs one")
        with self._session() as session:
            game = _get(session, record.id)
            if len(record.turns) < game.turns:
                raise StoreError(
                    f"record of game {record.id!r} has {len(record.turns)} turns but "
                    f"{game.turns} are stored; expected the whole game"
                )
            self._insert_frames(session, record, game.turns + 1)
            created = str(game.config.get("created", ""))
            for key, value in _game_values(record, status, created).items():
                setattr(game, key, value)
            game.updated_at = _now()
            session.flush()
            return _row(game)

    def set_status(self, game_id: str, status: str) -> None:
        """Set a game's status.

        Raises:
            GameNotFoundError: if the game is not stored.
            StoreError: for a status that is not one of :data:`GAME_STATUSES`.
        """
        _check_status(status)
        with self._session() as session:
            game = _get(session, _check_id(game_id))
            game.status = status
            game.updated_at = _now()

    def mark_running_as_aborted(self) -> int:
        """Mark every ``running`` game ``aborted``; return how many there were.

        Called when the server starts: a game still running then was cut off by a
        crash or a restart.  Its frames stay, so it can still be watched and exported.
        """
        with self._session() as session:
            result = session.execute(
                sa.update(GameModel)
                .where(GameModel.status == "running")
                .values(status="aborted", updated_at=_now())
                .execution_options(synchronize_session=False)
            )
            return cast(CursorResult[Any], result).rowcount

    def delete_game(self, game_id: str) -> None:
        """Delete a game and its frames.

        Raises:
            GameNotFoundError: if the game is not stored.
        """
        game_id = _check_id(game_id)
        with self._session() as session:
            session.execute(sa.delete(FrameModel).where(FrameModel.game_id == game_id))
            result = session.execute(sa.delete(GameModel).where(GameModel.id == game_id))
            if not cast(CursorResult[Any], result).rowcount:
                raise GameNotFoundError(game_id)

    # -- ladders --------------------------------------------------------------------------

    def save_ladder(self, name: str, state: dict[str, Any]) -> None:
        """Create or replace the ladder ``name`` with ``state`` (a JSON-ready dict)."""
        if not name or len(name) > 100:
            raise StoreError(f"ladder name {name!r}: expected 1 to 100 characters")
        now = _now()
        with self._session() as session:
            row = session.get(LadderModel, name)
            if row is None:
                session.add(LadderModel(name=name, created_at=now, updated_at=now, state=state))
            else:
                row.state = state
                row.updated_at = now

    def load_ladder(self, name: str) -> dict[str, Any] | None:
        """The state of the ladder ``name``, or ``None`` if there is none."""
        with self._session() as session:
            row = session.get(LadderModel, name)
            return None if row is None else dict(row.state)

    def list_ladders(self) -> list[str]:
        """Every ladder's name, sorted."""
        with self._session() as session:
            return list(session.scalars(sa.select(LadderModel.name).order_by(LadderModel.name)))

    # -- tournaments ----------------------------------------------------------------------

    def save_tournament(self, tid: str, name: str, state: dict[str, Any]) -> None:
        """Create or replace the tournament ``tid`` (named ``name``) with ``state``."""
        if not tid or len(tid) > 100:
            raise StoreError(f"tournament id {tid!r}: expected 1 to 100 characters")
        now = _now()
        with self._session() as session:
            row = session.get(TournamentModel, tid)
            if row is None:
                session.add(
                    TournamentModel(id=tid, name=name, created_at=now, updated_at=now, state=state)
                )
            else:
                row.name = name
                row.state = state
                row.updated_at = now

    def load_tournament(self, tid: str) -> dict[str, Any] | None:
        """The state of the tournament ``tid``, or ``None`` if there is none."""
        with self._session() as session:
            row = session.get(TournamentModel, tid)
            return None if row is None else dict(row.state)

    def list_tournaments(self) -> list[tuple[str, str]]:
        """Every tournament as ``(id, name)``, oldest first."""
        with self._session() as session:
            query = sa.select(TournamentModel.id, TournamentModel.name).order_by(
                TournamentModel.created_at, TournamentModel.id
            )
            return [(tid, name) for tid, name in session.execute(query)]

    # -- Halite III games -----------------------------------------------------------------

    def save_halite_game(
        self,
        replay: bytes,
        *,
        source: str,
        seed: int,
        width: int,
        height: int,
        players: Sequence[str],
        ranks: Sequence[int],
        scores: Sequence[int],
        turns: int,
        game_id: str | None = None,
        created_at: dt.datetime | None = None,
    ) -> str:
        """Store a finished Halite III game: its summary and its compressed ``.hlt`` bytes.

        The replay is stored as given (not checked here: the server checks uploads
        with :func:`snakewar.server.halite_routes.save_hlt`, which also reads the
        summary from the replay).

        Args:
            replay: the ``.hlt`` file's bytes (at most :data:`MAX_HALITE_REPLAY_BYTES`).
            source: where the game comes from, e.g. ``"upload"`` or ``"ladder:NAME"``.
            seed: the map generator's seed.
            width: the map's width.
            height: the map's height.
            players: the players' names, in player id order.
            ranks: each player's final rank (1 is the winner), same order.
            scores: each player's final halite, same order.
            turns: the number of turns played.
            game_id: the id to store it under (default: a new UUID).
            created_at: when the game was stored (default: now).

        Returns:
            The game's id.

        Raises:
            StoreError: for an oversized replay, mismatched lists or a bad id.
            GameExistsError: if ``game_id`` is stored already.
        """
        if not replay:
            raise StoreError("halite replay: expected the non-empty bytes of a .hlt file")
        if len(replay) > MAX_HALITE_REPLAY_BYTES:
            raise StoreError(
                f"halite replay of {len(replay)} bytes is too large; expected at most "
                f"{MAX_HALITE_REPLAY_BYTES}"
            )
        count = len(players)
        if not 1 <= count <= 16 or len(ranks) != count or len(scores) != count:
            raise StoreError(
                f"halite game: {count} players, {len(ranks)} ranks and {len(scores)} scores; "
                "expected 1 to 16 players and one rank and score each"
            )
        for name, value in (("width", width), ("height", height), ("turns", turns)):
            _check_count(name, value, 0)
        game_id = _check_id(game_id if game_id is not None else str(uuid.uuid4()))
        created = _now() if created_at is None else _aware(created_at)
        row = HaliteGameModel(
            id=game_id,
            created_at=created,
            source=_text(str(source)),
            seed=int(seed),
            width=width,
            height=height,
            num_players=count,
            players=[_text(str(p)) for p in players],
            ranks=[int(r) for r in ranks],
            scores=[int(s) for s in scores],
            turns=turns,
            replay=bytes(replay),
        )
        exists = GameExistsError(f"a halite game with id {game_id!r} is stored already")
        try:
            with self._session() as session:
                if session.get(HaliteGameModel, game_id) is not None:
                    raise exists
                session.add(row)
        except IntegrityError:
            raise exists from None
        return game_id

    def get_halite_game(self, game_id: str) -> HaliteGameRow | None:
        """The stored Halite game ``game_id``'s summary, or ``None`` if there is none."""
        query = _halite_summary_query().where(HaliteGameModel.id == _check_id(game_id))
        with self._session() as session:
            found = session.execute(query).first()
            return None if found is None else _halite_row(found)

    def halite_replay_bytes(self, game_id: str) -> bytes:
        """The stored ``.hlt`` bytes of the Halite game ``game_id``.

        Raises:
            GameNotFoundError: if the game is not stored.
        """
        query = sa.select(HaliteGameModel.replay).where(HaliteGameModel.id == _check_id(game_id))
        with self._session() as session:
            data = session.scalar(query)
        if data is None:
            raise GameNotFoundError(game_id)
        return bytes(data)

    def list_halite_games(self, limit: int = 50, offset: int = 0) -> list[HaliteGameRow]:
        """Stored Halite games' summaries, newest first (the replays are not read).

        Raises:
            StoreError: for a bad limit (1 to :data:`MAX_LIST_LIMIT`) or offset.
        """
        _check_count("limit", limit, 1, MAX_LIST_LIMIT)
        _check_count("offset", offset, 0)
        query = (
            _halite_summary_query()
            .order_by(HaliteGameModel.created_at.desc(), HaliteGameModel.id.desc())
            .limit(limit)
            .offset(offset)
        )
        with self._session() as session:
            return [_halite_row(found) for found in session.execute(query)]

    @staticmethod
    def _insert_frames(session: Session, record: GameRecord, first: int) -> None:
        """Insert the record's frames from turn ``first`` on (0: the initial frame too)."""
        rows = []
        if first == 0:
            rows.append(
                {
                    "game_id": record.id,
                    "turn": 0,
                    "frame": frame(record.initial, record.snakes),
                    "replay_line": None,
                }
            )
        rows.extend(_turn_row(record, t) for t in record.turns[max(first - 1, 0) :])
        _insert_frame_rows(session, rows)

    # -- reading --

    def get_game(self, game_id: str) -> GameRow | None:
        """Return the stored game ``game_id``, or ``None`` if there is none."""
        with self._session() as session:
            game = session.get(GameModel, _check_id(game_id))
            return None if game is None else _row(game)

    def list_games(
        self, limit: int = 50, offset: int = 0, status: str | None = None
    ) -> list[GameRow]:
        """Return stored games, newest first.

        Args:
            limit: at most this many (1 to :data:`MAX_LIST_LIMIT`).
            offset: skip this many of the newest first.
            status: only games with this status.

        Raises:
            StoreError: for a bad limit, offset or status.
        """
        _check_count("limit", limit, 1, MAX_LIST_LIMIT)
        _check_count("offset", offset, 0)
        query = sa.select(GameModel)
        if status is not None:
            _check_status(status)
            query = query.where(GameModel.status == status)
        query = (
            query.order_by(GameModel.created_at.desc(), GameModel.id.desc())
            .limit(limit)
            .offset(offset)
        )
        with self._session() as session:
            return [_row(g) for g in session.scalars(query)]

    def count_games(self, status: str | None = None) -> int:
        """Return how many games are stored (with ``status``, if given)."""
        query = sa.select(sa.func.count()).select_from(GameModel)
        if status is not None:
            _check_status(status)
            query = query.where(GameModel.status == status)
        with self._session() as session:
            return int(session.scalar(query) or 0)

    def frames(
        self, game_id: str, offset: int = 0, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """Return a game's engine-API frames from turn ``offset`` on, in turn order.

        Frames are numbered by turn from 0, so ``offset`` is the first turn.

        Args:
            game_id: the game.
            offset: the first turn (>= 0); past the last frame gives an empty list.
            limit: at most this many frames (>= 1), or all.

        Raises:
            GameNotFoundError: if the game is not stored.
            StoreError: for a bad offset or limit.
        """
        game_id = _check_id(game_id)
        _check_count("offset", offset, 0)
        if limit is not None:
            _check_count("limit", limit, 1)
        query = (
            sa.select(FrameModel.frame)
            .where(FrameModel.game_id == game_id, FrameModel.turn >= offset)
            .order_by(FrameModel.turn)
        )
        if limit is not None:
            query = query.limit(limit)
        with self._session() as session:
            _require(session, game_id)
            return list(session.scalars(query))

    def frame_count(self, game_id: str) -> int:
        """Return how many frames a game has (turns stored + 1).

        Raises:
            GameNotFoundError: if the game is not stored.
        """
        game_id = _check_id(game_id)
        query = sa.select(sa.func.count()).where(FrameModel.game_id == game_id)
        with self._session() as session:
            _require(session, game_id)
            return int(session.scalar(query) or 0)

    def export_replay_lines(self, game_id: str) -> list[str]:
        """Return a stored game as the lines of a Snakewar replay file.

        The header, one line per stored turn, and the result line if the game has
        a result (or ``/end`` outcomes): an unfinished game reads back as one.

        Raises:
            GameNotFoundError: if the game is not stored.
            StoreError: if the stored turns are damaged (a turn line is missing).
        """
        game_id = _check_id(game_id)
        query = (
            sa.select(FrameModel.turn, FrameModel.replay_line)
            .where(FrameModel.game_id == game_id, FrameModel.turn > 0)
            .order_by(FrameModel.turn)
        )
        with self._session() as session:
            game = _get(session, game_id)
            lines = [_dumps(game.config)]
            for expected, (turn, line) in enumerate(session.execute(query), start=1):
                if turn != expected or line is None:
                    raise StoreError(
                        f"stored game {game_id!r} lacks the replay line of turn {expected}"
                    )
                lines.append(_dumps(line))
            if game.result is not None:
                lines.append(_dumps(game.result))
            return lines

    def load_record(self, game_id: str) -> GameRecord:
        """Return a stored game as a :class:`GameRecord` (read from its replay lines).

        Raises:
            GameNotFoundError: if the game is not stored.
            ReplayError: if the stored game does not read as a replay.
        """
        from snakewar.replay.format import read_replay

        return read_replay(self.export_replay_lines(game_id))


# -- helpers ---------------------------------------------------------------------------


def _check_status(status: object) -> None:
    if status not in GAME_STATUSES:
        raise StoreError(
            f"game status {status!r} is not known; expected one of {choices_text(GAME_STATUSES)}"
        )


def _check_id(game_id: object) -> str:
    if not isinstance(game_id, str) or not game_id or len(game_id) > MAX_GAME_ID_LENGTH:
        raise StoreError(
            f"game id {game_id!r} is not valid; expected a non-empty string of at most "
            f"{MAX_GAME_ID_LENGTH} characters"
        )
    return game_id


def _check_record(record: object) -> None:
    if not isinstance(record, GameRecord):
        raise StoreError(f"expected a GameRecord, got {type(record).__name__}")
    _check_id(record.id)


def _check_count(name: str, value: object, minimum: int, maximum: int | None = None) -> None:
    if type(value) is not int or value < minimum or (maximum is not None and value > maximum):
        bound = f">= {minimum}" if maximum is None else f"from {minimum} to {maximum}"
        raise StoreError(f"{name} {value!r} is not valid; expected an integer {bound}")


def _check_turn(turn: object) -> None:
    if not isinstance(turn, TurnRecord) or turn.turn < 0:
        raise StoreError(f"turn {turn!r} is not valid; expected a TurnRecord with turn >= 0")


def _aware(when: object) -> dt.datetime:
    if not isinstance(when, dt.datetime) or when.tzinfo is None:
        raise StoreError(f"created_at {when!r} is not valid; expected a timezone-aware datetime")
    return when.astimezone(dt.UTC)


def _get(session: Session, game_id: str) -> GameModel:
    game = session.get(GameModel, game_id)
    if game is None:
        raise GameNotFoundError(game_id)
    return game


def _require(session: Session, game_id: str) -> None:
    found = session.scalar(sa.select(GameModel.id).where(GameModel.id == game_id))
    if found is None:
        raise GameNotFoundError(game_id)


def _game_values(record: GameRecord, status: str, created: str) -> dict[str, Any]:
    """The columns that come from the record (all but id and the timestamps)."""
    config = record.config
    finished = status != "running" and (record.result is not None or bool(record.end))
    result = record.result if status != "running" else None
    winner_name = None
    if result is not None and result.winner is not None:
        name = next((e.name for e in record.snakes if e.id == result.winner), None)
        winner_name = None if name is None else _text(name)
    return {
        "status": status,
        "ruleset": config.ruleset,
        "map": config.map,
        "width": config.width,
        "height": config.height,
        "seed": config.seed,
        "timeout_ms": record.timeout_ms,
        "source": _text(record.source),
        "config": header_dict(record, created),
        "result": result_dict(record) if finished else None,
        "winner_name": winner_name,
        "turns": len(record.turns),
        "snakes": [
            {
                "id": _text(e.id),
                "name": _text(e.name),
                "color": _text(e.color),
                "source": _text(e.source),
                "author": _text(e.author),
            }
            for e in record.snakes
        ],
    }


def _text(value: str) -> str:
    """``value`` without NUL characters, which PostgreSQL text and JSONB cannot hold.

    Only the listing columns go through this; the replay JSON keeps every character.
    """
    return value.replace("\x00", "")


def _turn_row(record: GameRecord, turn: TurnRecord) -> dict[str, Any]:
    return {
        "game_id": record.id,
        "turn": turn.turn + 1,
        "frame": frame(turn.after, record.snakes, turn.calls),
        "replay_line": turn_dict(turn),
    }


def _insert_frame_rows(session: Session, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert frame rows, leaving any (game, turn) that is stored already as it is."""
    if not rows:
        return
    keys = ["game_id", "turn"]
    if session.get_bind().dialect.name == "postgresql":
        statement: Any = postgresql.insert(FrameModel).on_conflict_do_nothing(index_elements=keys)
    else:
        statement = sqlite.insert(FrameModel).on_conflict_do_nothing(index_elements=keys)
    session.execute(statement, list(rows))


def _row(game: GameModel) -> GameRow:
    return GameRow(
        id=game.id,
        created_at=_utc(game.created_at),
        updated_at=_utc(game.updated_at),
        status=game.status,
        ruleset=game.ruleset,
        map=game.map,
        width=game.width,
        height=game.height,
        seed=game.seed,
        timeout_ms=game.timeout_ms,
        source=game.source,
        config=game.config,
        result=game.result,
        winner_name=game.winner_name,
        turns=game.turns,
        snakes=list(game.snakes),
    )


def _halite_summary_query() -> Any:
    # Every column but the replay blob, and the blob's length (listings stay cheap).
    m = HaliteGameModel
    return sa.select(
        m.id,
        m.created_at,
        m.source,
        m.seed,
        m.width,
        m.height,
        m.num_players,
        m.players,
        m.ranks,
        m.scores,
        m.turns,
        sa.func.length(m.replay),
    )


def _halite_row(found: Any) -> HaliteGameRow:
    return HaliteGameRow(
        id=found[0],
        created_at=_utc(found[1]),
        source=found[2],
        seed=found[3],
        width=found[4],
        height=found[5],
        num_players=found[6],
        players=list(found[7]),
        ranks=list(found[8]),
        scores=list(found[9]),
        turns=found[10],
        replay_size=int(found[11] or 0),
    )
