"""The simulator's API: fast randomness, auto-reset, conversions, masks, errors, bench."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from snakewar.errors import InvalidStateError, SnakewarError, UnknownMapError, UnknownRulesetError
from snakewar.games.battlesnake import Game, GameConfig, Settings
from snakewar.games.battlesnake.rules.board import create_default_board_state, get_unoccupied_points
from snakewar.games.battlesnake.rules.game import GameResult
from snakewar.games.battlesnake.rules.rulesets import named_ruleset
from snakewar.games.battlesnake.rules.types import BoardState
from snakewar.games.battlesnake.sim import (
    MOVE_NAMES,
    BatchSim,
    NumpyRand,
    make_sim,
    next_seed,
    sim_from_states,
)
from snakewar.games.battlesnake.sim.bench import measure


def _moves(sim: BatchSim, g: int, actions: np.ndarray, state: BoardState) -> dict[str, str]:
    return {
        sid: MOVE_NAMES[int(actions[g, i])]
        for i, sid in enumerate(sim.ids)
        if not state.snakes[i].eliminated_cause
    }


def _key(state: BoardState) -> tuple[object, ...]:
    return (tuple(s.body for s in state.snakes), state.food)


@pytest.mark.parametrize(("size", "snakes"), [(7, 2), (11, 2), (7, 5), (9, 1)])
def test_fast_setup_has_the_reference_outcomes(size: int, snakes: int) -> None:
    n = 3000
    sim = make_sim(n, size, size, snakes, randomness="fast", seeds=range(n))
    ours = Counter(_key(s) for s in sim.to_states())
    rand = NumpyRand(np.random.default_rng(5))
    theirs = Counter(
        _key(create_default_board_state(rand, size, size, sim.ids).freeze()) for _ in range(n)
    )
    assert set(ours) == set(theirs)
    # Same probabilities: every outcome is about equally likely in both.
    for key in ours:
        assert abs(ours[key] - theirs[key]) < 6 * np.sqrt(ours[key] + theirs[key]) + 5


@pytest.mark.parametrize("ruleset", ["standard", "wrapped_constrictor", "constrictor", "solo"])
def test_fast_randomness_follows_the_rules(ruleset: str) -> None:
    # Rules exactly as the engine; spawned food only on legal squares, in legal numbers.
    rng = np.random.default_rng(3)
    games, snakes = 24, 1 if ruleset == "solo" else 3
    settings = Settings.defaults(minimumFood=2, foodSpawnChance=30)
    sim = make_sim(
        games, 11, 11, snakes, ruleset, "standard", settings, randomness="fast", auto_reset=False
    )
    rules = named_ruleset(ruleset, settings, solo=snakes < 2)
    spawned = 0
    for _ in range(150):
        if sim.over.all():
            break
        before = sim.to_states()
        actions = sim.random_safe_actions(rng, reckless=0.03)
        sim.step(actions)
        after = sim.to_states()
        for g in range(games):
            if rules.execute(before[g], ())[0]:
                assert after[g] == before[g]
                continue
            over, mid = rules.execute(before[g], _moves(sim, g, actions, before[g]))
            assert not over
            assert after[g].snakes == mid.snakes and after[g].turn == mid.turn + 1
            assert after[g].food[: len(mid.food)] == mid.food
            new = after[g].food[len(mid.food) :]
            free = get_unoccupied_points(mid, False)
            assert set(new) <= set(free) and len(set(new)) == len(new)
            if len(mid.food) < 2:
                assert len(new) == min(2 - len(mid.food), len(free))
            else:
                assert len(new) <= 1
            spawned += len(new)
    assert spawned > 50


def test_fast_empty_map_matches_engine_exactly() -> None:
    rng = np.random.default_rng(9)
    sim = make_sim(16, 11, 11, 4, "wrapped", "empty", randomness="fast", auto_reset=False)
    refs = [Game(GameConfig("wrapped", "empty"), sim.ids, st) for st in sim.to_states()]
    for _ in range(200):
        actions = sim.random_safe_actions(rng, reckless=0.05)
        for g, game in enumerate(refs):
            if not game.is_over:
                game.step(_moves(sim, g, actions, game.state))
        sim.step(actions)
        assert sim.to_states() == [game.state for game in refs]
        assert sim.over.tolist() == [game.is_over for game in refs]


def test_auto_reset_starts_the_next_seed_and_reports_results() -> None:
    rng = np.random.default_rng(1)
    seeds = [11, 22, 33, 44]
    sim = make_sim(4, 7, 7, 2, seeds=seeds, keep_final_states=True)
    refs = [
        Game(GameConfig(width=7, height=7, settings=Settings.defaults(seed=s)), sim.ids)
        for s in seeds
    ]
    finished = 0
    for _ in range(400):
        actions = sim.random_safe_actions(rng, reckless=0.1)
        for g, game in enumerate(refs):
            game.step(_moves(sim, g, actions, game.state))
        result = sim.step(actions)
        for g, game in enumerate(refs):
            assert bool(result.done[g]) == game.is_over
            if not game.is_over:
                assert sim.to_states([g])[0] == game.state
                continue
            finished += 1
            assert result.final_states[g] == game.state
            expected = GameResult.from_state(game.state)
            winner = sim.ids[int(result.winner[g])] if result.winner[g] >= 0 else None
            assert winner == expected.winner
            assert result.turns[g] == game.state.turn
            if winner is None:
                assert (result.rewards[g] == 0).all()
            else:
                assert result.rewards[g].sum() == 1 - (sim.num_snakes - 1)
            new_seed = next_seed(game.config.seed)
            assert int(sim.seeds[g]) == new_seed and sim.episode[g] >= 1
            refs[g] = Game(
                GameConfig(width=7, height=7, settings=Settings.defaults(seed=new_seed)), sim.ids
            )
            assert sim.to_states([g])[0] == refs[g].state
    assert finished >= 8


def test_states_round_trip_and_reset() -> None:
    sim = make_sim(8, 11, 11, 4, seeds=range(8))
    rng = np.random.default_rng(0)
    for _ in range(30):
        sim.step(sim.random_safe_actions(rng))
    states = sim.to_states()
    again = sim_from_states(states, seeds=[int(s) for s in sim.seeds])
    assert again.to_states() == states
    a = sim.random_safe_actions(np.random.default_rng(4))
    sim.step(a)
    again.step(a)
    assert again.to_states() == sim.to_states()
    sim.reset(seeds=range(8))
    assert sim.to_states() == make_sim(8, 11, 11, 4, seeds=range(8)).to_states()
    assert (sim.episode == 0).all()


def test_safe_moves_never_hit_walls_or_bodies() -> None:
    rng = np.random.default_rng(2)
    sim = make_sim(64, 7, 7, 1, "solo", "empty", auto_reset=False, randomness="fast")
    mask_checked = 0
    while not sim.over.all():
        mask = sim.safe_action_mask()
        mask_checked += int(mask.any(axis=2).sum())
        sim.step(sim.random_safe_actions(rng))
    causes = {s.eliminated_cause for st in sim.to_states() for s in st.snakes}
    # A snake with a safe move took it; only a snake boxed in may hit its body.
    assert "wall-collision" not in causes
    assert causes <= {"out-of-health", "snake-self-collision"}
    assert "out-of-health" in causes and mask_checked > 1000


def test_errors() -> None:
    with pytest.raises(UnknownRulesetError):
        make_sim(1, ruleset="squad")
    with pytest.raises(UnknownMapError):
        make_sim(1, map="arcade_maze")
    with pytest.raises(InvalidStateError):
        make_sim(1, snakes=9)
    sim = make_sim(2, 7, 7, 2)
    with pytest.raises(InvalidStateError):
        sim.step(np.zeros((2, 3), dtype=int))
    with pytest.raises(InvalidStateError):
        sim.step(np.full((2, 2), 4))
    with pytest.raises(SnakewarError):
        measure(4, 7, 7, 2, 1, workers=0)


def test_measure_reports_turns_per_second() -> None:
    out = measure(16, 7, 7, 2, 5)
    assert out["steps"] == 5 and out["turns"] == 80 and out["turns_per_second"] > 0


def test_a_body_segment_off_the_board_is_a_wall_collision() -> None:
    state = BoardState.from_dict(
        {
            "turn": 5,
            "width": 7,
            "height": 7,
            "food": [],
            "hazards": [],
            "snakes": [
                {"id": "a", "body": [[0, 3], [-1, 3], [-1, 4]], "health": 90},
                {"id": "b", "body": [[5, 5], [5, 4], [5, 3]], "health": 90},
            ],
        }
    )
    settings = Settings.defaults(seed=3)
    sim = sim_from_states([state], settings=settings, seeds=[3])
    game = Game(GameConfig(width=7, height=7, settings=settings), ["a", "b"], state)
    game.step({"a": "right", "b": "up"})
    sim.step(np.array([[3, 0]]))
    assert sim.to_states() == [game.state]
    assert game.state.snakes[0].eliminated_cause == "wall-collision"
