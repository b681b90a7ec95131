"""The simulator's backends by name: the one place that picks a backend's class.

``numpy`` and ``numba`` are :class:`~snakewar.games.battlesnake.sim.core.BatchSim`
itself (the numba kernel is a method's choice); ``jax`` is
:class:`~snakewar.games.battlesnake.sim._jax.JaxBatchSim`, whose arrays live on the
device.  That module subclasses the core one, so the core never imports it: this
factory does, on demand, and only for ``backend="jax"`` (jax is an optional extra).

>>> from snakewar.games.battlesnake.sim import make_sim
>>> sim = make_sim(2, 7, 7, 2, backend="numpy")
>>> type(sim).__name__, sim.backend
('BatchSim', 'numpy')
"""

from __future__ import annotations

from collections.abc import Sequence

from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState
from snakewar.games.battlesnake.sim.core import BatchSim, resolve_backend

__all__ = ["make_sim", "sim_class", "sim_from_states"]


def sim_class(backend: str = "auto") -> type[BatchSim]:
    """The simulator class that plays ``backend`` (one of :data:`~.core.BACKENDS`).

    Raises:
        InvalidStateError: for an unknown backend, or one whose package is missing.
    """
    if resolve_backend(backend) == "jax":
        from snakewar.games.battlesnake.sim._jax import JaxBatchSim

        return JaxBatchSim
    return BatchSim


def make_sim(
    batch: int,
    width: int = 11,
    height: int = 11,
    snakes: int = 4,
    ruleset: str = "standard",
    map: str = "standard",
    settings: Settings | Sequence[Settings] | None = None,
    seeds: Sequence[int] | None = None,
    randomness: str = "go",
    auto_reset: bool = True,
    ids: Sequence[str] | None = None,
    keep_final_states: bool = False,
    backend: str = "auto",
) -> BatchSim:
    """A simulator of ``batch`` games on ``backend`` (:class:`BatchSim`'s arguments).

    Raises:
        InvalidStateError, UnknownRulesetError, UnknownMapError, MapSetupError: as
            :class:`BatchSim` does.
    """
    return sim_class(backend)(
        batch,
        width,
        height,
        snakes,
        ruleset,
        map,
        settings,
        seeds,
        randomness,
        auto_reset,
        ids,
        keep_final_states,
        backend=backend,
    )


def sim_from_states(
    states: Sequence[BoardState],
    ruleset: str = "standard",
    map: str = "standard",
    settings: Settings | Sequence[Settings] | None = None,
    seeds: Sequence[int] | None = None,
    randomness: str = "go",
    auto_reset: bool = False,
    solo: bool | None = None,
    backend: str = "auto",
) -> BatchSim:
    """A simulator on ``backend`` whose games start from ``states`` (:meth:`BatchSim.from_states`).

    Raises:
        InvalidStateError: as :meth:`BatchSim.from_states` does.
    """
    return sim_class(backend).from_states(
        states, ruleset, map, settings, seeds, randomness, auto_reset, solo, backend
    )
