"""The old home of :mod:`snakewar.games.battlesnake.testing.states`.

Importing it, or running it with ``python -m``, still works for one release, with a
:class:`DeprecationWarning`.
"""

from snakewar._lazy import warn_moved
from snakewar.games.battlesnake.testing.states import *  # noqa: F403
from snakewar.games.battlesnake.testing.states import __all__, main  # noqa: F401

warn_moved("snakewar.testing.battlesnake_states", "snakewar.games.battlesnake.testing.states")

if __name__ == "__main__":
    raise SystemExit(main())
