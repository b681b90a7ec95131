"""The game driver: one game, run the way the official CLI runs it.

1. The map sets up the board (``GetRand(0)`` for placement and setup food).
2. The ruleset runs once with no moves: the *initialization call*.  Its result is
   the turn-0 state (constrictor removes the setup food here).  If it already
   reports game over, no turn is played.
3. Each turn: the map's pre-update (a no-op for every reference map), the moves,
   ``Ruleset.execute`` (which never changes the turn), the map's post-update
   (which sees the pre-increment turn), then ``turn + 1``.

:class:`Game` holds one running game and is what the referee, the simulator's
tests and :func:`run_game` use.  Unlike the CLI it knows that a game is over
*before* asking the snakes for moves (:attr:`Game.is_over`), so no ``/move`` round
is wasted; :meth:`Game.step` on a finished game still behaves like the reference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from snakewar.errors import InvalidStateError, choices_text
from snakewar.games.battlesnake.board import MutableBoard, initialize_snakes
from snakewar.games.battlesnake.classic import check_pairing
from snakewar.games.battlesnake.maps import GameMap, get_map
from snakewar.games.battlesnake.rules import (
    STAGES,
    Moves,
    Ruleset,
    named_ruleset,
    normalize_moves,
)
from snakewar.games.battlesnake.settings import Settings
from snakewar.games.battlesnake.types import BoardState, reduce_dataclass

__all__ = ["Game", "GameConfig", "GameResult", "TurnResult", "run_game", "setup_board"]


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything that defines a game except the snakes.

    ``solo=None`` applies the CLI's rule: solo game-over when fewer than two snakes
    play.  The seed lives in ``settings``.

    >>> GameConfig(ruleset="royale", settings=Settings.defaults(seed=42)).map
    'standard'
    """

    ruleset: str = "standard"
    map: str = "standard"
    width: int = 11
    height: int = 11
    settings: Settings = field(default_factory=Settings.defaults)
    solo: bool | None = None

    def __reduce__(self) -> tuple[type[Any], tuple[Any, ...]]:
        return reduce_dataclass(self)

    @property
    def seed(self) -> int:
        """The game's seed."""
        return self.settings.seed

    def make_ruleset(self, num_snakes: int) -> Ruleset:
        """Return the ruleset for ``num_snakes`` snakes.

        Raises:
            UnknownRulesetError: if the ruleset name is not registered.
        """
        solo = self.solo if self.solo is not None else num_snakes < 2
        return named_ruleset(self.ruleset, self.settings, solo=solo)


def setup_board(
    map_id: str | GameMap, settings: Settings, width: int, height: int, snake_ids: Sequence[str]
) -> BoardState:
    """Set up a new board with a map (the reference's ``maps.SetupBoard``).

    Raises:
        UnknownMapError: if ``map_id`` is not registered.
        MapSetupError: if the map refuses the size or snake count, or the snakes
            and food do not fit.
        InvalidStateError: if the snake ids are empty or repeated.
    """
    game_map = get_map(map_id) if isinstance(map_id, str) else map_id
    if len(set(snake_ids)) != len(snake_ids) or not all(snake_ids):
        raise InvalidStateError(f"snake ids must be unique and non-empty, got {list(snake_ids)!r}")
    board = MutableBoard(0, width, height)
    BoardState(0, width, height).validate()
    initialize_snakes(board, snake_ids)
    game_map.setup_board(board, settings)
    return board.freeze()


@dataclass(frozen=True, slots=True)
class TurnResult:
    """What one call of :meth:`Game.step` did.

    ``after_rules`` is the ruleset's result (turn not incremented); ``after`` is the
    next turn's state (map updated, turn + 1), or ``None`` when the game was over.
    """

    turn: int
    before: BoardState
    moves: tuple[tuple[str, str], ...]
    game_over: bool
    after_rules: BoardState
    after: BoardState | None

    def __reduce__(self) -> tuple[type[Any], tuple[Any, ...]]:
        return reduce_dataclass(self)


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended.

    ``winner`` is the one snake left alive, if exactly one is; ``is_draw`` is true
    when more than one snake played and none is left (the CLI's rules).
    ``reason`` is ``"game_over"`` or ``"max_turns"``.
    """

    winner: str | None
    is_draw: bool
    turns: int
    final_state: BoardState
    reason: str = "game_over"

    def __reduce__(self) -> tuple[type[Any], tuple[Any, ...]]:
        return reduce_dataclass(self)

    @classmethod
    def from_state(cls, state: BoardState, reason: str = "game_over") -> GameResult:
        """Judge ``state`` as the final state."""
        alive = [s.id for s in state.snakes if not s.eliminated_cause]
        winner = alive[0] if len(alive) == 1 else None
        is_draw = not alive and len(state.snakes) > 1
        return cls(winner, is_draw, state.turn, state, reason)


class Game:
    """One game in progress.

    >>> game = Game(GameConfig(settings=Settings.defaults(seed=3)), ["a", "b"])
    >>> game.state.turn, game.is_over
    (0, False)
    >>> game.step({"a": "up", "b": "down"}).after.turn
    1
    """

    def __init__(
        self,
        config: GameConfig,
        snake_ids: Sequence[str],
        initial_state: BoardState | None = None,
    ) -> None:
        """Set up the board and run the initialization call.

        ``initial_state`` skips the map's setup and starts from a given board, e.g. a
        scenario or a puzzle.  At turn 0 it still goes through the initialization
        call; a later turn is taken as it is.

        Raises:
            UnknownRulesetError, UnknownMapError: for unknown names.
            MapSetupError: if the map cannot set up this game, or the classic
                ruleset and map are not used together.
            InvalidStateError: if ``initial_state`` is invalid.
            StepError: if the initialization call fails.
        """
        check_pairing(config.ruleset, config.map)
        self.config = config
        self.map: GameMap = get_map(config.map)
        if initial_state is None:
            self.setup_state = setup_board(
                self.map, config.settings, config.width, config.height, snake_ids
            )
        else:
            initial_state.validate()
            self.setup_state = initial_state
        self.ruleset: Ruleset = config.make_ruleset(len(self.setup_state.snakes))
        if self.setup_state.turn > 0:
            # A game resumed mid-way (a puzzle, a tester position): the initialization
            # call belongs to turn 0 only; run there, it would play a move-less turn.
            self.state = self.setup_state
            self._over = False
        else:
            over, self.state = self.ruleset.execute(self.setup_state, ())
            self._over = over
        self._map_memory = self.map.new_memory()
        # Every reference map's pre-update is a no-op; skip its copies when not overridden.
        self._has_pre_update = type(self.map).pre_update_board is not GameMap.pre_update_board

    def __reduce__(self) -> tuple[object, ...]:
        # Pickle and copy through __init__ (a mypyc-compiled class has no bare
        # instances): set up again from the setup state, then restore the game's place.
        return (
            _restore_game,
            (self.config, self.setup_state, self.state, self._over, self._map_memory),
        )

    @property
    def is_over(self) -> bool:
        """True once the game-over rule holds for the current state."""
        if not self._over:
            board = MutableBoard.from_state(self.state)
            self._over = STAGES[self.ruleset.stages[0]](board, self.ruleset.settings, ())
        return self._over

    def alive_ids(self) -> list[str]:
        """The ids of the snakes still alive, in board order (those asked for moves)."""
        return [s.id for s in self.state.snakes if not s.eliminated_cause]

    def step(self, moves: Moves) -> TurnResult:
        """Play one turn with ``moves`` (``{id: move}`` or ``(id, move)`` pairs).

        Raises:
            InvalidStateError: a move names an unknown snake.
            StepError: the reference's ``Execute`` errors (e.g. a missing move).
            MapSetupError: a map cannot continue.
        """
        pairs = normalize_moves(moves)
        last = self.state
        known = {s.id for s in last.snakes}
        for sid, _ in pairs:
            if sid not in known:
                raise InvalidStateError(
                    f"move for unknown snake id {sid!r} "
                    f"(snakes in this game: {choices_text(sorted(known))})"
                )
        game_map = self.map
        settings = self.config.settings
        if self._has_pre_update:
            pre = MutableBoard.from_state(last)
            game_map.pre_update_board(last, settings, pre)
            before = pre.freeze()
        else:
            before = last
        board = MutableBoard.from_state(before)
        over = self.ruleset.execute_in_place(board, pairs)
        after_rules = board.freeze()
        if over:
            self._over = True
            return TurnResult(last.turn, before, tuple(pairs), True, after_rules, None)
        # The map reads the frozen ``after_rules`` and writes to ``board``, which no
        # longer shares anything with it: the reference's lastBoardState/Editor split.
        game_map.update_board(after_rules, settings, board, self._map_memory)
        board.turn += 1
        after = board.freeze()
        self.state = after
        self._over = False
        return TurnResult(last.turn, before, tuple(pairs), False, after_rules, after)

    def result(self, reason: str = "game_over") -> GameResult:
        """Judge the current state (see :class:`GameResult`)."""
        return GameResult.from_state(self.state, reason)


def _restore_game(
    config: GameConfig, setup: BoardState, state: BoardState, over: bool, memory: object | None
) -> Game:
    game = Game(config, [s.id for s in setup.snakes], setup)
    game.state, game._over, game._map_memory = state, over, memory
    return game


MovePolicy = Callable[[BoardState], Moves]
"""Chooses the moves of every alive snake for a state."""


def run_game(
    config: GameConfig,
    snake_ids: Sequence[str],
    choose_moves: MovePolicy,
    *,
    max_turns: int | None = None,
    on_turn: Callable[[TurnResult], None] | None = None,
) -> GameResult:
    """Play a whole game, asking ``choose_moves`` for every turn's moves.

    >>> from snakewar.games.battlesnake.game import run_game
    >>> result = run_game(GameConfig(settings=Settings.defaults(seed=1)), ["a"],
    ...                   lambda state: {"a": "up"})
    >>> result.turns
    9

    Raises:
        RulesError: as :class:`Game` and :meth:`Game.step`.
    """
    game = Game(config, snake_ids)
    while not game.is_over:
        if max_turns is not None and game.state.turn >= max_turns:
            return game.result("max_turns")
        turn = game.step(choose_moves(game.state))
        if on_turn is not None:
            on_turn(turn)
    return game.result()
