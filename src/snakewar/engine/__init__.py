"""The game-agnostic core: the game protocol (:mod:`snakewar.engine.protocol`).

Nothing here does I/O, reads a clock or touches global randomness.  Each game's own
random sources live in its package (Go's, for Battlesnake, in
:mod:`snakewar.games.battlesnake.rng`); their names are still importable from here,
with a deprecation warning, for one release.
"""

from __future__ import annotations

import importlib
from typing import Any

from snakewar._lazy import warn_moved

_MOVED_HOME = "snakewar.games.battlesnake.rng"
_MOVED = frozenset(
    {"MAX_RAND", "MIN_RAND", "GoRand", "MaxRand", "MinRand", "Rand", "go_int", "wrap_int64"}
)
"""Names this package exported before Go's random source moved into its game."""


def __getattr__(name: str) -> Any:
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warn_moved(f"{__name__}.{name}", f"{_MOVED_HOME}.{name}")
    return getattr(importlib.import_module(_MOVED_HOME), name)
