"""The classic game: the rules the 2017/18 Battlesnake server played, as ruleset ``classic``.

Every rule below was read from the public source of that server (Dkendal/battle_snake,
the ``lib/bs`` tree of 2018, which kept the 2017 ``lib/battle_snake`` rules); the file
each comes from is named.  Nothing was copied: this is a description of behaviour.

Settings (raw names as in :class:`~snakewar.games.battlesnake.rules.settings.Settings`, the
same names in the API and on the command line; the 2018 game form's fields, camelCased):

* ``maxFood`` (default 1): food items on the board (``max_food``, game_form.ex).
* ``snakeStartLength`` (default 3): segments at the start (``snake_start_length``).
* ``decHealthPoints`` (default 1): health lost per turn (``dec_health_points``).

The board is 20x20 unless a size is given (the form's default, game_form.ex).

The rules, one line each, with their source:

1. Setup: food first, then each snake on a random free square, all its segments
   stacked there, health 100 (world/factory.ex ``build``, world.ex ``stock_food``).
   Decision: snakes get *distinct* squares; the 2018 factory drew each square from
   the board as it was before any snake was placed, so two snakes could share one.
2. A turn: every snake moves (movement.ex), then deaths are judged (death.ex
   ``reap``), then health drops, snakes on food eat, and food is restocked
   (world.ex ``step``: ``dec_health_points``, ``grow_snakes``,
   ``remove_eaten_food``, ``stock_food``).
3. Deaths are judged together, on the snakes as they moved (death.ex ``reap``):
   starvation, walls and collisions are three independent checks of the same
   snakes, so a snake dying this turn (for any cause) is still an obstacle this
   turn.
4. Starvation: a snake whose health is 0 or less *before* this turn's loss dies
   (death.ex ``starvation`` runs before world.ex ``dec_health_points``): a snake
   that reaches 0 moves once more and is eliminated on the next turn, even onto food.
5. Walls: a head off the board dies (death.ex ``wall_collision``).
6. Bodies: a head on any segment but the head of any snake, its own included, dies
   (death.ex ``Collision``: ``head in tl(coords)``).
7. Head-on: a snake dies when another head is on its square and the other is at
   least as long (``length <= other length``): the longer survives, equal lengths
   both die (death.ex ``Collision``).
8. Health: survivors lose ``decHealthPoints`` (snake.ex ``dec_health_points``).
   Decision: health stops at 0 (2018 let it go negative; death at ``<= 0`` makes
   that invisible except in the number shown).
9. Eating happens after deaths, so food under a head-on collision that killed both
   snakes stays on the board; an eater gets health 100 and one more segment, the
   new tail on the old tail's square (world.ex ``grow_snakes``, snake.ex ``grow``).
10. Food is restocked at the end of every turn to ``maxFood`` items, each on a
    uniformly random square free of snakes and food (world.ex ``stock_food``,
    ``rand_unoccupied_space``), so every turn starts with ``maxFood`` items while
    the board has room.
11. The game ends when at most one snake is left, or none in a one-snake game
    (game/server.ex: ``multiplayer`` / ``singleplayer`` objectives).
12. A snake that gives no valid move keeps its direction, ``up`` when its segments
    are stacked (move.ex ``default_move``), which is Snakewar's default move too.

Elimination causes are Snakewar's names; a snake with several causes records the
first of: out of health, wall, its own body, another body (first snake in board
order), head-on (first snake in board order).  All randomness comes from the game's
seed: placement from ``get_rand(0)``, each turn's restock from ``get_rand(turn + 1)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from snakewar.errors import MapSetupError, SettingsError
from snakewar.games.battlesnake.rules.board import MutableBoard, MutableSnake, get_unoccupied_points
from snakewar.games.battlesnake.rules.rng import Rand, go_int
from snakewar.games.battlesnake.rules.settings import (
    DEC_HEALTH_POINTS,
    MAX_FOOD,
    SNAKE_START_LENGTH,
    Settings,
    go_atoi,
)
from snakewar.games.battlesnake.rules.types import SNAKE_MAX_HEALTH, Point, reduce_dataclass

__all__ = [
    "CLASSIC",
    "CLASSIC_DEFAULTS",
    "CLASSIC_SIZE",
    "DEC_HEALTH_POINTS",
    "MAX_FOOD",
    "SETTING_RANGES",
    "SNAKE_START_LENGTH",
    "ClassicSettings",
    "check_pairing",
    "default_board",
    "eliminate_snakes_classic",
    "place_classic",
    "reduce_health_classic",
    "restock_food_classic",
]

CLASSIC = "classic"
"""The ruleset's name, and the name of the map it plays on."""
CLASSIC_SIZE = 20
"""The board's width and height when none is given (the 2018 game form's default)."""

CLASSIC_DEFAULTS: Mapping[str, int] = {MAX_FOOD: 1, SNAKE_START_LENGTH: 3, DEC_HEALTH_POINTS: 1}
"""The 2018 game form's defaults."""

SETTING_RANGES: Mapping[str, tuple[int, int]] = {
    MAX_FOOD: (0, 10_000),
    SNAKE_START_LENGTH: (1, 1_000),
    DEC_HEALTH_POINTS: (0, SNAKE_MAX_HEALTH),
}
"""Each setting's allowed values.  The 2018 form's lower bounds; the upper bounds are
Snakewar's (more food than squares just fills the board; losing more than 100 health
a turn is the same as losing 100)."""


@dataclass(frozen=True, slots=True)
class ClassicSettings:
    """The classic settings of a game, checked."""

    max_food: int
    snake_start_length: int
    dec_health_points: int

    def __reduce__(self) -> tuple[type[Any], tuple[Any, ...]]:
        return reduce_dataclass(self)

    @classmethod
    def of(cls, settings: Settings) -> ClassicSettings:
        """Read and check the classic settings (missing ones take their defaults).

        Raises:
            SettingsError: a setting out of its range (or not an integer), named.
        """
        values: dict[str, int] = {}
        for key, default in CLASSIC_DEFAULTS.items():
            raw = settings.params.get(key)
            value = default if raw is None else go_atoi(raw)
            low, high = SETTING_RANGES[key]
            if value is None or not low <= value <= high:
                raise SettingsError(
                    f"setting {key!r}: expected an integer from {low} to {high}, got {raw!r}"
                )
            values[key] = value
        return cls(values[MAX_FOOD], values[SNAKE_START_LENGTH], values[DEC_HEALTH_POINTS])


def default_board(ruleset: str) -> tuple[str, int, int]:
    """The map, width and height a game of ``ruleset`` has when none is given.

    >>> default_board("classic"), default_board("standard")
    (('classic', 20, 20), ('standard', 11, 11))
    """
    if ruleset == CLASSIC:
        return CLASSIC, CLASSIC_SIZE, CLASSIC_SIZE
    return "standard", 11, 11


def check_pairing(ruleset: str, map_id: str) -> None:
    """Refuse the classic ruleset on another map, or the classic map under another ruleset.

    The classic map places snakes the 2018 way and leaves food to the ruleset; every
    other map spawns food itself, which would break the constant food count.

    Raises:
        MapSetupError: naming both.
    """
    if (ruleset == CLASSIC) != (map_id == CLASSIC):
        raise MapSetupError(
            f"ruleset {ruleset!r} with map {map_id!r}: the classic ruleset plays on the "
            "classic map only, and the classic map under the classic ruleset only"
        )


def _random_free(board: MutableBoard, rand: Rand) -> Point | None:
    """A uniformly random square free of food and alive snakes (x-major scan order)."""
    free = get_unoccupied_points(board, True)
    return free[rand.intn(len(free))] if free else None


def place_classic(board: MutableBoard, settings: Settings) -> None:
    """Set up a classic board: ``maxFood`` food, then every snake stacked on its own square.

    Raises:
        SettingsError: a classic setting out of range.
        MapSetupError: if the snakes do not fit.
    """
    classic = ClassicSettings.of(settings)
    rand = settings.get_rand(0)
    for _ in range(classic.max_food):
        p = _random_free(board, rand)
        if p is None:
            break
        board.food.append(p)
    for snake in board.snakes:
        snake.body = []  # not yet placed: its square is free for now
    for snake in board.snakes:
        p = _random_free(board, rand)
        if p is None:
            raise MapSetupError(
                f"not enough space to place snake: {len(board.snakes)} snakes and "
                f"{len(board.food)} food on a {board.width}x{board.height} board"
            )
        snake.body = [p] * classic.snake_start_length
        snake.health = SNAKE_MAX_HEALTH


# -- stages (registered in rules.py) --------------------------------------------------


def _is_initialization(board: MutableBoard, moves: object) -> bool:
    return board.turn <= 0 and not moves


def _classic_cause(
    s: MutableSnake, moved: list[MutableSnake], w: int, h: int
) -> tuple[str, str] | None:
    if s.health <= 0:
        return "out-of-health", ""
    head = s.body[0]
    if not (0 <= head.x < w and 0 <= head.y < h):
        return "wall-collision", ""
    if head in s.body[1:]:
        return "snake-self-collision", s.id
    for o in moved:
        if o is not s and head in o.body[1:]:
            return "snake-collision", o.id
    length = len(s.body)
    for o in moved:
        if o is not s and o.body[0] == head and length <= len(o.body):
            return "head-collision", o.id
    return None


def eliminate_snakes_classic(board: MutableBoard, settings: Settings, moves: object) -> bool:
    """Judge every moved snake at once: starvation, walls, bodies, head-on (rules 3-7)."""
    if _is_initialization(board, moves):
        return False
    moved = [s for s in board.snakes if not s.eliminated_cause and s.body]
    w, h = board.width, board.height
    deaths = [(s, _classic_cause(s, moved, w, h)) for s in moved]
    turn = go_int(board.turn + 1)
    for s, death in deaths:
        if death is not None:
            s.eliminate(death[0], death[1], turn)
    return False


def reduce_health_classic(board: MutableBoard, settings: Settings, moves: object) -> bool:
    """Survivors lose ``decHealthPoints``, down to 0 at most (rule 8)."""
    if _is_initialization(board, moves):
        return False
    loss = ClassicSettings.of(settings).dec_health_points
    for s in board.snakes:
        if not s.eliminated_cause:
            s.health = max(s.health - loss, 0)
    return False


def restock_food_classic(board: MutableBoard, settings: Settings, moves: object) -> bool:
    """Top the food up to ``maxFood`` on random free squares (rule 10).

    At the initialization call the map's setup has placed the food already; a board
    given without food (a puzzle) is restocked from the first turn on.
    """
    if _is_initialization(board, moves):
        return False
    missing = ClassicSettings.of(settings).max_food - len(board.food)
    if missing <= 0:
        return False
    rand = settings.get_rand(go_int(board.turn + 1))
    for _ in range(missing):
        p = _random_free(board, rand)
        if p is None:
            break
        board.food.append(p)
    return False
