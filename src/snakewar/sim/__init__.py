"""The old home of Battlesnake's simulator: :mod:`snakewar.games.battlesnake.sim`.

Importing it, or one of its modules (``snakewar.sim.x`` is the module
``snakewar.games.battlesnake.sim.x``), still works for one release, with a
:class:`DeprecationWarning`.
"""

from snakewar._lazy import alias_submodules, warn_moved
from snakewar.games.battlesnake.sim import *  # noqa: F403
from snakewar.games.battlesnake.sim import __all__  # noqa: F401

alias_submodules("snakewar.sim", "snakewar.games.battlesnake.sim")

warn_moved("snakewar.sim", "snakewar.games.battlesnake.sim")
