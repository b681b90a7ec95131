"""Deprecated: moved to (re-exports) :mod:`snakewar.games.halite3.bots`.

Kept for one release; importing it warns.
"""

import warnings

from snakewar.games.halite3.bots import *  # noqa: F403
from snakewar.games.halite3.bots import __all__ as __all__

warnings.warn(
    "snakewar.bots.halite moved to snakewar.games.halite3.bots",
    DeprecationWarning,
    stacklevel=2,
)
