"""The old home of Battlesnake's environments (RL): :mod:`snakewar.games.battlesnake.rl`.

Importing it, or one of its modules (``snakewar.rl.x`` is the module
``snakewar.games.battlesnake.rl.x``), still works for one release, with a
:class:`DeprecationWarning`.
"""

import warnings

from snakewar._lazy import alias_submodules
from snakewar.games.battlesnake.rl import *  # noqa: F403
from snakewar.games.battlesnake.rl import __all__  # noqa: F401

alias_submodules("snakewar.rl", "snakewar.games.battlesnake.rl")

warnings.warn(
    "snakewar.rl moved to snakewar.games.battlesnake.rl", DeprecationWarning, stacklevel=2
)
