"""The old home of the snake SDK, now :mod:`snakewar.games.battlesnake.bots.sdk`.

Importing it still works for one release, with a :class:`DeprecationWarning`.
"""

import warnings

from snakewar.games.battlesnake.bots.sdk import *  # noqa: F403
from snakewar.games.battlesnake.bots.sdk import __all__  # noqa: F401

warnings.warn(
    "snakewar.bots.sdk moved to snakewar.games.battlesnake.bots.sdk",
    DeprecationWarning,
    stacklevel=2,
)
