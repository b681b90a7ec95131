"""Stored tournaments: settings, entrants by seed and games in the order they were played.

Implements :class:`snakewar.arena.ports.SqlTournamentRepository`.  The bracket itself is
never stored: loading a tournament replays its games into a fresh bracket, so a run
that was stopped (or killed) at any point resumes from exactly where it was, and a
match's game is recorded once, however many times (or servers) record it.
"""

from __future__ import annotations

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
from snakewar.arena.tournaments import Tournament
from snakewar.storage.database import Database, now
from snakewar.storage.models import (
    MAX_ID_LENGTH,
    ArenaRunModel,
    TournamentEntrantModel,
    TournamentGameModel,
    TournamentModel,
)

__all__ = ["SqlTournamentRepository"]

_RECORD_TRIES = 5
"""Times :meth:`SqlTournamentRepository.record_game` looks again after a clash."""


class SqlTournamentRepository:
    """The tournaments of a :class:`~snakewar.storage.database.Database`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def create(self, run: TournamentRun) -> None:
        """Store a new tournament: settings and entrants.

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

    def replace_unstarted(self, run: TournamentRun) -> None:
        """Store new settings for a tournament nobody started: its name and entrants.

        Raises:
            TournamentRunError: if there is no such tournament, or it has started (its
                games are played by the stored entrants, so those never change then).
        """
        with self._db.session() as session:
            row = _require(session, run.id)
            played = session.scalar(
                sa.select(sa.func.count())
                .select_from(TournamentGameModel)
                .where(TournamentGameModel.tournament_id == run.id)
            )
            if row.options.get("started", True) or played:
                raise TournamentRunError(
                    f"tournament {run.id!r} has started; its name and entrants are fixed now"
                )
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
            for model in (TournamentGameModel, TournamentEntrantModel):
                session.execute(sa.delete(model).where(model.tournament_id == tid))
            session.execute(
                sa.delete(ArenaRunModel).where(ArenaRunModel.key == f"tournament:{tid}")
            )
            session.delete(row)


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
