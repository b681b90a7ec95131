"""The old home of Battlesnake's environments (RL): :mod:`snakewar.games.battlesnake.rl`.

Importing it, or one of its modules (``snakewar.rl.x`` is the module
``snakewar.games.battlesnake.rl.x``), still works for one release, with a
:class:`DeprecationWarning`.
"""

from snakewar._lazy import alias_submodules, warn_moved
from snakewar.games.battlesnake.rl import *  # noqa: F403
from snakewar.games.battlesnake.rl import __all__  # noqa: F401

alias_submodules("snakewar.rl", "snakewar.games.battlesnake.rl")

warn_moved("snakewar.rl", "snakewar.games.battlesnake.rl")
