"""Built-in bots and the snake SDK.

Every built-in bot is a :class:`~snakewar.games.battlesnake.bots.base.Bot`: it plays in-process
(``builtin:NAME`` in ``snakewar play``) or as an API v1 server
(``snakewar bot serve NAME``).  Options go after a ``?``, as in
``builtin:hunter?budget=100``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import parse_qsl

from snakewar.errors import UnknownBotError, choices_text
from snakewar.games.battlesnake.bots._board import BotOptionError
from snakewar.games.battlesnake.bots.base import Bot, SnakeMetadata, request_rng
from snakewar.games.battlesnake.bots.random_safe import RandomSafeBot, random_safe_moves, safe_moves

__all__ = [
    "Bot",
    "BotOptionError",
    "RandomSafeBot",
    "SnakeMetadata",
    "UnknownBotError",
    "bot_descriptions",
    "bot_names",
    "make_bot",
    "random_safe_moves",
    "register_bot",
    "request_rng",
    "safe_moves",
]

BotFactory = Callable[..., Bot]


_BOTS: dict[str, BotFactory] = {}


def register_bot(name: str, factory: BotFactory) -> None:
    """Register a built-in bot under ``name`` (``factory(**options)`` builds one)."""
    _BOTS[name] = factory


def bot_names() -> list[str]:
    """The built-in bots' names, sorted."""
    _load()
    return sorted(_BOTS)


def bot_descriptions() -> dict[str, str]:
    """Each built-in bot's one-line description (its class docstring's first line)."""
    _load()
    return {
        name: (factory.__doc__ or "").strip().partition("\n")[0]
        for name, factory in sorted(_BOTS.items())
    }


_INTEGER = re.compile(r"-?[0-9]{1,18}\Z")


def make_bot(spec: str) -> Bot:
    """Build a built-in bot from ``NAME`` or ``NAME?key=value&...``.

    Option values are passed as integers when they look like one.

    Raises:
        UnknownBotError: for an unknown name or an option the bot does not take.
    """
    _load()
    name, _, query = spec.removeprefix("builtin:").partition("?")
    factory = _BOTS.get(name)
    if factory is None:
        raise UnknownBotError(
            f"unknown built-in bot {name!r} (expected one of {choices_text(sorted(_BOTS))})"
        )
    options: dict[str, int | str] = {}
    for key, value in parse_qsl(query, keep_blank_values=True):
        # ASCII digits only: str.isdigit() also takes "²", which int() refuses.
        options[key] = int(value) if _INTEGER.match(value) else value
    try:
        return factory(**options)
    except TypeError as exc:
        raise UnknownBotError(f"built-in bot {name!r}: bad options {query!r} ({exc})") from None
    except ValueError as exc:
        raise UnknownBotError(f"built-in bot {name!r}: {exc}") from None


_LOADED: list[bool] = []


def _load() -> None:
    # A flag, not "is _BOTS empty": a plug-in may register a bot before the first lookup.
    if _LOADED:
        return
    _LOADED.append(True)
    # Imported here, not at the top: the search bots are larger modules, and
    # `import snakewar.games.battlesnake.bots` (the SDK, the referee) should stay cheap.
    from snakewar.games.battlesnake.bots.greedy import GreedyBot
    from snakewar.games.battlesnake.bots.hunter import HunterBot

    for name, factory in (("random", RandomSafeBot), ("greedy", GreedyBot), ("hunter", HunterBot)):
        _BOTS.setdefault(name, factory)
