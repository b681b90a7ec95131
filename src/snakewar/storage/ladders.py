"""Stored ladders: settings, entrants, rated games and rating history, as rows.

Implements :class:`snakewar.arena.ports.SqlLadderRepository`.  A game is recorded in one
transaction with its players' new ratings and entries, so a ladder stopped at any
point keeps every game it finished.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa
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
)
from snakewar.arena.ratings import Leaderboard, Rating, normalize_placement
from snakewar.storage.database import Database, now
from snakewar.storage.models import (
    MAX_ID_LENGTH,
    ArenaRunModel,
    LadderEntryModel,
    LadderGameModel,
    LadderModel,
    LadderRatingModel,
)

__all__ = ["SqlLadderRepository"]


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
            row = LadderModel(name=ladder.name, games_played=ladder.games_played, created_at=stamp)
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
                config=MatchConfig.from_dict(
                    {
                        "game": row.game,
                        "params": row.params,
                        "game_size": row.game_size,
                        "timeout_ms": row.timeout_ms,
                        "max_turns": row.max_turns,
                    }
                ),
                seed=row.seed,
                entries={
                    e.name: LadderEntry(e.name, e.source, e.paused, e.failures, e.note, e.workdir)
                    for e in entries
                },
                board=board,
                games_played=row.games_played,
                recent=[_game(g) for g in reversed(games)],
            )

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
        stamp = now()
        try:
            with self._db.session() as session:
                row = _require(session, ladder)
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
            for model in (LadderRatingModel, LadderGameModel, LadderEntryModel):
                session.execute(sa.delete(model).where(model.ladder_id == row.id))
            session.execute(sa.delete(ArenaRunModel).where(ArenaRunModel.key == f"ladder:{name}"))
            session.delete(row)


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
