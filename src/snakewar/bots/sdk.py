"""The old home of the snake SDK, now :mod:`snakewar.games.battlesnake.bots.sdk`.

Importing it still works for one release, with a :class:`DeprecationWarning`.
"""

from snakewar._lazy import warn_moved
from snakewar.games.battlesnake.bots.sdk import *  # noqa: F403
from snakewar.games.battlesnake.bots.sdk import __all__  # noqa: F401

warn_moved("snakewar.bots.sdk", "snakewar.games.battlesnake.bots.sdk")
