"""The old home of Battlesnake's simulator: :mod:`snakewar.games.battlesnake.sim`.

Importing it, or one of its modules (``snakewar.sim.x`` is the module
``snakewar.games.battlesnake.sim.x``), still works for one release, with a
:class:`DeprecationWarning`.
"""

import warnings

from snakewar._lazy import alias_submodules
from snakewar.games.battlesnake.sim import *  # noqa: F403
from snakewar.games.battlesnake.sim import __all__  # noqa: F401

alias_submodules("snakewar.sim", "snakewar.games.battlesnake.sim")

warnings.warn(
    "snakewar.sim moved to snakewar.games.battlesnake.sim", DeprecationWarning, stacklevel=2
)
