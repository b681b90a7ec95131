"""The RL environments: PettingZoo/Gymnasium checkers, observation planes, masks, rewards."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import (  # type: ignore[import-untyped]
    parallel_api_test,
    parallel_seed_test,
)
from pettingzoo.utils import parallel_to_aec  # type: ignore[import-untyped]

from snakewar.games.battlesnake import BoardState, Game, Point, Snake
from snakewar.games.battlesnake.rl import (
    ACTIONS,
    ENV_ID,
    NUM_PLANES,
    BattlesnakeEnv,
    BattlesnakeParallelEnv,
    EnvConfigError,
    EnvStepError,
    ObservationSpec,
    Plane,
    Rewards,
    action_mask,
    encode_observation,
    make_vector_env,
)

ROOT = Path(__file__).resolve().parents[4]


def P(x: int, y: int) -> Point:
    return Point(x, y)


def mask_moves(mask: np.ndarray) -> set[str]:
    return {ACTIONS[i] for i in np.flatnonzero(mask)}


# -- PettingZoo / Gymnasium conformance ------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"num_snakes": 4},
        {"ruleset": "wrapped", "map": "empty", "num_snakes": 3, "center": True},
        {"ruleset": "royale", "num_snakes": 2, "width": 7, "height": 7, "max_turns": 30},
        {"num_snakes": 1, "max_turns": 40},
    ],
)
def test_parallel_api_and_seed_tests_pass(options: dict[str, object]) -> None:
    parallel_api_test(BattlesnakeParallelEnv(**options), num_cycles=300)  # type: ignore[arg-type]
    parallel_seed_test(lambda: BattlesnakeParallelEnv(**options))  # type: ignore[arg-type]


def test_aec_conversion_runs_a_game() -> None:
    env = parallel_to_aec(BattlesnakeParallelEnv(num_snakes=2, max_turns=20))
    env.reset(seed=3)
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else env.action_space(agent).sample(obs["action_mask"]))
        steps += 1
    assert steps > 2


@pytest.mark.parametrize(
    "options",
    [
        {"opponents": "greedy", "num_snakes": 3},
        {"opponents": "random", "ruleset": "wrapped", "map": "empty", "center": True},
        {"opponents": "random", "num_snakes": 1, "grid_width": 13, "grid_height": 12},
    ],
)
def test_gymnasium_check_env_passes(options: dict[str, object]) -> None:
    check_env(BattlesnakeEnv(**options), skip_render_check=True)  # type: ignore[arg-type]


def test_gymnasium_make_and_ansi_render() -> None:
    env = gymnasium.make(ENV_ID, opponents="random", render_mode="ansi")
    env.reset(seed=5)
    text = env.render()
    assert isinstance(text, str)
    assert "snake_0" in text and "turn 0" in text
    env.close()


def test_vector_env_steps_and_resets() -> None:
    envs = make_vector_env(3, opponents="random", max_turns=15)
    obs, info = envs.reset(seed=11)
    assert obs.shape == (3, NUM_PLANES, 11, 11)
    assert info["action_mask"].shape == (3, 4)
    ends = 0
    for _ in range(40):
        masks = info["action_mask"]
        # The first safe move; a snake with none (cornered) moves up and dies.
        actions = np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in masks])
        obs, _, term, trunc, info = envs.step(actions)
        ends += int(np.sum(term | trunc))
    assert ends >= 3  # 15-turn cap: every game ended at least once and restarted
    envs.close()
    with pytest.raises(EnvConfigError, match="num_envs 0"):
        make_vector_env(0)


# -- observation and mask on hand-built states -----------------------------------------


def hand_state() -> BoardState:
    me = Snake("me", (P(3, 3), P(3, 2), P(3, 1)), health=50)
    op = Snake("op", (P(4, 3), P(5, 3), P(5, 4), P(5, 5)), health=80)
    dead = Snake("dead", (P(0, 6), P(1, 6), P(2, 6)), eliminated_cause="wall-collision")
    return BoardState(
        turn=4,
        width=7,
        height=7,
        snakes=(me, op, dead),
        food=(P(2, 3), P(6, 0)),
        hazards=(P(0, 0), P(0, 0), P(6, 6)),
    )


def test_planes_on_a_hand_built_state() -> None:
    state = hand_state()
    obs = encode_observation(state, "me", ObservationSpec(7, 7))
    assert obs.shape == (NUM_PLANES, 7, 7) and obs.dtype == np.float32

    def cells(plane: Plane) -> set[tuple[int, int]]:
        ys, xs = np.nonzero(obs[plane])
        return {(int(x), int(y)) for x, y in zip(xs, ys, strict=True)}

    assert obs[Plane.VALID].all()
    assert cells(Plane.OWN_HEAD) == {(3, 3)}
    assert cells(Plane.OWN_BODY) == {(3, 3), (3, 2), (3, 1)}
    assert obs[Plane.OWN_BODY_TTL, 3, 3] == pytest.approx(3 / 49)
    assert obs[Plane.OWN_BODY_TTL, 1, 3] == pytest.approx(1 / 49)
    assert np.allclose(obs[Plane.OWN_HEALTH], 0.5)
    assert cells(Plane.OTHER_HEADS) == {(4, 3)}
    # The eliminated snake is not drawn.
    assert cells(Plane.OTHER_BODIES) == {(4, 3), (5, 3), (5, 4), (5, 5)}
    assert obs[Plane.OTHER_BODY_TTL, 3, 4] == pytest.approx(4 / 49)
    assert obs[Plane.OTHER_BODY_TTL, 5, 5] == pytest.approx(1 / 49)
    assert cells(Plane.OTHER_LONGER) == {(4, 3)}
    assert obs[Plane.OTHER_LENGTH, 3, 4] == pytest.approx(1 / 49)
    assert obs[Plane.OTHER_HEALTH, 3, 4] == pytest.approx(0.8)
    assert cells(Plane.FOOD) == {(2, 3), (6, 0)}
    assert obs[Plane.HAZARDS, 0, 0] == 2 and obs[Plane.HAZARDS, 6, 6] == 1
    assert obs[Plane.HAZARDS].sum() == 3
    # From the other snake's side: it is longer, so "me" is not a fatal head.
    theirs = encode_observation(state, "op", ObservationSpec(7, 7))
    assert not theirs[Plane.OTHER_LONGER].any()
    assert theirs[Plane.OTHER_LENGTH, 3, 3] == pytest.approx(-1 / 49)


def test_stacked_segments_keep_the_longest_time_to_free() -> None:
    me = Snake("me", (P(1, 1), P(1, 1), P(1, 1)))
    obs = encode_observation(BoardState(0, 3, 3, (me,)), "me", ObservationSpec(3, 3))
    assert obs[Plane.OWN_BODY_TTL, 1, 1] == pytest.approx(3 / 9)
    assert obs[Plane.OWN_BODY].sum() == 1


def test_padding_and_centring_on_a_bounded_board() -> None:
    state = hand_state()
    padded = encode_observation(state, "me", ObservationSpec(7, 7, grid_width=9, grid_height=8))
    assert padded.shape == (NUM_PLANES, 8, 9)
    assert padded[Plane.VALID].sum() == 49 and padded[Plane.VALID, :7, :7].all()
    assert padded[Plane.OWN_HEAD, 3, 3] == 1
    centred = encode_observation(state, "me", ObservationSpec(7, 7, center=True))
    assert centred.shape == (NUM_PLANES, 13, 13)
    assert centred[Plane.OWN_HEAD, 6, 6] == 1
    assert centred[Plane.VALID].sum() == 49
    # Board square (0, 0) sits 3 left and 3 down of the head (3, 3).
    assert centred[Plane.HAZARDS, 3, 3] == 2
    assert centred[Plane.OTHER_HEADS, 6, 7] == 1
    with pytest.raises(EnvConfigError, match="grid_width 5"):
        ObservationSpec(7, 7, grid_width=5)


def test_mask_matches_hand_computed_safe_moves() -> None:
    state = hand_state()
    # down: own neck; right: the other snake's head; left has food; up is free.
    assert mask_moves(action_mask(state, "me")) == {"up", "left"}
    # The other snake: left is "me"'s head (3, 3), right its own neck.
    assert mask_moves(action_mask(state, "op")) == {"up", "down"}
    assert not action_mask(state, "dead").any()
    assert not action_mask(state, "nobody").any()


def test_mask_tail_rules() -> None:
    loop = (P(1, 1), P(1, 2), P(2, 2), P(2, 1))  # the tail (2, 1) is right of the head
    moving = BoardState(5, 4, 4, (Snake("me", loop),))
    assert "right" in mask_moves(action_mask(moving, "me"))
    stacked = BoardState(5, 4, 4, (Snake("me", (*loop, P(2, 1))),))  # just ate
    assert "right" not in mask_moves(action_mask(stacked, "me"))
    # Another snake's free tail is safe too, its stacked tail is not.
    other = Snake("op", (P(3, 3), P(3, 2), P(3, 1), P(2, 1)))
    me = Snake("me", (P(1, 1), P(0, 1), P(0, 0)))
    assert "right" in mask_moves(action_mask(BoardState(5, 4, 4, (me, other)), "me"))
    other_fed = other._replace(body=(*other.body, P(2, 1)))
    assert "right" not in mask_moves(action_mask(BoardState(5, 4, 4, (me, other_fed)), "me"))


def test_mask_health_and_hazards() -> None:
    me = Snake("me", (P(2, 2), P(2, 1), P(2, 0)), health=1)
    starving = BoardState(5, 5, 5, (me,), food=(P(1, 2),))
    assert mask_moves(action_mask(starving, "me")) == {"left"}  # only food saves it
    me = me._replace(health=10)
    hazard = BoardState(5, 5, 5, (me,), hazards=(P(2, 3),))
    assert mask_moves(action_mask(hazard, "me", hazard_damage=14)) == {"left", "right"}
    assert "up" in mask_moves(action_mask(hazard, "me", hazard_damage=5))
    # Food on a hazard cancels its damage.
    fed = hazard.replace(food=(P(2, 3),))
    assert "up" in mask_moves(action_mask(fed, "me", hazard_damage=14))


def test_wrapped_board_mask_and_centring() -> None:
    me = Snake("me", (P(0, 3), P(1, 3), P(2, 3)))
    op = Snake("op", (P(6, 2), P(6, 3), P(6, 4)))
    state = BoardState(3, 7, 7, (me, op))
    # Left wraps onto the other snake's body (6, 3); bounded, left leaves the board.
    assert mask_moves(action_mask(state, "me", wrapped=True)) == {"up", "down"}
    assert mask_moves(action_mask(state, "me", wrapped=False)) == {"up", "down"}
    edge = BoardState(3, 7, 7, (Snake("me", (P(0, 0), P(1, 0), P(2, 0))),))
    assert mask_moves(action_mask(edge, "me", wrapped=True)) == {"up", "down", "left"}
    assert mask_moves(action_mask(edge, "me", wrapped=False)) == {"up"}
    obs = encode_observation(state, "me", ObservationSpec(7, 7, wrapped=True, center=True))
    assert obs.shape == (NUM_PLANES, 7, 7) and obs[Plane.VALID].all()
    assert obs[Plane.OWN_HEAD, 3, 3] == 1
    # (6, 3), across the left edge, is the head's left neighbour in the rolled view.
    assert obs[Plane.OTHER_BODIES, 3, 2] == 1
    assert obs[Plane.OTHER_HEADS, 2, 2] == 1


def test_env_mask_matches_the_rules_module() -> None:
    env = BattlesnakeParallelEnv(ruleset="wrapped", map="empty", num_snakes=3)
    obs, _ = env.reset(seed=9)
    assert env.game is not None
    for agent in env.agents:
        expected = action_mask(env.game.state, agent, wrapped=True)
        assert np.array_equal(obs[agent]["action_mask"], expected)


# -- determinism, elimination, rewards --------------------------------------------------


def play_first_safe(env: BattlesnakeParallelEnv, seed: int) -> list[object]:
    obs, _ = env.reset(seed=seed)
    trace: list[object] = []
    while env.agents:
        actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[-1]) for a in env.agents}
        obs, rewards, _, _, _ = env.step(actions)
        trace.append((sorted(rewards.items()), {a: o["observation"].sum() for a, o in obs.items()}))
    return trace


def test_reset_seed_is_deterministic() -> None:
    a = play_first_safe(BattlesnakeParallelEnv(num_snakes=3, max_turns=60), 21)
    b = play_first_safe(BattlesnakeParallelEnv(num_snakes=3, max_turns=60), 21)
    assert a == b
    env = BattlesnakeParallelEnv(num_snakes=3)
    first, _ = env.reset(seed=21)
    other, _ = env.reset(seed=22)
    assert env.game_seed == 22
    assert not np.array_equal(first["snake_0"]["observation"], other["snake_0"]["observation"])
    env.reset(seed=21)
    after_reset, _ = env.reset()
    env.reset(seed=21)
    again, _ = env.reset()
    assert np.array_equal(after_reset["snake_0"]["observation"], again["snake_0"]["observation"])

    def single_trace() -> list[object]:
        single = BattlesnakeEnv(opponents="greedy", num_snakes=3, max_turns=40)
        obs, info = single.reset(seed=4)
        trace: list[object] = [obs.tobytes()]
        done = False
        while not done:
            obs, reward, term, trunc, info = single.step(
                int(np.flatnonzero(info["action_mask"])[0])
            )
            trace.append((obs.tobytes(), reward))
            done = term or trunc
        return trace

    first_trace = single_trace()
    assert len(first_trace) > 5 and first_trace == single_trace()


def test_agent_removed_when_eliminated() -> None:
    env = BattlesnakeParallelEnv(num_snakes=3)
    obs, _ = env.reset(seed=2)
    for _ in range(12):
        actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents}
        actions["snake_0"] = ACTIONS.index("up")  # straight into the top wall
        live = list(env.agents)
        obs, rewards, term, trunc, infos = env.step(actions)
        assert set(obs) == set(rewards) == set(term) == set(trunc) == set(infos) == set(live)
        if term["snake_0"]:
            break
    else:
        pytest.fail("snake_0 never hit the wall")
    assert infos["snake_0"]["eliminated_cause"] == "wall-collision"
    assert rewards["snake_0"] == -1.0
    assert env.agents == ["snake_1", "snake_2"]
    assert rewards["snake_1"] == rewards["snake_2"] == 0.0
    assert not obs["snake_0"]["observation"][Plane.OWN_HEAD].any()
    with pytest.raises(EnvStepError, match="snake_1"):
        env.step({"snake_2": 0})


def test_win_and_loss_rewards_at_game_end() -> None:
    env = BattlesnakeParallelEnv(num_snakes=2, rewards=Rewards(win=2.0, loss=-3.0))
    obs, _ = env.reset(seed=8)
    term: dict[str, bool] = {}
    for _ in range(12):
        actions = {"snake_0": ACTIONS.index("up")}
        actions["snake_1"] = int(np.flatnonzero(obs["snake_1"]["action_mask"])[0])
        obs, rewards, term, _, _ = env.step(actions)
        if any(term.values()):
            break
    assert term == {"snake_0": True, "snake_1": True}
    assert rewards == {"snake_0": -3.0, "snake_1": 2.0}
    assert env.agents == []
    with pytest.raises(EnvStepError, match="reset"):
        env.step({})


def test_draw_gives_draw_reward() -> None:
    env = BattlesnakeParallelEnv(num_snakes=2, rewards=Rewards(draw=0.25))
    env.reset(seed=1)
    a = Snake("snake_0", (P(2, 5), P(1, 5), P(0, 5)))
    b = Snake("snake_1", (P(4, 5), P(5, 5), P(6, 5)))
    assert env.game is not None
    env.game = Game(env.game.config, env.possible_agents, BoardState(3, 11, 11, (a, b)))
    right, left = ACTIONS.index("right"), ACTIONS.index("left")
    _, rewards, term, _, _ = env.step({"snake_0": right, "snake_1": left})
    assert term == {"snake_0": True, "snake_1": True}
    assert rewards == {"snake_0": 0.25, "snake_1": 0.25}


def test_truncation_at_max_turns() -> None:
    env = BattlesnakeParallelEnv(num_snakes=1, max_turns=3, rewards=Rewards(survive=0.5))
    obs, _ = env.reset(seed=3)
    total = 0.0
    trunc: dict[str, bool] = {}
    for _ in range(3):
        obs, rewards, _, trunc, _ = env.step(
            {"snake_0": int(np.flatnonzero(obs["snake_0"]["action_mask"])[0])}
        )
        total += rewards["snake_0"]
    assert trunc == {"snake_0": True} and env.agents == [] and total == 1.5


def test_single_env_rewards_and_opponent_policies() -> None:
    calls: list[int] = []

    def always_down(request: object) -> int:
        calls.append(1)
        return ACTIONS.index("down")

    env = BattlesnakeEnv(opponents=[always_down, "random"], num_snakes=3, max_turns=50)
    _, info = env.reset(seed=6)
    done = False
    reward = 0.0
    while not done:
        _, reward_, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        reward = float(reward_)
        done = term or trunc
    assert calls
    assert reward in (1.0, -1.0, 0.0)
    with pytest.raises(EnvStepError, match="reset"):
        env.step(0)
    with pytest.raises(EnvConfigError, match="expected one spec or 2"):
        BattlesnakeEnv(opponents=["random"], num_snakes=3)
    env.reset(seed=1)
    with pytest.raises(EnvStepError, match="action 7"):
        env.step(7)


def test_bad_options_fail_clearly() -> None:
    with pytest.raises(EnvConfigError, match="num_snakes 0"):
        BattlesnakeParallelEnv(num_snakes=0)
    with pytest.raises(EnvConfigError, match="unknown ruleset 'nope'"):
        BattlesnakeParallelEnv(ruleset="nope")
    with pytest.raises(EnvConfigError, match="render_mode 'human'"):
        BattlesnakeEnv(render_mode="human")


# -- packaging ---------------------------------------------------------------------------


def test_missing_extra_names_the_install_command() -> None:
    code = (
        "import sys; sys.modules['pettingzoo'] = None\n"
        "try:\n    import snakewar.games.battlesnake.rl\n"
        "except ImportError as exc:\n    print(type(exc).__name__, exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("MissingExtraError")
    assert 'pip install "snakewar[rl]"' in out.stdout


def test_example_runs() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "rl_random_policy.py"), "--episodes", "3"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert "episodes 3: mean reward" in out.stdout


def test_mask_agrees_with_the_engine_on_played_states() -> None:
    # Brute force: an allowed move survives some reply of the others; a masked move
    # survives only replies where another snake dies (its body no longer blocks).
    import itertools
    import random

    from snakewar.games.battlesnake import GameConfig, Settings

    rng = random.Random(5)
    checked = 0
    outcomes: set[tuple[bool, bool]] = set()
    hazards_seen = False
    for ruleset, game_map in (("royale", "standard"), ("wrapped", "empty")):
        config = GameConfig(ruleset, game_map, 7, 7, Settings.defaults(seed=3, damagePerTurn=30))
        ids = ["a", "b", "c"]
        game = Game(config, ids)
        wrapped = ruleset == "wrapped"
        while not game.is_over and game.state.turn < 60:
            state = game.state
            # Low health now and then, so starvation and hazard deaths are exercised.
            state = state.replace(
                snakes=tuple(s._replace(health=rng.choice((1, 2, 25, 90))) for s in state.snakes)
            )
            alive = [s.id for s in state.snakes if not s.eliminated_cause]
            hazards_seen = hazards_seen or bool(state.hazards)
            for sid in alive:
                mask = action_mask(state, sid, wrapped=wrapped, hazard_damage=30)
                others = [o for o in alive if o != sid]
                for index, move in enumerate(ACTIONS):
                    survives = survives_clean = False
                    for replies in itertools.product(ACTIONS, repeat=len(others)):
                        trial = Game(config, ids, state)
                        trial.step({sid: move, **dict(zip(others, replies, strict=True))})
                        after = trial.state
                        if not after.snake(sid).eliminated_cause:
                            survives = True
                            if not any(after.snake(o).eliminated_cause for o in others):
                                survives_clean = True
                    checked += 1
                    outcomes.add((bool(mask[index]), survives))
                    if mask[index]:
                        assert survives, (state, sid, move)
                    else:
                        assert not survives_clean, (state, sid, move)
            moves = {}
            for sid in alive:
                options = np.flatnonzero(action_mask(game.state, sid, wrapped=wrapped))
                moves[sid] = ACTIONS[int(rng.choice(list(options)))] if len(options) else "up"
            game.step(moves)
    assert checked > 200 and hazards_seen, (checked, hazards_seen)
    # Both verdicts were met: allowed moves that survive, masked moves that die.
    assert {(True, True), (False, False)} <= outcomes, outcomes


def test_mask_fallback_when_no_move_is_safe() -> None:
    # Cornered at (0, 0): its neck above, the other snake's body to the right.
    me = Snake("snake_0", (P(0, 0), P(0, 1), P(0, 2)))
    op = Snake("snake_1", (P(2, 0), P(1, 0), P(1, 1), P(1, 2)))
    boxed = BoardState(3, 11, 11, (me, op))
    assert not action_mask(boxed, "snake_0").any()
    for fallback, expected in ((True, [1, 1, 1, 1]), (False, [0, 0, 0, 0])):
        env = BattlesnakeParallelEnv(num_snakes=2, mask_fallback=fallback)
        env.reset(seed=1)
        assert env.game is not None
        env.game = Game(env.game.config, env.possible_agents, boxed)
        obs, *_ = env.step({"snake_0": 0, "snake_1": ACTIONS.index("up")})
        assert obs["snake_0"]["action_mask"].tolist() == [0, 0, 0, 0]  # snake_0 died
        assert env.setup.mask(boxed, "snake_0").tolist() == expected
