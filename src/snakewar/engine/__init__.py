"""The game-agnostic core: the game protocol and seeded random sources.

Nothing here does I/O, reads a clock or touches global randomness.
"""

from snakewar.engine.rng import (
    MAX_RAND,
    MIN_RAND,
    GoRand,
    MaxRand,
    MinRand,
    Rand,
    go_int,
    wrap_int64,
)

__all__ = [
    "MAX_RAND",
    "MIN_RAND",
    "GoRand",
    "MaxRand",
    "MinRand",
    "Rand",
    "go_int",
    "wrap_int64",
]
