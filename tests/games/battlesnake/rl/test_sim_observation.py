"""The batched encoder against the per-game one: every game, every snake, every ruleset."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from snakewar.games.battlesnake import BoardState, Point, Snake
from snakewar.games.battlesnake.rl import (
    EnvConfigError,
    ObservationSpec,
    encode_observation,
    encode_sim,
    encode_sim_all,
)
from snakewar.games.battlesnake.rl.observation import is_wrapped_ruleset
from snakewar.games.battlesnake.sim import BatchSim, make_sim, sim_from_states


def specs(width: int, height: int, wrapped: bool) -> list[ObservationSpec]:
    """The framings: the board itself, padded, centred (whole board, and a local view)."""
    return [
        ObservationSpec(width, height, wrapped),
        ObservationSpec(width, height, wrapped, grid_width=width + 2, grid_height=height + 1),
        ObservationSpec(width, height, wrapped, center=True),
        ObservationSpec(width, height, wrapped, center=True, grid_width=5, grid_height=6),
    ]


def assert_same_as_per_game(sim: BatchSim, spec: ObservationSpec) -> None:
    """Every snake's batched planes are the per-game encoder's, bit for bit."""
    batched = encode_sim_all(sim, spec)
    assert batched.dtype == np.float32
    assert batched.shape == (sim.batch, sim.num_snakes, *spec.shape)
    for g, state in enumerate(sim.to_states()):
        for i, sid in enumerate(sim.ids):
            expected = encode_observation(state, sid, spec)
            if not np.array_equal(batched[g, i], expected):
                plane, y, x = np.argwhere(batched[g, i] != expected)[0]
                raise AssertionError(
                    f"game {g}, snake {sid}, turn {state.turn}, {spec}: plane {plane} at "
                    f"(y={y}, x={x}) is {batched[g, i, plane, y, x]}, expected "
                    f"{expected[plane, y, x]}"
                )


@dataclass(frozen=True)
class Case:
    ruleset: str
    map: str
    randomness: str
    snakes: int = 4
    width: int = 11
    height: int = 11
    auto_reset: bool = True
    games: int = 8

    def __str__(self) -> str:
        size = f"{self.width}x{self.height}"
        reset = "auto" if self.auto_reset else "restart"
        return f"{self.ruleset}-{self.map}-{self.randomness}-{self.snakes}s-{size}-{reset}"


CASES = [
    Case("standard", "standard", "go"),
    Case("standard", "standard", "fast"),
    Case("standard", "standard", "fast", snakes=8, width=9, height=7, games=4),
    Case("wrapped", "empty", "go", snakes=3),
    Case("wrapped", "standard", "fast", width=7, height=7),
    Case("royale", "royale", "go", width=7, height=7),
    Case("royale", "standard", "fast", width=7, height=7),
    Case("standard", "royale", "go", snakes=2, width=7, height=7, auto_reset=False),
    Case("constrictor", "standard", "go", width=7, height=7),
    Case("constrictor", "standard", "fast", snakes=2, width=7, height=7, auto_reset=False),
    Case("wrapped_constrictor", "empty", "fast", snakes=2, width=7, height=7),
    Case("wrapped_constrictor", "empty", "go", snakes=3, width=7, height=7, auto_reset=False),
    Case("solo", "standard", "fast", snakes=1, width=7, height=7),
]


@pytest.mark.parametrize("case", CASES, ids=str)
@pytest.mark.slow
def test_batched_planes_equal_the_per_game_encoder_over_random_games(case: Case) -> None:
    sim = make_sim(
        case.games,
        case.width,
        case.height,
        case.snakes,
        case.ruleset,
        case.map,
        seeds=range(100, 100 + case.games),
        randomness=case.randomness,
        auto_reset=case.auto_reset,
    )
    frames = specs(case.width, case.height, is_wrapped_ruleset(case.ruleset))
    rng = np.random.default_rng(7)
    seen_dead = seen_reset = seen_hazard = False
    for step in range(50):
        # Every framing now and then; the plain one on every step.
        for spec in frames if step % 5 == 0 else frames[:1]:
            assert_same_as_per_game(sim, spec)
        seen_dead |= bool((sim.cause != 0).any())
        seen_hazard |= bool((sim.hazards > 0).any())
        # Reckless moves: snakes die in every way, games end and restart.
        result = sim.step(sim.random_safe_actions(rng, reckless=0.1))
        if case.auto_reset and result.done.any():
            seen_reset = True
            # Games that restarted on this very step.
            assert_same_as_per_game(sim, frames[2])
        over = np.flatnonzero(sim.over)
        if over.size:
            # Finished games, as the vector env reads them before it restarts them.
            assert_same_as_per_game(sim, frames[2])
            seen_dead = True
            sim.restart(over.tolist())
            seen_reset = True
    # Games of one or two snakes end on the first death: with auto-reset its
    # eliminated snake is never seen.
    assert seen_reset and (seen_dead or (case.auto_reset and case.snakes <= 2))
    assert seen_hazard == sim.royale


def test_loaded_states_edge_cases() -> None:
    """States only a loader makes: segments off the board, shared squares, stacks."""
    p = Point
    states = [
        # An alive snake with a segment off the board; stacked hazards; a long snake.
        BoardState(
            3,
            5,
            5,
            (
                Snake("a", (p(0, 1), p(0, 0), p(-1, 0)), 50),
                # Health out of 0..100 (the planes clip the other snakes' only).
                Snake("b", (p(3, 3), p(3, 2), p(3, 1), p(2, 1), p(2, 2)), 130),
                Snake("c", (p(4, 4), p(4, 4), p(4, 4)), -3),
            ),
            (p(2, 0), p(5, 5)),
            (p(1, 1), p(1, 1), p(1, 1), p(4, 0)),
        ),
        # Two alive heads on one square; the viewer eliminated but its length counts.
        BoardState(
            9,
            5,
            5,
            (
                Snake("a", (p(1, 1), p(1, 2)), 20, "head-collision", "b", 9),
                Snake("b", (p(2, 2), p(2, 3), p(2, 4)), 60),
                Snake("c", (p(2, 2), p(1, 2), p(0, 2)), 0),
            ),
            (),
            (),
        ),
        # A head off the board, eliminated by the wall (the simulator refuses such a head
        # alive: its next move would leave the padded grid).
        BoardState(
            1,
            5,
            5,
            (
                Snake("a", (p(-1, 4), p(0, 4), p(0, 3)), 99, "wall-collision", "", 1),
                Snake("b", (p(4, 0), p(4, 1), p(4, 1)), 100),
                Snake("c", (p(2, 2),), 1),
            ),
            (p(3, 3),),
            (),
        ),
    ]
    for wrapped in (False, True):
        sim = sim_from_states(states, "wrapped" if wrapped else "standard", "empty")
        for spec in specs(5, 5, wrapped):
            assert_same_as_per_game(sim, spec)


def test_one_snake_or_some_games() -> None:
    sim = make_sim(6, 7, 7, 3, seeds=range(6))
    rng = np.random.default_rng(1)
    for _ in range(15):
        sim.step(sim.random_safe_actions(rng))
    spec = ObservationSpec(7, 7, center=True)
    every = encode_sim_all(sim, spec)
    for i in range(3):
        assert np.array_equal(encode_sim(sim, spec, i), every[:, i])
    assert np.array_equal(encode_sim(sim, spec, 1, [4, 0, 4]), every[[4, 0, 4], 1])
    assert encode_sim(sim, spec, 0, []).shape == (0, *spec.shape)


def test_bad_arguments_are_clear_errors() -> None:
    sim = make_sim(2, 7, 7, 2)
    with pytest.raises(EnvConfigError, match="board size 7x7: expected the spec's 11x11"):
        encode_sim(sim, ObservationSpec(11, 11))
    with pytest.raises(EnvConfigError, match=r"snake 2: expected an index in 0\.\.1"):
        encode_sim(sim, ObservationSpec(7, 7), 2)
    with pytest.raises(EnvConfigError, match=r"expected slots in 0\.\.1"):
        encode_sim(sim, ObservationSpec(7, 7), 0, [2])
