"""Step mode's turn gate, as the server names it (it lives in :mod:`snakewar.arena.stepping`).

The gate is the arena's: a game played on a Ray worker (:mod:`snakewar.arena.remote`)
holds its own gate there, which the arena layer may not import from the server.
"""

from __future__ import annotations

from snakewar.arena.stepping import (
    DEFAULT_MAX_PAUSE_S,
    NotPausedError,
    PauseExpiredError,
    TurnGate,
)

__all__ = ["DEFAULT_MAX_PAUSE_S", "NotPausedError", "PauseExpiredError", "TurnGate"]
