"""A vectorised single-agent environment over the batched simulator.

:class:`SimVectorEnv` is a Gymnasium ``VectorEnv`` of ``num_envs`` games stepped
together by :class:`snakewar.games.battlesnake.sim.BatchSim`.  The learner is ``snake_0`` in every
game; the other snakes play a uniformly random safe move (the simulator's own
vectorised policy, so opponents cost no Python per game).  Observations are the
same board planes as :class:`~snakewar.games.battlesnake.rl.BattlesnakeEnv`'s
(:func:`~snakewar.games.battlesnake.rl.observation.encode_observation`), and ``info["action_mask"]``
the simulator's safe-move mask for the learner.

An episode ends when the game ends, when the learner is eliminated (the game is
then restarted at once, even if others still play), or at ``max_turns``
(truncated).  Reset happens in the same step (``AutoresetMode.SAME_STEP``): the
returned observation is the new episode's first one, and
``info["final_obs"]``/``info["_final_obs"]`` hold the finished episodes' last ones.

Stepping is batched, and so is encoding:
:func:`~snakewar.games.battlesnake.rl.sim_observation.encode_sim` reads the planes straight
from the simulator's arrays, equal to the per-game encoder's.  ``batched_obs=False`` encodes
each game through its
:class:`~snakewar.games.battlesnake.BoardState` instead (about 0.1 ms per game:
the reference the batched planes are tested against).  With
``randomness="go"`` every game is exactly the rules engine's game for its seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from snakewar.games.battlesnake.rl._common import Rewards
from snakewar.games.battlesnake.rl._errors import EnvConfigError, EnvStepError
from snakewar.games.battlesnake.rl.observation import (
    ObservationSpec,
    encode_observation,
    is_wrapped_ruleset,
    observation_bounds,
)
from snakewar.games.battlesnake.rl.sim_observation import encode_sim
from snakewar.games.battlesnake.rules.settings import CLI_DEFAULTS, Settings
from snakewar.games.battlesnake.sim import BatchSim

__all__ = ["SimVectorEnv"]


class SimVectorEnv(VectorEnv[npt.NDArray[np.float32], npt.NDArray[np.int64], npt.NDArray[Any]]):
    """``num_envs`` single-agent games stepped at once by the batched simulator.

    ``batched_obs=False`` encodes the observations game by game through
    ``BoardState`` (the reference, much slower) instead of from the simulator's arrays.

    >>> envs = SimVectorEnv(4, num_snakes=2)
    >>> obs, info = envs.reset(seed=1)
    >>> obs.shape, info["action_mask"].shape
    ((4, 13, 11, 11), (4, 4))
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012 - Gymnasium's API

    def __init__(
        self,
        num_envs: int,
        *,
        width: int = 11,
        height: int = 11,
        num_snakes: int = 4,
        ruleset: str = "standard",
        map: str = "standard",
        settings: dict[str, int | str] | None = None,
        randomness: str = "go",
        max_turns: int = 500,
        rewards: Rewards | None = None,
        batched_obs: bool = True,
    ) -> None:
        if type(num_envs) is not int or num_envs < 1:
            raise EnvConfigError(f"num_envs {num_envs!r}: expected a positive integer")
        if type(max_turns) is not int or max_turns < 1:
            raise EnvConfigError(f"max_turns {max_turns!r}: expected a positive integer")
        params = dict(CLI_DEFAULTS)
        params.update({k: str(v) for k, v in (settings or {}).items()})
        self.params = params
        self.num_envs = num_envs
        self.max_turns = max_turns
        self.rewards = rewards or Rewards()
        self.batched_obs = batched_obs
        self.spec_obs = ObservationSpec(width, height, is_wrapped_ruleset(ruleset))
        self._options = (width, height, num_snakes, ruleset, map, randomness)
        try:
            self.sim = self._new_sim(list(range(1, num_envs + 1)))
        except ValueError as exc:  # the simulator's own checks name the bad option
            raise EnvConfigError(str(exc)) from None
        low, high = observation_bounds(self.spec_obs.shape)
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(4)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._rng = np.random.default_rng(0)
        self._learner = self.sim.ids[0]

    def _new_sim(self, seeds: list[int]) -> BatchSim:
        width, height, snakes, ruleset, map_id, randomness = self._options
        return BatchSim(
            len(seeds),
            width,
            height,
            snakes,
            ruleset,
            map_id,
            settings=[Settings(self.params, s) for s in seeds],
            seeds=seeds,
            randomness=randomness,
            # The env restarts finished games itself, with the ones it ends early.
            auto_reset=False,
            ids=[f"snake_{i}" for i in range(snakes)],
        )

    def _observe(self, games: list[int] | None = None) -> npt.NDArray[np.float32]:
        """The learner's observations in ``games`` (all by default)."""
        if self.batched_obs:
            return encode_sim(self.sim, self.spec_obs, 0, games)
        states = self.sim.to_states(games)
        return np.stack([encode_observation(st, self._learner, self.spec_obs) for st in states])

    def _mask(self) -> npt.NDArray[np.int8]:
        mask = self.sim.safe_action_mask()[:, 0, :].astype(np.int8)
        # No safe move: every move is allowed, so masked samplers never see all zeros.
        mask[mask.sum(axis=1) == 0] = 1
        return mask

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Start every game again; game ``i`` gets seed ``seed + i`` (or ``seed[i]``)."""
        if seed is None:
            seeds = [int(x) for x in self._rng.integers(1, 2**62, self.num_envs)]
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            seeds = [int(s) for s in seed]
        self._rng = np.random.default_rng(seeds[0])
        self.sim = self._new_sim(seeds)
        return self._observe(), {"action_mask": self._mask()}

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        """Play the learner's ``actions[num_envs]`` (0 up, 1 down, 2 left, 3 right)."""
        chosen = np.asarray(actions)
        if chosen.shape != (self.num_envs,) or not np.isin(chosen, (0, 1, 2, 3)).all():
            raise EnvStepError(
                f"actions {chosen.tolist()!r}: expected {self.num_envs} moves in 0..3"
            )
        sim = self.sim
        joint = sim.random_safe_actions(self._rng)
        joint[:, 0] = chosen
        result = sim.step(joint)
        r = self.rewards
        reward = np.full(self.num_envs, r.survive, dtype=np.float32)
        terminated = result.done.copy()
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        done = np.flatnonzero(result.done)
        reward[done] = np.where(
            result.rewards[done, 0] > 0,
            r.win,
            np.where(result.winner[done] >= 0, r.loss, r.draw),
        ).astype(np.float32)
        # The learner is out but others play on: the episode ends here.
        learner_out = (sim.cause[:, 0] != 0) & ~result.done
        truncate = (sim.turn >= self.max_turns) & ~result.done & ~learner_out
        reward[learner_out] = r.loss
        terminated |= learner_out
        truncated |= truncate
        ended = np.flatnonzero(terminated | truncated)
        final_obs = None
        if ended.size:
            # The simulator does not reset by itself: the last observations are
            # read from its arrays before the new games replace them.
            final_obs = np.zeros((self.num_envs, *self.spec_obs.shape), dtype=np.float32)
            final_obs[ended] = self._observe(ended.tolist())
            # Finished games first, then the ones ended early: the order (and so the
            # fast randomness) of a simulator that resets finished games by itself.
            sim.restart(done.tolist())
            sim.restart(np.flatnonzero(learner_out | truncate).tolist())
        info: dict[str, Any] = {"action_mask": self._mask(), "turn": sim.turn.copy()}
        if final_obs is not None:
            info["final_obs"] = final_obs
            info["_final_obs"] = terminated | truncated
        return self._observe(), reward, terminated, truncated, info
