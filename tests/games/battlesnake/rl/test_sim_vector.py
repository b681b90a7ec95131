"""The simulator-backed vector env: spaces, exact games, episode ends, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from snakewar.games.battlesnake import Game, GameConfig, Settings
from snakewar.games.battlesnake.rl import (
    EnvStepError,
    ObservationSpec,
    SimVectorEnv,
    encode_observation,
)


def masked_random(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask])


def test_spaces_and_first_observation_match_the_rules_engine() -> None:
    envs = SimVectorEnv(3, num_snakes=2, width=7, height=7)
    obs, info = envs.reset(seed=40)
    assert obs.shape == (3, 13, 7, 7) and envs.observation_space.contains(obs)
    assert info["action_mask"].shape == (3, 4)
    spec = ObservationSpec(7, 7)
    for i in range(3):
        game = Game(
            GameConfig(width=7, height=7, settings=Settings.defaults(seed=40 + i)),
            ["snake_0", "snake_1"],
        )
        assert np.array_equal(obs[i], encode_observation(game.state, "snake_0", spec))


def test_episodes_end_and_restart_in_the_same_step() -> None:
    envs = SimVectorEnv(8, num_snakes=4, max_turns=30)
    obs, info = envs.reset(seed=1)
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(120):
        actions = masked_random(rng, info["action_mask"])
        obs, reward, terminated, truncated, info = envs.step(actions)
        done = terminated | truncated
        ended += int(done.sum())
        assert envs.observation_space.contains(obs)
        if done.any():
            assert info["_final_obs"].tolist() == done.tolist()
            assert info["final_obs"][done].shape[1:] == (13, 11, 11)
            # A new episode starts at turn 0.
            assert (info["turn"][done] == 0).all()
        assert set(np.unique(reward[terminated])) <= {-1.0, 0.0, 1.0}
        assert (reward[truncated] == 0).all()
        assert (info["turn"] <= 30).all()
    assert ended > 8


def test_same_seed_same_episodes() -> None:
    runs = []
    for _ in range(2):
        envs = SimVectorEnv(4, num_snakes=3)
        obs, info = envs.reset(seed=9)
        rng = np.random.default_rng(5)
        trace = [obs.copy()]
        for _ in range(40):
            obs, _, _, _, info = envs.step(masked_random(rng, info["action_mask"]))
            trace.append(obs.copy())
        runs.append(np.stack(trace))
    assert np.array_equal(runs[0], runs[1])


def test_bad_actions_are_a_clear_error() -> None:
    envs = SimVectorEnv(2, num_snakes=2)
    envs.reset(seed=1)
    with pytest.raises(EnvStepError, match=r"expected 2 moves in 0\.\.3"):
        envs.step(np.array([0, 7]))


@pytest.mark.parametrize(
    "options",
    [
        {"num_snakes": 4},
        {"num_snakes": 3, "randomness": "fast", "max_turns": 25},
        {"num_snakes": 2, "ruleset": "wrapped", "map": "empty", "width": 7, "height": 7},
        {"num_snakes": 4, "ruleset": "royale", "width": 7, "height": 7, "randomness": "fast"},
        {"num_snakes": 2, "ruleset": "constrictor", "width": 7, "height": 7},
        {"num_snakes": 1, "ruleset": "solo", "width": 7, "height": 7, "max_turns": 40},
    ],
    ids=lambda options: "-".join(f"{k}={v}" for k, v in options.items()),
)
def test_batched_observations_equal_the_per_game_path(options: dict[str, object]) -> None:
    """Both paths play the same games; every returned array is the same, final ones too."""
    batched = SimVectorEnv(6, **options)  # type: ignore[arg-type]
    per_game = SimVectorEnv(6, batched_obs=False, **options)  # type: ignore[arg-type]
    assert batched.batched_obs and not per_game.batched_obs
    obs_a, info_a = batched.reset(seed=3)
    obs_b, info_b = per_game.reset(seed=3)
    assert np.array_equal(obs_a, obs_b)
    rng = np.random.default_rng(4)
    ended = 0
    for _ in range(90):
        actions = masked_random(rng, info_a["action_mask"])
        out_a = batched.step(actions)
        out_b = per_game.step(actions)
        for a, b in zip(out_a[:4], out_b[:4], strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        info_a, info_b = out_a[4], out_b[4]
        assert info_a.keys() == info_b.keys()
        for key in info_a:
            assert np.array_equal(info_a[key], info_b[key]), key
        ended += int((out_a[2] | out_a[3]).sum())
    assert ended >= 6
