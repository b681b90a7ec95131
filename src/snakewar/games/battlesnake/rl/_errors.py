"""The exceptions of :mod:`snakewar.games.battlesnake.rl` (importable without the ``rl`` extra)."""

from __future__ import annotations

from snakewar.errors import MissingExtraError, SnakewarError

__all__ = ["EnvConfigError", "EnvStepError", "MissingExtraError"]


class EnvConfigError(SnakewarError, ValueError):
    """Raised for an environment option or observation setting that cannot be used."""


class EnvStepError(SnakewarError, ValueError):
    """Raised for a step an environment cannot take (a bad action, a finished episode)."""
