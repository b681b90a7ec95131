"""A Gymnasium ``Env``: one learning snake against built-in bots or given policies."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from snakewar.games.battlesnake.bots import Bot, make_bot
from snakewar.games.battlesnake.rl._common import EnvSetup, Rewards
from snakewar.games.battlesnake.rl._errors import EnvConfigError, EnvStepError
from snakewar.games.battlesnake.rl.observation import ACTIONS, Float32Array
from snakewar.games.battlesnake.rules.ascii import render_board
from snakewar.games.battlesnake.rules.game import Game
from snakewar.games.battlesnake.rules.wire import GameInfo, MoveReply, SnakeRequest

__all__ = ["BattlesnakeEnv", "OpponentPolicy"]

OpponentPolicy = Callable[[SnakeRequest], "str | int | MoveReply"]
"""Plays an opponent: gets the API request its snake would get, returns a move
string, an action index (0 up, 1 down, 2 left, 3 right) or a ``MoveReply``."""

Opponent = str | Bot | OpponentPolicy


class BattlesnakeEnv(gymnasium.Env[npt.NDArray[Any], np.int64]):
    """Battlesnake for one learner (``snake_0``); the other snakes are opponents.

    Each opponent is a built-in bot spec (``"random"``, ``"greedy"``,
    ``"hunter?budget=50"``), a :class:`~snakewar.games.battlesnake.bots.Bot` or an
    :data:`OpponentPolicy` callable.  Opponents see what a snake server would: a
    :class:`~snakewar.games.battlesnake.rules.wire.SnakeRequest` whose board holds only
    the snakes still alive and whose game id derives from the game's seed, so
    built-in bots replay the same game from the same seed.

    Observation: ``float32`` [C, H, W] (see :mod:`snakewar.games.battlesnake.rl.observation`);
    ``info["action_mask"]`` is the ``int8`` [4] mask of moves that are not
    certainly fatal (pass it to ``action_space.sample(mask)``).  Action: 0 up,
    1 down, 2 left, 3 right.  The episode terminates when the learner is
    eliminated or the game ends, and is truncated when the turn reaches
    ``max_turns``.  Rewards as :class:`~snakewar.games.battlesnake.rl.BattlesnakeParallelEnv`'s for
    the learner: +1 win, -1 eliminated, 0 drawn end, 0 otherwise by default.

    Seeding: ``reset(seed=s)`` plays the game with seed ``s``; a reset without a
    seed draws the next game's seed from ``self.np_random``.

    Args:
        opponents: One spec for every opponent, or one per opponent
            (``num_snakes - 1`` of them).
        ruleset: A ruleset name.
        map: A map id.
        width: The board's width.
        height: The board's height.
        num_snakes: How many snakes play, the learner included.
        settings: Overrides of the CLI's default settings, by rules name.
        max_turns: Truncate when the turn reaches this; ``None``: never.
        rewards: The reward of each outcome.
        center: Centre the observation on the learner's head.
        grid_width: The observation's width (padding; see ``ObservationSpec``).
        grid_height: The observation's height.
        mask_fallback: When no move is safe, allow every move (all lose).
        render_mode: ``"ansi"`` or ``None``.

    Raises:
        EnvConfigError: for a bad option or opponent count.
        UnknownBotError: for an unknown built-in bot.
        RulesError: for an unknown ruleset or map, or a map that refuses the set-up.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 - Gymnasium's attribute

    def __init__(
        self,
        *,
        opponents: Opponent | Sequence[Opponent] = "random",
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
        self.agent = self.setup.ids[0]
        self.opponent_ids = self.setup.ids[1:]
        self._opponents = self._resolve(opponents)
        self.observation_space = self.setup.observation_box()
        self.action_space = spaces.Discrete(len(ACTIONS))
        self.game: Game | None = None
        self.game_seed = 0
        self._info: GameInfo | None = None
        self._done = True

    def _resolve(self, opponents: Opponent | Sequence[Opponent]) -> list[OpponentPolicy]:
        count = len(self.opponent_ids)
        if isinstance(opponents, str | Bot) or callable(opponents):
            chosen: list[Opponent] = [opponents] * count
        else:
            chosen = list(opponents)
            if len(chosen) != count:
                raise EnvConfigError(
                    f"opponents {opponents!r}: expected one spec or {count} "
                    f"(num_snakes - 1), got {len(chosen)}"
                )
        policies: list[OpponentPolicy] = []
        for item in chosen:
            if isinstance(item, str):
                policies.append(make_bot(item).move)
            elif isinstance(item, Bot):
                policies.append(item.move)
            elif callable(item):
                policies.append(item)
            else:
                raise EnvConfigError(
                    f"opponent {item!r}: expected a bot spec string, a Bot or a callable"
                )
        return policies

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Float32Array, dict[str, Any]]:
        """Start a new game; return the learner's observation and info."""
        super().reset(seed=seed)
        self.game_seed = self.setup.game_seed(seed, self.np_random)
        self.game = self.setup.new_game(self.game_seed)
        config = self.game.config
        self._info = GameInfo(
            id=f"snakewar-rl-{self.game_seed}",
            ruleset_name=config.ruleset,
            settings=config.settings,
            map=config.map,
        )
        self._done = self.game.is_over
        return self.setup.observe(self.game.state, self.agent), self._step_info()

    def step(
        self, action: np.int64 | int
    ) -> tuple[Float32Array, float, bool, bool, dict[str, Any]]:
        """Play one turn: the learner's ``action`` and the opponents' replies.

        Raises:
            EnvStepError: if the episode is over (call ``reset``) or the action is
                not 0..3.
        """
        game = self.game
        if game is None or self._done:
            raise EnvStepError("step on a finished or never-started episode: call reset() first")
        moves = {self.agent: self.setup.move_of(self.agent, action)}
        moves.update(self._opponent_moves(game))
        game.step(moves)
        outcome = self.setup.judge(game, [self.agent])
        terminated = outcome.terminated[self.agent]
        truncated = outcome.truncated[self.agent]
        self._done = terminated or truncated
        observation = self.setup.observe(game.state, self.agent)
        return observation, outcome.rewards[self.agent], terminated, truncated, self._step_info()

    def _opponent_moves(self, game: Game) -> dict[str, str]:
        state = game.state
        assert self._info is not None
        # Opponents see what the referee shows a snake: only the snakes alive.
        visible = state.replace(snakes=tuple(s for s in state.snakes if not s.eliminated_cause))
        moves: dict[str, str] = {}
        for sid, policy in zip(self.opponent_ids, self._opponents, strict=True):
            you = state.snake(sid)
            if you.eliminated_cause:
                continue
            reply = policy(SnakeRequest(self._info, state.turn, visible, you))
            if isinstance(reply, MoveReply):
                reply = reply.move
            if isinstance(reply, str):
                moves[sid] = reply  # the rules turn an invalid string into the default move
            else:
                moves[sid] = self.setup.move_of(sid, reply)
        return moves

    def _step_info(self) -> dict[str, Any]:
        assert self.game is not None
        state = self.game.state
        snake = state.snake(self.agent)
        return {
            "action_mask": self.setup.mask(state, self.agent),
            "turn": state.turn,
            "length": len(snake.body),
            "health": snake.health,
            "eliminated_cause": snake.eliminated_cause,
        }

    def render(self) -> str | None:
        """The board as text (``render_mode="ansi"``); ``None`` without a render mode."""
        if self.render_mode is None or self.game is None:
            return None
        return render_board(self.game.state)
