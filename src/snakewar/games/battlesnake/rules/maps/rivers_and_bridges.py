"""Rivers and bridges, islands and bridges (reference ``rivers_and_bridges.go``).

Fixed layouts: hazard rivers (and, for the islands maps, hazard shores) with
one-square gaps as bridges.  Snakes start on fixed squares spread over the four
quadrants; food starts diagonally next to each snake; during the game food
spawns the standard way, but never on a hazard.
"""

from __future__ import annotations

from collections.abc import Sequence

from snakewar.errors import MapSetupError
from snakewar.games.battlesnake.rules.board import MutableBoard
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
from snakewar.games.battlesnake.rules.rng import Rand
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import (
    SNAKE_MAX_HEALTH,
    SNAKE_START_SIZE,
    BoardView,
    Point,
)

__all__ = [
    "IslandsBridgesLargeMap",
    "IslandsBridgesMap",
    "RiversBridgesExtraLargeMap",
    "RiversBridgesLargeMap",
    "RiversBridgesMap",
    "place_food_fixed_avoiding",
    "place_snakes_in_quadrants",
]


def _points(text: str) -> tuple[Point, ...]:
    """Parse ``"x,y x,y ..."`` into points, keeping the order."""
    return tuple(Point(*map(int, item.split(","))) for item in text.split())


def _quadrants(*texts: str) -> tuple[tuple[Point, ...], ...]:
    return tuple(_points(t) for t in texts)


# Layout data.  Hazard lists keep the reference's order: the hazard list is
# compared, and sent to snakes, in that order.

_RIVERS_11_STARTS = _quadrants("1,1 3,3", "9,9 7,7", "1,9 3,9", "9,1 7,3")
_RIVERS_11_HAZARDS = _points(
    "5,10 5,9 5,7 5,6 5,5 5,4 5,3 5,0 5,1 6,5 7,5 9,5 10,5 4,5 3,5 1,5 0,5"
)

_RIVERS_19_STARTS = _quadrants(
    "1,1 5,1 1,5 5,5", "17,1 17,5 13,5 13,1", "1,17 5,17 1,13 5,13", "17,17 17,13 13,17 13,13"
)
_RIVERS_19_HAZARDS = _points(
    "9,0 9,1 9,2 9,5 9,6 9,7 9,9 9,8 9,10 9,12 9,11 9,13 9,14 9,16 9,17 9,18 "
    "0,9 2,9 1,9 3,9 5,9 6,9 7,9 8,9 10,9 13,9 12,9 11,9 15,9 16,9 17,9 18,9 "
    "9,4 8,10 8,8 10,8 10,10"
)

_RIVERS_25_STARTS = _quadrants(
    "1,1 9,9 9,1 1,9", "23,23 15,15 23,15 15,23", "15,1 15,9 23,9 23,1", "9,23 1,23 9,15 1,15"
)
_RIVERS_25_HAZARDS = _points(
    "12,24 12,21 12,20 12,19 12,18 12,15 12,14 12,13 12,12 12,11 12,10 12,9 12,5 12,4 12,3 "
    "12,0 0,12 3,12 4,12 5,12 6,12 9,12 10,12 11,12 13,12 14,12 15,12 18,12 20,12 19,12 "
    "21,12 24,12 11,14 10,13 11,13 10,11 11,11 11,10 13,10 14,11 13,11 13,13 14,13 13,14 "
    "12,6 12,2 2,12 22,12 12,22 16,12 12,8 8,12 12,16"
)

_ISLANDS_11_STARTS = _quadrants("3,1 1,3", "9,7 7,9", "3,9 1,7", "7,1 9,3")
# The rivers of the 11x11 rivers map, plus the shores.
_ISLANDS_11_HAZARDS = _RIVERS_11_HAZARDS + _points(
    "1,10 9,10 1,0 9,0 10,1 10,0 10,10 10,9 0,10 0,9 0,1 0,0 0,6 0,4 10,6 10,4 6,10 4,10 6,0 4,0"
)

_ISLANDS_19_STARTS = _quadrants(
    "2,2 2,6 6,2 6,6", "12,2 16,2 16,6 12,6", "16,16 16,12 12,12 12,16", "2,16 6,16 6,12 2,12"
)
_ISLANDS_19_HAZARDS = _points(
    "9,18 9,0 9,1 9,2 9,3 9,5 9,6 9,8 9,7 9,9 9,10 9,11 9,12 9,13 9,15 9,16 9,17 "
    "2,9 1,9 0,9 3,9 5,9 6,9 7,9 8,9 10,9 16,9 15,9 13,9 12,9 11,9 17,9 18,9 "
    "10,8 8,8 8,10 10,10 18,8 18,7 18,6 18,10 18,11 18,12 0,10 0,11 0,12 0,8 0,7 0,6 "
    "6,0 7,0 8,0 10,0 11,0 12,0 10,18 11,18 12,18 8,18 7,18 6,18 "
    "0,18 0,17 0,16 0,15 1,18 2,18 3,18 1,17 15,18 16,18 17,18 18,18 18,17 18,16 18,15 17,17 "
    "18,3 18,2 18,1 18,0 17,0 16,0 15,0 17,1 0,0 1,0 2,0 3,0 0,1 0,2 0,3 1,1 "
    "10,1 8,1 8,17 10,17 17,10 17,8 1,8 1,10"
)


def place_snakes_in_quadrants(
    rand: Rand, board: MutableBoard, quadrants: Sequence[Sequence[Point]]
) -> None:
    """Spread the snakes over four buckets of starts (the reference's ``PlaceSnakesInQuadrants``).

    A random bucket comes first, then the buckets take turns; each snake gets a
    random start from its bucket, which is removed by swapping in the bucket's
    last start (this shapes later draws, so it is kept).

    Raises:
        MapSetupError: if the buckets are not four of one size, or run out.
    """
    if len(quadrants) != 4 or any(len(q) != len(quadrants[0]) for q in quadrants):
        raise MapSetupError("start positions must be four quadrants of equal size")
    buckets = [list(q) for q in quadrants]
    current = rand.intn(4)
    for snake in board.snakes:
        bucket = buckets[current]
        if not bucket:
            raise MapSetupError(f"no start position left for snake {snake.id!r}")
        idx = rand.intn(len(bucket))
        start = bucket[idx]
        bucket[idx] = bucket[-1]
        bucket.pop()
        board.place_snake(snake.id, [start] * SNAKE_START_SIZE, SNAKE_MAX_HEALTH)
        current = (current + 1) % 4


def place_food_fixed_avoiding(rand: Rand, board: MutableBoard) -> None:
    """Place setup food next to each snake and in the centre, avoiding hazards.

    This is the reference's ``maps.PlaceFoodFixed``.  For each snake, one of the
    four squares diagonal to its head is drawn with ``Intn``, among those that are
    not the centre, hold no snake, hazard or food, lie farther from the centre
    than the head on at least one axis, and are not a board corner.  Then the
    centre gets a food if nothing occupies it.  With more than 4 snakes on a
    board smaller than 11x11 only the centre is tried.

    The reference visits the snakes in Go map order, which is random on every
    run, so its setup food is not reproducible.  Snakewar visits them in board
    order, which makes the result a deterministic function of the seed.

    Raises:
        MapSetupError: if some snake has no candidate square.
    """
    w, h = board.width, board.height
    cx, cy = (w - 1) // 2, (h - 1) // 2
    center = Point(cx, cy)

    def occupied(p: Point) -> bool:
        if p in board.food or p in board.hazards:
            return True
        return any(p in s.body for s in board.snakes)

    small = w * h < 11 * 11
    if len(board.snakes) <= 4 or not small:
        for snake in board.snakes:
            hx, hy = snake.body[0]
            options = []
            for p in (
                Point(hx - 1, hy - 1),
                Point(hx - 1, hy + 1),
                Point(hx + 1, hy - 1),
                Point(hx + 1, hy + 1),
            ):
                if p == center or occupied(p):
                    continue
                away = (p.x < hx < cx) or (cx < hx < p.x) or (p.y < hy < cy) or (cy < hy < p.y)
                if not away or (p.x in (0, w - 1) and p.y in (0, h - 1)):
                    continue
                options.append(p)
            if not options:
                raise MapSetupError(f"no room for setup food next to snake {snake.id!r}")
            board.add_food(options[rand.intn(len(options))])
    if not occupied(center):
        board.add_food(center)


class _BridgesMap(GameMap):
    """Shared behaviour: fixed quadrant starts, static hazards, hazard-free food."""

    starts: tuple[tuple[Point, ...], ...]
    hazards: tuple[Point, ...]

    def setup_board(self, board: MutableBoard, settings: Settings) -> None:
        """Place the snakes, the hazards, then the setup food, all from ``GetRand(0)``.

        Raises:
            MapSetupError: for an unsupported board size or snake count.
        """
        check_size(self.meta, board)
        check_players(self.meta, board)
        rand = settings.get_rand(0)
        place_snakes_in_quadrants(rand, board, self.starts)
        # Hazards go down before the food so that the food avoids them.
        for p in self.hazards:
            board.add_hazard(p)
        place_food_fixed_avoiding(rand, board)

    def post_update_board(self, last: BoardView, settings: Settings, edit: MutableBoard) -> None:
        """Spawn food the standard way, but never on a hazard."""
        spawn_food_standard(last, settings, edit, include_hazards=True)


_TAGS = (TAG_FOOD_PLACEMENT, TAG_HAZARD_PLACEMENT, TAG_SNAKE_PLACEMENT)
_RIVERS_TEXT = "A central hazard lake with rivers to each edge, crossed by one-square bridges."
_ISLANDS_TEXT = "Rivers and hazard shores cut the board into islands joined by bridges."


class RiversBridgesMap(_BridgesMap):
    """Rivers and bridges on 11x11, up to 8 snakes."""

    meta = MapMeta(
        id="hz_rivers_bridges",
        name="hz_rivers_bridges",
        description=_RIVERS_TEXT,
        author="Battlesnake",
        version=1,
        min_players=1,
        max_players=8,
        sizes=BoardSizes.fixed((11, 11)),
        tags=_TAGS,
    )
    starts = _RIVERS_11_STARTS
    hazards = _RIVERS_11_HAZARDS


class RiversBridgesLargeMap(_BridgesMap):
    """Rivers and bridges on 19x19, up to 12 snakes."""

    meta = MapMeta(
        id="hz_rivers_bridges_lg",
        name="hz_rivers_bridges_lg",
        description=_RIVERS_TEXT,
        author="Battlesnake",
        version=1,
        min_players=1,
        max_players=12,
        sizes=BoardSizes.fixed((19, 19)),
        tags=_TAGS,
    )
    starts = _RIVERS_19_STARTS
    hazards = _RIVERS_19_HAZARDS


class RiversBridgesExtraLargeMap(_BridgesMap):
    """Rivers and bridges on 25x25, up to 12 snakes."""

    meta = MapMeta(
        id="hz_rivers_bridges_xl",
        name="hz_rivers_bridges_xl",
        description=_RIVERS_TEXT,
        author="Battlesnake",
        version=1,
        min_players=1,
        max_players=12,
        sizes=BoardSizes.fixed((25, 25)),
        tags=_TAGS,
    )
    starts = _RIVERS_25_STARTS
    hazards = _RIVERS_25_HAZARDS


class IslandsBridgesMap(_BridgesMap):
    """Islands and bridges on 11x11, up to 4 snakes."""

    meta = MapMeta(
        id="hz_islands_bridges",
        name="hz_islands_bridges",
        description=_ISLANDS_TEXT,
        author="Battlesnake",
        version=1,
        min_players=1,
        max_players=4,
        sizes=BoardSizes.fixed((11, 11)),
        tags=_TAGS,
    )
    starts = _ISLANDS_11_STARTS
    hazards = _ISLANDS_11_HAZARDS


class IslandsBridgesLargeMap(_BridgesMap):
    """Islands and bridges on 19x19, up to 16 snakes."""

    meta = MapMeta(
        id="hz_islands_bridges_lg",
        name="hz_islands_bridges_lg",
        description=_ISLANDS_TEXT,
        author="Battlesnake",
        version=1,
        min_players=1,
        max_players=16,
        sizes=BoardSizes.fixed((19, 19)),
        tags=_TAGS,
    )
    starts = _ISLANDS_19_STARTS
    hazards = _ISLANDS_19_HAZARDS


MAPS: tuple[GameMap, ...] = (
    RiversBridgesMap(),
    RiversBridgesLargeMap(),
    RiversBridgesExtraLargeMap(),
    IslandsBridgesMap(),
    IslandsBridgesLargeMap(),
)
