"""Battlesnake's secondary statistics (food eaten, final length, turns alive), checked
against what the board says independently: in the standard rules a snake's health is
back to its maximum on the turns it ate, and only then."""

from __future__ import annotations

import asyncio
import itertools
import statistics

import pytest

from snakewar.adapters import get_game
from snakewar.games.battlesnake.adapter import (
    LATENCY_STATS,
    STATS,
    match_spec,
    played_game,
    snake_stats,
)
from snakewar.games.battlesnake.referee.batch import SnakeMatch, play_match
from snakewar.games.battlesnake.rules.types import SNAKE_MAX_HEALTH

MATCH = SnakeMatch(snakes=("greedy", "random", "hunter"))


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_food_eaten_length_and_turns_alive_match_the_board(seed: int) -> None:
    record = asyncio.run(play_match(MATCH, seed))
    stats = snake_stats(record)
    states = [record.initial, *(turn.after for turn in record.turns)]
    final = record.final_state
    for entry in record.snakes:
        fed = 0
        for before, after in itertools.pairwise(states):
            was = before.snake(entry.id)
            now = after.snake(entry.id)
            if not was.eliminated_cause and now.health == SNAKE_MAX_HEALTH:
                fed += 1
        snake = final.snake(entry.id)
        assert stats[entry.id]["food"] == fed
        assert stats[entry.id]["length"] == len(snake.body)
        # Standard snakes start 3 long and grow one a food.
        assert len(snake.body) == 3 + fed
        lived = snake.eliminated_on_turn - 1 if snake.eliminated_cause else final.turn
        assert stats[entry.id]["turns_alive"] == lived
    assert any(s["food"] > 0 for s in stats.values()), "no snake ate: the check checked nothing"


def test_the_played_game_carries_them_and_the_catalogue_names_them() -> None:
    record = asyncio.run(play_match(MATCH, 5))
    played = played_game(record, spec=match_spec(MATCH))
    stats = snake_stats(record)
    # The scorers, and each snake's move calls in figures (not scorers: its latency).
    for result, entry in zip(played.results, record.snakes, strict=True):
        moves = [t.calls[entry.id] for t in record.turns if entry.id in t.calls]
        assert {k: v for k, v in result.stats.items() if k not in LATENCY_STATS} == stats[entry.id]
        assert result.stats["calls"] == len(moves) > 0
        assert result.stats["latency_p50_ms"] == statistics.median(c.latency_ms for c in moves)
    catalogue = get_game("battlesnake").catalogue()
    assert catalogue.stats == STATS
    assert [s["key"] for s in catalogue.to_dict()["stats"]] == ["food", "length", "turns_alive"]
