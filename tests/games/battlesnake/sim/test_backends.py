"""The backends play the same games: numpy and numba, draw for draw, in fast mode too.

Go mode is checked against the rules engine on every backend (test_differential.py,
test_conformance_sim.py); here fast mode's counter randomness is pinned and the
backends are compared array for array over many seeds, rulesets, maps and resets.
"""

from __future__ import annotations

import numpy as np
import pytest

from snakewar.errors import InvalidStateError
from snakewar.games.battlesnake import Settings
from snakewar.games.battlesnake.sim import core, make_sim
from snakewar.games.battlesnake.sim.core import numba_available, resolve_backend
from snakewar.games.battlesnake.sim.counter import (
    CHANCE,
    SETUP,
    SPAWN,
    ZONE,
    CounterRand,
    draw,
    draw_int,
    uniform,
)
from tests.games.battlesnake.sim.conftest import require_numba

STATE = core.STATE_ARRAYS
"""The arrays that make up a simulator's games."""


def test_counter_draws_are_pinned() -> None:
    # The spec's values: a change here changes every fast-mode game on every backend.
    cases = [(0, 0, 1, 0), (1, 0, 1, 0), (-1, 5, 3, 0), (2**63 - 1, 300, 4, 7)]
    cases.append((123456789012345, 17, 2, 19))
    assert [draw_int(*c) for c in cases] == [
        4088037444,
        3654169446,
        89135979,
        3583477705,
        119645968,
    ]


def test_counter_numpy_matches_the_scalar_spec() -> None:
    rng = np.random.default_rng(4)
    seeds = rng.integers(-(2**63), 2**63 - 1, size=500, dtype=np.int64)
    turns = rng.integers(0, 5000, size=500)
    index = rng.integers(0, 700, size=500)
    for purpose in (SETUP, ZONE, CHANCE, SPAWN):
        got = draw(seeds, turns, purpose, index).tolist()
        want = [
            draw_int(int(s), int(t), purpose, int(i))
            for s, t, i in zip(seeds, turns, index, strict=True)
        ]
        assert got == want
        n = rng.integers(1, 1000, size=500)
        assert (uniform(n, seeds, turns, purpose, index) == (np.array(want) * n) >> 32).all()


def test_counter_rand_is_uniform() -> None:
    rand = CounterRand(99, 0, SETUP)
    counts = np.bincount([rand.intn(6) for _ in range(60_000)], minlength=6)
    assert (abs(counts - 10_000) < 500).all()
    assert rand.index == 60_000


def test_numba_counter_matches_numpy() -> None:
    require_numba()
    from snakewar.games.battlesnake.sim._numba import _uniform

    rng = np.random.default_rng(5)
    for _ in range(300):
        seed = int(rng.integers(-(2**63), 2**63 - 1))
        t, p, i, n = (int(v) for v in rng.integers(1, 10_000, size=4))
        assert _uniform(n, seed, t, p, i) == int(uniform(n, seed, t, p, i))


# ruleset, map, width, height, snakes, batch: every ruleset and map, square boards from
# 7x7 (the vectorised fixed setup) and others (the engine's setup on CounterRand), and
# one batch big enough for the parallel kernel.
CASES = [
    ("standard", "standard", 11, 11, 4, 64),
    ("standard", "standard", 7, 7, 2, 600),
    ("standard", "standard", 9, 13, 3, 24),
    ("standard", "empty", 11, 11, 3, 48),
    ("standard", "standard", 19, 19, 8, 16),
    ("solo", "standard", 7, 7, 1, 48),
    ("solo", "empty", 5, 5, 1, 32),
    ("wrapped", "standard", 11, 11, 4, 48),
    ("wrapped", "empty", 7, 7, 5, 32),
    ("constrictor", "standard", 11, 11, 4, 48),
    ("constrictor", "empty", 7, 7, 2, 32),
    ("wrapped_constrictor", "standard", 7, 7, 3, 32),
    ("royale", "standard", 11, 11, 4, 48),
    ("standard", "royale", 7, 7, 3, 48),
    ("royale", "royale", 11, 11, 2, 32),
]


def _settings(rng: np.random.Generator, n: int) -> list[Settings]:
    return [
        Settings.defaults(
            foodSpawnChance=int(rng.choice([0, 1, 15, 50, 100])),
            minimumFood=int(rng.choice([0, 1, 3])),
            damagePerTurn=int(rng.choice([0, 14, 50, -5])),
            shrinkEveryNTurns=int(rng.choice([1, 3, 10])),
        )
        for _ in range(n)
    ]


@pytest.mark.parametrize(("ruleset", "map_id", "width", "height", "snakes", "batch"), CASES)
@pytest.mark.slow
def test_fast_mode_is_the_same_game_on_every_backend(
    ruleset: str,
    map_id: str,
    width: int,
    height: int,
    snakes: int,
    batch: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    require_numba()
    if batch >= 512:
        # The parallel kernel (several chunks on numba's threads) at a batch a test affords.
        monkeypatch.setattr(core, "_PARALLEL_FROM", 512)
    rng = np.random.default_rng(width * 1000 + snakes * 10 + batch)
    settings = _settings(rng, batch)
    seeds = [int(s) for s in rng.integers(-(2**62), 2**62, size=batch)]
    sims = [
        make_sim(
            batch,
            width,
            height,
            snakes,
            ruleset,
            map_id,
            settings,
            seeds,
            randomness="fast",
            backend=backend,
        )
        for backend in ("numpy", "numba")
    ]
    finished = 0
    for step in range(250):
        actions = sims[0].random_safe_actions(rng, reckless=0.05)
        results = [sim.step(actions) for sim in sims]
        for name in ("done", "winner", "rewards", "turns"):
            a, b = (getattr(r, name) for r in results)
            assert np.array_equal(a, b), f"step {step}: {name}"
        for name in STATE:
            a, b = (getattr(sim, name) for sim in sims)
            assert np.array_equal(a, b), f"step {step}: {name} differs"
        finished += int(results[0].done.sum())
    assert finished >= batch // 2  # auto-resets happened, on both backends alike
    assert sims[0].to_states() == sims[1].to_states()


@pytest.mark.parametrize("ruleset", ["standard", "royale", "constrictor"])
def test_a_fast_game_does_not_depend_on_its_batch(ruleset: str, backend: str) -> None:
    # The same seeds in another order and batch size: each game is played alike.
    rng = np.random.default_rng(8)
    seeds = [int(s) for s in rng.integers(0, 2**62, size=40)]
    perm = rng.permutation(40)[:25]
    big = make_sim(40, 11, 11, 4, ruleset, seeds=seeds, randomness="fast", backend=backend)
    small = make_sim(
        25, 11, 11, 4, ruleset, seeds=[seeds[i] for i in perm], randomness="fast", backend=backend
    )
    for _ in range(200):
        actions = big.random_safe_actions(rng, reckless=0.05)
        big.step(actions)
        small.step(actions[perm])
        for name in STATE:
            assert np.array_equal(getattr(big, name)[perm], getattr(small, name)), name


def test_backend_names() -> None:
    with pytest.raises(InvalidStateError, match="backend"):
        make_sim(2, backend="cuda")
    assert resolve_backend("numpy") == "numpy"
    assert resolve_backend("auto") == ("numba" if numba_available() else "numpy")
    assert make_sim(2, backend="numpy").backend == "numpy"
    if numba_available():
        assert make_sim(2).backend == "numba"
    else:
        with pytest.raises(InvalidStateError, match="numba"):
            make_sim(2, backend="numba")


@pytest.mark.parametrize("parallel", [False, True])
def test_bad_actions_change_nothing(
    backend: str, parallel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The numba kernel checks the actions itself, before it touches a game.
    if parallel:
        monkeypatch.setattr(core, "_PARALLEL_FROM", 2)
    sim = make_sim(8, 11, 11, 4, seeds=list(range(8)), randomness="fast", backend=backend)
    rng = np.random.default_rng(3)
    sim.step(sim.random_safe_actions(rng))
    before = {name: getattr(sim, name).copy() for name in STATE}
    for bad in (-1, 4):
        actions = sim.random_safe_actions(rng)
        actions[7, 3] = bad
        with pytest.raises(InvalidStateError, match="actions must be"):
            sim.step(actions)
        for name in STATE:
            assert np.array_equal(getattr(sim, name), before[name]), name
    sim.step(actions % 4)
    assert (sim.turn == 2).all() or sim.episode.any()
