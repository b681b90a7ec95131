"""Deprecated: moved to (re-exports) :mod:`snakewar.games.halite3.referee.runner`.

Kept for one release; importing it warns.
"""

import warnings

from snakewar.games.halite3.referee.runner import *  # noqa: F403
from snakewar.games.halite3.referee.runner import __all__ as __all__

warnings.warn(
    "snakewar.referee.halite moved to snakewar.games.halite3.referee.runner",
    DeprecationWarning,
    stacklevel=2,
)
