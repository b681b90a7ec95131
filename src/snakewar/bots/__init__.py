"""What bots of every game share: the worker host and serving an app.

The worker host is :mod:`snakewar.bots.host`, serving :mod:`snakewar.bots.serving`.  Each game's
built-in bots live in its own package; Battlesnake's, and the snake SDK, in
:mod:`snakewar.games.battlesnake.bots`.  Their names are still importable from here for one
release, with a :class:`DeprecationWarning`.
"""

from __future__ import annotations

from typing import Any

from snakewar._lazy import lazy_attribute, lazy_dir, warn_moved

_HOME = "snakewar.games.battlesnake.bots"

_MOVED: dict[str, str] = dict.fromkeys(
    (
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
    ),
    _HOME,
)
"""Battlesnake's names this package exported before they moved, and their new home."""


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        # Once per name: lazy_attribute keeps the value here, so this hook is not asked again.
        warn_moved(f"snakewar.bots.{name}", f"{_HOME}.{name}")
    return lazy_attribute(__name__, _MOVED, name)


def __dir__() -> list[str]:
    return lazy_dir(__name__, _MOVED)
