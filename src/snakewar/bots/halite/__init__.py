"""Deprecated: moved to (re-exports) :mod:`snakewar.games.halite3.bots`.

Kept for one release; importing it warns.
"""

from snakewar._lazy import warn_moved
from snakewar.games.halite3.bots import *  # noqa: F403
from snakewar.games.halite3.bots import __all__ as __all__

warn_moved("snakewar.bots.halite", "snakewar.games.halite3.bots")
