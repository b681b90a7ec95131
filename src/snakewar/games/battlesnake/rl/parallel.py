"""A PettingZoo ``ParallelEnv``: every snake is an agent, all move at once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv  # type: ignore[import-untyped]

from snakewar.games.battlesnake.rl._common import EnvSetup, Rewards
from snakewar.games.battlesnake.rl._errors import EnvConfigError, EnvStepError
from snakewar.games.battlesnake.rules.ascii import render_board
from snakewar.games.battlesnake.rules.game import Game

__all__ = ["BattlesnakeParallelEnv", "ObsDict"]

ObsDict = dict[str, np.ndarray[Any, Any]]
"""One agent's observation: ``{"observation": float32 [C, H, W], "action_mask": int8 [4]}``."""


class BattlesnakeParallelEnv(ParallelEnv):  # type: ignore[misc]
    """Battlesnake for several learners, on the exact rules engine.

    Agents are ``snake_0 .. snake_{N-1}`` (the game's snake ids).  Each step takes
    an action (0 up, 1 down, 2 left, 3 right) from every agent in :attr:`agents`
    and plays one turn.  An agent leaves :attr:`agents` on the step it is
    eliminated (``terminated``), when the game ends (``terminated``) or when the
    turn reaches ``max_turns`` (``truncated``); that step still returns its last
    observation and reward.

    Observations follow PettingZoo's convention for masks: a ``Dict`` with
    ``"observation"`` (see :mod:`snakewar.games.battlesnake.rl.observation`) and ``"action_mask"``
    (``int8`` [4], 1 = the move is not certainly fatal).  Rewards (see
    :class:`~snakewar.games.battlesnake.rl.Rewards`): +1 to the last snake alive, -1 to an
    eliminated snake, 0 to the snakes that die together on the last turn of a
    drawn game, 0 otherwise.

    Seeding: ``reset(seed=s)`` plays the game with seed ``s`` (``Settings.seed``),
    so the start, the food and the hazards are the same every time; a reset
    without a seed draws the next game's seed from a generator seeded by the last
    given seed (or from the OS at first).

    Args:
        ruleset: A ruleset name (``standard``, ``royale``, ``wrapped`` ...).
        map: A map id (``standard``, ``arcade_maze`` ...).
        width: The board's width.
        height: The board's height.
        num_snakes: How many snakes (agents) play.
        settings: Overrides of the official CLI's default settings, by rules name
            (``{"minimumFood": 2, "damagePerTurn": 30}``).
        max_turns: Truncate the episode when the turn reaches this; ``None``: never.
        rewards: The reward of each outcome.
        center: Centre each observation on the agent's head.
        grid_width: The observation's width (padding; see ``ObservationSpec``).
        grid_height: The observation's height.
        mask_fallback: When no move is safe, mask every move as allowed (all lose),
            so masked samplers always have a choice; ``False`` gives all zeros.
        render_mode: ``"ansi"`` (``render()`` returns the board as text) or ``None``.

    Raises:
        EnvConfigError: for a bad option.
        RulesError: for an unknown ruleset or map, or a map that refuses the size
            or the snake count.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo's declared attribute
        "name": "snakewar_battlesnake_v0",
        "render_modes": ["ansi"],
        "render_fps": 4,
        "is_parallelizable": True,
    }

    def __init__(
        self,
        *,
        ruleset: str = "standard",
        map: str = "standard",
        width: int = 11,
        height: int = 11,
        num_snakes: int = 2,
        settings: Mapping[str, int | str] | None = None,
        max_turns: int | None = 500,
        rewards: Rewards | None = None,
        center: bool = False,
        grid_width: int | None = None,
        grid_height: int | None = None,
        mask_fallback: bool = True,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise EnvConfigError(f"render_mode {render_mode!r}: expected 'ansi' or None")
        self.setup = EnvSetup(
            ruleset=ruleset,
            map=map,
            width=width,
            height=height,
            num_snakes=num_snakes,
            settings=settings,
            max_turns=max_turns,
            rewards=rewards,
            center=center,
            grid_width=grid_width,
            grid_height=grid_height,
            mask_fallback=mask_fallback,
        )
        self.render_mode = render_mode
        self.possible_agents = list(self.setup.ids)
        self.agents: list[str] = []
        # One space object per agent, made once: PettingZoo seeds them separately.
        self._observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": self.setup.observation_box(),
                    "action_mask": spaces.Box(0, 1, (4,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self._action_spaces = {agent: spaces.Discrete(4) for agent in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self.game: Game | None = None
        self.game_seed = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same object every call)."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent``: ``Discrete(4)`` (up, down, left, right)."""
        return self._action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, ObsDict], dict[str, dict[str, Any]]]:
        """Start a new game; return every agent's observation and info."""
        if seed is not None or self._rng is None:
            self._rng, _ = seeding.np_random(seed)
        self.game_seed = self.setup.game_seed(seed, self._rng)
        self.game = self.setup.new_game(self.game_seed)
        alive = set(self.game.alive_ids())
        self.agents = [] if self.game.is_over else [a for a in self.possible_agents if a in alive]
        return (
            {agent: self._observe(agent) for agent in self.agents},
            {agent: self._info(agent) for agent in self.agents},
        )

    def step(
        self, actions: Mapping[str, int]
    ) -> tuple[
        dict[str, ObsDict],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Play one turn with an action from every agent still playing.

        Raises:
            EnvStepError: if the episode is over (call ``reset``), an agent has no
                action, or an action is not 0..3.
        """
        game = self.game
        if game is None or not self.agents:
            raise EnvStepError("step on a finished or never-started episode: call reset() first")
        live = list(self.agents)
        missing = [agent for agent in live if agent not in actions]
        if missing:
            raise EnvStepError(f"no action for {missing!r}: every agent in env.agents must act")
        moves = {agent: self.setup.move_of(agent, actions[agent]) for agent in live}
        game.step(moves)
        outcome = self.setup.judge(game, live)
        self.agents = [a for a in live if not (outcome.terminated[a] or outcome.truncated[a])]
        observations = {agent: self._observe(agent) for agent in live}
        infos = {agent: self._info(agent) for agent in live}
        return observations, outcome.rewards, outcome.terminated, outcome.truncated, infos

    def _observe(self, agent: str) -> ObsDict:
        assert self.game is not None
        state = self.game.state
        return {
            "observation": self.setup.observe(state, agent),
            "action_mask": self.setup.mask(state, agent),
        }

    def _info(self, agent: str) -> dict[str, Any]:
        assert self.game is not None
        snake = self.game.state.snake(agent)
        return {
            "turn": self.game.state.turn,
            "length": len(snake.body),
            "health": snake.health,
            "eliminated_cause": snake.eliminated_cause,
        }

    def render(self) -> str | None:
        """The board as text (``render_mode="ansi"``); ``None`` without a render mode."""
        if self.render_mode is None or self.game is None:
            return None
        return render_board(self.game.state)

    def close(self) -> None:
        """Nothing to release."""
