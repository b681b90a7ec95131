"""The old home of Battlesnake's tester: :mod:`snakewar.games.battlesnake.tester`.

Importing it, or one of its modules (``snakewar.checkup.x`` is the module
``snakewar.games.battlesnake.tester.x``), still works for one release, with a
:class:`DeprecationWarning`.
"""

from snakewar._lazy import alias_submodules, warn_moved
from snakewar.games.battlesnake.tester import *  # noqa: F403
from snakewar.games.battlesnake.tester import __all__  # noqa: F401

alias_submodules("snakewar.checkup", "snakewar.games.battlesnake.tester")

warn_moved("snakewar.checkup", "snakewar.games.battlesnake.tester")
