"""Deprecated: moved to (re-exports) :mod:`snakewar.games.halite3.replay.hlt`.

Kept for one release; importing it warns.
"""

from snakewar._lazy import warn_moved
from snakewar.games.halite3.replay.hlt import *  # noqa: F403
from snakewar.games.halite3.replay.hlt import __all__ as __all__

warn_moved("snakewar.replay.hlt", "snakewar.games.halite3.replay.hlt")
