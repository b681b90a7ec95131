"""Deprecated: moved to (re-exports) :mod:`snakewar.games.halite3.replay.hlt`.

Kept for one release; importing it warns.
"""

import warnings

from snakewar.games.halite3.replay.hlt import *  # noqa: F403
from snakewar.games.halite3.replay.hlt import __all__ as __all__

warnings.warn(
    "snakewar.replay.hlt moved to snakewar.games.halite3.replay.hlt",
    DeprecationWarning,
    stacklevel=2,
)
