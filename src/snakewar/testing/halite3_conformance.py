"""Deprecated: moved to (re-exports) :mod:`snakewar.games.halite3.testing.conformance`.

Kept for one release; importing it warns.
"""

from snakewar._lazy import warn_moved
from snakewar.games.halite3.testing.conformance import *  # noqa: F403
from snakewar.games.halite3.testing.conformance import __all__ as __all__

warn_moved("snakewar.testing.halite3_conformance", "snakewar.games.halite3.testing.conformance")
