"""The game a ladder or a tournament plays: a game of the registry and its parameters."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from snakewar.adapters import default_game, get_game
from snakewar.engine.protocol import Entrant, GameAdapter, MatchSpec
from snakewar.errors import ParamsError

__all__ = ["MatchConfig", "arena_game_id"]


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """Every game of a ladder or tournament: the game, its parameters and the limits.

    Build one with :meth:`create`, which checks everything against the game's
    catalogue; ``params`` are then complete (defaults filled in) and JSON-ready.

    Attributes:
        game: the registry key of the game.
        params: the game's parameters.
        game_size: entrants per game.
        timeout_ms: each entrant's time per turn (``None``: the game's default).
        max_turns: stop games after this many turns (``None``: the game's own end).
    """

    game: str
    params: Mapping[str, Any] = field(default_factory=dict)
    game_size: int = 2
    timeout_ms: int | None = None
    max_turns: int | None = None

    @classmethod
    def create(
        cls,
        game: str | None = None,
        params: Mapping[str, object] | None = None,
        *,
        game_size: int = 2,
        timeout_ms: int | None = None,
        max_turns: int | None = None,
    ) -> MatchConfig:
        """A checked config (``game`` ``None``: the default game).

        Raises:
            UnknownGameError: an unknown game.
            ParamsError: an unknown parameter, a bad value, or a game size, timeout
                or turn limit out of range, naming the field.
            SnakewarError: a game that cannot be set up with these parameters for
                ``game_size`` (as the game's adapter says).
        """
        adapter = get_game(game) if game is not None else default_game()
        counts = [n for n in adapter.catalogue().player_counts if n >= 2]
        if game_size not in counts:
            raise ParamsError(
                "game_size",
                f"game size {game_size}: a rated {adapter.name} game has "
                + ", ".join(str(n) for n in counts)
                + " entrants",
            )
        if timeout_ms is not None and timeout_ms < 1:
            raise ParamsError("timeout_ms", f"timeout {timeout_ms} ms: expected at least 1")
        if max_turns is not None and max_turns < 1:
            raise ParamsError("max_turns", f"turn limit {max_turns}: expected at least 1")
        config = cls(
            adapter.name,
            adapter.parse_params(params or {}),
            game_size,
            timeout_ms,
            max_turns,
        )
        config.check()
        return config

    @property
    def adapter(self) -> GameAdapter:
        """The game's adapter."""
        return get_game(self.game)

    def match_spec(self, entrants: Sequence[Entrant], source: str = "") -> MatchSpec:
        """The match between ``entrants`` (in seat order) with this config."""
        return MatchSpec(
            game=self.game,
            entrants=tuple(entrants),
            params=dict(self.params),
            timeout_ms=self.timeout_ms,
            max_turns=self.max_turns,
            source=source,
        )

    def check(self) -> None:
        """Fail now if a game of ``game_size`` entrants cannot be set up with this config.

        Raises:
            SnakewarError: as the game's adapter says (:meth:`GameAdapter.check`).
        """
        seats = [Entrant(f"seat-{i}", f"seat-{i}") for i in range(self.game_size)]
        self.adapter.check(self.match_spec(seats))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "game": self.game,
            "params": dict(self.params),
            "game_size": self.game_size,
            "timeout_ms": self.timeout_ms,
            "max_turns": self.max_turns,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchConfig:
        """Inverse of :meth:`to_dict` (checked again, as :meth:`create`)."""
        return cls.create(
            data["game"],
            data["params"],
            game_size=int(data["game_size"]),
            timeout_ms=data.get("timeout_ms"),
            max_turns=data.get("max_turns"),
        )


def arena_game_id(owner: str, number: str | int, seed: int) -> str:
    """A game id unique to its ladder or tournament: UUID-shaped, from ``owner``'s game.

    ``owner`` is ``ladder:NAME`` or ``tournament:ID``; two ladders with the same seed
    never share a game id.

    >>> arena_game_id("ladder:a", 0, 5) == arena_game_id("ladder:b", 0, 5)
    False
    """
    digest = hashlib.sha256(f"snakewar-arena:{owner}:{number}:{seed}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))
