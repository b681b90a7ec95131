"""Test-only built-in bots that misbehave on purpose.

Bot workers register them by importing :data:`PLUGIN` (``BotPool(imports=[PLUGIN])``);
the test process registers them only while a test runs (the ``runaway_bots`` fixture),
so other tests still see the built-ins alone.
"""

from __future__ import annotations

from snakewar.games.battlesnake.bots.base import Bot
from snakewar.games.battlesnake.rules.wire import SnakeRequest
from snakewar.games.halite3.bots.kit import GameView, HaliteBot

PLUGIN = "tests.referee.runaway_plugin"
"""The module a worker imports to register these bots."""

SPIN_FROM_TURN = 2
"""The first turn on which the spinning bots never answer."""


class SpinBot(Bot):
    """``spin``: moves up, then from turn 2 on loops forever (a search with no clock)."""

    name = "spin"

    def move(self, request: SnakeRequest) -> str:
        """Up, or no answer at all."""
        spins = 0
        while request.turn >= SPIN_FROM_TURN:
            spins += 1  # pure Python, holding the GIL between switches, like a search
        return "up"


class CrashBot(Bot):
    """``crash``: raises on every move."""

    name = "crash"

    def move(self, request: SnakeRequest) -> str:
        """Fail."""
        raise RuntimeError(f"crashed on turn {request.turn}")


class HaliteSpinBot(HaliteBot):
    """A Halite bot that stays put, then from turn 2 never answers."""

    name = "spinner"

    def turn(self, view: GameView) -> list[str]:
        """No commands, or no answer at all."""
        spins = 0
        while view.turn >= SPIN_FROM_TURN:
            spins += 1
        return []


SNAKE_BOTS = {"spin": SpinBot, "crash": CrashBot}
"""The Battlesnake bots by name."""
HALITE_SPIN = "spin"
"""The Halite bot's name."""
