"""Deprecated: moved to (re-exports) :mod:`snakewar.games.halite3.referee.runner`.

Kept for one release; importing it warns.
"""

from snakewar._lazy import warn_moved
from snakewar.games.halite3.referee.runner import *  # noqa: F403
from snakewar.games.halite3.referee.runner import __all__ as __all__

warn_moved("snakewar.referee.halite", "snakewar.games.halite3.referee.runner")
