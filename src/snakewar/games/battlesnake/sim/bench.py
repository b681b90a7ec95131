"""Throughput of the batched simulator: turns per second with random safe moves.

A *turn* is one step of one game.  Moves are chosen outside the timed part; the
timed part is :meth:`BatchSim.step` (rules, food spawning and the auto-resets of
finished games).  Fast randomness.  ``backend`` picks the simulator's backend; with
the numba one and several workers each worker's kernel runs on one thread, so that
the workers and not the threads fill the cores.

With ``backend="jax"`` the loop stays on the device: moves are chosen there
(:meth:`~snakewar.games.battlesnake.sim._jax.JaxBatchSim.device_random_safe_actions`), the
step's result is never copied back, and each timed part ends when the device has finished it
(``block_until_ready``).  The figures then also give the device and, where jax reports
it (GPUs; not CPUs), its peak memory.  Measuring on a GPU::

    pip install 'jax[cuda12]' && pip install -e '.[gpu]'
    snakewar bench sim --backends jax --workers 1 --sizes 11 --batch 65536,262144,1048576

and read memory with ``jax.devices()[0].memory_stats()`` (``peak_bytes_in_use``,
``bytes_limit``), which ``measure`` reports as ``device_peak_bytes``.  The target is
1000x the Go rules engine's 78,196 turns/s on one core (78 M turns/s on one GPU).
"""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from snakewar.errors import SnakewarError
from snakewar.games.battlesnake.sim.backends import make_sim
from snakewar.games.battlesnake.sim.core import BatchSim, resolve_backend

__all__ = ["measure"]


class BenchError(SnakewarError):
    """A benchmark was asked for with impossible parameters."""


def _new_sim(
    batch: int,
    width: int,
    height: int,
    snakes: int,
    seed: int,
    ruleset: str,
    map_id: str,
    backend: str,
) -> BatchSim:
    """The benchmark's simulator: fast randomness, game ``i`` seeded from ``seed`` and ``i``."""
    return make_sim(
        batch,
        width,
        height,
        snakes,
        ruleset,
        map_id,
        seeds=[seed * 1_000_003 + i for i in range(batch)],
        randomness="fast",
        backend=backend,
    )


def _figures(
    sim: BatchSim,
    ruleset: str,
    map_id: str,
    steps: int,
    done: int,
    stepping: float,
    choosing: float,
    moves: int,
) -> dict[str, Any]:
    """One measurement's figures: ``steps`` steps of ``sim``, timed as given."""
    turns = steps * sim.batch
    return {
        "batch": sim.batch,
        "width": sim.width,
        "height": sim.height,
        "snakes": sim.num_snakes,
        "ruleset": ruleset,
        "map": map_id,
        "backend": sim.backend,
        "steps": steps,
        "turns": turns,
        "games_finished": done,
        "step_seconds": stepping,
        "choose_seconds": choosing,
        "turns_per_second": turns / stepping if stepping > 0 else 0.0,
        "snake_moves": moves,
        "snake_moves_per_second": moves / stepping if stepping > 0 else 0.0,
    }


def _run(
    batch: int,
    width: int,
    height: int,
    snakes: int,
    seconds: float | None,
    steps: int | None,
    seed: int,
    ruleset: str,
    map_id: str,
    backend: str,
    threads: int | None,
) -> dict[str, Any]:
    if resolve_backend(backend) == "jax":
        return _run_jax(batch, width, height, snakes, seconds, steps, seed, ruleset, map_id)
    if threads is not None:
        import numba

        numba.set_num_threads(threads)
    sim = _new_sim(batch, width, height, snakes, seed, ruleset, map_id, backend)
    rng = np.random.default_rng(seed)
    sim.step(sim.random_safe_actions(rng))  # compiles (or loads) a numba kernel untimed
    stepping = 0.0
    choosing = 0.0
    done = 0
    n = 0
    moves = 0
    start = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        # Snake-moves: one per alive snake per step (counted outside the timed part).
        moves += int(sim.alive().sum())
        actions = sim.random_safe_actions(rng)
        t1 = time.perf_counter()
        result = sim.step(actions)
        t2 = time.perf_counter()
        choosing += t1 - t0
        stepping += t2 - t1
        done += int(result.done.sum())
        n += 1
        if steps is not None and n >= steps:
            break
        if seconds is not None and t2 - start >= seconds:
            break
    return _figures(sim, ruleset, map_id, n, done, stepping, choosing, moves)


def _run_jax(
    batch: int,
    width: int,
    height: int,
    snakes: int,
    seconds: float | None,
    steps: int | None,
    seed: int,
    ruleset: str,
    map_id: str,
) -> dict[str, Any]:
    import jax
    import jax.numpy as jnp

    from snakewar.games.battlesnake.sim._jax import JaxBatchSim, JaxStepResult

    sim = _new_sim(batch, width, height, snakes, seed, ruleset, map_id, "jax")
    assert isinstance(sim, JaxBatchSim)
    key = jax.random.key(seed)
    # Compiles the step and the move chooser untimed.
    first = sim.step(sim.device_random_safe_actions(key))
    # A step's outputs are ready together: waiting for one waits for the step.
    sim.games["turn"].block_until_ready()
    stepping = choosing = 0.0
    done = jnp.int32(0)
    moves = jnp.int32(0)
    n = 0
    start = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        key, sub = jax.random.split(key)
        moves = moves + (sim.games["cause"] == 0).sum()
        actions = sim.device_random_safe_actions(sub).block_until_ready()
        t1 = time.perf_counter()
        result = sim.step(actions)
        sim.games["turn"].block_until_ready()
        t2 = time.perf_counter()
        choosing += t1 - t0
        stepping += t2 - t1
        assert isinstance(result, JaxStepResult)
        done = done + result.device_arrays()["done"].sum()
        n += 1
        if steps is not None and n >= steps:
            break
        if seconds is not None and t2 - start >= seconds:
            break
    assert isinstance(first, JaxStepResult)
    device = jax.devices()[0]
    stats = device.memory_stats() or {}
    return {
        **_figures(sim, ruleset, map_id, n, int(done), stepping, choosing, int(moves)),
        "device": str(device),
        "device_peak_bytes": stats.get("peak_bytes_in_use"),
    }


def _run_job(job: tuple[Any, ...]) -> dict[str, Any]:
    return _run(*job)


def measure(
    batch: int,
    width: int = 11,
    height: int = 11,
    snakes: int = 4,
    seconds_or_steps: float | int = 3.0,
    workers: int = 1,
    ruleset: str = "standard",
    map: str = "standard",
    backend: str = "auto",
) -> dict[str, Any]:
    """Measure simulator turns per second.

    Args:
        batch: games per simulator.
        width: board width.
        height: board height.
        snakes: snakes per game.
        seconds_or_steps: a float is a time budget in seconds, an int a number of steps.
        workers: processes, each with its own simulator of ``batch`` games; their
            rates are added (the figure of a machine with that many cores busy).
            They are spawned, so a script calling this needs the
            ``if __name__ == "__main__":`` guard.
        ruleset: the ruleset played.
        map: the map played.
        backend: the simulator backend (see :class:`BatchSim`); a numba kernel runs on
            all of numba's threads with one worker, on one thread each with several;
            ``"jax"`` runs on jax's default device, one worker only (see the module
            docstring), and adds ``device`` and ``device_peak_bytes`` (None on a CPU).

    Returns:
        ``turns_per_second`` (sum over workers), ``turns``, ``steps``, ``games_finished``,
        ``step_seconds`` (max over workers), ``choose_seconds`` and the parameters.

    Raises:
        BenchError: for ``workers < 1``, several workers on jax or a non-positive budget.
    """
    if workers < 1:
        raise BenchError(f"workers={workers} (expected at least 1)")
    if workers > 1 and resolve_backend(backend) == "jax":
        raise BenchError(f"workers={workers} with backend 'jax' (one process drives the device)")
    if seconds_or_steps <= 0:
        raise BenchError(f"seconds_or_steps={seconds_or_steps} (expected a positive budget)")
    if isinstance(seconds_or_steps, int):
        seconds, steps = None, seconds_or_steps
    else:
        seconds, steps = float(seconds_or_steps), None
    args = (batch, width, height, snakes, seconds, steps)
    if workers == 1:
        out = _run(*args, 0, ruleset, map, backend, None)
        out["workers"] = 1
        return out
    # Spawned, not forked: a forked child of a process that ran numba's OpenMP
    # threads is killed by the OpenMP runtime.
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        threads = 1 if resolve_backend(backend) == "numba" else None
        jobs = [(*args, w, ruleset, map, backend, threads) for w in range(workers)]
        parts = list(pool.map(_run_job, jobs))
    total = dict(parts[0])
    for key in (
        "turns",
        "steps",
        "games_finished",
        "choose_seconds",
        "turns_per_second",
        "snake_moves",
        "snake_moves_per_second",
    ):
        total[key] = sum(p[key] for p in parts)
    total["step_seconds"] = max(p["step_seconds"] for p in parts)
    total["workers"] = workers
    return total
