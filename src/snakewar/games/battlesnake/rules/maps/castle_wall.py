"""Castle wall maps: a hazard wall around the board, crossed by bridges (``castle_wall.go``).

The walls are static hazards; the squares next to each bridge are listed twice,
so they deal double damage.  Snakes start on fixed squares outside the wall.
From turn 10 on, food appears on fixed squares next to the bridges, up to a
maximum.

**The food order carries over from turn to turn.**  The reference keeps the food
candidates in a package-level list and shuffles that list *in place* with
``GetRand(T)`` on every turn that reaches the shuffle (turn 10 or later, fewer
than the maximum food on the board).  The order a turn starts from is therefore
the order every earlier shuffle of the same process left behind, and the
official CLI runs one game per process.  Which earlier turns shuffled depends on
how much food lay on the board on each of them, which a single board does not
tell, so:

* with a :class:`CastleWallFoodMemory` (one per game, passed to every
  :meth:`post_update_board` call of that game in turn order) the map tracks the
  list exactly as the reference does within one game;
* with :meth:`~GameMap.new_process_memory` the list starts in its declared
  order, as in a fresh process that runs only the updates given (how the
  reference ran each hand-made conformance state);
* without one, the map assumes that every turn from 10 up to the current one
  shuffled.  That is exact whenever the board never held the maximum food
  before (for example under constrictor, whose rules clear the food every turn)
  and otherwise a deterministic approximation.

Either way the map is pure: nothing is stored outside the memory object the
caller owns.
"""

from __future__ import annotations

from dataclasses import dataclass

from snakewar.errors import MapSetupError
from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.maps.base import (
    TAG_FOOD_PLACEMENT,
    TAG_HAZARD_PLACEMENT,
    TAG_SNAKE_PLACEMENT,
    BoardSizes,
    GameMap,
    MapMeta,
    check_size,
)
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import (
    SNAKE_MAX_HEALTH,
    SNAKE_START_SIZE,
    BoardView,
    Point,
)

__all__ = [
    "FIRST_FOOD_TURN",
    "CastleWallExtraLargeMap",
    "CastleWallFoodMemory",
    "CastleWallLargeMap",
    "CastleWallMap",
    "food_order",
]

FIRST_FOOD_TURN = 10
"""No food spawns (and no shuffle happens) before this turn."""


def _points(text: str) -> tuple[Point, ...]:
    """Parse ``"x,y x,y ..."`` into points, keeping the order."""
    return tuple(Point(*map(int, item.split(","))) for item in text.split())


# Layout data, in the reference's order (the hazard list and the food shuffle
# both depend on it).  Each hazard list is the wall followed by the squares
# beside the bridges, which are thus stacked twice.

_StartGroups = tuple[tuple[Point, ...], ...]

_MEDIUM_STARTS: _StartGroups = (_points("1,1 1,9 9,1 9,9"), _points("1,5 5,1 5,9 9,5"))
_MEDIUM_FOOD = _points("2,5 5,2 5,8 8,5")
_MEDIUM_HAZARDS = _points(
    "2,2 2,3 2,4 2,6 2,7 2,8 3,2 3,8 4,2 4,8 6,2 6,8 7,2 7,8 8,2 8,3 8,4 8,6 8,7 8,8"
) + _points("2,4 2,6 4,2 4,8 6,2 6,8 8,4 8,6")

_LARGE_STARTS: _StartGroups = (_points("1,1 1,17 17,1 17,17"), _points("1,9 9,1 9,17 17,9"))
_LARGE_FOOD = _points(
    "2,8 2,10 3,8 3,10 8,2 8,3 8,15 8,16 10,2 10,3 10,15 10,16 15,8 15,10 16,8 16,10"
)
_LARGE_HAZARDS = _points(
    "2,11 2,12 2,13 2,14 2,15 2,16 2,2 2,3 2,4 2,5 2,6 2,7 2,9 "
    "3,11 3,12 3,13 3,14 3,15 3,16 3,2 3,3 3,4 3,5 3,6 3,7 3,9 "
    "4,15 4,16 4,2 4,3 5,15 5,16 5,2 5,3 6,15 6,16 6,2 6,3 7,15 7,16 7,2 7,3 "
    "9,15 9,16 9,2 9,3 11,15 11,16 11,2 11,3 12,15 12,16 12,2 12,3 "
    "13,15 13,16 13,2 13,3 14,15 14,16 14,2 14,3 "
    "15,11 15,12 15,13 15,14 15,15 15,16 15,2 15,3 15,4 15,5 15,6 15,7 15,9 "
    "16,11 16,12 16,13 16,14 16,15 16,16 16,2 16,3 16,4 16,5 16,6 16,7 16,9"
) + _points(
    "2,7 2,9 2,11 3,7 3,9 3,11 7,2 7,3 7,15 7,16 9,2 9,3 9,15 9,16 "
    "11,2 11,3 11,15 11,16 15,7 15,9 15,11 16,7 16,9 16,11"
)

_XL_STARTS: _StartGroups = (
    _points("1,5 1,19 23,5 23,19"),
    _points("5,1 5,23 19,1 19,23"),
    _points("1,12 12,23 12,1 23,12"),
)
_XL_FOOD = _points(
    "3,8 3,12 3,16 4,8 4,12 4,16 8,3 8,4 8,20 8,21 12,3 12,4 12,20 12,21 "
    "16,3 16,4 16,20 16,21 20,8 20,12 20,16 21,8 21,12 21,16"
)
_XL_HAZARDS = _points(
    "3,10 3,11 3,13 3,14 3,15 3,17 3,18 3,19 3,20 3,21 3,3 3,4 3,5 3,6 3,7 3,9 "
    "4,10 4,11 4,13 4,14 4,15 4,17 4,18 4,19 4,20 4,21 4,3 4,4 4,5 4,6 4,7 4,9 "
    "5,20 5,21 5,3 5,4 6,20 6,21 6,3 6,4 7,20 7,21 7,3 7,4 9,20 9,21 9,3 9,4 "
    "10,20 10,21 10,3 10,4 11,20 11,21 11,3 11,4 13,20 13,21 13,3 13,4 "
    "14,20 14,21 14,3 14,4 15,20 15,21 15,3 15,4 17,20 17,21 17,3 17,4 "
    "18,20 18,21 18,3 18,4 19,20 19,21 19,3 19,4 "
    "20,10 20,11 20,13 20,14 20,15 20,17 20,18 20,19 20,20 20,21 20,3 20,4 20,5 20,6 20,7 20,9 "
    "21,10 21,11 21,13 21,14 21,15 21,17 21,18 21,19 21,20 21,21 21,3 21,4 21,5 21,6 21,7 21,9"
) + _points(
    "3,7 3,9 3,11 3,13 3,15 3,17 4,7 4,9 4,11 4,13 4,15 4,17 "
    "7,3 7,4 7,20 7,21 9,3 9,4 9,20 9,21 11,3 11,4 11,20 11,21 "
    "13,3 13,4 13,20 13,21 15,3 15,4 15,20 15,21 17,3 17,4 17,20 17,21 "
    "20,7 20,9 20,11 20,13 20,15 20,17 21,7 21,9 21,11 21,13 21,15 21,17"
)


@dataclass(slots=True)
class CastleWallFoodMemory:
    """One game's copy of the reference's package-level food candidate list.

    Create one per game (:meth:`CastleWallMap.new_memory`) and pass it to every
    :meth:`CastleWallMap.post_update_board` call of that game, in turn order.
    """

    order: list[Point] | None = None
    """The candidate order after the last update seen; ``None`` before the first."""
    turn: int = -1
    """The ``last.turn`` of the last update seen."""
    complete_history: bool = False
    """True when every update of the reference process comes to this memory (see
    :meth:`GameMap.new_process_memory`): the list starts in its declared order and
    turns not seen did not shuffle it."""


def food_order(settings: Settings, candidates: tuple[Point, ...], turns: range) -> list[Point]:
    """Return ``candidates`` after one in-place shuffle per turn in ``turns``.

    Each shuffle uses ``GetRand(t)`` for its turn ``t``, as the reference does.
    """
    order = list(candidates)
    for t in turns:
        settings.get_rand(t).shuffle_list(order)
    return order


class _CastleWall(GameMap):
    """Shared behaviour of the three castle wall maps."""

    start_groups: _StartGroups
    food_spots: tuple[Point, ...]
    hazards: tuple[Point, ...]
    max_food: int

    def new_memory(self) -> CastleWallFoodMemory:
        """Return a fresh per-game memory for :meth:`post_update_board`."""
        return CastleWallFoodMemory()

    def new_process_memory(self) -> CastleWallFoodMemory:
        """Return a memory holding the candidate list as a fresh reference process does."""
        return CastleWallFoodMemory(complete_history=True)

    def setup_board(self, board: MutableBoard, settings: Settings) -> None:
        """Place the snakes on shuffled fixed starts, then the walls.

        Four starts are used for up to 4 snakes, eight for 5 or more and, on the
        extra-large map, twelve for more than 8; they are shuffled with
        ``GetRand(0)`` and handed out in board order.

        Raises:
            MapSetupError: for an unsupported board size or too many snakes.
        """
        check_size(self.meta, board)
        n = len(board.snakes)
        # Like the reference, only the maximum is enforced (an empty board is fine).
        if n > self.meta.max_players:
            raise MapSetupError(
                f"map {self.meta.id!r} supports at most {self.meta.max_players} snakes, got {n}"
            )
        starts = list(self.start_groups[0])
        if n >= 5:
            starts.extend(self.start_groups[1])
        if n > 8 and len(self.start_groups) > 2:
            starts.extend(self.start_groups[2])
        settings.get_rand(0).shuffle_list(starts)
        for snake, head in zip(board.snakes, starts, strict=False):
            board.place_snake(snake.id, [head] * SNAKE_START_SIZE, SNAKE_MAX_HEALTH)
        for p in self.hazards:
            board.add_hazard(p)

    def update_board(
        self, last: BoardView, settings: Settings, edit: MutableBoard, memory: object | None
    ) -> None:
        """Run the update with this game's :class:`CastleWallFoodMemory`."""
        self.post_update_board(
            last, settings, edit, memory if isinstance(memory, CastleWallFoodMemory) else None
        )

    def post_update_board(
        self,
        last: BoardView,
        settings: Settings,
        edit: MutableBoard,
        memory: CastleWallFoodMemory | None = None,
    ) -> None:
        """From turn 10, add one food on a shuffled fixed spot unless the maximum is reached.

        The spot is the first candidate, in the carried-over shuffled order (see
        the module docstring), that no snake body covers (eliminated snakes
        included), that is not next to a snake's head, and that neither holds
        nor touches a food.  The maximum check is ``len(food) == max`` exactly,
        as in the reference, so a board given with more food still gets more.

        Args:
            last: the board after the rules, turn not yet incremented.
            settings: the game settings (only the seed is used).
            edit: the board to add the food to.
            memory: this game's food memory; without it, every turn from 10 on
                is assumed to have shuffled.
        """
        turn = last.turn
        shuffles = turn >= FIRST_FOOD_TURN and len(last.food) != self.max_food
        order = self._order_before(turn, settings, memory)
        if shuffles:
            settings.get_rand(turn).shuffle_list(order)
        if memory is not None:
            memory.order, memory.turn = order, turn
        if not shuffles:
            return
        blocked: set[tuple[int, int]] = set()
        for snake in last.snakes:
            blocked.update(snake.body)
            if snake.body:
                hx, hy = snake.body[0]
                blocked.update(((hx - 1, hy), (hx + 1, hy), (hx, hy - 1), (hx, hy + 1)))
        for fx, fy in last.food:
            blocked.update(((fx, fy), (fx - 1, fy), (fx + 1, fy), (fx, fy - 1), (fx, fy + 1)))
        for spot in order:
            if spot not in blocked:
                edit.add_food(spot)
                return

    def _order_before(
        self, turn: int, settings: Settings, memory: CastleWallFoodMemory | None
    ) -> list[Point]:
        """The candidate order as it stands before this turn's shuffle."""
        if memory is not None and memory.complete_history:
            return list(self.food_spots if memory.order is None else memory.order)
        if memory is None or memory.order is None or turn <= memory.turn:
            # No usable history: assume every earlier turn from 10 on shuffled.
            return food_order(settings, self.food_spots, range(FIRST_FOOD_TURN, turn))
        # Turns skipped since the last update seen are assumed to have shuffled.
        order = list(memory.order)
        for t in range(max(memory.turn + 1, FIRST_FOOD_TURN), turn):
            settings.get_rand(t).shuffle_list(order)
        return order


_TAGS = (TAG_FOOD_PLACEMENT, TAG_HAZARD_PLACEMENT, TAG_SNAKE_PLACEMENT)
_DESCRIPTION = "A hazard wall around the board with dangerous bridges; food spawns by the bridges."


class CastleWallMap(_CastleWall):
    """Castle wall on 11x11, up to 8 snakes, at most 2 food."""

    meta = MapMeta(
        id="hz_castle_wall",
        name="hz_castle_wall",
        description=_DESCRIPTION,
        author="bcambl",
        version=1,
        min_players=1,
        max_players=8,
        sizes=BoardSizes.fixed((11, 11)),
        tags=_TAGS,
    )
    start_groups = _MEDIUM_STARTS
    food_spots = _MEDIUM_FOOD
    hazards = _MEDIUM_HAZARDS
    max_food = 2


class CastleWallLargeMap(_CastleWall):
    """Castle wall on 19x19, up to 8 snakes, at most 2 food."""

    meta = MapMeta(
        id="hz_castle_wall_lg",
        name="hz_castle_wall_lg",
        description=_DESCRIPTION,
        author="bcambl",
        version=1,
        min_players=1,
        max_players=8,
        sizes=BoardSizes.fixed((19, 19)),
        tags=_TAGS,
    )
    start_groups = _LARGE_STARTS
    food_spots = _LARGE_FOOD
    hazards = _LARGE_HAZARDS
    max_food = 2


class CastleWallExtraLargeMap(_CastleWall):
    """Castle wall on 25x25, up to 12 snakes, at most 4 food."""

    meta = MapMeta(
        id="hz_castle_wall_xl",
        name="hz_castle_wall_xl",
        description=_DESCRIPTION,
        author="bcambl",
        version=1,
        min_players=1,
        max_players=12,
        sizes=BoardSizes.fixed((25, 25)),
        tags=_TAGS,
    )
    start_groups = _XL_STARTS
    food_spots = _XL_FOOD
    hazards = _XL_HAZARDS
    max_food = 4


MAPS: tuple[GameMap, ...] = (CastleWallMap(), CastleWallLargeMap(), CastleWallExtraLargeMap())
