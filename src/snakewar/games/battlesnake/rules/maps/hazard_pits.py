"""The hz_hazard_pits map: a grid of pits that fill with hazard layers in cycles."""

from __future__ import annotations

from snakewar.games.battlesnake.rules.board import MutableBoard, place_food_fixed
from snakewar.games.battlesnake.rules.maps.base import (
    TAG_FOOD_PLACEMENT,
    TAG_HAZARD_PLACEMENT,
    TAG_SNAKE_PLACEMENT,
    BoardSizes,
    GameMap,
    MapMeta,
    check_players,
    check_size,
    spawn_food_standard,
)
from snakewar.games.battlesnake.rules.settings import SHRINK_EVERY_N_TURNS, Settings
from snakewar.games.battlesnake.rules.types import (
    SNAKE_MAX_HEALTH,
    SNAKE_START_SIZE,
    BoardView,
    Point,
)

__all__ = ["HazardPitsMap", "pit_squares"]

# The four start squares, in the order the shuffle starts from.  The reference
# shuffles a package-level list in place; every recorded game runs in a fresh
# process, so shuffling a fresh copy per setup reproduces it (and stays pure).
_STARTS: tuple[Point, ...] = (Point(1, 1), Point(9, 1), Point(1, 9), Point(9, 9))
_MAX_LAYERS = 4
_CYCLE = 7


def pit_squares(width: int, height: int) -> list[Point]:
    """Every (odd x, odd y) square except the start squares, x-major then y."""
    starts = set(_STARTS)
    return [
        Point(x, y) for x in range(1, width, 2) for y in range(1, height, 2) if (x, y) not in starts
    ]


def _go_quo(a: int, b: int) -> int:
    # Go's integer division truncates toward zero.
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _go_rem(a: int, b: int) -> int:
    # Go's remainder takes the sign of the dividend.
    return a - b * _go_quo(a, b)


class HazardPitsMap(GameMap):
    """Fixed corner starts and a grid of pits whose hazard depth cycles.

    Snakes start on (1,1), (9,1), (1,9), (9,9), shuffled with ``GetRand(0)``;
    setup food is the standard diagonal-plus-centre placement drawn from the same
    stream.  Each turn spawns standard food.  When ``T % N == 0`` (``T`` the
    pre-increment turn, ``N`` = ``shrinkEveryNTurns``) the hazards are replaced by
    ``min((T // N) % 7, 4)`` stacked copies of every (odd, odd) square other than
    the starts: the depth cycles 0, 1, 2, 3, 4, 4, 4.

    A negative ``N`` behaves as in the reference (Go arithmetic): the hazards are
    cleared at multiples of ``|N|`` and no pits ever fill.

    Deviation: the reference divides by ``N`` unguarded and panics when the
    setting is 0 or missing (its code default is 0).  Snakewar treats ``N == 0``
    as "pits off": food still spawns and the hazards are left alone.  That is the
    meaning 0 has for healing_pools' period, it invents no period the game did not
    ask for, and it is what the reference effectively does for negative ``N``.
    """

    meta = MapMeta(
        id="hz_hazard_pits",
        name="hz_hazard_pits",
        description="A grid of pits fills with up to 4 hazard layers every N turns, then drains.",
        author="Battlesnake",
        version=1,
        min_players=0,
        max_players=len(_STARTS),
        sizes=BoardSizes.fixed((11, 11)),
        tags=(TAG_FOOD_PLACEMENT, TAG_HAZARD_PLACEMENT, TAG_SNAKE_PLACEMENT),
    )

    def setup_board(self, board: MutableBoard, settings: Settings) -> None:
        """Place the snakes on the shuffled corner starts, then the setup food.

        Raises:
            MapSetupError: if the board is not 11x11, there are more than 4 snakes,
                or the food does not fit.
        """
        check_size(self.meta, board)
        check_players(self.meta, board)
        rand = settings.get_rand(0)
        starts = list(_STARTS)
        rand.shuffle_list(starts)
        temp = MutableBoard(0, board.width, board.height)
        for snake, head in zip(board.snakes, starts, strict=False):
            temp.place_snake(snake.id, [head] * SNAKE_START_SIZE, SNAKE_MAX_HEALTH)
        place_food_fixed(rand, temp)
        for food in temp.food:
            board.add_food(food)
        for snake in temp.snakes:
            board.place_snake(snake.id, snake.body, snake.health)

    def post_update_board(self, last: BoardView, settings: Settings, edit: MutableBoard) -> None:
        """Spawn food, then refill the pits on every N-th turn."""
        spawn_food_standard(last, settings, edit)
        period = settings.get_int(SHRINK_EVERY_N_TURNS, 0)
        if period == 0:
            return
        turn = last.turn
        if _go_rem(turn, period) != 0:
            return
        layers = min(_go_rem(_go_quo(turn, period), _CYCLE), _MAX_LAYERS)
        edit.clear_hazards()
        if layers > 0:
            edit.hazards.extend(pit_squares(last.width, last.height) * layers)


MAPS: tuple[GameMap, ...] = (HazardPitsMap(),)
