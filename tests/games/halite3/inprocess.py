"""Playing a Halite III game to its end with in-process built-in bots (test helper)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from snakewar.games.halite3 import HaliteGame
from snakewar.games.halite3.bots import HaliteBot, update_view_from_game, view_from_game


def play_out(game: HaliteGame, bots: Sequence[HaliteBot]) -> list[float]:
    """Set up ``bots`` (one per player) and play ``game`` to its end; each bot's think time."""
    views = [view_from_game(game, pid) for pid in range(len(bots))]
    for bot, view in zip(bots, views, strict=True):
        bot.setup(view)
    spent = [0.0] * len(bots)
    while not game.over:
        commands: dict[int, str | None] = {}
        for pid in game.live_players():
            update_view_from_game(views[pid], game)
            start = time.perf_counter()
            commands[pid] = " ".join(bots[pid].turn(views[pid]))
            spent[pid] += time.perf_counter() - start
        game.step(commands)
    return spent
