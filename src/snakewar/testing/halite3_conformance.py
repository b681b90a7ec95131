"""Deprecated: moved to (re-exports) :mod:`snakewar.games.halite3.testing.conformance`.

Kept for one release; importing it warns.
"""

import warnings

from snakewar.games.halite3.testing.conformance import *  # noqa: F403
from snakewar.games.halite3.testing.conformance import __all__ as __all__

warnings.warn(
    "snakewar.testing.halite3_conformance moved to snakewar.games.halite3.testing.conformance",
    DeprecationWarning,
    stacklevel=2,
)
