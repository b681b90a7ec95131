"""The registry of games: one :class:`~snakewar.engine.protocol.GameAdapter` per game.

Games are plug-ins.  Each one is found through the ``snakewar.games`` entry point
group (Snakewar's own games are declared in its ``pyproject.toml``; another package
adds a game by declaring one more entry point), so the game-agnostic layers (the
arena, storage, the server, the command line) name no game: they ask this module.

    >>> from snakewar.adapters import default_game, game_names, get_game
    >>> get_game(default_game().name) is default_game()
    True
    >>> default_game().name in game_names()
    True
"""

from __future__ import annotations

from importlib.metadata import entry_points

from snakewar.engine.protocol import GameAdapter
from snakewar.errors import GameLoadError, UnknownGameError, choices_text

__all__ = [
    "ENTRY_POINT_GROUP",
    "default_game",
    "default_program_game",
    "game_names",
    "games",
    "get_game",
    "register_game",
]

ENTRY_POINT_GROUP = "snakewar.games"
"""The entry point group that names each game's adapter (``module:ATTRIBUTE``)."""

_GAMES: dict[str, GameAdapter] = {}
_loaded = False


def register_game(adapter: GameAdapter) -> None:
    """Register ``adapter`` under its catalogue's name (again for the same object is fine).

    Raises:
        ValueError: if another adapter already uses the name.
    """
    name = adapter.name
    existing = _GAMES.get(name)
    if existing is not None and existing is not adapter:
        raise ValueError(f"game {name!r} is already registered as {existing!r}")
    _GAMES[name] = adapter


def _load() -> None:
    global _loaded
    if _loaded:
        return
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name):
        where = f"game plug-in {point.name!r} ({point.value})"
        try:
            adapter = point.load()
        except Exception as exc:  # whatever the plug-in's import raises
            raise GameLoadError(f"{where} cannot be loaded: {type(exc).__name__}: {exc}") from exc
        if not isinstance(adapter, GameAdapter):
            raise GameLoadError(f"{where} is not a GameAdapter")
        if adapter.name != point.name:
            raise GameLoadError(f"{where} loads the game {adapter.name!r}")
        try:
            register_game(adapter)
        except ValueError as exc:
            raise GameLoadError(f"{where}: {exc}") from exc
    # Only once every game loaded: a broken plug-in fails every call the same way.
    _loaded = True


def get_game(name: str) -> GameAdapter:
    """The game registered as ``name`` (its name or versioned id, such as ``name-v1``).

    Raises:
        UnknownGameError: naming ``name`` and listing the games.
    """
    _load()
    adapter = _GAMES.get(name) or next(
        (a for a in _GAMES.values() if a.catalogue().id == name), None
    )
    if adapter is None:
        raise UnknownGameError(f"unknown game {name!r}; expected one of {choices_text(_GAMES)}")
    return adapter


def games() -> list[GameAdapter]:
    """Every registered game, in the order of their names."""
    _load()
    return [_GAMES[name] for name in sorted(_GAMES)]


def game_names() -> list[str]:
    """Every registered game's name, sorted."""
    return [adapter.name for adapter in games()]


def default_game() -> GameAdapter:
    """The game a user gets without naming one (the one whose catalogue says so).

    Raises:
        UnknownGameError: if no game is registered.
    """
    registered = games()
    if not registered:
        raise UnknownGameError(f"no game is registered (entry point group {ENTRY_POINT_GROUP!r})")
    return next((a for a in registered if a.catalogue().is_default), registered[0])


def default_program_game() -> GameAdapter:
    """The game an uploaded or registered program bot plays when none is named.

    The default game if its bots can be programs, else the first game (by name) whose
    bots can (``Catalogue.programs``).

    Raises:
        UnknownGameError: if no registered game plays program bots.
    """
    first = default_game()
    if first.catalogue().programs:
        return first
    adapter = next((a for a in games() if a.catalogue().programs), None)
    if adapter is None:
        raise UnknownGameError("no registered game plays program bots")
    return adapter
