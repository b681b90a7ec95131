"""The old home of :mod:`snakewar.games.battlesnake.testing.conformance`.

Importing it, or running it with ``python -m``, still works for one release, with a
:class:`DeprecationWarning`.
"""

import warnings

from snakewar.games.battlesnake.testing.conformance import *  # noqa: F403
from snakewar.games.battlesnake.testing.conformance import __all__, main  # noqa: F401

warnings.warn(
    "snakewar.testing.battlesnake_conformance moved to"
    " snakewar.games.battlesnake.testing.conformance",
    DeprecationWarning,
    stacklevel=2,
)

if __name__ == "__main__":
    raise SystemExit(main())
