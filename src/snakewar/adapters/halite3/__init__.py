"""Halite III's adapter under its old path: :mod:`snakewar.games.halite3.adapter`.

Kept without a warning: an install made before the move names
``snakewar.adapters.halite3:GAME`` in its entry-point metadata until it is reinstalled.
"""

from snakewar.games.halite3.adapter import *  # noqa: F403
from snakewar.games.halite3.adapter import __all__ as __all__
