"""The game-agnostic core: seeded random sources and the game registry.

Nothing here does I/O, reads a clock or touches global randomness.
"""

from snakewar.engine.registry import GameSpec, get_game, list_games, register_game
from snakewar.engine.rng import MAX_RAND, MIN_RAND, GoRand, MaxRand, MinRand, Rand, wrap_int64

__all__ = [
    "MAX_RAND",
    "MIN_RAND",
    "GameSpec",
    "GoRand",
    "MaxRand",
    "MinRand",
    "Rand",
    "get_game",
    "list_games",
    "register_game",
    "wrap_int64",
]
