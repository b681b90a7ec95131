"""Deprecated: moved to (re-exports) :mod:`snakewar.games.halite3.replay.verify`.

Kept for one release; importing it warns.
"""

from snakewar._lazy import warn_moved
from snakewar.games.halite3.replay.verify import *  # noqa: F403
from snakewar.games.halite3.replay.verify import __all__ as __all__

warn_moved("snakewar.replay.hlt_verify", "snakewar.games.halite3.replay.verify")
