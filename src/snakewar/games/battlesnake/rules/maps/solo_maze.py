"""The solo_maze map (experimental): one snake, a new random maze for every food eaten."""

from __future__ import annotations

from collections.abc import Sequence

from snakewar.errors import MapSetupError
from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.maps.base import (
    TAG_EXPERIMENTAL,
    TAG_FOOD_PLACEMENT,
    TAG_HAZARD_PLACEMENT,
    TAG_SNAKE_PLACEMENT,
    BoardSizes,
    GameMap,
    MapMeta,
)
from snakewar.games.battlesnake.rules.rng import Rand
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import SNAKE_MAX_HEALTH, BoardView, Point

__all__ = ["SoloMazeMap", "generate_maze", "read_level"]

INITIAL_MAZE_SIZE = 7
"""The maze side at level 0 (it grows by one per level up to the board's limit)."""
TURNS_AT_MAX_SIZE = 5
"""Levels played at the largest maze size before "evil mode" starts."""
EVIL_MODE_DISTANCE = 5
"""In evil mode the food flees when the head gets closer than this (Manhattan)."""
MAX_FOOD_TRIES = 100
"""Food placement gives up after this many random tries (the board then has no food)."""

_LEVEL_ROW = 0


def _max_maze_size(width: int, height: int) -> int:
    # Row 0 holds the level and the row under the maze holds the snake's tail.
    return min(width, height - 2)


def _maze_size(level: int, width: int, height: int) -> int:
    return min(INITIAL_MAZE_SIZE + level, _max_maze_size(width, height))


def _offsets(size: int, width: int, height: int) -> tuple[int, int]:
    # The maze is centred on the board (rounding towards the bottom-left).
    return (width - size) // 2, (height - size) // 2


def read_level(board: BoardView) -> int:
    """The level stored in binary in row 0: a hazard at ``(x, 0)`` is a 1 bit, x=0 first."""
    row = {p.x for p in board.hazards if p.y == _LEVEL_ROW}
    level = 0
    for x in range(board.width):
        level = level * 2 + (x in row)
    return level


def _level_bits(level: int, width: int) -> list[Point]:
    # The level in binary, left-padded to the board width; one hazard per 1 bit.
    bits = format(level, "b").rjust(width, "0")
    return [Point(x, _LEVEL_ROW) for x, c in enumerate(bits) if c == "1"]


def _swap_remove(items: list[Point], i: int) -> Point:
    # Go's "replace with the last element and shorten", which reorders the wall.
    removed = items[i]
    items[i] = items[-1]
    items.pop()
    return removed


def _cut_both_sides(wall: list[Point], crossing: Point, rand: Rand) -> list[Point]:
    # One hole on each side of the crossing, where there is a side.
    holes = []
    index = wall.index(crossing)
    if index != 0:
        holes.append(_swap_remove(wall, rand.intn(index)))
    index = wall.index(crossing)
    if index != len(wall) - 1:
        holes.append(_swap_remove(wall, rand.intn(len(wall) - index - 1) + index + 1))
    return holes


def _cut_one_side(wall: list[Point], crossing: Point, rand: Rand) -> list[Point]:
    # One hole, before the crossing if possible, else after it.
    index = wall.index(crossing)
    if index != 0:
        return [_swap_remove(wall, rand.intn(index))]
    if index != len(wall) - 1:
        return [_swap_remove(wall, rand.intn(len(wall) - index - 1) + index + 1)]
    return []


def _subdivide(
    walls: list[Point],
    rand: Rand,
    lo: Point,
    hi: Point,
    no_rows: Sequence[int],
    no_cols: Sequence[int],
) -> None:
    # Recursive division.  ``no_rows``/``no_cols`` are the rows and columns of holes
    # cut by enclosing walls: a new wall there would close the hole.  Each room sees
    # its parent's lists plus its own additions (Go passes the slices by value).
    if hi.x - lo.x <= 2 and hi.y - lo.y <= 2:
        return
    col = row = -1
    v_wall: list[Point] = []
    h_wall: list[Point] = []
    cols = [i for i in range(lo.x + 1, hi.x - 1) if i not in no_cols]
    if cols:
        col = cols[rand.intn(len(cols))]
        v_wall = [Point(col, y) for y in range(lo.y, hi.y + 1)]
    rows = [i for i in range(lo.y + 1, hi.y - 1) if i not in no_rows]
    if rows:
        row = rows[rand.intn(len(rows))]
        h_wall = [Point(x, row) for x in range(lo.x, hi.x + 1)]

    no_rows = list(no_rows)
    no_cols = list(no_cols)
    if len(v_wall) > 1 and len(h_wall) > 1:
        crossing = Point(col, row)
        no_rows.extend(p.y for p in _cut_both_sides(v_wall, crossing, rand))
        no_cols.extend(p.x for p in _cut_one_side(h_wall, crossing, rand))
    elif len(v_wall) > 1:
        no_rows.append(_swap_remove(v_wall, rand.intn(len(v_wall) - 1)).y)
    elif len(h_wall) > 1:
        no_cols.append(_swap_remove(h_wall, rand.intn(len(h_wall) - 1)).x)
    walls.extend(v_wall)
    walls.extend(h_wall)

    if col != -1 and row != -1:
        rooms = [
            (lo, Point(col, row)),
            (Point(col + 1, lo.y), Point(hi.x, row)),
            (Point(lo.x, row + 1), Point(col, hi.y)),
            (Point(col + 1, row + 1), hi),
        ]
    elif col != -1:
        rooms = [(lo, Point(col, hi.y)), (Point(col + 1, lo.y), hi)]
    elif row != -1:
        rooms = [(lo, Point(hi.x, row)), (Point(lo.x, row + 1), hi)]
    else:
        rooms = []
    for room_lo, room_hi in rooms:
        _subdivide(walls, rand, room_lo, room_hi, no_rows, no_cols)


def generate_maze(rand: Rand, size: int) -> list[Point]:
    """The walls of a ``size`` x ``size`` recursive-division maze, in maze coordinates.

    Each point appears once, in the order the walls were drawn.
    """
    walls: list[Point] = []
    _subdivide(walls, rand, Point(0, 0), Point(size - 1, size - 1), (), ())
    return list(dict.fromkeys(walls))


class SoloMazeMap(GameMap):
    """A single snake in a maze; eating the food levels up and builds a new maze.

    The maze is ``7 + level`` squares wide, capped at ``min(W, H - 2)``, centred
    on the board; every square outside it (except row 0) is a wall hazard, so
    play it with a lethal ``damagePerTurn``.  The level is stored in binary as
    hazards on row ``y = 0`` (x = 0 the most significant bit).

    A maze is generated by recursive division drawn from ``GetRand(T)`` (``T`` =
    0 at setup, else the pre-increment turn).  The snake is put at the maze's
    bottom-left corner with ``level + 3`` segments (the head plus a stacked tail
    just below the maze) and full health; this is the only map that moves snakes
    in its update.  The food is tried at ``GetRand(T + k).Intn(size)`` twice
    (x, y) for k = 1..100 until a square is off the walls (old and new), off the
    body and at least ``min(5, size // 2)`` from the head.

    Each update: if the food was eaten, level up and rebuild everything.
    Otherwise, once ``level - 5 > max_size - 7`` ("evil mode"), the food is moved
    to a new spot whenever the head is within 5 of it.

    Like the reference, setup refuses anything but one snake and boards smaller
    than 7x7; other sizes than the listed ones are played.

    On a level up the reference first rewrites row 0 hazard by hazard, removing
    each 0 bit's hazards with its editor, and then clears every hazard anyway.
    With several copies of a row-0 hazard near the end of the list (never in a
    played game) that removal indexes past the shortened list and panics;
    Snakewar skips the redundant first write and builds the level.
    """

    meta = MapMeta(
        id="solo_maze",
        name="Solo Maze",
        description="One snake finds the food in a maze that is rebuilt, larger, each level.",
        author="coreyja",
        version=1,
        min_players=1,
        max_players=1,
        sizes=BoardSizes.fixed((7, 7), (11, 11), (19, 19), (19, 21), (25, 25)),
        tags=(TAG_EXPERIMENTAL, TAG_FOOD_PLACEMENT, TAG_HAZARD_PLACEMENT, TAG_SNAKE_PLACEMENT),
    )

    def setup_board(self, board: MutableBoard, settings: Settings) -> None:
        """Build the level-0 maze, place the snake and the food.

        Raises:
            MapSetupError: unless there is exactly one snake and the board is at
                least 7x7.
        """
        n = len(board.snakes)
        if n != 1:
            raise MapSetupError(f"map 'solo_maze' requires exactly one snake, got {n}")
        if board.width < INITIAL_MAZE_SIZE or board.height < INITIAL_MAZE_SIZE:
            raise MapSetupError(
                f"map 'solo_maze' requires a board of at least "
                f"{INITIAL_MAZE_SIZE}x{INITIAL_MAZE_SIZE}, got {board.width}x{board.height}"
            )
        _build_level(board.freeze(), settings, board, 0)

    def post_update_board(self, last: BoardView, settings: Settings, edit: MutableBoard) -> None:
        """Level up when the food is gone; in evil mode, move food the head gets near."""
        if not last.snakes or not last.snakes[0].body:
            return
        level = read_level(last)
        if not last.food:
            _build_level(last, settings, edit, level + 1)
            return
        food = last.food[0]
        body = last.snakes[0].body
        max_size = _max_maze_size(last.width, last.height)
        evil = level - TURNS_AT_MAX_SIZE > max_size - INITIAL_MAZE_SIZE
        if evil and _distance(body[0], food) < EVIL_MODE_DISTANCE:
            edit.remove_food(food)
            _place_food(last, last.hazards, body, settings, edit, level)


def _distance(a: Point, b: Point) -> int:
    return abs(a.x - b.x) + abs(a.y - b.y)


def _build_level(state: BoardView, settings: Settings, edit: MutableBoard, level: int) -> None:
    # ``state`` is read (turn, size, old hazards, the snake); ``edit`` is written.
    width, height = state.width, state.height
    size = _maze_size(level, width, height)
    dx, dy = _offsets(size, width, height)
    rand = settings.get_rand(state.turn)

    hazards = _level_bits(level, width)
    maze = [Point(p.x + dx, p.y + dy) for p in generate_maze(rand, size)]
    hazards.extend(maze)

    body = [Point(dx, dy)] + [Point(dx, dy - 1)] * (level + 2)
    edit.place_snake(state.snakes[0].id, body, SNAKE_MAX_HEALTH)
    # The food must avoid the previous level's hazards as well as the new maze.
    _place_food(state, [*state.hazards, *maze], body, settings, edit, level)

    hazards.extend(
        Point(x, y)
        for x in range(width)
        for y in range(1, height)
        if not (dx <= x < dx + size and dy <= y < dy + size)
    )
    edit.hazards = hazards


def _place_food(
    state: BoardView,
    hazards: Sequence[Point],
    body: Sequence[Point],
    settings: Settings,
    edit: MutableBoard,
    level: int,
) -> None:
    width, height = state.width, state.height
    size = _maze_size(level, width, height)
    dx, dy = _offsets(size, width, height)
    blocked = set(hazards)
    blocked.update(body)
    head = body[0]
    min_distance = min(EVIL_MODE_DISTANCE, size // 2)
    for tries in range(1, MAX_FOOD_TRIES + 1):
        # A fresh stream per try: the reference reseeds with T + tries.
        rand = settings.get_rand(state.turn + tries)
        x = rand.intn(size)
        p = Point(x + dx, rand.intn(size) + dy)
        if p not in blocked and _distance(p, head) >= min_distance:
            edit.add_food(p)
            return


MAPS: tuple[GameMap, ...] = (SoloMazeMap(),)
