"""The database schema: SQLAlchemy models of every table (``Base.metadata`` is the schema).

Games of every game share one set of tables:

``games``
    one row per game: ``id``, ``game`` (the game's registry key), ``created_at``,
    ``updated_at``, ``status`` (``running``, ``complete``, ``aborted``, ``cancelled``),
    ``seed``, ``source`` (``custom``, ``ladder:NAME``, ``tournament:ID``, ``upload``...),
    ``title`` (one line for listings), ``width``, ``height``, ``turns`` (turns stored
    so far), the match it plays (``params``, ``timeout_ms``, ``max_turns``: what a
    rematch needs), ``entrants`` (name, source and colour of each entrant, by seat, and
    once finished why it failed, if it did),
    ``header`` and ``result`` (the game's own JSON header and result), ``ranks``,
    ``winner_name`` and ``stats`` (each seat's secondary statistics) once finished, and
    ``replay`` (the whole replay file, for games
    kept as one file, such as a game whose replay is one document).
``frames``
    one row per stored step of games kept frame by frame (most games): ``(game_id,
    turn)`` is the key, ``frame`` what a viewer draws, ``replay_line`` the replay's
    line for the turn that led to it (null for turn 0).
``game_calls``
    what the request inspector shows, for games that keep it (a local server's): one
    row per ``(game_id, turn)`` whose ``calls`` list every call made on that turn
    (``/start`` on turn 0, the ``/move``s, ``/end`` on the last), each with its status,
    latency, error and the request and reply bodies (size-capped text).
``game_logs``
    what a finished game logged about each seat that has a log (for games that keep
    them: the engine's errors and the bot's stderr), one row per ``(game_id, seat)``;
    the API gives a seat's log to its owner only.

Ladders and tournaments are rows, written game by game:

``ladders``, ``ladder_entries``, ``ladder_games``, ``ladder_ratings``
    a ladder's settings (``placement_games``: the games an entrant plays unranked, "in
    placement", before it is ranked); its entrants (with their current rating, and the ``workdir`` a
    command entrant runs in); its rated games; each player's rating after each game
    (the history charts draw).
``ladder_matches``, ``ladder_match_seats``
    a continuous ladder's scheduled games (:mod:`snakewar.server.scheduler`): one row per
    game the scheduler started (``game_id``, its seats, seed, the scheduler that started
    it, when), ``state`` ``playing`` until it is settled once: ``rated`` (with its
    ladder game ``number``) or ``void`` (aborted, cancelled); and one row per seat, so
    the games each entrant played in the last 24 hours are counted by the database.
``leases``
    named leases that elect one holder among the servers sharing the database
    (:mod:`snakewar.storage.leases`): ``name``, ``holder``, ``until``, ``since`` (when
    the holder took it) and ``term`` (counted up whenever it changes hands).
``tournaments``, ``tournament_entrants``, ``tournament_games``
    a tournament's settings; its entrants by seed (and the ``workdir`` of a command);
    its games in the order they were played (the bracket is rebuilt from them); a
    match's game ``number`` is recorded once (a run that resumes never adds it twice).
``arena_runs``
    one row per ladder or tournament run (``key`` is ``ladder:NAME`` or
    ``tournament:ID``): its ``state`` (``running``, ``stopped``, ``failed``, ``done``),
    the server that plays it (``server_id``) and until when it vouches for it
    (``lease_until``), whether an admin asked it to stop, and for a ladder the games it
    plays (``games``) from which count of games played (``base``).  A ``running`` run
    whose lease ran out (its server died or stopped) is resumed by exactly one server:
    the one whose claim on the row wins.

Accounts and what they own:

``users``
    ``name`` (unique), ``password_hash`` (argon2; never the password), ``role`` (``user``
    or ``admin``), ``disabled``.
``sessions``, ``api_tokens``, ``invites``
    a browser login (``id`` is the SHA-256 of the cookie's secret, so a copy of the
    database logs nobody in; ``csrf`` is the token its forms must echo), an API token
    (stored as its SHA-256 only; shown once; revocable), a sign-up invitation (hashed).
``login_failures``, ``login_devices``
    log-in backoff per account: failed log-ins in a row and when the last was, by
    account name or by a browser that logged in to that account before (``key``:
    ``name:NAME`` or ``device:SHA256``); and those browsers (``id`` is the SHA-256 of
    the device cookie's secret), whose attempts count apart from everyone else's, so
    that a guesser cannot keep an account's owner out.
``snakes``
    a registered bot: ``owner_id``, ``name`` (unique per owner), ``game``, ``kind``
    (``url``: an HTTP snake at ``url``; ``program``: an operator's ``argv`` run in
    ``workdir``; ``upload``: a user's ``archive`` in ``language``), ``visibility``
    (``public``, ``private``), ``paused``, ``tags`` (its owner's words for the
    directory); an upload's build: ``build_status`` (``ready``, ``failed``),
    ``build_error``, ``build_log``, ``build`` (the built folder, what runs) and its
    ``build_sha256``.  ``games.owner_id`` is who started a game
    (null: the server, a ladder); a running game's ``server_id`` and ``lease_until`` say
    which server plays it and until when it vouches for it (servers sharing a database
    abort only games whose lease ran out).

Rate limits every server sharing the database counts in (a public server's):

``rate_buckets``
    one row per ``(name, client)`` token bucket (``name``: the limit, ``games``,
    ``logins``...; ``client``: a user or an address): ``tat``, the bucket's theoretical
    arrival time in seconds since the epoch (the generic cell rate algorithm: a token
    bucket in one number, taken and refunded by one atomic ``UPDATE``).
``rate_uses``
    one row per use a budget counts (a snake tester run): its limit ``name``, ``client``,
    when it began (``at``), until when it counts as going on (``active_until``: null once
    it ended; a lease, so that a use whose server died does not count for ever) and when
    the row may go (``expires``).

Sharing (:mod:`snakewar.storage.sharing`):

``saved_games``
    a game a user saved, with the title they gave it: one row per ``(user_id, game_id)``.
``export_jobs``
    a bulk export of a ladder's, tournament's or user's games (``kind``, ``target``):
    who asked (``owner_id``), its ``state`` (``queued``, ``running``, ``done``,
    ``failed``), its progress (``total`` games, ``done`` so far, ``size_bytes`` written), the
    server building it and until when it vouches for it (``server_id``,
    ``lease_until``), and once done the ``archive`` itself (a zip, size-capped) until it
    ``expires``.
"""

from __future__ import annotations

import datetime as dt
import enum
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "GAME_STATUSES",
    "MAX_ID_LENGTH",
    "REGISTRATION_MODES",
    "RUN_STATES",
    "ApiTokenModel",
    "ArenaRunModel",
    "ArenaRunState",
    "Base",
    "ExportJobModel",
    "FrameModel",
    "GameCallsModel",
    "GameModel",
    "GameStatus",
    "InviteModel",
    "LadderEntryModel",
    "LadderGameModel",
    "LadderMatchModel",
    "LadderMatchSeatModel",
    "LadderModel",
    "LadderRatingModel",
    "LeaseModel",
    "LoginDeviceModel",
    "LoginFailureModel",
    "NotificationModel",
    "NotifySettingsModel",
    "RateBucketModel",
    "RateUseModel",
    "SavedGameModel",
    "SessionModel",
    "SnakeModel",
    "TournamentEntrantModel",
    "TournamentGameModel",
    "TournamentModel",
    "TournamentSettingsModel",
    "UserModel",
]


class GameStatus(enum.StrEnum):
    """A game's status; each value is the string the API and the database use.

    ``STARTING`` and ``ERROR`` are a live game's only (the server's manager): a game is
    stored once it runs, and a game stopped by an error in the server is stored as
    ``ABORTED``, as one whose server stopped is.
    """

    STARTING = "starting"
    RUNNING = "running"
    COMPLETE = "complete"
    ABORTED = "aborted"
    CANCELLED = "cancelled"
    ERROR = "error"

    @property
    def finished(self) -> bool:
        """Whether the game is over (it plays no more turns)."""
        return self not in (GameStatus.STARTING, GameStatus.RUNNING)


GAME_STATUSES: Final = (
    GameStatus.RUNNING,
    GameStatus.COMPLETE,
    GameStatus.ABORTED,
    GameStatus.CANCELLED,
)
"""The values of ``games.status`` (the statuses a stored game can have)."""

MAX_ID_LENGTH = 100
"""The longest game, ladder or tournament id."""


class ArenaRunState(enum.StrEnum):
    """A ladder's or tournament's run as stored; each value is the ``arena_runs.state`` text.

    The API shows more (``stopping``, ``interrupted``): see
    :class:`snakewar.server.arena.RunState`, worked out from this and the run's lease.
    """

    RUNNING = "running"
    """Played now, or to be resumed by the next server that starts."""
    STOPPED = "stopped"
    """Stopped by an admin."""
    FAILED = "failed"
    """Ended by an error (the row's ``error`` says which)."""
    DONE = "done"
    """Played to its end."""


RUN_STATES: Final[tuple[str, ...]] = tuple(s.value for s in ArenaRunState)
"""The values of ``arena_runs.state``."""

# Plain JSON keeps the text as written: exported replay lines keep their key order on
# PostgreSQL too, and JSON text may hold "\u0000" (JSONB refuses it).  Only the listing
# summary, which later queries may search (games of an entrant), is JSONB.
JSON = sa.JSON(none_as_null=True)
JSON_SEARCHABLE = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(), "postgresql")
WHEN = sa.DateTime(timezone=True)


class Base(DeclarativeBase):
    """The declarative base of the store's tables."""


class GameModel(Base):
    """A row of ``games``."""

    __tablename__ = "games"
    __table_args__ = (
        sa.CheckConstraint(
            "status IN ('running', 'complete', 'aborted', 'cancelled')", name="ck_games_status"
        ),
        sa.Index("ix_games_created_at", "created_at"),
        sa.Index("ix_games_status_created_at", "status", "created_at"),
        sa.Index("ix_games_game_created_at", "game", "created_at"),
        # The games of a ladder, a tournament, a user (profiles, GET /api/games filters).
        sa.Index("ix_games_source_created_at", "source", "created_at"),
        sa.Index("ix_games_owner_id_created_at", "owner_id", "created_at"),
    )

    id: Mapped[str] = mapped_column(sa.String(MAX_ID_LENGTH), primary_key=True)
    game: Mapped[str] = mapped_column(sa.String(32))
    created_at: Mapped[dt.datetime] = mapped_column(WHEN)
    updated_at: Mapped[dt.datetime] = mapped_column(WHEN)
    status: Mapped[str] = mapped_column(sa.String(16))
    seed: Mapped[int] = mapped_column(sa.BigInteger)
    source: Mapped[str] = mapped_column(sa.Text)
    title: Mapped[str] = mapped_column(sa.Text)
    width: Mapped[int] = mapped_column(sa.Integer)
    height: Mapped[int] = mapped_column(sa.Integer)
    turns: Mapped[int] = mapped_column(sa.Integer)
    params: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    timeout_ms: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    max_turns: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    entrants: Mapped[list[dict[str, str]]] = mapped_column(JSON_SEARCHABLE)
    header: Mapped[dict[str, Any]] = mapped_column(JSON)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    ranks: Mapped[list[int] | None] = mapped_column(JSON, nullable=True)
    winner_name: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    replay: Mapped[bytes | None] = mapped_column(sa.LargeBinary, nullable=True)
    owner_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_games_owner_id_users"),
        nullable=True,
    )
    server_id: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    lease_until: Mapped[dt.datetime | None] = mapped_column(WHEN, nullable=True)
    failure: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    attempt: Mapped[int] = mapped_column(sa.Integer, default=0, server_default=sa.text("0"))
    """Times it was played again from turn 0 while running (a worker died)."""
    stats: Mapped[list[dict[str, float]] | None] = mapped_column(JSON, nullable=True)
    """Each seat's secondary statistics once finished (the game's own, by key)."""


class FrameModel(Base):
    """A row of ``frames``."""

    __tablename__ = "frames"

    game_id: Mapped[str] = mapped_column(
        sa.String(MAX_ID_LENGTH),
        sa.ForeignKey("games.id", ondelete="CASCADE", name="fk_frames_game_id_games"),
        primary_key=True,
    )
    turn: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    frame: Mapped[dict[str, Any]] = mapped_column(JSON)
    replay_line: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class GameCallsModel(Base):
    """A row of ``game_calls``."""

    __tablename__ = "game_calls"

    game_id: Mapped[str] = mapped_column(
        sa.String(MAX_ID_LENGTH),
        sa.ForeignKey("games.id", ondelete="CASCADE", name="fk_game_calls_game_id_games"),
        primary_key=True,
    )
    turn: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    calls: Mapped[list[dict[str, Any]]] = mapped_column(JSON)


class GameLogModel(Base):
    """A row of ``game_logs``: what a game logged about one seat (its bot's error log)."""

    __tablename__ = "game_logs"

    game_id: Mapped[str] = mapped_column(
        sa.String(MAX_ID_LENGTH),
        sa.ForeignKey("games.id", ondelete="CASCADE", name="fk_game_logs_game_id_games"),
        primary_key=True,
    )
    seat: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    log: Mapped[str] = mapped_column(sa.Text)


class LadderModel(Base):
    """A row of ``ladders``: a ladder's settings."""

    __tablename__ = "ladders"

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(sa.String(MAX_ID_LENGTH), unique=True)
    game: Mapped[str] = mapped_column(sa.String(32))
    params: Mapped[dict[str, Any]] = mapped_column(JSON)
    game_size: Mapped[int] = mapped_column(sa.Integer)
    timeout_ms: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    max_turns: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    seed: Mapped[int] = mapped_column(sa.BigInteger)
    games_played: Mapped[int] = mapped_column(sa.Integer)
    created_at: Mapped[dt.datetime] = mapped_column(WHEN)
    updated_at: Mapped[dt.datetime] = mapped_column(WHEN)
    continuous: Mapped[bool] = mapped_column(sa.Boolean, server_default=sa.false())
    paused: Mapped[bool] = mapped_column(sa.Boolean, server_default=sa.false())
    games_in_flight: Mapped[int] = mapped_column(sa.Integer, server_default="1")
    games_per_hour: Mapped[int] = mapped_column(sa.Integer, server_default="60")
    daily_cap: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    placement_games: Mapped[int] = mapped_column(sa.Integer, server_default="10")
    """Games an entrant plays "in placement", unranked, before it gets a rank."""


class LadderEntryModel(Base):
    """A row of ``ladder_entries``: one entrant, its state and current rating."""

    __tablename__ = "ladder_entries"
    __table_args__ = (sa.UniqueConstraint("ladder_id", "name", name="uq_ladder_entries_name"),)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    ladder_id: Mapped[int] = mapped_column(
        sa.ForeignKey("ladders.id", ondelete="CASCADE", name="fk_ladder_entries_ladder_id")
    )
    position: Mapped[int] = mapped_column(sa.Integer)
    name: Mapped[str] = mapped_column(sa.String(MAX_ID_LENGTH))
    source: Mapped[str] = mapped_column(sa.Text)
    workdir: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    paused: Mapped[bool] = mapped_column(sa.Boolean)
    failures: Mapped[int] = mapped_column(sa.Integer)
    note: Mapped[str] = mapped_column(sa.Text)
    mu: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    sigma: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    games: Mapped[int] = mapped_column(sa.Integer)


class LadderGameModel(Base):
    """A row of ``ladder_games``: one rated game of a ladder."""

    __tablename__ = "ladder_games"

    ladder_id: Mapped[int] = mapped_column(
        sa.ForeignKey("ladders.id", ondelete="CASCADE", name="fk_ladder_games_ladder_id"),
        primary_key=True,
    )
    number: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(sa.String(MAX_ID_LENGTH))
    seed: Mapped[int] = mapped_column(sa.BigInteger)
    seats: Mapped[list[str]] = mapped_column(JSON)
    placement: Mapped[list[list[str]]] = mapped_column(JSON)
    turns: Mapped[int] = mapped_column(sa.Integer)
    played_at: Mapped[dt.datetime] = mapped_column(WHEN)


class LadderRatingModel(Base):
    """A row of ``ladder_ratings``: an entrant's rating after one of its games."""

    __tablename__ = "ladder_ratings"

    ladder_id: Mapped[int] = mapped_column(
        sa.ForeignKey("ladders.id", ondelete="CASCADE", name="fk_ladder_ratings_ladder_id"),
        primary_key=True,
    )
    number: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    entrant: Mapped[str] = mapped_column(sa.String(MAX_ID_LENGTH), primary_key=True)
    mu: Mapped[float] = mapped_column(sa.Float)
    sigma: Mapped[float] = mapped_column(sa.Float)


class LadderMatchModel(Base):
    """A row of ``ladder_matches``: a game a continuous ladder's scheduler started."""

    __tablename__ = "ladder_matches"
    __table_args__ = (
        sa.CheckConstraint("state IN ('playing', 'rated', 'void')", name="ck_ladder_matches_state"),
        sa.Index("ix_ladder_matches_ladder_started", "ladder_id", "started_at"),
        sa.Index("ix_ladder_matches_state", "state"),
    )

    game_id: Mapped[str] = mapped_column(sa.String(MAX_ID_LENGTH), primary_key=True)
    ladder_id: Mapped[int] = mapped_column(
        sa.ForeignKey("ladders.id", ondelete="CASCADE", name="fk_ladder_matches_ladder_id")
    )
    seats: Mapped[list[str]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(sa.BigInteger)
    holder: Mapped[str] = mapped_column(sa.String(64))
    started_at: Mapped[dt.datetime] = mapped_column(WHEN)
    state: Mapped[str] = mapped_column(sa.String(8))
    number: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    settled_at: Mapped[dt.datetime | None] = mapped_column(WHEN, nullable=True)


class LadderMatchSeatModel(Base):
    """A row of ``ladder_match_seats``: one entrant of a scheduled game."""

    __tablename__ = "ladder_match_seats"
    __table_args__ = (sa.Index("ix_ladder_match_seats_entrant", "ladder_id", "entrant"),)

    game_id: Mapped[str] = mapped_column(
        sa.ForeignKey(
            "ladder_matches.game_id", ondelete="CASCADE", name="fk_ladder_match_seats_game_id"
        ),
        primary_key=True,
    )
    seat: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    ladder_id: Mapped[int] = mapped_column(
        sa.ForeignKey("ladders.id", ondelete="CASCADE", name="fk_ladder_match_seats_ladder_id")
    )
    entrant: Mapped[str] = mapped_column(sa.String(MAX_ID_LENGTH))


class LeaseModel(Base):
    """A row of ``leases``: who holds the lease ``name``, and until when."""

    __tablename__ = "leases"

    name: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    holder: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    until: Mapped[dt.datetime | None] = mapped_column(WHEN, nullable=True)
    since: Mapped[dt.datetime | None] = mapped_column(WHEN, nullable=True)
    term: Mapped[int] = mapped_column(sa.Integer)


class TournamentModel(Base):
    """A row of ``tournaments``: a tournament's settings."""

    __tablename__ = "tournaments"

    id: Mapped[str] = mapped_column(sa.String(MAX_ID_LENGTH), primary_key=True)
    name: Mapped[str] = mapped_column(sa.Text)
    game: Mapped[str] = mapped_column(sa.String(32))
    params: Mapped[dict[str, Any]] = mapped_column(JSON)
    timeout_ms: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    max_turns: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    seed: Mapped[int] = mapped_column(sa.BigInteger)
    format: Mapped[str] = mapped_column(sa.String(32))
    heat_size: Mapped[int] = mapped_column(sa.Integer)
    best_of: Mapped[int] = mapped_column(sa.Integer)
    advance: Mapped[int] = mapped_column(sa.Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(WHEN)
    updated_at: Mapped[dt.datetime] = mapped_column(WHEN)


class TournamentEntrantModel(Base):
    """A row of ``tournament_entrants``: one entrant and its seed."""

    __tablename__ = "tournament_entrants"
    __table_args__ = (
        sa.UniqueConstraint("tournament_id", "name", name="uq_tournament_entrants_name"),
    )

    tournament_id: Mapped[str] = mapped_column(
        sa.ForeignKey(
            "tournaments.id", ondelete="CASCADE", name="fk_tournament_entrants_tournament_id"
        ),
        primary_key=True,
    )
    position: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(MAX_ID_LENGTH))
    source: Mapped[str] = mapped_column(sa.Text)
    workdir: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    seed_rank: Mapped[int] = mapped_column(sa.Integer)


class TournamentGameModel(Base):
    """A row of ``tournament_games``: one played game, in the order games were played."""

    __tablename__ = "tournament_games"
    __table_args__ = (
        # A match's game is recorded once, whichever server (or retry) records it.
        sa.Index(
            "ux_tournament_games_match_number", "tournament_id", "match_id", "number", unique=True
        ),
    )

    tournament_id: Mapped[str] = mapped_column(
        sa.ForeignKey(
            "tournaments.id", ondelete="CASCADE", name="fk_tournament_games_tournament_id"
        ),
        primary_key=True,
    )
    ordinal: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    match_id: Mapped[str] = mapped_column(sa.String(32))
    number: Mapped[int] = mapped_column(sa.Integer)
    game_id: Mapped[str] = mapped_column(sa.String(MAX_ID_LENGTH))
    seed: Mapped[int] = mapped_column(sa.BigInteger)
    seats: Mapped[list[str]] = mapped_column(JSON)
    placement: Mapped[list[list[str]]] = mapped_column(JSON)
    turns: Mapped[int] = mapped_column(sa.Integer)
    played_at: Mapped[dt.datetime] = mapped_column(WHEN)


REGISTRATION_MODES = ("closed", "open", "owner")
"""Who may enter a tournament's snakes themselves: nobody (admins enter them), every
user (their own snakes), or only the tournament's creator and admins (their snakes)."""


class TournamentSettingsModel(Base):
    """A row of ``tournament_settings``: how a tournament is entered and played on.

    A tournament without a row has the defaults: registration closed, no cap, no
    schedule (its admin starts it and runs its rounds).
    """

    __tablename__ = "tournament_settings"
    __table_args__ = (
        sa.CheckConstraint(
            "registration IN ('closed', 'open', 'owner')",
            name="ck_tournament_settings_registration",
        ),
    )

    tournament_id: Mapped[str] = mapped_column(
        sa.ForeignKey(
            "tournaments.id", ondelete="CASCADE", name="fk_tournament_settings_tournament_id"
        ),
        primary_key=True,
    )
    registration: Mapped[str] = mapped_column(sa.String(8))
    registration_closes_at: Mapped[dt.datetime | None] = mapped_column(WHEN, nullable=True)
    max_entrants: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    per_owner: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    starts_at: Mapped[dt.datetime | None] = mapped_column(WHEN, nullable=True, index=True)
    round_gap_s: Mapped[int] = mapped_column(sa.Integer)
    creator_id: Mapped[int | None] = mapped_column(
        sa.ForeignKey(
            "users.id", ondelete="SET NULL", name="fk_tournament_settings_creator_id_users"
        ),
        nullable=True,
    )
    qualifier: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    next_round_at: Mapped[dt.datetime | None] = mapped_column(WHEN, nullable=True)
    finished_at: Mapped[dt.datetime | None] = mapped_column(WHEN, nullable=True)


class ArenaRunModel(Base):
    """A row of ``arena_runs``: a ladder or tournament run, and the server that plays it."""

    __tablename__ = "arena_runs"
    __table_args__ = (
        sa.CheckConstraint(
            "state IN ('running', 'stopped', 'failed', 'done')", name="ck_arena_runs_state"
        ),
    )

    key: Mapped[str] = mapped_column(sa.String(MAX_ID_LENGTH + 16), primary_key=True)
    kind: Mapped[str] = mapped_column(sa.String(16))
    target: Mapped[str] = mapped_column(sa.String(MAX_ID_LENGTH))
    state: Mapped[str] = mapped_column(sa.String(16))
    stop_requested: Mapped[bool] = mapped_column(sa.Boolean)
    games: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    base: Mapped[int | None] = mapped_column(sa.Integer, nullable=True)
    done: Mapped[int] = mapped_column(sa.Integer)
    error: Mapped[str] = mapped_column(sa.Text)
    server_id: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    lease_until: Mapped[dt.datetime | None] = mapped_column(WHEN, nullable=True)
    updated_at: Mapped[dt.datetime] = mapped_column(WHEN)


class UserModel(Base):
    """A row of ``users``: an account."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(sa.String(32), unique=True)
    password_hash: Mapped[str] = mapped_column(sa.Text)
    role: Mapped[str] = mapped_column(sa.String(8))
    disabled: Mapped[bool] = mapped_column(sa.Boolean)
    created_at: Mapped[dt.datetime] = mapped_column(WHEN)


def _user_fk(table: str, *, nullable: bool = False) -> Mapped[Any]:
    ondelete = "SET NULL" if nullable else "CASCADE"
    return mapped_column(
        sa.ForeignKey("users.id", ondelete=ondelete, name=f"fk_{table}_user_id_users"),
        nullable=nullable,
        index=True,
    )


class SessionModel(Base):
    """A row of ``sessions``: a browser login."""

    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    user_id: Mapped[int] = _user_fk("sessions")
    csrf: Mapped[str] = mapped_column(sa.String(64))
    created_at: Mapped[dt.datetime] = mapped_column(WHEN)
    expires_at: Mapped[dt.datetime] = mapped_column(WHEN)


class ApiTokenModel(Base):
    """A row of ``api_tokens``: a token for the CLI and automation, stored hashed."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = _user_fk("api_tokens")
    label: Mapped[str] = mapped_column(sa.String(64))
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(WHEN)
    last_used_at: Mapped[dt.datetime | None] = mapped_column(WHEN, nullable=True)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(WHEN, nullable=True)


class InviteModel(Base):
    """A row of ``invites``: a one-use sign-up invitation, stored hashed."""

    __tablename__ = "invites"

    code_hash: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    user_id: Mapped[int | None] = _user_fk("invites", nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(WHEN)
    expires_at: Mapped[dt.datetime] = mapped_column(WHEN)
    used_by: Mapped[str | None] = mapped_column(sa.String(32), nullable=True)


class LoginFailureModel(Base):
    """A row of ``login_failures``: log-ins of one account, or one browser, failing in a row."""

    __tablename__ = "login_failures"

    key: Mapped[str] = mapped_column(sa.String(80), primary_key=True)
    failures: Mapped[int] = mapped_column(sa.Integer)
    last_failed_at: Mapped[dt.datetime] = mapped_column(WHEN, index=True)


class LoginDeviceModel(Base):
    """A row of ``login_devices``: a browser that logged in to an account (its cookie hashed)."""

    __tablename__ = "login_devices"

    id: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    user_id: Mapped[int] = _user_fk("login_devices")
    created_at: Mapped[dt.datetime] = mapped_column(WHEN)


class SnakeModel(Base):
    """A row of ``snakes``: a registered bot and its owner."""

    __tablename__ = "snakes"
    __table_args__ = (
        sa.UniqueConstraint("owner_id", "name", name="uq_snakes_owner_name"),
        sa.CheckConstraint("kind IN ('url', 'program', 'upload')", name="ck_snakes_kind"),
        sa.CheckConstraint("visibility IN ('public', 'private')", name="ck_snakes_visibility"),
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    owner_id: Mapped[int] = mapped_column(
        sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_snakes_owner_id_users"),
        index=True,
    )
    name: Mapped[str] = mapped_column(sa.String(40))
    game: Mapped[str] = mapped_column(sa.String(32))
    kind: Mapped[str] = mapped_column(sa.String(8))
    url: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    argv: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    language: Mapped[str | None] = mapped_column(sa.String(16), nullable=True)
    archive: Mapped[bytes | None] = mapped_column(sa.LargeBinary, nullable=True)
    archive_sha256: Mapped[str | None] = mapped_column(sa.String(64), nullable=True, index=True)
    workdir: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    visibility: Mapped[str] = mapped_column(sa.String(8))
    paused: Mapped[bool] = mapped_column(sa.Boolean)
    created_at: Mapped[dt.datetime] = mapped_column(WHEN)
    updated_at: Mapped[dt.datetime] = mapped_column(WHEN)
    # An upload's build (issue 25, migration 0019): ``ready`` (``build`` is the built
    # folder, a .tar.gz, what runs) or ``failed`` (``build_error`` says why in one line);
    # the log is its owner's to read.  Null: no build (other kinds, uploads made before).
    build_status: Mapped[str | None] = mapped_column(sa.String(8), nullable=True)
    build_error: Mapped[str | None] = mapped_column(sa.String(300), nullable=True)
    build_log: Mapped[str | None] = mapped_column(sa.Text, nullable=True, deferred=True)
    build: Mapped[bytes | None] = mapped_column(sa.LargeBinary, nullable=True, deferred=True)
    build_sha256: Mapped[str | None] = mapped_column(sa.String(64), nullable=True, index=True)
    tags: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    """Words its owner gave it (language, style), which the directory searches."""


class RateBucketModel(Base):
    """A row of ``rate_buckets``: one client's token bucket of one limit."""

    __tablename__ = "rate_buckets"

    name: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    client: Mapped[str] = mapped_column(sa.String(80), primary_key=True)
    tat: Mapped[float] = mapped_column(sa.Float, index=True)


class RateUseModel(Base):
    """A row of ``rate_uses``: one use a budget counts (a snake tester run)."""

    __tablename__ = "rate_uses"
    __table_args__ = (sa.Index("ix_rate_uses_name_client_at", "name", "client", "at"),)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(sa.String(32))
    client: Mapped[str] = mapped_column(sa.String(80))
    at: Mapped[float] = mapped_column(sa.Float)
    active_until: Mapped[float | None] = mapped_column(sa.Float, nullable=True)
    expires: Mapped[float] = mapped_column(sa.Float, index=True)


# -- sharing: saved games and bulk exports (snakewar.storage.sharing) --------------------


class SavedGameModel(Base):
    """A row of ``saved_games``: a game a user saved, under a title of their own."""

    __tablename__ = "saved_games"
    __table_args__ = (sa.Index("ix_saved_games_user_saved_at", "user_id", "saved_at"),)

    user_id: Mapped[int] = mapped_column(
        sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_saved_games_user_id_users"),
        primary_key=True,
    )
    game_id: Mapped[str] = mapped_column(
        sa.String(MAX_ID_LENGTH),
        sa.ForeignKey("games.id", ondelete="CASCADE", name="fk_saved_games_game_id_games"),
        primary_key=True,
    )
    title: Mapped[str] = mapped_column(sa.String(120))
    saved_at: Mapped[dt.datetime] = mapped_column(WHEN)


class ExportJobModel(Base):
    """A row of ``export_jobs``: a bulk export of games, its progress and its archive."""

    __tablename__ = "export_jobs"
    __table_args__ = (
        sa.CheckConstraint(
            "state IN ('queued', 'running', 'done', 'failed')", name="ck_export_jobs_state"
        ),
        sa.CheckConstraint("kind IN ('ladder', 'tournament', 'user')", name="ck_export_jobs_kind"),
        sa.Index("ix_export_jobs_owner_created", "owner_id", "created_at"),
        sa.Index("ix_export_jobs_state", "state"),
    )

    id: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    owner_id: Mapped[int] = mapped_column(
        sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_export_jobs_owner_id_users")
    )
    kind: Mapped[str] = mapped_column(sa.String(16))
    target: Mapped[str] = mapped_column(sa.String(MAX_ID_LENGTH))
    state: Mapped[str] = mapped_column(sa.String(8))
    total: Mapped[int] = mapped_column(sa.Integer)
    done: Mapped[int] = mapped_column(sa.Integer)
    size_bytes: Mapped[int] = mapped_column(sa.BigInteger)
    error: Mapped[str] = mapped_column(sa.Text)
    server_id: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    lease_until: Mapped[dt.datetime | None] = mapped_column(WHEN, nullable=True)
    archive: Mapped[bytes | None] = mapped_column(sa.LargeBinary, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(WHEN)
    updated_at: Mapped[dt.datetime] = mapped_column(WHEN)
    expires_at: Mapped[dt.datetime] = mapped_column(WHEN)


# -- notifications (issue 25, operations) ---------------------------------------------


class NotifySettingsModel(Base):
    """A row of ``notify_settings``: where and about what one user is told."""

    __tablename__ = "notify_settings"

    user_id: Mapped[int] = mapped_column(
        sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_notify_settings_user_id_users"),
        primary_key=True,
    )
    webhook_url: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    email: Mapped[str | None] = mapped_column(sa.String(254), nullable=True)
    events: Mapped[dict[str, list[str]]] = mapped_column(JSON)
    """Each event's channels (``{"snake_paused": ["webhook", "email"]}``)."""
    updated_at: Mapped[dt.datetime] = mapped_column(WHEN)


class NotificationModel(Base):
    """A row of ``notifications``: one message to one user on one channel, and its fate."""

    __tablename__ = "notifications"
    __table_args__ = (
        sa.CheckConstraint(
            "state IN ('pending', 'sent', 'failed', 'capped')", name="ck_notifications_state"
        ),
        sa.CheckConstraint("channel IN ('webhook', 'email')", name="ck_notifications_channel"),
        sa.Index("ix_notifications_user_channel_created", "user_id", "channel", "created_at"),
        sa.Index("ix_notifications_state_next_at", "state", "next_at"),
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = mapped_column(
        sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_notifications_user_id_users")
    )
    channel: Mapped[str] = mapped_column(sa.String(8))
    event: Mapped[str] = mapped_column(sa.String(32))
    target: Mapped[str] = mapped_column(sa.Text)
    """The webhook URL or e-mail address, as the settings said when it was queued."""
    title: Mapped[str] = mapped_column(sa.Text)
    body: Mapped[str] = mapped_column(sa.Text)
    link: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    state: Mapped[str] = mapped_column(sa.String(8))
    attempts: Mapped[int] = mapped_column(sa.Integer)
    error: Mapped[str | None] = mapped_column(sa.Text, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(WHEN)
    next_at: Mapped[dt.datetime] = mapped_column(WHEN)
    claimed_by: Mapped[str | None] = mapped_column(sa.String(64), nullable=True)
    claimed_until: Mapped[dt.datetime | None] = mapped_column(WHEN, nullable=True)
    sent_at: Mapped[dt.datetime | None] = mapped_column(WHEN, nullable=True)
