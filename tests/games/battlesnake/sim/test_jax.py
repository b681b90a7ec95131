"""The JAX backend plays numpy's fast-mode games, array for array, on jax's CPU wheels.

Compiling is the cost here (seconds per configuration on a CPU), so the cases are few
and small, and the other tests reuse their configurations (same sizes and batch) to
hit jax's compile cache.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from snakewar.errors import InvalidStateError, StepError
from snakewar.games.battlesnake import Settings
from snakewar.games.battlesnake.rules.types import BoardState, Point, Snake
from snakewar.games.battlesnake.sim import BatchSim, make_sim, next_seed, sim_from_states
from snakewar.games.battlesnake.sim.counter import CHANCE, SETUP, SPAWN, ZONE, draw, uniform
from tests.games.battlesnake.sim.conftest import require_jax
from tests.games.battlesnake.sim.test_backends import STATE, _settings

# ruleset, map, width, height, snakes, batch: fixed starts (resets on the device) and
# other boards (resets through the host), every ruleset, hazards and the royale zone.
CASES = [
    ("standard", "standard", 11, 11, 4, 16),
    ("standard", "standard", 9, 13, 3, 8),
    ("solo", "empty", 5, 5, 1, 8),
    ("wrapped_constrictor", "standard", 7, 7, 3, 8),
    ("constrictor", "empty", 7, 7, 2, 8),
    ("royale", "royale", 11, 11, 2, 8),
]


@pytest.fixture(autouse=True)
def _jax() -> None:
    require_jax()


def _pair(
    ruleset: str, map_id: str, width: int, height: int, snakes: int, batch: int, **kw: object
) -> tuple[BatchSim, BatchSim, np.random.Generator]:
    rng = np.random.default_rng(width * 1000 + snakes * 10 + batch)
    settings = _settings(rng, batch)
    seeds = [int(s) for s in rng.integers(-(2**62), 2**62, size=batch)]
    sims = tuple(
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
            **kw,  # type: ignore[arg-type]
        )
        for backend in ("numpy", "jax")
    )
    return sims[0], sims[1], rng


def _same(a: BatchSim, b: BatchSim, where: str) -> None:
    for name in STATE:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, f"{where}: {name} dtype"
        assert np.array_equal(x, y), f"{where}: {name} differs"


def test_counter_on_uint32_words_matches_the_spec() -> None:
    import jax.numpy as jnp

    from snakewar.games.battlesnake.sim import _jax

    rng = np.random.default_rng(6)
    seeds = rng.integers(-(2**63), 2**63 - 1, size=400, dtype=np.int64)
    seeds[:3] = (-1, 0, 2**63 - 1)
    turns = rng.integers(0, 5000, size=400)
    index = rng.integers(0, 700, size=400)
    u = seeds.view(np.uint64)
    lo = jnp.asarray((u & np.uint64(0xFFFFFFFF)).astype(np.uint32))
    hi = jnp.asarray((u >> np.uint64(32)).astype(np.uint32))
    t, i = jnp.asarray(turns.astype(np.int32)), jnp.asarray(index.astype(np.int32))
    for purpose in (SETUP, ZONE, CHANCE, SPAWN):
        want = draw(seeds, turns, purpose, index)
        assert (np.asarray(_jax.draw(lo, hi, t, purpose, i)) == want).all()
        n = rng.integers(1, 2**31 - 1, size=400)
        got = np.asarray(_jax.uniform(jnp.asarray(n.astype(np.int32)), lo, hi, t, purpose, i))
        assert (got == uniform(n, seeds, turns, purpose, index)).all()
    nlo, nhi = _jax._next_seed(lo, hi)
    joined = (np.asarray(nhi).astype(np.uint64) << np.uint64(32)) | np.asarray(nlo)
    assert joined.view(np.int64).tolist() == [next_seed(int(s)) for s in seeds]


@pytest.mark.parametrize(("ruleset", "map_id", "width", "height", "snakes", "batch"), CASES)
def test_jax_plays_the_numpy_game(
    ruleset: str, map_id: str, width: int, height: int, snakes: int, batch: int
) -> None:
    ref, sim, rng = _pair(ruleset, map_id, width, height, snakes, batch)
    assert sim.backend == "jax"
    _same(ref, sim, "setup")
    finished = 0
    for step in range(150):
        actions = ref.random_safe_actions(rng, reckless=0.05)
        want, got = ref.step(actions), sim.step(actions)
        for name in ("done", "winner", "rewards", "turns"):
            x, y = getattr(want, name), getattr(got, name)
            assert x.dtype == y.dtype and np.array_equal(x, y), f"step {step}: {name}"
        _same(ref, sim, f"step {step}")
        finished += int(want.done.sum())
    assert finished >= batch // 2  # auto-resets happened, on both backends alike
    assert ref.to_states() == sim.to_states()


def test_a_stepping_loop_copies_nothing_and_reads_pull_one_array() -> None:
    ref, sim, rng = _pair(*CASES[0])
    moves = [ref.random_safe_actions(rng, reckless=0.05) for _ in range(30)]
    results = [sim.step(m) for m in moves]
    wanted = [ref.step(m) for m in moves]
    from snakewar.games.battlesnake.sim._jax import JaxBatchSim

    assert isinstance(sim, JaxBatchSim)
    assert sim._dev is not None and sim._cache == {}
    body = sim.body
    assert set(sim._cache) == {"body"}  # only what was read came back
    assert np.array_equal(body, ref.body)
    with pytest.raises(ValueError, match="read-only"):
        body[0, 0, 0] = 1
    # Results are read lazily too, in any order.
    for want, got in zip(reversed(wanted), reversed(results), strict=True):
        assert np.array_equal(want.winner, got.winner) and np.array_equal(want.done, got.done)
    # Host-side writers take the games back and the next step uploads them again.
    ref.restart([2, 5])
    sim.restart([2, 5])
    _same(ref, sim, "after restart")
    for _ in range(20):
        actions = ref.random_safe_actions(rng, reckless=0.05)
        ref.step(actions)
        sim.step(actions)
    _same(ref, sim, "after stepping on")
    ref.reset([7] * 16)
    sim.reset([7] * 16)
    _same(ref, sim, "after reset")


def test_device_actions_and_bad_actions() -> None:
    import jax.numpy as jnp

    ref, sim, rng = _pair(*CASES[0])
    actions = ref.random_safe_actions(rng)
    ref.step(actions)
    sim.step(jnp.asarray(actions))
    _same(ref, sim, "device actions")
    with pytest.raises(InvalidStateError, match="actions"):
        sim.step(np.full((16, 4), 4))
    with pytest.raises(InvalidStateError, match="shape"):
        sim.step(jnp.zeros((16, 3), jnp.int32))
    result = sim.step(jnp.full((16, 4), 7, jnp.int32))  # checked on the device
    with pytest.raises(InvalidStateError, match="actions"):
        _ = result.done
    # Reported once; a reset then plays on as numpy does.  (That step was played, with
    # its moves clipped, so food stamps count one more step: compare their order.)
    ref.reset(list(range(16)))
    sim.reset(list(range(16)))
    for _ in range(10):
        actions = ref.random_safe_actions(rng)
        ref.step(actions)
        sim.step(jnp.asarray(actions))
    for name in STATE:
        if name != "food_stamp":
            assert np.array_equal(getattr(ref, name), getattr(sim, name)), name
    assert ref.to_states() == sim.to_states()


def test_final_states_and_loaded_states_go_through_the_host() -> None:
    # keep_final_states: every finished game's state, from the same arrays as numpy's.
    ref, sim, rng = _pair(*CASES[0], keep_final_states=True)
    kept = 0
    for _ in range(120):
        actions = ref.random_safe_actions(rng, reckless=0.05)
        want, got = ref.step(actions), sim.step(actions)
        assert want.final_states == got.final_states
        kept += len(got.final_states)
    assert kept > 0
    # from_states: stacked hazards and food lists as loaded, without auto-reset.
    states = ref.to_states()[:8]
    first = states[0]
    hazards = (Point(5, 5), Point(5, 5), Point(3, 4), *first.food[:1])
    states[0] = BoardState(first.turn, first.width, first.height, first.snakes, first.food, hazards)
    settings = Settings.defaults(damagePerTurn=30, foodSpawnChance=50, minimumFood=2)
    pair = [
        sim_from_states(states, "standard", "standard", settings, list(range(8)), "fast", backend=b)
        for b in ("numpy", "jax")
    ]
    for step in range(40):
        actions = pair[0].random_safe_actions(rng, reckless=0.05)
        results = [s.step(actions) for s in pair]
        assert np.array_equal(results[0].done, results[1].done)
        _same(pair[0], pair[1], f"loaded, step {step}")


def test_go_randomness_is_refused() -> None:
    with pytest.raises(InvalidStateError, match="randomness='fast'"):
        make_sim(2, randomness="go", backend="jax")


def test_the_factory_picks_the_device_class_and_the_core_class_refuses_jax() -> None:
    from snakewar.games.battlesnake.sim._jax import JaxBatchSim

    assert type(make_sim(2, 7, 7, 2, randomness="fast", backend="jax")) is JaxBatchSim
    assert type(make_sim(2, 7, 7, 2, randomness="fast", backend="numpy")) is BatchSim
    with pytest.raises(InvalidStateError, match=r"make_sim\(\.\.\., backend='jax'\)"):
        BatchSim(2, 7, 7, 2, randomness="fast", backend="jax")


def test_the_core_never_imports_the_device_backend() -> None:
    # No cycle: _jax imports the core; the core, and the package, never import _jax.
    code = (
        "import sys, snakewar.games.battlesnake.sim as s; s.make_sim(1, 7, 7, 1); "
        "print('snakewar.games.battlesnake.sim._jax' in sys.modules, 'jax' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    assert done.stdout.split() == ["False", "False"]


def test_a_ring_overflow_is_reported() -> None:
    # A 3x1 board has a ring of 11 slots: a snake of 9 that eats twice outgrows it.
    snake = Snake("a", (Point(0, 0),) * 9, 100, "", "", 0)
    state = BoardState(0, 3, 1, (snake,), (Point(1, 0), Point(2, 0)), ())
    for backend in ("numpy", "jax"):
        sim = sim_from_states([state], "solo", "empty", randomness="fast", backend=backend)
        sim.step(np.array([[3]]))
        with pytest.raises(StepError, match="ring buffer"):
            sim.step(np.array([[3]]))
            _ = sim.body  # the device reports its errors when something is read


def test_the_benchmark_stays_on_the_device() -> None:
    from snakewar.games.battlesnake.sim.bench import BenchError, measure

    out = measure(16, 11, 11, 4, 5, backend="jax")  # CASES[0]'s compiled step
    assert out["backend"] == "jax" and out["steps"] == 5 and out["turns"] == 80
    assert out["turns_per_second"] > 0 and out["snake_moves"] > 0
    assert out["device"] and "device_peak_bytes" in out
    with pytest.raises(BenchError, match="jax"):
        measure(8, 7, 7, 2, 5, workers=2, backend="jax")
