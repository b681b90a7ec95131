"""What the environments share: the game set-up, seeding, rewards and spaces."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from snakewar.games.battlesnake.rl._errors import EnvConfigError, EnvStepError
from snakewar.games.battlesnake.rl.observation import (
    ACTIONS,
    Float32Array,
    Int8Array,
    ObservationSpec,
    action_mask,
    encode_observation,
    hazard_damage_of,
    is_wrapped_ruleset,
    observation_bounds,
)
from snakewar.games.battlesnake.rules.game import Game, GameConfig
from snakewar.games.battlesnake.rules.settings import CLI_DEFAULTS, Settings
from snakewar.games.battlesnake.rules.types import BoardState

__all__ = ["EnvSetup", "Outcome", "Rewards", "agent_ids"]

_INT63 = 1 << 63


@dataclass(frozen=True, slots=True)
class Rewards:
    """The reward of each outcome, per snake.

    Attributes:
        win: The game ended with this snake the only one alive.
        loss: This snake was eliminated (or, alone, died).
        draw: This snake was eliminated on the turn the last snakes all died (no
            winner), instead of ``loss``.
        survive: Every turn this snake lives through without the game ending,
            including a turn cut by ``max_turns``.
    """

    win: float = 1.0
    loss: float = -1.0
    draw: float = 0.0
    survive: float = 0.0


def agent_ids(num_snakes: int) -> list[str]:
    """The agent (and snake) ids ``snake_0 .. snake_{n-1}``."""
    return [f"snake_{i}" for i in range(num_snakes)]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one turn meant for the snakes that played it."""

    rewards: dict[str, float]
    terminated: dict[str, bool]
    truncated: dict[str, bool]


class EnvSetup:
    """The validated options of an environment and what derives from them."""

    def __init__(
        self,
        *,
        ruleset: str,
        map: str,
        width: int,
        height: int,
        num_snakes: int,
        settings: Mapping[str, int | str] | None,
        max_turns: int | None,
        rewards: Rewards | None,
        center: bool,
        grid_width: int | None,
        grid_height: int | None,
        mask_fallback: bool,
    ) -> None:
        if type(num_snakes) is not int or num_snakes < 1:
            raise EnvConfigError(f"num_snakes {num_snakes!r}: expected a positive integer")
        if max_turns is not None and (type(max_turns) is not int or max_turns < 1):
            raise EnvConfigError(f"max_turns {max_turns!r}: expected a positive integer or None")
        params = dict(CLI_DEFAULTS)
        for key, value in (settings or {}).items():
            if not isinstance(value, int | str):
                raise EnvConfigError(
                    f"setting {key!r}={value!r}: expected a name and an integer or string"
                )
            params[key] = str(value)
        self.ruleset = ruleset
        self.map = map
        self.width = width
        self.height = height
        self.params = params
        self.max_turns = max_turns
        self.rewards = rewards or Rewards()
        self.mask_fallback = mask_fallback
        self.ids = agent_ids(num_snakes)
        self.wrapped = is_wrapped_ruleset(ruleset)
        self.hazard_damage = hazard_damage_of(ruleset, Settings(params))
        self.spec = ObservationSpec(width, height, self.wrapped, center, grid_width, grid_height)
        # Set one game up now so a bad ruleset, map, size or snake count fails here,
        # not at the first reset.
        self.new_game(1)
        low, high = observation_bounds(self.spec.shape)
        self.low, self.high = low, high

    def config(self, game_seed: int) -> GameConfig:
        """The game's configuration with ``game_seed``."""
        settings = Settings(self.params, game_seed)
        return GameConfig(self.ruleset, self.map, self.width, self.height, settings)

    def new_game(self, game_seed: int) -> Game:
        """Set up a new game."""
        return Game(self.config(game_seed), self.ids)

    def observation_box(self) -> spaces.Box:
        """A new observation space for one snake."""
        return spaces.Box(self.low, self.high, dtype=np.float32)

    def observe(self, state: BoardState, snake_id: str) -> Float32Array:
        """The observation of ``snake_id``."""
        return encode_observation(state, snake_id, self.spec)

    def mask(self, state: BoardState, snake_id: str) -> Int8Array:
        """The action mask of ``snake_id``.

        With ``mask_fallback``, an alive snake with no safe move may make any move
        (all lose); a dead snake's mask stays all zeros.
        """
        mask = action_mask(state, snake_id, wrapped=self.wrapped, hazard_damage=self.hazard_damage)
        if self.mask_fallback and not mask.any() and not state.snake(snake_id).eliminated_cause:
            mask[:] = 1
        return mask

    def game_seed(self, seed: int | None, rng: np.random.Generator) -> int:
        """The game seed of a reset: ``seed`` itself, else drawn from ``rng``."""
        if seed is not None:
            return int(seed) % _INT63
        return int(rng.integers(1, _INT63 - 1))

    def move_of(self, agent: str, action: object) -> str:
        """The move string of an action index.

        Raises:
            EnvStepError: if ``action`` is not 0..3.
        """
        try:
            index = int(action)  # type: ignore[call-overload]
        except (TypeError, ValueError):
            index = -1
        if not 0 <= index < len(ACTIONS) or index != action:
            raise EnvStepError(
                f"action {action!r} for {agent!r}: expected 0..3 (up, down, left, right)"
            )
        return ACTIONS[index]

    def judge(self, game: Game, live: Sequence[str]) -> Outcome:
        """Rewards, terminations and truncations of ``live`` after a turn of ``game``."""
        state = game.state
        over = game.is_over
        cut = not over and self.max_turns is not None and state.turn >= self.max_turns
        result = game.result() if over else None
        rewards: dict[str, float] = {}
        terminated: dict[str, bool] = {}
        truncated: dict[str, bool] = {}
        for agent in live:
            dead = bool(state.snake(agent).eliminated_cause)
            if dead:
                draw = result is not None and result.is_draw
                rewards[agent] = self.rewards.draw if draw else self.rewards.loss
            elif result is not None:
                rewards[agent] = self.rewards.win if result.winner == agent else 0.0
            else:
                rewards[agent] = self.rewards.survive
            terminated[agent] = dead or over
            truncated[agent] = cut and not dead
        return Outcome(rewards, terminated, truncated)
