"""Stored tournaments: settings, entrants by seed and games in the order they were played.

Implements :class:`snakewar.arena.ports.SqlTournamentRepository`.  The bracket itself is
never stored: loading a tournament replays its games into a fresh bracket, so a run
that was stopped (or killed) at any point resumes from exactly where it was, and a
match's game is recorded once, however many times (or servers) record it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from snakewar.arena.config import MatchConfig
from snakewar.arena.ratings import normalize_placement
from snakewar.arena.tournament_runner import (
    TournamentExistsError,
    TournamentGame,
    TournamentNotFoundError,
    TournamentRun,
    TournamentRunError,
)
from snakewar.arena.tournaments import Tournament, TournamentConfig
from snakewar.errors import ConflictError
from snakewar.storage.database import Database, now, utc
from snakewar.storage.leases import database_now
from snakewar.storage.models import (
    MAX_ID_LENGTH,
    REGISTRATION_MODES,
    ArenaRunModel,
    TournamentEntrantModel,
    TournamentGameModel,
    TournamentModel,
    TournamentSettingsModel,
    UserModel,
)

__all__ = [
    "MAX_ROUND_GAP_S",
    "REGISTRATION_MODES",
    "Qualifier",
    "RegistrationClosedError",
    "SqlTournamentRepository",
    "TournamentFullError",
    "TournamentSettings",
    "TournamentStartedError",
]

MAX_ROUND_GAP_S: Final = 7 * 24 * 3600
"""The longest wait between two scheduled rounds (a week)."""


class TournamentStartedError(TournamentRunError, ConflictError):
    """Raised for a change that only a tournament nobody started yet takes."""


class RegistrationClosedError(TournamentRunError, ConflictError):
    """Raised when a snake is entered into a tournament whose registration is closed."""


class TournamentFullError(TournamentRunError, ConflictError):
    """Raised when an entrant would pass a tournament's cap (in all, or per owner)."""


@dataclass(frozen=True, slots=True)
class Qualifier:
    """Entrants taken from a ladder: its ``top`` entries, at most ``per_owner`` per owner.

    Attributes:
        ladder: the ladder's name.
        top: how many entrants qualify.
        per_owner: the most entrants one user's snakes take (``None``: no cap).
    """

    ladder: str
    top: int
    per_owner: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (how it is stored)."""
        return {"ladder": self.ladder, "top": self.top, "per_owner": self.per_owner}

    @classmethod
    def from_dict(cls, data: Any) -> Qualifier | None:
        """The stored qualifier (``None`` for none, or for one that no longer reads)."""
        if not isinstance(data, dict):
            return None
        ladder, top, cap = data.get("ladder"), data.get("top"), data.get("per_owner")
        if not isinstance(ladder, str) or not isinstance(top, int):
            return None
        return cls(ladder, top, cap if isinstance(cap, int) else None)


@dataclass(frozen=True, slots=True)
class TournamentSettings:
    """How a tournament is entered and played on (a plain value; defaults: none stored).

    Attributes:
        registration: who enters snakes themselves: ``closed`` (nobody: its admins
            enter them), ``open`` (every user, their own snakes) or ``owner`` (the
            tournament's creator and admins, their own snakes).
        closes_at: when registration closes (aware UTC; ``None``: when it starts).
        max_entrants: the most entrants (``None``: the bracket's own cap).
        per_owner: the most entrants of one user's snakes (registering and qualifying).
        starts_at: when the tournament scheduler starts it (``None``: its admin does).
        round_gap_s: seconds the scheduler waits between two rounds.
        creator_id: who made it (``None``: unknown, or the account is gone).
        creator: that user's name (read from the database; not written).
        qualifier: the ladder it last took its entrants from.
        next_round_at: when the scheduler plays its next round (its own note).
        finished_at: when the scheduler saw it finished (it looks no more then).
    """

    registration: str = "closed"
    closes_at: dt.datetime | None = None
    max_entrants: int | None = None
    per_owner: int | None = None
    starts_at: dt.datetime | None = None
    round_gap_s: int = 0
    creator_id: int | None = None
    creator: str | None = field(default=None, compare=False)
    qualifier: Qualifier | None = None
    next_round_at: dt.datetime | None = None
    finished_at: dt.datetime | None = None

    def __post_init__(self) -> None:
        if self.registration not in REGISTRATION_MODES:
            raise TournamentRunError(
                f"registration {self.registration[:32]!r}: expected one of "
                f"{', '.join(REGISTRATION_MODES)}"
            )
        for name in ("max_entrants", "per_owner"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise TournamentRunError(f"{name} {value}: expected at least 1")
        if not 0 <= self.round_gap_s <= MAX_ROUND_GAP_S:
            raise TournamentRunError(
                f"round_gap_s {self.round_gap_s}: expected 0 to {MAX_ROUND_GAP_S}"
            )
        for name in ("closes_at", "starts_at", "next_round_at", "finished_at"):
            value = getattr(self, name)
            if value is not None and value.tzinfo is None:
                raise TournamentRunError(f"{name}: expected a time with its time zone")

    def registration_open(self, when: dt.datetime) -> bool:
        """Whether users may enter snakes themselves at ``when`` (before it starts)."""
        return self.registration != "closed" and (self.closes_at is None or when < self.closes_at)


_RECORD_TRIES = 5
"""Times :meth:`SqlTournamentRepository.record_game` looks again after a clash."""


class SqlTournamentRepository:
    """The tournaments of a :class:`~snakewar.storage.database.Database`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def create(self, run: TournamentRun, settings: TournamentSettings | None = None) -> None:
        """Store a new tournament: settings and entrants (and how people enter it).

        Raises:
            TournamentRunError: if a tournament of that id exists, or the id is too long.
        """
        if not 0 < len(run.id) <= MAX_ID_LENGTH:
            raise TournamentRunError(
                f"tournament id {run.id!r}: expected 1 to {MAX_ID_LENGTH} characters"
            )
        t = run.tournament.config
        stamp = now()
        with self._db.session() as session:
            if session.get(TournamentModel, run.id) is not None:
                raise TournamentExistsError(f"a tournament with id {run.id!r} already exists")
            session.add(
                TournamentModel(
                    id=run.id,
                    name=run.name,
                    game=run.config.game,
                    params=dict(run.config.params),
                    timeout_ms=run.config.timeout_ms,
                    max_turns=run.config.max_turns,
                    seed=run.seed,
                    format=t.format.value,
                    heat_size=t.heat_size,
                    best_of=t.best_of,
                    advance=t.advance,
                    options={
                        "grand_final_reset": t.grand_final_reset,
                        "swiss_rounds": t.swiss_rounds,
                        "swiss_seed": t.seed,
                        "started": run.started,
                    },
                    created_at=stamp,
                    updated_at=stamp,
                )
            )
            session.flush()
            _add_entrants(session, run)
            if settings is not None:
                _write_settings(session, run.id, settings)

    def save(self, run: TournamentRun) -> None:
        """Store a tournament unless it is stored already (settings never change)."""
        with self._db.session() as session:
            if session.get(TournamentModel, run.id) is not None:
                return
        self.create(run)

    def get(self, tid: str) -> TournamentRun | None:
        """The tournament ``tid``, its bracket rebuilt from its games.

        Raises:
            TournamentError: stored games that do not fit the bracket.
        """
        if not 0 < len(tid) <= MAX_ID_LENGTH:
            return None
        with self._db.session() as session:
            row = session.get(TournamentModel, tid)
            if row is None:
                return None
            entrants = list(
                session.scalars(
                    sa.select(TournamentEntrantModel)
                    .where(TournamentEntrantModel.tournament_id == tid)
                    .order_by(TournamentEntrantModel.position)
                )
            )
            games = list(
                session.scalars(
                    sa.select(TournamentGameModel)
                    .where(TournamentGameModel.tournament_id == tid)
                    .order_by(TournamentGameModel.ordinal)
                )
            )
        options = row.options
        tournament = Tournament.create(
            row.format,
            [e.name for e in sorted(entrants, key=lambda e: e.seed_rank)],
            row.heat_size,
            row.best_of,
            row.advance,
            grand_final_reset=bool(options.get("grand_final_reset", True)),
            rounds=options.get("swiss_rounds"),
            seed=options.get("swiss_seed"),
        )
        config = MatchConfig.from_dict(
            {
                "game": row.game,
                "params": row.params,
                "game_size": row.heat_size,
                "timeout_ms": row.timeout_ms,
                "max_turns": row.max_turns,
            }
        )
        run = TournamentRun(
            row.id,
            row.name,
            tournament,
            {e.name: e.source for e in entrants},
            config,
            row.seed,
            workdirs={e.name: e.workdir for e in entrants if e.workdir is not None},
            # Tournaments stored before this option existed were started when made.
            started=bool(options.get("started", True)),
        )
        seen: set[tuple[str, int]] = set()
        for game in games:
            # A copy recorded by an older Snakewar (two servers that both resumed the
            # tournament) is the same game: the bracket takes it once.
            if (game.match_id, game.number) in seen:
                continue
            seen.add((game.match_id, game.number))
            run.replay_game(_game(game))
        return run

    def list_all(self) -> list[tuple[str, str]]:
        """Every tournament as ``(id, name)``, oldest first."""
        query = sa.select(TournamentModel.id, TournamentModel.name).order_by(
            TournamentModel.created_at, TournamentModel.id
        )
        with self._db.session() as session:
            return [(tid, name) for tid, name in session.execute(query)]

    def record_game(self, tid: str, game: TournamentGame) -> TournamentGame:
        """Record one played game of a match (after the games recorded before it).

        A match's game is recorded once: when game ``number`` of the match is recorded
        already (a run that resumed, or another server, recorded it first), nothing
        changes and the game as recorded is returned, for the bracket to follow it.

        Returns:
            The game as it is recorded now (``game``, or the one recorded first).

        Raises:
            TournamentRunError: if there is no such tournament.
        """
        for _ in range(_RECORD_TRIES):
            try:
                return self._record(tid, game)
            except IntegrityError:
                # Another writer took the next ordinal, or recorded this very game, at the
                # same moment: look again.
                continue
        raise TournamentRunError(
            f"tournament {tid!r}: game {game.number} of match {game.match_id!r} could not be "
            f"recorded after {_RECORD_TRIES} tries (other writers kept recording)"
        )

    def _record(self, tid: str, game: TournamentGame) -> TournamentGame:
        stamp = now()
        with self._db.session() as session:
            row = _require(session, tid)
            found = session.scalar(
                sa.select(TournamentGameModel).where(
                    TournamentGameModel.tournament_id == tid,
                    TournamentGameModel.match_id == game.match_id,
                    TournamentGameModel.number == game.number,
                )
            )
            if found is not None:
                return _game(found)
            # The next ordinal after the last (not the count: copies deleted by the
            # migration to 0010 left gaps).
            last = session.scalar(
                sa.select(sa.func.max(TournamentGameModel.ordinal)).where(
                    TournamentGameModel.tournament_id == tid
                )
            )
            session.add(
                TournamentGameModel(
                    tournament_id=tid,
                    ordinal=0 if last is None else int(last) + 1,
                    match_id=game.match_id,
                    number=game.number,
                    game_id=game.game_id,
                    seed=game.seed,
                    seats=list(game.seats),
                    placement=[list(group) for group in game.placement],
                    turns=game.turns,
                    played_at=stamp,
                )
            )
            row.updated_at = stamp
            session.flush()
        return game

    def mark_started(self, tid: str) -> None:
        """Note that a tournament made to be started later is started now.

        Raises:
            TournamentRunError: if there is no such tournament.
        """
        with self._db.session() as session:
            row = _require(session, tid)
            # A new dict: the JSON column sees an assignment, not an in-place change.
            row.options = {**row.options, "started": True}
            row.updated_at = now()

    def replace_unstarted(
        self, run: TournamentRun, settings: TournamentSettings | None = None
    ) -> None:
        """Store new settings for a tournament nobody started: its name and entrants.

        With ``settings``, how people enter it and when it starts change too (in the
        same transaction: all of it, or nothing, once it started).

        Raises:
            TournamentRunError: if there is no such tournament.
            TournamentStartedError: if it has started (its games are played by the
                stored entrants, so those never change then).
        """
        with self._db.session() as session:
            row = _lock(session, run.id)
            _check_unstarted(session, row)
            if settings is not None:
                _write_settings(session, run.id, settings)
            t = run.tournament.config
            row.name = run.name
            row.advance = t.advance
            row.options = {**row.options, "swiss_rounds": t.swiss_rounds}
            row.updated_at = now()
            session.execute(
                sa.delete(TournamentEntrantModel).where(
                    TournamentEntrantModel.tournament_id == run.id
                )
            )
            session.flush()
            _add_entrants(session, run)

    def delete(self, tid: str) -> None:
        """Delete a tournament with its entrants and games (the games stay stored).

        Raises:
            TournamentRunError: if there is no such tournament.
        """
        with self._db.session() as session:
            row = _require(session, tid)
            for model in (TournamentGameModel, TournamentEntrantModel, TournamentSettingsModel):
                session.execute(sa.delete(model).where(model.tournament_id == tid))
            session.execute(
                sa.delete(ArenaRunModel).where(ArenaRunModel.key == f"tournament:{tid}")
            )
            session.delete(row)

    # -- people entering, and the scheduler ------------------------------------------------

    def settings(self, tid: str) -> TournamentSettings:
        """How ``tid`` is entered and played on (the defaults when none were stored).

        Raises:
            TournamentNotFoundError: if there is no such tournament.
        """
        with self._db.session() as session:
            _require(session, tid)
            found = _read_settings(session, [tid])
        return found.get(tid, TournamentSettings())

    def all_settings(self) -> dict[str, TournamentSettings]:
        """The stored settings of every tournament that has some, by id."""
        with self._db.session() as session:
            return _read_settings(session, None)

    def set_settings(self, tid: str, settings: TournamentSettings) -> None:
        """Store how an unstarted tournament is entered and when it starts.

        Raises:
            TournamentNotFoundError: if there is no such tournament.
            TournamentStartedError: if it has started.
        """
        with self._db.session() as session:
            row = _lock(session, tid)
            _check_unstarted(session, row)
            _write_settings(session, tid, settings)
            row.updated_at = now()

    def register(
        self,
        tid: str,
        name: str,
        source: str,
        *,
        owner: str | None,
        anytime: bool = False,
        workdir: str | None = None,
    ) -> int:
        """Enter one snake into a tournament nobody started, as its last seed.

        Everything is checked in one transaction that holds the tournament's row (a
        write first: PostgreSQL locks the row, SQLite takes its one writer's lock), so
        of many entering at once none passes a cap.

        Args:
            tid: the tournament.
            name: the entrant's name (a registered snake's is ``@owner/name``).
            source: what plays it (as the tournament's game takes it).
            owner: the user whose snake it is (counted against ``per_owner``).
            anytime: enter it though registration is closed or past its deadline (an
                admin entering a snake); the caps still hold.
            workdir: the folder a command entrant runs in.

        Returns:
            How many entrants the tournament has now.

        Raises:
            TournamentNotFoundError: no such tournament.
            TournamentStartedError: it has started.
            RegistrationClosedError: its registration is closed, or its deadline passed.
            TournamentFullError: it is full, or ``owner`` has ``per_owner`` entrants.
            TournamentExistsError: ``name`` is entered already.
        """
        with self._db.session() as session:
            row = _lock(session, tid)
            _check_unstarted(session, row)
            found = _read_settings(session, [tid]).get(tid, TournamentSettings())
            if not anytime:
                if found.registration == "closed":
                    raise RegistrationClosedError(
                        f"tournament {tid!r}: registration is closed; its admins enter snakes"
                    )
                when = database_now(session)
                if found.closes_at is not None and when >= found.closes_at:
                    raise RegistrationClosedError(
                        f"tournament {tid!r}: registration closed at "
                        f"{found.closes_at.isoformat(timespec='seconds')}"
                    )
            entrants = list(
                session.scalars(
                    sa.select(TournamentEntrantModel).where(
                        TournamentEntrantModel.tournament_id == tid
                    )
                )
            )
            if any(e.name == name for e in entrants):
                raise TournamentExistsError(f"tournament {tid!r}: {name[:100]} is entered already")
            if found.max_entrants is not None and len(entrants) >= found.max_entrants:
                raise TournamentFullError(
                    f"tournament {tid!r} is full: {len(entrants)} entrants, its cap"
                )
            if owner is not None and found.per_owner is not None:
                theirs = sum(1 for e in entrants if e.name.startswith(f"@{owner}/"))
                if theirs >= found.per_owner:
                    raise TournamentFullError(
                        f"tournament {tid!r}: {owner} has {theirs} snakes entered, the most "
                        f"one user may (per_owner {found.per_owner})"
                    )
            session.add(
                TournamentEntrantModel(
                    tournament_id=tid,
                    position=1 + max((e.position for e in entrants), default=-1),
                    name=name,
                    source=source,
                    workdir=workdir,
                    seed_rank=1 + max((e.seed_rank for e in entrants), default=-1),
                )
            )
            _fit_rounds(row, len(entrants) + 1)
            return len(entrants) + 1

    def withdraw(self, tid: str, name: str) -> bool:
        """Take an entrant out of a tournament nobody started; ``False`` if it was not in.

        Raises:
            TournamentNotFoundError: no such tournament.
            TournamentStartedError: it has started.
        """
        with self._db.session() as session:
            row = _lock(session, tid)
            _check_unstarted(session, row)
            result = session.execute(
                sa.delete(TournamentEntrantModel)
                .where(
                    TournamentEntrantModel.tournament_id == tid,
                    TournamentEntrantModel.name == name,
                )
                .execution_options(synchronize_session=False)
            )
            gone = bool(getattr(result, "rowcount", 0))
            if gone:
                left = session.scalar(
                    sa.select(sa.func.count())
                    .select_from(TournamentEntrantModel)
                    .where(TournamentEntrantModel.tournament_id == tid)
                )
                _fit_rounds(row, int(left or 0))
            return gone

    def due(self) -> tuple[list[tuple[str, TournamentSettings]], dt.datetime]:
        """The scheduled tournaments whose start time came and that are not finished.

        Returns:
            Each one's id and settings, soonest first, and the database's time now (the
            scheduler measures every wait by it).
        """
        with self._db.session() as session:
            when = database_now(session)
            ids = list(
                session.scalars(
                    sa.select(TournamentSettingsModel.tournament_id)
                    .where(
                        TournamentSettingsModel.starts_at.is_not(None),
                        TournamentSettingsModel.starts_at <= when,
                        TournamentSettingsModel.finished_at.is_(None),
                    )
                    .order_by(TournamentSettingsModel.starts_at)
                )
            )
            found = _read_settings(session, ids) if ids else {}
        return [(tid, found[tid]) for tid in ids if tid in found], when

    def set_next_round(self, tid: str, when: dt.datetime | None) -> None:
        """Note when the scheduler plays ``tid``'s next round (``None``: no wait noted)."""
        with self._db.session() as session:
            session.execute(
                sa.update(TournamentSettingsModel)
                .where(TournamentSettingsModel.tournament_id == tid)
                .values(next_round_at=when)
                .execution_options(synchronize_session=False)
            )

    def mark_finished(self, tid: str) -> None:
        """Note that ``tid`` is finished: the scheduler looks at it no more."""
        with self._db.session() as session:
            session.execute(
                sa.update(TournamentSettingsModel)
                .where(TournamentSettingsModel.tournament_id == tid)
                .values(finished_at=database_now(session), next_round_at=None)
                .execution_options(synchronize_session=False)
            )

    def now(self) -> dt.datetime:
        """The time deadlines and start times are measured by (the database's), aware UTC."""
        with self._db.session() as session:
            return database_now(session)


def _lock(session: Session, tid: str) -> TournamentModel:
    """The tournament's row, held to the end of the transaction (written to at once)."""
    row = _require(session, tid)
    # A write first: the row is the transaction's until it ends, on both databases.
    session.execute(
        sa.update(TournamentModel)
        .where(TournamentModel.id == tid)
        .values(updated_at=now())
        .execution_options(synchronize_session=False)
    )
    session.refresh(row)
    return row


def _fit_rounds(row: TournamentModel, entrants: int) -> None:
    """A Swiss tournament's rounds for its new field (the default for that many)."""
    if row.format == "swiss":
        rounds = TournamentConfig.create("swiss", [f"e{i}" for i in range(entrants)]).swiss_rounds
        row.options = {**row.options, "swiss_rounds": rounds}


def _check_unstarted(session: Session, row: TournamentModel) -> None:
    played = session.scalar(
        sa.select(sa.func.count())
        .select_from(TournamentGameModel)
        .where(TournamentGameModel.tournament_id == row.id)
    )
    if row.options.get("started", True) or played:
        raise TournamentStartedError(
            f"tournament {row.id!r} has started; its settings and entrants are fixed now"
        )


def _read_settings(session: Session, ids: list[str] | None) -> dict[str, TournamentSettings]:
    query = sa.select(TournamentSettingsModel, UserModel.name).outerjoin(
        UserModel, UserModel.id == TournamentSettingsModel.creator_id
    )
    if ids is not None:
        query = query.where(TournamentSettingsModel.tournament_id.in_(ids))
    found: dict[str, TournamentSettings] = {}
    for row, creator in session.execute(query):
        found[row.tournament_id] = TournamentSettings(
            registration=row.registration,
            closes_at=_aware(row.registration_closes_at),
            max_entrants=row.max_entrants,
            per_owner=row.per_owner,
            starts_at=_aware(row.starts_at),
            round_gap_s=row.round_gap_s,
            creator_id=row.creator_id,
            creator=creator,
            qualifier=Qualifier.from_dict(row.qualifier),
            next_round_at=_aware(row.next_round_at),
            finished_at=_aware(row.finished_at),
        )
    return found


def _write_settings(session: Session, tid: str, settings: TournamentSettings) -> None:
    values = {
        "registration": settings.registration,
        "registration_closes_at": settings.closes_at,
        "max_entrants": settings.max_entrants,
        "per_owner": settings.per_owner,
        "starts_at": settings.starts_at,
        "round_gap_s": settings.round_gap_s,
        "creator_id": settings.creator_id,
        "qualifier": None if settings.qualifier is None else settings.qualifier.to_dict(),
        "next_round_at": settings.next_round_at,
        "finished_at": settings.finished_at,
    }
    row = session.get(TournamentSettingsModel, tid)
    if row is None:
        session.add(TournamentSettingsModel(tournament_id=tid, **values))
    else:
        for key, value in values.items():
            setattr(row, key, value)


def _aware(when: dt.datetime | None) -> dt.datetime | None:
    return None if when is None else utc(when)


def _game(row: TournamentGameModel) -> TournamentGame:
    return TournamentGame(
        match_id=row.match_id,
        number=row.number,
        game_id=row.game_id,
        seed=row.seed,
        seats=tuple(row.seats),
        placement=normalize_placement(row.placement),
        turns=row.turns,
    )


def _require(session: Session, tid: str) -> TournamentModel:
    row = session.get(TournamentModel, tid) if 0 < len(tid) <= MAX_ID_LENGTH else None
    if row is None:
        raise TournamentNotFoundError(f"no tournament with id {tid!r}")
    return row


def _add_entrants(session: Session, run: TournamentRun) -> None:
    """Add the rows of ``run``'s entrants: their order, sources, folders and seeds."""
    by_seed = {name: rank for rank, name in enumerate(run.tournament.entrants)}
    for position, (name, source) in enumerate(run.snakes.items()):
        session.add(
            TournamentEntrantModel(
                tournament_id=run.id,
                position=position,
                name=name,
                source=source,
                workdir=run.workdirs.get(name),
                seed_rank=by_seed[name],
            )
        )
