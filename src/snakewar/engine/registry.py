"""A registry of the games Snakewar hosts, with versioned ids.

A game registers a :class:`GameSpec` under ``name``; runners, replays and ratings
refer to games by ``id`` (``name-vN``), so that a rules change bumps the version and
old replays keep their meaning.
"""

from __future__ import annotations

from dataclasses import dataclass

from snakewar.errors import UnknownGameError, choices_text

__all__ = ["GameSpec", "get_game", "list_games", "register_game"]


@dataclass(frozen=True, slots=True)
class GameSpec:
    """What the game-agnostic layers need to know about a game."""

    name: str
    version: int
    title: str
    description: str
    simultaneous: bool = True
    """True when every player moves at once (Battlesnake); False for turn-based games."""

    @property
    def id(self) -> str:
        """The versioned id, e.g. ``battlesnake-v1``."""
        return f"{self.name}-v{self.version}"


_GAMES: dict[str, GameSpec] = {}


def register_game(spec: GameSpec) -> None:
    """Register ``spec`` under its name (re-registering the same spec is allowed).

    Raises:
        ValueError: if a different spec already uses the name.
    """
    existing = _GAMES.get(spec.name)
    if existing is not None and existing != spec:
        raise ValueError(f"game {spec.name!r} is already registered as {existing!r}")
    _GAMES[spec.name] = spec


def get_game(name: str) -> GameSpec:
    """Return the game registered as ``name`` (a plain name or a versioned id).

    Raises:
        UnknownGameError: naming ``name`` and listing the registered games.
    """
    spec = _GAMES.get(name)
    if spec is None:
        spec = next((s for s in _GAMES.values() if s.id == name), None)
    if spec is None:
        raise UnknownGameError(
            f"unknown game {name!r} (expected one of {choices_text(sorted(_GAMES))})"
        )
    return spec


def list_games() -> list[GameSpec]:
    """Every registered game, sorted by name."""
    return [_GAMES[k] for k in sorted(_GAMES)]
