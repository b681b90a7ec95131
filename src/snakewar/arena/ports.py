"""What the arena needs from storage, as typed Protocols.

Ladders and tournaments are played here and kept by :mod:`snakewar.storage`, which
implements these Protocols (the arena never imports it): played games go to a
:class:`GameSink`, ladders to a :class:`LadderRepository` (entries, games and rating
history as rows, written game by game), tournaments to a
:class:`TournamentRepository` (settings, entrants and games; the bracket is rebuilt by
replaying the games).  ``snakewar.storage.Store`` is an :class:`ArenaStore`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from snakewar.arena.ladder import Ladder, LadderEntry, LadderGame
    from snakewar.arena.ratings import Rating
    from snakewar.arena.tournament_runner import TournamentGame, TournamentRun
    from snakewar.engine.protocol import PlayedGame

__all__ = ["ArenaStore", "GameSink", "LadderRepository", "TournamentRepository"]


class GameSink(Protocol):
    """Where played games are kept."""

    def save_played(self, played: PlayedGame) -> bool:
        """Store a finished game; ``False`` (and nothing changes) if its id is stored already."""
        ...


class LadderRepository(Protocol):
    """Where ladders are kept."""

    def create(self, ladder: Ladder) -> None:
        """Store a new ladder (with its entries).

        Raises:
            LadderError: if a ladder of that name exists.
        """
        ...

    def save(self, ladder: Ladder) -> None:
        """Store a ladder and its entries, new or not (its games are recorded one by one)."""
        ...

    def get(self, name: str, *, recent: int = 20) -> Ladder | None:
        """The ladder ``name`` with its entries, ratings, history and ``recent`` last games."""
        ...

    def names(self) -> list[str]:
        """Every ladder's name, sorted."""
        ...

    def save_entry(self, ladder: str, entry: LadderEntry) -> None:
        """Add an entry to a ladder, or update it (paused, failures, note)."""
        ...

    def record_game(
        self,
        ladder: str,
        game: LadderGame,
        ratings: Mapping[str, Rating],
        entries: Sequence[LadderEntry],
    ) -> None:
        """Record one rated game: the game, its players' new ratings, their entries."""
        ...


class TournamentRepository(Protocol):
    """Where tournaments are kept."""

    def create(self, run: TournamentRun) -> None:
        """Store a new tournament: settings and entrants.

        Raises:
            TournamentRunError: if a tournament of that id exists.
        """
        ...

    def save(self, run: TournamentRun) -> None:
        """Store a tournament unless it is stored already (its games are recorded one by one)."""
        ...

    def get(self, tid: str) -> TournamentRun | None:
        """The tournament ``tid``, its bracket rebuilt from its games."""
        ...

    def list_all(self) -> list[tuple[str, str]]:
        """Every tournament as ``(id, name)``, oldest first."""
        ...

    def record_game(self, tid: str, game: TournamentGame) -> TournamentGame:
        """Record one played game of a match, once; the game as recorded.

        A game of the match's ``number`` recorded already stays: it is returned.
        """
        ...


class ArenaStore(Protocol):
    """Everything the arena stores: games, ladders, tournaments."""

    @property
    def games(self) -> GameSink:
        """Played games."""
        ...

    @property
    def ladders(self) -> LadderRepository:
        """Ladders."""
        ...

    @property
    def tournaments(self) -> TournamentRepository:
        """Tournaments."""
        ...
