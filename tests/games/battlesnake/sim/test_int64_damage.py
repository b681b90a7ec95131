"""The simulator's hazard damage wraps as Go's int64 does, like the rules engine's."""

from __future__ import annotations

import pytest

from snakewar.games.battlesnake import Settings, named_ruleset
from snakewar.games.battlesnake.rules.types import BoardState, Point, Snake
from snakewar.games.battlesnake.sim import MOVE_NAMES, sim_from_states


@pytest.mark.parametrize("damage", [-(2**63), -(2**63) + 1, -(2**62), 2**63 - 1, 14])
@pytest.mark.parametrize("health", [1, 50])
def test_extreme_damage_matches_the_rules_engine(damage: int, health: int, backend: str) -> None:
    state = BoardState(
        turn=5,
        width=7,
        height=7,
        snakes=(Snake("snake-1", (Point(3, 3), Point(3, 2), Point(3, 1)), health),),
        hazards=(Point(3, 4),),
    )
    settings = Settings({"damagePerTurn": str(damage)}, seed=1)
    _, expected = named_ruleset("solo", settings).execute(state, {"snake-1": "up"})
    sim = sim_from_states([state], "solo", "empty", settings, [1], backend=backend)
    sim.step([[MOVE_NAMES.index("up")]])
    (snake,) = sim.to_states()[0].snakes
    (want,) = expected.snakes
    assert (snake.health, snake.eliminated_cause) == (want.health, want.eliminated_cause)
