"""Stored ladders: settings, entrants, rated games and rating history, as rows.

Implements :class:`snakewar.arena.ports.SqlLadderRepository`.  A game is recorded in one
transaction with its players' new ratings and entries, so a ladder stopped at any
point keeps every game it finished.

A continuous ladder's games (:mod:`snakewar.server.scheduler`) are *matches*: each game
the scheduler starts is recorded (:meth:`SqlLadderRepository.add_match`) and later
*settled* exactly once (:meth:`SqlLadderRepository.settle`), by whichever server gets
to it first: a complete game is rated from its stored result, in the transaction that
marks its match ``rated``; an aborted or cancelled one is marked ``void``.  The
transaction's first statement is the conditional update of the match, so two servers
settling one game at once cannot both rate it, and the ladder's row is locked before
its next game number is taken, so games settled at once get numbers one after another.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

import sqlalchemy as sa
from sqlalchemy.engine import CursorResult
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from snakewar.arena.config import MatchConfig
from snakewar.arena.ladder import (
    Ladder,
    LadderEntry,
    LadderError,
    LadderExistsError,
    LadderGame,
    LadderGameRecordedError,
    LadderNotFoundError,
    LadderSettings,
)
from snakewar.arena.ratings import Leaderboard, Rating, normalize_placement
from snakewar.engine.protocol import placement_from_ranks
from snakewar.storage.database import Database, now, utc
from snakewar.storage.leases import database_now
from snakewar.storage.models import (
    MAX_ID_LENGTH,
    ArenaRunModel,
    GameModel,
    GameStatus,
    LadderEntryModel,
    LadderGameModel,
    LadderMatchModel,
    LadderMatchSeatModel,
    LadderModel,
    LadderRatingModel,
)

__all__ = ["MATCH_STATES", "LadderMatch", "ScheduleCounts", "SqlLadderRepository"]

MATCH_STATES: Final = ("playing", "rated", "void")
"""A scheduled game's states: playing until settled, then rated or void, for good."""


@dataclass(frozen=True, slots=True)
class LadderMatch:
    """A game a continuous ladder's scheduler started, not settled yet.

    Attributes:
        ladder: the ladder's name.
        game_id: the game.
        seats: its entrants' names, by seat.
        holder: the scheduler that started it.
        started_at: when (aware UTC).
    """

    ladder: str
    game_id: str
    seats: tuple[str, ...]
    holder: str
    started_at: dt.datetime


@dataclass(frozen=True, slots=True)
class ScheduleCounts:
    """A continuous ladder's scheduled games now, as the database has them.

    Attributes:
        in_flight: games started and not settled yet.
        last_hour: games started in the last hour (void ones left out).
        last_start: when the latest game started (``None``: none yet).
        today: each entrant's games started in the last 24 hours (void ones left out).
        playing: each entrant's games in flight.
        now: the database's time when counted.
        settings: the ladder's settings.
    """

    settings: LadderSettings
    in_flight: int
    last_hour: int
    last_start: dt.datetime | None
    today: Counter[str]
    playing: Counter[str]
    now: dt.datetime


class SqlLadderRepository:
    """The ladders of a :class:`~snakewar.storage.database.Database`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def create(self, ladder: Ladder) -> None:
        """Store a new ladder with its entries.

        Raises:
            LadderError: if a ladder of that name exists, or the name is too long.
        """
        _check_name(ladder.name)
        with self._db.session() as session:
            if _find(session, ladder.name) is not None:
                raise LadderExistsError(f"a ladder named {ladder.name!r} already exists")
            self._upsert(session, ladder)

    def save(self, ladder: Ladder) -> None:
        """Store a ladder and its entries, new or not (games are recorded one by one)."""
        _check_name(ladder.name)
        with self._db.session() as session:
            self._upsert(session, ladder)

    def _upsert(self, session: Session, ladder: Ladder) -> None:
        row = _find(session, ladder.name)
        config = ladder.config
        stamp = now()
        if row is None:
            settings = ladder.settings
            row = LadderModel(
                name=ladder.name,
                games_played=ladder.games_played,
                created_at=stamp,
                # Set once here; later only by save_settings, so that a ladder loaded
                # before an admin paused it cannot undo the pause by being saved.
                continuous=settings.continuous,
                paused=settings.paused,
                games_in_flight=settings.games_in_flight,
                games_per_hour=settings.games_per_hour,
                daily_cap=settings.daily_cap,
                placement_games=settings.placement_games,
            )
            session.add(row)
        row.game = config.game
        row.params = dict(config.params)
        row.game_size = config.game_size
        row.timeout_ms = config.timeout_ms
        row.max_turns = config.max_turns
        row.seed = ladder.seed
        row.updated_at = stamp
        session.flush()
        for entry in ladder.entries.values():
            _save_entry(session, row.id, entry)

    def get(self, name: str, *, recent: int = 20) -> Ladder | None:
        """The ladder ``name``: entries, ratings, history and its ``recent`` last games."""
        if not 0 < len(name) <= MAX_ID_LENGTH:
            return None
        with self._db.session() as session:
            row = _find(session, name)
            if row is None:
                return None
            entries = list(
                session.scalars(
                    sa.select(LadderEntryModel)
                    .where(LadderEntryModel.ladder_id == row.id)
                    .order_by(LadderEntryModel.position)
                )
            )
            history: dict[str, list[dict[str, Any]]] = {}
            points = session.execute(
                sa.select(
                    LadderRatingModel.entrant,
                    LadderGameModel.game_id,
                    LadderRatingModel.mu,
                    LadderRatingModel.sigma,
                )
                .join(
                    LadderGameModel,
                    sa.and_(
                        LadderGameModel.ladder_id == LadderRatingModel.ladder_id,
                        LadderGameModel.number == LadderRatingModel.number,
                    ),
                )
                .where(LadderRatingModel.ladder_id == row.id)
                .order_by(LadderRatingModel.number)
            )
            for entrant, game_id, mu, sigma in points:
                history.setdefault(entrant, []).append({"game": game_id, "mu": mu, "sigma": sigma})
            games = list(
                session.scalars(
                    sa.select(LadderGameModel)
                    .where(LadderGameModel.ladder_id == row.id)
                    .order_by(LadderGameModel.number.desc())
                    .limit(max(recent, 0))
                )
            )
            ladder = _ladder(row, entries, history)
            ladder.recent = [_game(g) for g in reversed(games)]
            ladder.settings = _settings(row)
            return ladder

    def names(self) -> list[str]:
        """Every ladder's name, sorted."""
        with self._db.session() as session:
            return list(session.scalars(sa.select(LadderModel.name).order_by(LadderModel.name)))

    def summaries(self) -> list[dict[str, Any]]:
        """Every ladder's name, game, entrant count and games played, sorted by name."""
        query = (
            sa.select(
                LadderModel.name,
                LadderModel.game,
                LadderModel.games_played,
                sa.func.count(LadderEntryModel.id),
            )
            .outerjoin(LadderEntryModel, LadderEntryModel.ladder_id == LadderModel.id)
            .group_by(LadderModel.id)
            .order_by(LadderModel.name)
        )
        with self._db.session() as session:
            return [
                {"name": name, "game": game, "games_played": played, "snakes": count}
                for name, game, played, count in session.execute(query)
            ]

    def save_entry(self, ladder: str, entry: LadderEntry) -> None:
        """Add an entry to a ladder, or update it (paused, failures, note).

        Raises:
            LadderError: if there is no such ladder.
        """
        with self._db.session() as session:
            row = _require(session, ladder)
            _save_entry(session, row.id, entry)
            row.updated_at = now()

    def record_game(
        self,
        ladder: str,
        game: LadderGame,
        ratings: Mapping[str, Rating],
        entries: Sequence[LadderEntry],
    ) -> None:
        """Record one rated game: the game, its players' new ratings, their entries.

        Raises:
            LadderError: if there is no such ladder.
            LadderGameRecordedError: if a game of that number is recorded already
                (nothing changes).
        """
        try:
            with self._db.session() as session:
                row = _require(session, ladder)
                _write_game(session, row, game, ratings, entries, now())
        except IntegrityError:
            # Its ratings follow from every game before it, so this run cannot go on.
            raise LadderGameRecordedError(
                f"ladder {ladder!r}: game {game.number} is recorded already (another run "
                "played it); this run stops"
            ) from None

    def remove_entry(self, ladder: str, name: str) -> bool:
        """Take the entrant ``name`` off a ladder (its games and rating history stay).

        Raises:
            LadderError: if there is no such ladder.
        """
        with self._db.session() as session:
            row = _require(session, ladder)
            result = session.execute(
                sa.delete(LadderEntryModel).where(
                    LadderEntryModel.ladder_id == row.id, LadderEntryModel.name == name
                )
            )
            row.updated_at = now()
            return bool(getattr(result, "rowcount", 0))

    def entries_named(self, name: str) -> list[str]:
        """The ladders that have an entrant called ``name``."""
        with self._db.session() as session:
            return list(
                session.scalars(
                    sa.select(LadderModel.name)
                    .join(LadderEntryModel, LadderEntryModel.ladder_id == LadderModel.id)
                    .where(LadderEntryModel.name == name)
                    .order_by(LadderModel.name)
                )
            )

    def update_entries(
        self, name: str, *, source: str | None = None, paused: bool | None = None, note: str = ""
    ) -> int:
        """Change every ladder's entrant ``name``; returns how many entries changed.

        A registered snake's entries follow it when its owner edits or pauses it.
        """
        values: dict[str, object] = {}
        if source is not None:
            values["source"] = source
        if paused is not None:
            values.update(paused=paused, note=note[:300], failures=0)
        if not values:
            return 0
        with self._db.session() as session:
            result = session.execute(
                sa.update(LadderEntryModel).where(LadderEntryModel.name == name).values(**values)
            )
            return int(getattr(result, "rowcount", 0))

    def delete(self, name: str) -> None:
        """Delete a ladder with its entries, games and history (the games stay stored).

        Raises:
            LadderError: if there is no such ladder.
        """
        with self._db.session() as session:
            row = _require(session, name)
            for model in (
                LadderRatingModel,
                LadderGameModel,
                LadderEntryModel,
                LadderMatchSeatModel,
                LadderMatchModel,
            ):
                session.execute(sa.delete(model).where(model.ladder_id == row.id))
            session.execute(sa.delete(ArenaRunModel).where(ArenaRunModel.key == f"ladder:{name}"))
            session.delete(row)

    # -- continuous ladders ------------------------------------------------------------

    def save_settings(self, name: str, settings: LadderSettings) -> None:
        """Store how the ladder ``name`` plays on by itself (continuous, paused, rates).

        Raises:
            LadderError: if there is no such ladder.
        """
        with self._db.session() as session:
            row = _require(session, name)
            row.continuous = settings.continuous
            row.paused = settings.paused
            row.games_in_flight = settings.games_in_flight
            row.games_per_hour = settings.games_per_hour
            row.daily_cap = settings.daily_cap
            row.placement_games = settings.placement_games
            row.updated_at = now()

    def save_config(self, ladder: Ladder) -> None:
        """Store a ladder's game settings alone (its entries and ratings are left as stored).

        Raises:
            LadderError: if there is no such ladder.
        """
        config = ladder.config
        with self._db.session() as session:
            row = _require(session, ladder.name)
            row.params = dict(config.params)
            row.timeout_ms = config.timeout_ms
            row.max_turns = config.max_turns
            row.updated_at = now()

    def for_matchmaking(self, name: str) -> Ladder | None:
        """The ladder ``name`` as matchmaking needs it: settings, entries, ratings.

        Lighter than :meth:`get` (no rating history, no recent games): what a
        continuous ladder's scheduler loads before each game.
        """
        if not 0 < len(name) <= MAX_ID_LENGTH:
            return None
        with self._db.session() as session:
            row = _find(session, name)
            if row is None:
                return None
            ladder = _rating_state(session, row)
            ladder.settings = _settings(row)
            return ladder

    def playing_ladders(self) -> list[str]:
        """The ladders the scheduler plays on now: continuous and not paused, by name."""
        query = (
            sa.select(LadderModel.name)
            .where(LadderModel.continuous.is_(True), LadderModel.paused.is_(False))
            .order_by(LadderModel.name)
        )
        with self._db.session() as session:
            return list(session.scalars(query))

    def add_match(
        self, ladder: str, game_id: str, seats: Sequence[str], seed: int, holder: str
    ) -> None:
        """Record a game the scheduler ``holder`` started for ``ladder`` (to settle later).

        Raises:
            LadderError: if there is no such ladder.
        """
        with self._db.session() as session:
            row = _require(session, ladder)
            session.add(
                LadderMatchModel(
                    game_id=game_id,
                    ladder_id=row.id,
                    seats=list(seats),
                    seed=int(seed),
                    holder=holder[:64],
                    started_at=database_now(session),
                    state="playing",
                )
            )
            session.flush()
            for seat, name in enumerate(seats):
                session.add(
                    LadderMatchSeatModel(game_id=game_id, seat=seat, ladder_id=row.id, entrant=name)
                )

    def unsettled(self) -> list[LadderMatch]:
        """Every scheduled game of every ladder not settled yet, oldest first."""
        query = (
            sa.select(LadderModel.name, LadderMatchModel)
            .join(LadderModel, LadderModel.id == LadderMatchModel.ladder_id)
            .where(LadderMatchModel.state == "playing")
            .order_by(LadderMatchModel.started_at)
        )
        with self._db.session() as session:
            return [
                LadderMatch(name, m.game_id, tuple(m.seats), m.holder, utc(m.started_at))
                for name, m in session.execute(query)
            ]

    def counts(self, name: str) -> ScheduleCounts:
        """The ladder ``name``'s scheduled games now: in flight, last hour, per entrant.

        Raises:
            LadderError: if there is no such ladder.
        """
        with self._db.session() as session:
            row = _require(session, name)
            stamp = database_now(session)
            matches = LadderMatchModel
            live = sa.and_(matches.ladder_id == row.id, matches.state != "void")
            in_flight = session.scalar(
                sa.select(sa.func.count())
                .select_from(matches)
                .where(matches.ladder_id == row.id, matches.state == "playing")
            )
            last_hour = session.scalar(
                sa.select(sa.func.count())
                .select_from(matches)
                .where(live, matches.started_at > stamp - dt.timedelta(hours=1))
            )
            last_start = session.scalar(
                sa.select(sa.func.max(matches.started_at)).where(matches.ladder_id == row.id)
            )
            seats = LadderMatchSeatModel
            today: Counter[str] = Counter()
            playing: Counter[str] = Counter()
            per_entrant = (
                sa.select(seats.entrant, matches.state, sa.func.count())
                .join(matches, matches.game_id == seats.game_id)
                .where(live, matches.started_at > stamp - dt.timedelta(hours=24))
                .group_by(seats.entrant, matches.state)
            )
            for entrant, state, count in session.execute(per_entrant):
                today[entrant] += int(count)
                if state == "playing":
                    playing[entrant] += int(count)
            return ScheduleCounts(
                settings=_settings(row),
                in_flight=int(in_flight or 0),
                last_hour=int(last_hour or 0),
                last_start=None if last_start is None else utc(last_start),
                today=today,
                playing=playing,
                now=stamp,
            )

    def settle(self, game_id: str) -> str:
        """Settle a scheduled game once: rate it if it is complete, void it if it stopped.

        Safe to call from any server, any number of times: one call rates the game,
        in one transaction with its match marked ``rated``; the others find it settled.

        Returns:
            ``"rated"`` or ``"void"`` (settled by this call), ``"playing"`` (its game
            still runs), or ``"settled"`` (settled before, or no such match).
        """
        if not 0 < len(game_id) <= MAX_ID_LENGTH:
            return "settled"
        with self._db.session() as session:
            match = session.get(LadderMatchModel, game_id)
            if match is None or match.state != "playing":
                return "settled"
            game = session.get(GameModel, game_id)
            if game is not None and game.status == GameStatus.RUNNING:
                return "playing"
            # A game whose seats do not match its match's (never so, short of a bug) is
            # voided rather than rated under the wrong names.
            complete = (
                game is not None
                and game.status == GameStatus.COMPLETE
                and game.ranks is not None
                and len(game.ranks) == len(match.seats)
            )
            stamp = database_now(session)
            # The claim first: of two servers settling it at once one updates the row;
            # the other (after waiting for the row on PostgreSQL, the file on SQLite)
            # updates nothing and stops here.
            claimed = session.execute(
                sa.update(LadderMatchModel)
                .where(LadderMatchModel.game_id == game_id, LadderMatchModel.state == "playing")
                .values(state="rated" if complete else "void", settled_at=stamp)
                .execution_options(synchronize_session=False)
            )
            if _count(claimed) != 1:
                return "settled"
            if not complete or game is None:
                return "void"
            # The ladder's row next: games settled at once take numbers in turn.
            session.execute(
                sa.update(LadderModel)
                .where(LadderModel.id == match.ladder_id)
                .values(updated_at=stamp)
                .execution_options(synchronize_session=False)
            )
            row = session.get(LadderModel, match.ladder_id, populate_existing=True)
            assert row is not None  # the match's foreign key
            ladder = _rating_state(session, row)
            names = list(match.seats)
            placement = normalize_placement(
                [names[seat] for seat in group] for group in placement_from_ranks(game.ranks or [])
            )
            failures = [str(e.get("failure", "")) for e in game.entrants]
            rated, ratings, changed = ladder.rate(
                game_id, int(match.seed), names, placement, int(game.turns), failures
            )
            _write_game(session, row, rated, ratings, changed, stamp)
            session.execute(
                sa.update(LadderMatchModel)
                .where(LadderMatchModel.game_id == game_id)
                .values(number=rated.number)
                .execution_options(synchronize_session=False)
            )
            return "rated"


def _write_game(
    session: Session,
    row: LadderModel,
    game: LadderGame,
    ratings: Mapping[str, Rating],
    entries: Sequence[LadderEntry],
    stamp: dt.datetime,
) -> None:
    session.add(
        LadderGameModel(
            ladder_id=row.id,
            number=game.number,
            game_id=game.game_id,
            seed=game.seed,
            seats=list(game.seats),
            placement=[list(group) for group in game.placement],
            turns=game.turns,
            played_at=stamp,
        )
    )
    # The game first: a number recorded already fails here, before any rating.
    session.flush()
    for name, rating in ratings.items():
        session.add(
            LadderRatingModel(
                ladder_id=row.id,
                number=game.number,
                entrant=name,
                mu=rating.mu,
                sigma=rating.sigma,
            )
        )
        session.execute(
            sa.update(LadderEntryModel)
            .where(LadderEntryModel.ladder_id == row.id, LadderEntryModel.name == name)
            .values(mu=rating.mu, sigma=rating.sigma, games=LadderEntryModel.games + 1)
        )
    for entry in entries:
        _save_entry(session, row.id, entry)
    row.games_played = max(row.games_played, game.number + 1)
    row.updated_at = stamp


def _rating_state(session: Session, row: LadderModel) -> Ladder:
    """The ladder of ``row`` as far as rating its next game needs: entries and ratings."""
    entries = list(
        session.scalars(
            sa.select(LadderEntryModel)
            .where(LadderEntryModel.ladder_id == row.id)
            .order_by(LadderEntryModel.position)
            .execution_options(populate_existing=True)
        )
    )
    # Rating the next game needs no history (only its own point is written).
    return _ladder(row, entries, {})


def _ladder(
    row: LadderModel,
    entries: Sequence[LadderEntryModel],
    history: dict[str, list[dict[str, Any]]],
) -> Ladder:
    """The ladder of ``row``: its entries and their ratings, with ``history``.

    No recent games and default settings: the callers that need them add them.
    """
    board = Leaderboard.from_dict(
        {
            "ratings": {
                e.name: {"mu": e.mu, "sigma": e.sigma} for e in entries if e.mu is not None
            },
            "games": {e.name: e.games for e in entries if e.games},
            "history": history,
        }
    )
    return Ladder(
        name=row.name,
        config=_config(row),
        seed=row.seed,
        entries={
            e.name: LadderEntry(e.name, e.source, e.paused, e.failures, e.note, e.workdir)
            for e in entries
        },
        board=board,
        games_played=row.games_played,
    )


def _config(row: LadderModel) -> MatchConfig:
    return MatchConfig.from_dict(
        {
            "game": row.game,
            "params": row.params,
            "game_size": row.game_size,
            "timeout_ms": row.timeout_ms,
            "max_turns": row.max_turns,
        }
    )


def _settings(row: LadderModel) -> LadderSettings:
    return LadderSettings(
        continuous=bool(row.continuous),
        paused=bool(row.paused),
        games_in_flight=int(row.games_in_flight),
        games_per_hour=int(row.games_per_hour),
        daily_cap=None if row.daily_cap is None else int(row.daily_cap),
        placement_games=int(row.placement_games),
    )


def _count(result: Any) -> int:
    return int(cast(CursorResult[Any], result).rowcount)


def _check_name(name: str) -> None:
    if not 0 < len(name) <= MAX_ID_LENGTH:
        raise LadderError(f"ladder name {name!r}: expected 1 to {MAX_ID_LENGTH} characters")


def _find(session: Session, name: str) -> LadderModel | None:
    return session.scalar(sa.select(LadderModel).where(LadderModel.name == name))


def _require(session: Session, name: str) -> LadderModel:
    row = _find(session, name)
    if row is None:
        raise LadderNotFoundError(f"no ladder named {name!r}")
    return row


def _save_entry(session: Session, ladder_id: int, entry: LadderEntry) -> None:
    found = session.scalar(
        sa.select(LadderEntryModel).where(
            LadderEntryModel.ladder_id == ladder_id, LadderEntryModel.name == entry.name
        )
    )
    if found is None:
        position = session.scalar(
            sa.select(sa.func.count())
            .select_from(LadderEntryModel)
            .where(LadderEntryModel.ladder_id == ladder_id)
        )
        found = LadderEntryModel(
            ladder_id=ladder_id,
            position=int(position or 0),
            name=entry.name,
            source=entry.source,
            workdir=entry.workdir,
            games=0,
        )
        session.add(found)
    found.paused = entry.paused
    found.failures = entry.failures
    found.note = entry.note


def _game(row: LadderGameModel) -> LadderGame:
    return LadderGame(
        number=row.number,
        game_id=row.game_id,
        seed=row.seed,
        seats=tuple(row.seats),
        placement=normalize_placement(row.placement),
        turns=row.turns,
    )
