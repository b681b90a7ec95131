"""The game-agnostic core: the game protocol (:mod:`snakewar.engine.protocol`).

Nothing here does I/O, reads a clock or touches global randomness.  Each game's own
random sources live in its package; the names this package exported before they moved
there still work for one release, with a :class:`DeprecationWarning`
(:mod:`snakewar._moved`).
"""

from __future__ import annotations

from typing import Any

from snakewar._moved import moved_attribute


def __getattr__(name: str) -> Any:
    return moved_attribute(__name__, name)
