"""Halite III's secondary statistics: the engine's own statistics of each player."""

from __future__ import annotations

from snakewar.adapters import get_game
from snakewar.games.halite3 import HaliteGame
from snakewar.games.halite3.adapter import STATS, player_stats
from snakewar.games.halite3.bots import HALITE_BOTS
from tests.games.halite3.inprocess import play_out


def test_halite_collected_ships_and_efficiency_are_the_engines_statistics() -> None:
    game = HaliteGame.create(7, 2, width=32, height=32)
    play_out(game, [HALITE_BOTS["greedy"](), HALITE_BOTS["greedy"]()])
    result = game.result()
    for statistics in result.statistics:
        stats = player_stats(statistics)
        assert stats["halite"] == statistics["total_mined"] > 0
        assert stats["ships"] == statistics["ships_spawned"] > 0
        assert stats["efficiency"] == round(statistics["mining_efficiency"], 4)
    assert get_game("halite3").catalogue().stats == STATS
    assert [s.key for s in STATS] == ["halite", "ships", "efficiency"]
