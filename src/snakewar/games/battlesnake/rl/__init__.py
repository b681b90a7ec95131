"""Reinforcement-learning environments for Battlesnake (the ``rl`` extra).

* :class:`BattlesnakeParallelEnv`: PettingZoo ``ParallelEnv``, every snake learns.
* :class:`BattlesnakeEnv`: Gymnasium ``Env``, one learner against bots or policies
  (also registered as ``snakewar/Battlesnake-v0`` for ``gymnasium.make``).
* :func:`make_vector_env`: a ``SyncVectorEnv`` of :class:`BattlesnakeEnv`.
* :class:`SimVectorEnv`: a ``VectorEnv`` over the batched simulator
  (``snakewar.games.battlesnake.sim``): one learner per game against random safe snakes,
  all games stepped at once.
* :mod:`snakewar.games.battlesnake.rl.observation`: the board planes and action masks, pure numpy;
  :func:`encode_sim` the same planes for every game of a ``BatchSim`` at once.

All run the exact rules engine.  Install with ``pip install "snakewar[rl]"``.

>>> from snakewar.games.battlesnake.rl import BattlesnakeParallelEnv
>>> env = BattlesnakeParallelEnv(num_snakes=2)
>>> obs, infos = env.reset(seed=1)
>>> env.agents, obs["snake_0"]["observation"].shape
(['snake_0', 'snake_1'], (13, 11, 11))
"""

from __future__ import annotations

from snakewar.games.battlesnake.rl._errors import EnvConfigError, EnvStepError, MissingExtraError

try:
    import gymnasium
    import pettingzoo  # type: ignore[import-untyped]  # noqa: F401 - names the extra
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise MissingExtraError(
        f"snakewar.games.battlesnake.rl needs PettingZoo and Gymnasium ({exc.name} is missing): "
        'pip install "snakewar[rl]"'
    ) from exc

from snakewar.games.battlesnake.rl._common import Rewards
from snakewar.games.battlesnake.rl.observation import (
    ACTIONS,
    NUM_PLANES,
    ObservationSpec,
    Plane,
    action_mask,
    encode_board,
    encode_observation,
)
from snakewar.games.battlesnake.rl.parallel import BattlesnakeParallelEnv
from snakewar.games.battlesnake.rl.sim_observation import encode_sim, encode_sim_all
from snakewar.games.battlesnake.rl.sim_vector import SimVectorEnv
from snakewar.games.battlesnake.rl.single import BattlesnakeEnv, OpponentPolicy
from snakewar.games.battlesnake.rl.vector import make_vector_env

ENV_ID = "snakewar/Battlesnake-v0"
"""The Gymnasium id of :class:`BattlesnakeEnv`."""

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="snakewar.games.battlesnake.rl.single:BattlesnakeEnv")

__all__ = [
    "ACTIONS",
    "ENV_ID",
    "NUM_PLANES",
    "BattlesnakeEnv",
    "BattlesnakeParallelEnv",
    "EnvConfigError",
    "EnvStepError",
    "MissingExtraError",
    "ObservationSpec",
    "OpponentPolicy",
    "Plane",
    "Rewards",
    "SimVectorEnv",
    "action_mask",
    "encode_board",
    "encode_observation",
    "encode_sim",
    "encode_sim_all",
    "make_vector_env",
]
