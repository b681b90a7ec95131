"""Registers the runaway test bots: imported by bot workers only (see ``runaway_bots``)."""

from __future__ import annotations

from snakewar.games.battlesnake.bots import register_bot
from snakewar.games.halite3.bots import HALITE_BOTS
from tests.referee.runaway_bots import HALITE_SPIN, SNAKE_BOTS, HaliteSpinBot

for _name, _factory in SNAKE_BOTS.items():
    register_bot(_name, _factory)
HALITE_BOTS[HALITE_SPIN] = HaliteSpinBot
