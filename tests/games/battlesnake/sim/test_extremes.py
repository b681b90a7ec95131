"""Issue 28 on the simulator: int64 extremes on every backend, and the states it refuses.

Each case is a hand-made state played by the rules engine (exact to Go at these
extremes, see tests/games/battlesnake/rules/test_int64_extremes.py) and by the backend; the JAX
backend (int32 on the device) must play the same game or refuse the state by name.
"""

from __future__ import annotations

import pytest

from snakewar.errors import InvalidStateError
from snakewar.games.battlesnake import Settings, named_ruleset
from snakewar.games.battlesnake.rules.rng import INT64_MAX, INT64_MIN
from snakewar.games.battlesnake.rules.types import BoardState, Point, Snake
from snakewar.games.battlesnake.sim import MOVE_NAMES, sim_from_states
from snakewar.games.battlesnake.sim.core import jax_available
from tests.games.battlesnake.sim.conftest import require_jax, require_numba

BACKENDS = ["numpy", "numba", "jax"]
DAMAGES = [
    INT64_MIN,
    INT64_MIN + 1,
    INT64_MIN + 50,
    -(2**62) - 1,
    -(2**31),
    -14,
    0,
    14,
    2**31,
    2**62 + 1,
    INT64_MAX - 60,
    INT64_MAX,
]
HEALTHS = [-(2**29), -5, 0, 1, 2, 50, 101, 2**29]


def _need(backend: str) -> None:
    if backend == "numba":
        require_numba()
    elif backend == "jax":
        require_jax()


def _randomness(backend: str) -> str:
    return "fast" if backend == "jax" else "go"


def _hazard_state(health: int) -> BoardState:
    return BoardState(
        5,
        7,
        7,
        (
            Snake("a", (Point(3, 3), Point(3, 2), Point(3, 1)), health),
            Snake("b", (Point(0, 0), Point(1, 0)), 50),
        ),
        (),
        (Point(3, 4), Point(3, 4)),
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_extreme_damage_and_health_play_the_rules_engine_game(backend: str) -> None:
    _need(backend)
    states = [_hazard_state(h) for h in HEALTHS]
    for damage in DAMAGES:
        settings = Settings({"damagePerTurn": str(damage), "foodSpawnChance": "0"}, seed=1)
        ruleset = named_ruleset("standard", settings)
        sim = sim_from_states(
            states,
            "standard",
            "empty",
            settings,
            randomness=_randomness(backend),
            backend=backend,
        )
        sim.step([[MOVE_NAMES.index("up"), MOVE_NAMES.index("up")]] * len(states))
        for state, got in zip(states, sim.to_states(), strict=True):
            _, want = ruleset.execute(state, {"a": "up", "b": "up"})
            a, w = got.snake("a"), want.snake("a")
            where = f"damage {damage}, health {state.snakes[0].health}"
            assert (a.health, a.eliminated_cause) == (w.health, w.eliminated_cause), where


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_health_and_turn_at_the_int64_limits(backend: str) -> None:
    _need(backend)
    state = BoardState(
        INT64_MAX,
        7,
        7,
        (
            Snake("a", (Point(3, 3), Point(3, 2)), INT64_MIN),
            Snake("b", (Point(5, 5), Point(5, 4)), 1),
        ),
    )
    sim = sim_from_states([state], "standard", "empty", Settings(seed=2), backend=backend)
    sim.step([[0, 0]])
    _, want = named_ruleset("standard", Settings(seed=2)).execute(state, {"a": "up", "b": "up"})
    got = sim.to_states()[0]
    assert got.snakes == want.snakes  # a wraps to 2**63 - 1; b starves on turn -2**63
    assert got.snake("a").health == INT64_MAX
    assert got.snake("b").eliminated_on_turn == INT64_MIN
    assert got.turn == INT64_MIN


@pytest.mark.skipif(not jax_available(), reason="jax is not installed")
def test_jax_refuses_what_int32_cannot_hold() -> None:
    big = BoardState(5, 7, 7, (Snake("a", (Point(3, 3),), 2**29 + 1),))
    with pytest.raises(InvalidStateError, match=r"'a': health 536870913 .* jax backend's range"):
        sim_from_states([big], "solo", "empty", randomness="fast", backend="jax")
    late = BoardState(INT64_MAX, 7, 7, (Snake("a", (Point(3, 3),), 50),))
    with pytest.raises(InvalidStateError, match=r"turn 9223372036854775807 .* jax backend"):
        sim_from_states([late], "solo", "empty", randomness="fast", backend="jax")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_hazard_one_square_off_the_board_is_kept(backend: str) -> None:
    _need(backend)
    # The head goes onto the off-board hazard: Go damages it (hazard) before the wall.
    state = BoardState(
        3,
        5,
        5,
        (Snake("a", (Point(4, 2), Point(3, 2)), 10), Snake("b", (Point(0, 0), Point(0, 1)), 50)),
        (),
        (Point(5, 2), Point(-1, 4), Point(2, 2)),
    )
    settings = Settings({"damagePerTurn": "20", "foodSpawnChance": "0"}, seed=1)
    sim = sim_from_states(
        [state], "standard", "empty", settings, randomness=_randomness(backend), backend=backend
    )
    assert sorted(sim.to_states()[0].hazards) == sorted(state.hazards)
    sim.step([[MOVE_NAMES.index("right"), MOVE_NAMES.index("right")]])
    _, want = named_ruleset("standard", settings).execute(state, {"a": "right", "b": "right"})
    got = sim.to_states()[0]
    assert got.snakes == want.snakes
    assert got.snake("a").eliminated_cause == "hazard"
    assert sorted(got.hazards) == sorted(want.hazards)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_alive_head_off_the_board_is_refused(backend: str) -> None:
    _need(backend)
    state = BoardState(3, 5, 5, (Snake("a", (Point(5, 2), Point(4, 2)), 50),))
    with pytest.raises(InvalidStateError, match=r"'a' is alive with its head \(5, 2\) off the"):
        sim_from_states([state], "solo", "empty", randomness="fast", backend=backend)
    with pytest.raises(InvalidStateError, match=r"\(7, 2\) is more than one square off"):
        sim_from_states(
            [BoardState(3, 5, 5, (Snake("a", (Point(2, 2),), 50),), (), (Point(7, 2),))],
            "solo",
            "empty",
            randomness="fast",
            backend=backend,
        )
    # An eliminated snake off the board stays where it is: it loads and plays.
    dead = Snake("b", (Point(5, 2), Point(4, 2)), 0, "wall-collision", "", 2)
    alive = Snake("a", (Point(1, 1), Point(1, 0)), 50)
    sim = sim_from_states(
        [BoardState(3, 5, 5, (alive, dead))], "solo", "empty", randomness="fast", backend=backend
    )
    sim.step([[0, 0]])
    assert sim.to_states()[0].snake("b").body == dead.body


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("ruleset", ["standard", "royale"])
def test_royale_map_keeps_hazards_until_the_first_shrink(backend: str, ruleset: str) -> None:
    _need(backend)
    state = BoardState(
        1,
        7,
        7,
        (Snake("a", (Point(1, 1), Point(1, 0)), 90), Snake("b", (Point(5, 5), Point(5, 4)), 90)),
        (),
        (Point(3, 3), Point(3, 3)),
    )
    settings = Settings({"shrinkEveryNTurns": "4", "damagePerTurn": "5"}, seed=3)
    sim = sim_from_states(
        [state], ruleset, "royale", settings, randomness=_randomness(backend), backend=backend
    )
    sim.step([[0, 2]])  # turn 2: before the first shrink
    hazards = sim.to_states()[0].hazards
    if ruleset == "royale":
        assert hazards == ()  # the ruleset's stage replaces them every turn
    else:
        assert hazards == (Point(3, 3), Point(3, 3))  # as Go's royale map: kept
    sim.step([[0, 2]])
    sim.step([[0, 2]])  # turn 4: the zone replaces them
    after = sim.to_states()[0].hazards
    assert after and Point(3, 3) not in after
