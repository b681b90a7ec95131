"""What profiles, the games search and ladder entry pages read: queries across tables.

:meth:`SqlProfileRepository.search` finds games by entrant (a registered snake's
``@owner/name``), user, ladder, tournament, status and date, a page at a time;
:meth:`~SqlProfileRepository.latencies` gives a snake's call latencies over its recent
games (from ``game_calls``, where the games keep them);
:meth:`~SqlProfileRepository.entry_report` one ladder entrant's rating history with
per-game deltas, placements and the game's secondary statistics;
:meth:`~SqlProfileRepository.ladder_scores` every entrant's win rate and statistics
means on a ladder (the scorers shown beside the rating).

An entrant is matched by its name in ``games.entrants``: a registered snake always
plays as ``@owner/name``, a name no request can give (:mod:`snakewar.server.matches`).
The JSON is searched with the database's own JSON functions (``json_each`` on SQLite,
``@>`` on PostgreSQL's JSONB), never by matching text.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, cast

import sqlalchemy as sa
from sqlalchemy.orm import Session

from snakewar.arena.ladder import LadderNotFoundError
from snakewar.storage.database import Database, StoreError, utc
from snakewar.storage.games import GameRow, _check_status, _summary_query, _summary_row
from snakewar.storage.models import (
    MAX_ID_LENGTH,
    GameCallsModel,
    GameModel,
    LadderEntryModel,
    LadderGameModel,
    LadderModel,
    LadderRatingModel,
)

__all__ = [
    "MAX_FILTER_NAMES",
    "MAX_SEARCH_LIMIT",
    "EntryReport",
    "GameFilter",
    "GamePage",
    "Latency",
    "RatingStep",
    "ScoreLine",
    "SqlProfileRepository",
]

MAX_SEARCH_LIMIT: Final = 200
"""The most games one page of :meth:`SqlProfileRepository.search` holds."""

MAX_FILTER_NAMES: Final = 200
"""The most entrant names one filter matches any of (a user's snakes)."""

MAX_LATENCY_GAMES: Final = 100
"""The most recent games a snake's latency is measured over."""


@dataclass(frozen=True, slots=True)
class GameFilter:
    """Which games a search returns (every given condition holds; ``None``: any).

    Attributes:
        game: of this game (its registry key).
        entrant: one of the entrants is called this (``@owner/name``).
        owner_id: started by this user...
        owner_entrants: ...or (with ``owner_id``) played by one of these entrants
            (the user's snakes): the games of a user.
        source: exactly this source (``ladder:NAME``, ``tournament:ID``).
        status: with this status.
        since: created at or after this (aware).
        until: created before this (aware).
    """

    game: str | None = None
    entrant: str | None = None
    owner_id: int | None = None
    owner_entrants: tuple[str, ...] = ()
    source: str | None = None
    status: str | None = None
    since: dt.datetime | None = None
    until: dt.datetime | None = None


@dataclass(frozen=True, slots=True)
class GamePage:
    """One page of a search: its games, how many match in all, the next page's offset."""

    games: list[GameRow]
    total: int
    next_offset: int | None


@dataclass(frozen=True, slots=True)
class Latency:
    """A snake's call latencies over its recent games (ms; ``None``: no call recorded)."""

    games: int
    calls: int
    p50: float | None
    p95: float | None
    timeouts: int


@dataclass(frozen=True, slots=True)
class RatingStep:
    """An entrant's rating after one of its ladder games, and what that game changed.

    ``place`` is its place in the game (1: first; tied entrants share one) of
    ``places`` places, ``won`` whether it was first alone; ``delta`` the change of its
    shown rating (mu - 3 sigma), ``None`` for its first game.
    """

    number: int
    game_id: str
    played_at: dt.datetime
    mu: float
    sigma: float
    rating: float
    delta: float | None
    place: int
    places: int
    won: bool
    players: int
    stats: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ScoreLine:
    """An entrant's secondary scorers on a ladder: win rate, placements, stats means."""

    games: int
    wins: int
    placements: dict[int, int]
    stats: dict[str, float]

    @property
    def win_rate(self) -> float | None:
        """Wins per game (``None`` before its first game)."""
        return self.wins / self.games if self.games else None


@dataclass(frozen=True, slots=True)
class EntryReport:
    """One ladder entrant: its entry, its rank and its whole rating history.

    ``rank`` is among the entrants out of placement (``None`` while it is in placement
    or unrated).
    """

    ladder: str
    game: str
    entrant: str
    source: str
    placement_games: int
    mu: float | None
    sigma: float | None
    games: int
    paused: bool
    failures: int
    note: str
    rank: int | None
    ranked: int
    scores: ScoreLine
    history: list[RatingStep]

    @property
    def in_placement(self) -> bool:
        """Whether it still plays its placement games (unranked)."""
        return self.games < self.placement_games


class SqlProfileRepository:
    """Profile, search and ladder-entry queries of a :class:`Database`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # -- games ---------------------------------------------------------------------------

    def search(self, where: GameFilter, limit: int = 50, offset: int = 0) -> GamePage:
        """The games matching ``where``, newest first: ``limit`` from ``offset`` on.

        Raises:
            StoreError: for a bad limit, offset, status, name or date.
        """
        _check_int("limit", limit, 1, MAX_SEARCH_LIMIT)
        _check_int("offset", offset, 0, 2**62)
        with self._db.session() as session:
            conditions = _conditions(session, where)
            query = (
                _summary_query()
                .where(*conditions)
                .order_by(GameModel.created_at.desc(), GameModel.id.desc())
                .limit(limit)
                .offset(offset)
            )
            rows = [_summary_row(found) for found in session.execute(query)]
            total = int(
                session.scalar(sa.select(sa.func.count()).select_from(GameModel).where(*conditions))
                or 0
            )
        after = offset + len(rows)
        return GamePage(rows, total, after if after < total else None)

    def latencies(self, entrant: str, games: int = 50) -> Latency:
        """``entrant``'s call latencies over its ``games`` most recent games.

        Where games kept their calls (``game_calls``: a local server's games, what the
        request inspector shows), the percentiles are of every call.  Elsewhere (a
        public server keeps none) each game stored its own figures with its statistics
        (``calls``, ``latency_p50_ms``, ``latency_p95_ms``, ``timeouts``): then ``p50``
        is the median of the games' medians and ``p95`` the 95th percentile of their
        95th percentiles.  Failed calls count too (a timeout's latency is the time it
        was given).
        """
        _check_name(entrant)
        _check_int("games", games, 1, MAX_LATENCY_GAMES)
        with self._db.session() as session:
            has_calls = sa.exists().where(GameCallsModel.game_id == GameModel.id)
            recent = list(
                session.scalars(
                    sa.select(GameModel.id)
                    .where(_entrant_in(session, [entrant]), has_calls)
                    .order_by(GameModel.created_at.desc(), GameModel.id.desc())
                    .limit(games)
                )
            )
            values: list[int] = []
            timeouts = 0
            if recent:
                query = sa.select(GameCallsModel.calls).where(GameCallsModel.game_id.in_(recent))
                for calls in session.scalars(query):
                    for call in calls or ():
                        if not isinstance(call, dict) or call.get("name") != entrant:
                            continue
                        latency = call.get("latency_ms")
                        if isinstance(latency, int | float) and not isinstance(latency, bool):
                            values.append(int(latency))
                        if call.get("status") == "timeout":
                            timeouts += 1
            else:
                return _stored_latencies(session, entrant, games)
        return Latency(
            games=len(recent),
            calls=len(values),
            p50=_percentile(values, 0.50),
            p95=_percentile(values, 0.95),
            timeouts=timeouts,
        )

    # -- ladders -------------------------------------------------------------------------

    def ladder_scores(self, ladder: str) -> dict[str, ScoreLine]:
        """Every entrant's win rate, placements and statistics means on ``ladder``.

        Raises:
            LadderNotFoundError: if there is no such ladder.
        """
        with self._db.session() as session:
            row = _ladder_row(session, ladder)
            lines: dict[str, _Tally] = {}
            for game, stats in _ladder_games(session, row.id):
                for name, place, _count, won in _places(game):
                    tally = lines.setdefault(name, _Tally())
                    tally.add(place, won, _seat_stats(game, stats, name))
            return {name: tally.line() for name, tally in lines.items()}

    def entry_report(self, ladder: str, entrant: str) -> EntryReport:
        """One entrant of ``ladder``: entry, rank, rating history with deltas, scorers.

        Raises:
            LadderNotFoundError: no such ladder, or no such entrant on it.
        """
        _check_name(entrant)
        with self._db.session() as session:
            row = _ladder_row(session, ladder)
            entries = list(
                session.scalars(
                    sa.select(LadderEntryModel).where(LadderEntryModel.ladder_id == row.id)
                )
            )
            entry = next((e for e in entries if e.name == entrant), None)
            if entry is None:
                raise LadderNotFoundError(f"ladder {ladder!r} has no entrant {entrant!r}")
            placement = int(row.placement_games)
            ranked = sorted(
                (e for e in entries if e.mu is not None and e.sigma is not None),
                key=lambda e: (-(e.mu or 0.0) + 3.0 * (e.sigma or 0.0), -(e.mu or 0.0), e.name),
            )
            out_of_placement = [e.name for e in ranked if e.games >= placement]
            rank = out_of_placement.index(entrant) + 1 if entrant in out_of_placement else None
            points = {
                number: (mu, sigma)
                for number, mu, sigma in session.execute(
                    sa.select(
                        LadderRatingModel.number, LadderRatingModel.mu, LadderRatingModel.sigma
                    ).where(
                        LadderRatingModel.ladder_id == row.id,
                        LadderRatingModel.entrant == entrant,
                    )
                )
            }
            history: list[RatingStep] = []
            tally = _Tally()
            previous: float | None = None
            for game, stats in _ladder_games(session, row.id, numbers=sorted(points)):
                found = next((f for f in _places(game) if f[0] == entrant), None)
                if found is None:
                    continue
                _name, place, places, won = found
                seat_stats = _seat_stats(game, stats, entrant)
                tally.add(place, won, seat_stats)
                mu, sigma = points[game.number]
                shown = mu - 3.0 * sigma
                history.append(
                    RatingStep(
                        number=game.number,
                        game_id=game.game_id,
                        played_at=utc(game.played_at),
                        mu=mu,
                        sigma=sigma,
                        rating=shown,
                        delta=None if previous is None else shown - previous,
                        place=place,
                        places=places,
                        won=won,
                        players=len(game.seats),
                        stats=seat_stats,
                    )
                )
                previous = shown
            return EntryReport(
                ladder=row.name,
                game=row.game,
                entrant=entry.name,
                source=entry.source,
                placement_games=placement,
                mu=entry.mu,
                sigma=entry.sigma,
                games=int(entry.games),
                paused=bool(entry.paused),
                failures=int(entry.failures),
                note=entry.note,
                rank=rank,
                ranked=len(out_of_placement),
                scores=tally.line(),
                history=history,
            )

    def entrant_ladders(self, entrant: str) -> list[str]:
        """The ladders ``entrant`` is on, or has played on, by name."""
        _check_name(entrant)
        on = sa.select(LadderEntryModel.ladder_id).where(LadderEntryModel.name == entrant)
        played = sa.select(LadderRatingModel.ladder_id).where(LadderRatingModel.entrant == entrant)
        query = (
            sa.select(LadderModel.name)
            .where(sa.or_(LadderModel.id.in_(on), LadderModel.id.in_(played)))
            .order_by(LadderModel.name)
        )
        with self._db.session() as session:
            return list(session.scalars(query))


# -- helpers ---------------------------------------------------------------------------


class _Tally:
    """Sums of an entrant's games: placements, wins and each statistic."""

    def __init__(self) -> None:
        self.games = 0
        self.wins = 0
        self.placements: Counter[int] = Counter()
        self.sums: dict[str, float] = {}
        self.counts: Counter[str] = Counter()

    def add(self, place: int, won: bool, stats: dict[str, float]) -> None:
        self.games += 1
        self.placements[place] += 1
        if won:
            self.wins += 1
        for key, value in stats.items():
            self.sums[key] = self.sums.get(key, 0.0) + value
            self.counts[key] += 1

    def line(self) -> ScoreLine:
        means = {key: self.sums[key] / self.counts[key] for key in sorted(self.counts)}
        return ScoreLine(self.games, self.wins, dict(sorted(self.placements.items())), means)


@dataclass(frozen=True, slots=True)
class _Played:
    """The columns of a ladder game the reports read (plain values: cheap to load)."""

    number: int
    game_id: str
    seats: list[str]
    placement: list[list[str]]
    played_at: dt.datetime


def _places(game: _Played) -> list[tuple[str, int, int, bool]]:
    """``(entrant, place, places, won)`` for each entrant of a game.

    Places are the placement's groups, best first (tied entrants share one); a win is a
    first place held alone: a shared first place is a draw, and no one's win.
    """
    groups = [list(group) for group in game.placement or []]
    return [
        (str(name), index + 1, len(groups), index == 0 and len(group) == 1)
        for index, group in enumerate(groups)
        for name in group
    ]


def _ladder_games(
    session: Session, ladder_id: int, numbers: Sequence[int] | None = None
) -> list[tuple[_Played, list[dict[str, float]] | None]]:
    """The ladder's rated games in order, each with its stored game's per-seat stats."""
    query = (
        sa.select(
            LadderGameModel.number,
            LadderGameModel.game_id,
            LadderGameModel.seats,
            LadderGameModel.placement,
            LadderGameModel.played_at,
            GameModel.stats,
        )
        .outerjoin(GameModel, GameModel.id == LadderGameModel.game_id)
        .where(LadderGameModel.ladder_id == ladder_id)
        .order_by(LadderGameModel.number)
    )
    if numbers is not None:
        if not numbers:
            return []
        query = query.where(LadderGameModel.number.in_(list(numbers)))
    return [(_Played(*row[:5]), row[5]) for row in session.execute(query)]


def _seat_stats(game: _Played, stats: list[dict[str, float]] | None, name: str) -> dict[str, float]:
    """``name``'s statistics in ``game`` (empty: the game kept none)."""
    if not stats:
        return {}
    seats = list(game.seats)
    if name not in seats:
        return {}
    seat = seats.index(name)
    # Stored JSON: checked as the untyped data it is.
    found: object = stats[seat] if seat < len(stats) else None
    if not isinstance(found, dict):
        return {}
    return {
        str(key): float(value)
        for key, value in found.items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    }


def _stored_latencies(session: Session, entrant: str, games: int) -> Latency:
    """``entrant``'s latency from its recent games' stored figures (see ``latencies``)."""
    query = (
        sa.select(GameModel.entrants, GameModel.stats)
        .where(_entrant_in(session, [entrant]), GameModel.stats.is_not(None))
        .order_by(GameModel.created_at.desc(), GameModel.id.desc())
        .limit(games)
    )
    medians: list[float] = []
    highs: list[float] = []
    counted = calls = timeouts = 0
    for row_entrants, row_stats in session.execute(query):
        # Stored JSON: checked as the untyped data it is.
        entrants: object = row_entrants
        stats: object = row_stats
        if not isinstance(entrants, list):
            continue
        names = [e.get("name") if isinstance(e, dict) else None for e in entrants]
        if entrant not in names or not isinstance(stats, list):
            continue
        seat = names.index(entrant)
        found: object = stats[seat] if seat < len(stats) else None
        if not isinstance(found, dict) or "calls" not in found:
            continue  # a game stored before its latency was
        counted += 1
        calls += int(found.get("calls") or 0)
        timeouts += int(found.get("timeouts") or 0)
        for key, into in (("latency_p50_ms", medians), ("latency_p95_ms", highs)):
            value = found.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                into.append(float(value))
    return Latency(
        games=counted,
        calls=calls,
        p50=_percentile(medians, 0.50),
        p95=_percentile(highs, 0.95),
        timeouts=timeouts,
    )


def _percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q`` quantile of ``values`` by the nearest-rank method (``None``: none)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 1))  # ceil(n * q), at least 1
    return float(ordered[int(rank) - 1])


def _conditions(session: Session, where: GameFilter) -> list[sa.ColumnElement[bool]]:
    conditions: list[sa.ColumnElement[bool]] = []
    if where.game is not None:
        conditions.append(GameModel.game == where.game)
    if where.status is not None:
        _check_status(where.status)
        conditions.append(GameModel.status == where.status)
    if where.source is not None:
        if not 0 < len(where.source) <= MAX_ID_LENGTH + 16:
            raise StoreError(f"source {where.source[:40]!r}: too long")
        conditions.append(GameModel.source == where.source)
    if where.entrant is not None:
        _check_name(where.entrant)
        conditions.append(_entrant_in(session, [where.entrant]))
    if where.owner_id is not None:
        names = list(where.owner_entrants)
        if len(names) > MAX_FILTER_NAMES:
            raise StoreError(f"owner_entrants: at most {MAX_FILTER_NAMES} names")
        for name in names:
            _check_name(name)
        started = GameModel.owner_id == where.owner_id
        conditions.append(sa.or_(started, _entrant_in(session, names)) if names else started)
    given: tuple[tuple[str, object], ...] = (("since", where.since), ("until", where.until))
    for label, when in given:
        if when is not None and (not isinstance(when, dt.datetime) or when.tzinfo is None):
            raise StoreError(f"{label} {when!r}: expected a timezone-aware datetime")
    if where.since is not None:
        conditions.append(GameModel.created_at >= where.since.astimezone(dt.UTC))
    if where.until is not None:
        conditions.append(GameModel.created_at < where.until.astimezone(dt.UTC))
    return conditions


def _entrant_in(session: Session, names: Sequence[str]) -> sa.ColumnElement[bool]:
    """A condition on ``games``: one of its entrants is called one of ``names``."""
    if session.get_bind().dialect.name == "postgresql":
        # JSONB containment: the entrants array holds an object with that name.
        return sa.or_(
            *(
                sa.text(f"games.entrants @> CAST(:entrant_{i} AS jsonb)").bindparams(
                    **{f"entrant_{i}": json.dumps([{"name": name}])}
                )
                for i, name in enumerate(names)
            )
        )
    exists = sa.text(
        "EXISTS (SELECT 1 FROM json_each(games.entrants) AS e "
        "WHERE json_extract(e.value, '$.name') IN :entrant_names)"
    ).bindparams(sa.bindparam("entrant_names", list(names), expanding=True))
    return cast(sa.ColumnElement[bool], exists)


def _ladder_row(session: Session, name: str) -> LadderModel:
    row = (
        session.scalar(sa.select(LadderModel).where(LadderModel.name == name))
        if 0 < len(name) <= MAX_ID_LENGTH
        else None
    )
    if row is None:
        raise LadderNotFoundError(f"no ladder named {name!r}")
    return row


def _check_name(name: object) -> None:
    if not isinstance(name, str) or not 0 < len(name) <= MAX_ID_LENGTH:
        raise StoreError(f"entrant {name!r} is not valid; expected 1 to {MAX_ID_LENGTH} characters")


def _check_int(name: str, value: object, minimum: int, maximum: int) -> None:
    if type(value) is not int or not minimum <= value <= maximum:
        raise StoreError(
            f"{name} {value!r} is not valid; expected an integer from {minimum} to {maximum}"
        )
