"""A batched Battlesnake simulator: B games stepped at once, exactly by the rules.

:class:`BatchSim` holds ``B`` independent games of one ruleset (``standard``, ``solo``,
``wrapped``, ``constrictor``, ``wrapped_constrictor``, ``royale``), one map
(``standard``, ``empty``, ``royale``), one board size (up to 25x25) and one snake
count (1..8), with per-game settings (``food_chance``, ``min_food``, ``damage``,
``shrink`` arrays read from each game's :class:`~snakewar.games.battlesnake.Settings`).

* ``make_sim(batch, width, height, snakes, ruleset, map, settings, seeds,
  randomness="go" | "fast", auto_reset=True, backend="auto")`` sets up every game
  (the map's setup and the ruleset's initialization call).  ``backend`` is
  ``"numba"`` (compiled, parallel over games; ``pip install 'snakewar[sim]'``),
  ``"numpy"``, ``"auto"`` (numba when it can be imported) or ``"jax"`` (jit and vmap,
  the games kept on a GPU between steps; ``randomness="fast"`` only;
  ``pip install 'snakewar[gpu]'``, see :mod:`snakewar.games.battlesnake.sim._jax`).
  ``BatchSim(...)`` itself takes the same arguments for every backend but ``jax``
  (a class of its own, which :mod:`~snakewar.games.battlesnake.sim.backends` picks).
* ``step(actions)`` plays one turn with ``actions[B, S]`` (0=up, 1=down, 2=left,
  3=right; ignored for eliminated snakes) and returns a :class:`StepResult`
  (``done``, ``winner``, ``rewards``, ``turns``; ``final_states`` with
  ``keep_final_states=True``).  With ``auto_reset`` a finished game is replaced at
  once by a new one with seed :func:`next_seed` of the old seed (``episode[B]``
  counts the games per slot); without it, finished games stay as they are.
* ``to_states()`` / ``sim_from_states(states, ...)`` (``BatchSim.from_states``) convert
  exactly to and from the rules engine's :class:`~snakewar.games.battlesnake.BoardState`.
* ``safe_action_mask()`` ``[B, S, 4]`` and ``random_safe_actions(rng)`` ``[B, S]``.
* ``reset(seeds=None)`` starts every slot again.

With ``randomness="go"`` every game is the rules engine's game for its seed, turn
for turn (setup, food spawns, royale shrinks, all from ``Settings.get_rand``), on every
backend.  With ``"fast"`` every draw is a hash of (seed, turn, purpose, index) (spec
in :mod:`snakewar.games.battlesnake.sim.counter`), with the same probabilities: a game is
a function of its seed and moves, the same on every backend and in any batch.  That is the mode for
throughput (see :func:`snakewar.games.battlesnake.sim.bench.measure`).

>>> import numpy as np
>>> from snakewar.games.battlesnake.sim import BatchSim
>>> sim = BatchSim(4, 11, 11, 2, seeds=[1, 2, 3, 4])
>>> result = sim.step(sim.random_safe_actions(np.random.default_rng(0)))
>>> result.done.shape, sim.to_states()[0].turn
((4,), 1)
"""

from snakewar.games.battlesnake.sim.backends import make_sim, sim_class, sim_from_states
from snakewar.games.battlesnake.sim.core import (
    BACKENDS,
    CAUSES,
    MAPS,
    MOVE_NAMES,
    RULESETS,
    BatchSim,
    NumpyRand,
    StepResult,
    next_seed,
)

__all__ = [
    "BACKENDS",
    "CAUSES",
    "MAPS",
    "MOVE_NAMES",
    "RULESETS",
    "BatchSim",
    "NumpyRand",
    "StepResult",
    "make_sim",
    "next_seed",
    "sim_class",
    "sim_from_states",
]
