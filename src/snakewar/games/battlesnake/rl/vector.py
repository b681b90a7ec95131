"""A vectorised form of :class:`~snakewar.games.battlesnake.rl.BattlesnakeEnv`.

:func:`make_vector_env` steps ``n`` independent games one after another in this
process (Gymnasium's ``SyncVectorEnv``): simple, and as fast as the rules engine
is per game.  A faster vectorised environment backed by the batched numpy
simulator (``snakewar.games.battlesnake.sim``), with the same observation encoding, is planned.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from gymnasium.vector import AutoresetMode, SyncVectorEnv

from snakewar.games.battlesnake.rl._errors import EnvConfigError
from snakewar.games.battlesnake.rl.single import BattlesnakeEnv

__all__ = ["make_vector_env"]


def make_vector_env(
    num_envs: int, *, autoreset_mode: AutoresetMode = AutoresetMode.NEXT_STEP, **kwargs: Any
) -> SyncVectorEnv:
    """Return a ``SyncVectorEnv`` of ``num_envs`` :class:`BattlesnakeEnv` games.

    ``kwargs`` are :class:`BattlesnakeEnv`'s options.  ``reset(seed=s)`` seeds
    game ``i`` with ``s + i``.  Each info key (``action_mask`` included) comes
    back stacked, with Gymnasium's ``_key`` presence masks; with the default
    ``NEXT_STEP`` autoreset a finished game restarts on the following ``step``
    (whose action is ignored).

    >>> envs = make_vector_env(2, opponents="random")
    >>> obs, info = envs.reset(seed=7)
    >>> obs.shape, info["action_mask"].shape
    ((2, 13, 11, 11), (2, 4))

    Raises:
        EnvConfigError: if ``num_envs`` is not a positive integer, or as
            :class:`BattlesnakeEnv`.
    """
    if type(num_envs) is not int or num_envs < 1:
        raise EnvConfigError(f"num_envs {num_envs!r}: expected a positive integer")
    # Build one environment first so bad options fail here, with their own error.
    BattlesnakeEnv(**kwargs)
    return SyncVectorEnv(
        [partial(BattlesnakeEnv, **kwargs) for _ in range(num_envs)],
        autoreset_mode=autoreset_mode,
    )
