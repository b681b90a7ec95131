"""Deprecated: moved to (re-exports) :mod:`snakewar.games.battlesnake.rng`.

Go's seeded random source is Battlesnake's: it lives in that game's package.
"""

from snakewar._lazy import warn_moved
from snakewar.games.battlesnake.rng import *  # noqa: F403
from snakewar.games.battlesnake.rng import __all__ as __all__

warn_moved("snakewar.engine.rng", "snakewar.games.battlesnake.rng")
