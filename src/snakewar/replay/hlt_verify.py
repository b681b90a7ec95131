"""Deprecated: moved to (re-exports) :mod:`snakewar.games.halite3.replay.verify`.

Kept for one release; importing it warns.
"""

import warnings

from snakewar.games.halite3.replay.verify import *  # noqa: F403
from snakewar.games.halite3.replay.verify import __all__ as __all__

warnings.warn(
    "snakewar.replay.hlt_verify moved to snakewar.games.halite3.replay.verify",
    DeprecationWarning,
    stacklevel=2,
)
