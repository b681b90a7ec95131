"""The procedural hazard maps: static layouts and hazards that grow over the game.

All eight maps use the standard setup and the standard food spawn; they differ
only in their hazards:

* ``hz_inner_wall``, ``hz_rings`` and ``hz_columns`` draw a fixed layout at setup.
* ``hz_spiral``, ``hz_scatter``, ``hz_grow_box``, ``hz_expand_box`` and
  ``hz_expand_scatter`` add hazards on a turn schedule.  Their random layout is
  drawn from ``GetRand(0)`` again on every update, so it depends only on the seed
  and the board size.  Each layout is computed by a pure helper keyed by
  ``(seed, width, height)`` and memoised, so a game does not reshuffle the board
  every turn.

"Current" below is the turn being prepared: the pre-increment turn plus one.
"""

from __future__ import annotations

import math
from functools import lru_cache

from snakewar.errors import MapSetupError
from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.maps.base import (
    TAG_HAZARD_PLACEMENT,
    BoardSizes,
    GameMap,
    MapMeta,
    draw_ring,
    is_on_board,
    setup_standard,
    spawn_food_standard,
)
from snakewar.games.battlesnake.rules.rng import Rand, go_int
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardView, Point

__all__ = [
    "ColumnsMap",
    "ExpandingBoxMap",
    "ExpandingScatterMap",
    "GrowBoxMap",
    "InnerWallMap",
    "RingsMap",
    "ScatterMap",
    "SpiralMap",
]

_ODD_7_25 = BoardSizes.odd(7, 25)
_MAX_SNAKES = 16
_CACHE_SIZE = 64

_Line = tuple[Point, ...]


def _meta(map_id: str, description: str, author: str = "") -> MapMeta:
    # Every map here shares the standard map's limits; only the texts differ.
    return MapMeta(
        id=map_id,
        name=map_id,
        description=description,
        author=author,
        version=2,
        min_players=1,
        max_players=_MAX_SNAKES,
        sizes=_ODD_7_25,
        tags=(TAG_HAZARD_PLACEMENT,),
    )


def _seed_rand(seed: int) -> Rand:
    """The ``GetRand(0)`` stream of a game with this seed (parameters play no part)."""
    return Settings(seed=seed).get_rand(0)


def _ring_squares(cx: int, cy: int, offset: int, width: int, height: int) -> list[Point]:
    """The on-board squares of the square ring at ``offset`` around ``(cx, cy)``.

    The order is x-major, then y, which is the order the reference appends them in.
    """
    out: list[Point] = []
    for x in range(cx - offset, cx + offset + 1):
        x_edge = x in (cx - offset, cx + offset)
        for y in range(cy - offset, cy + offset + 1):
            if (x_edge or y in (cy - offset, cy + offset)) and is_on_board(width, height, x, y):
                out.append(Point(x, y))
    return out


class _HazardMap(GameMap):
    """Standard setup and food; subclasses add their hazards.

    ``min_width`` and ``min_height`` are the smallest board the map's random start
    can be drawn on.  Below them the reference sets up the board and then panics
    in ``Range`` on the first spawn turn; Snakewar refuses such a board at setup
    instead (and raises on a spawn turn, for boards built by hand).
    """

    min_width = 1
    min_height = 1

    def _check_board(self, width: int, height: int) -> None:
        if width < self.min_width or height < self.min_height:
            raise MapSetupError(
                f"map {self.meta.id!r} needs a board of at least "
                f"{self.min_width}x{self.min_height}, got {width}x{height}"
            )

    def setup_board(self, board: MutableBoard, settings: Settings) -> None:
        """Standard setup, then the map's setup hazards (if any).

        Raises:
            MapSetupError: with more than 16 snakes, a board too small for the
                map, or if the snakes or food do not fit.
        """
        # The reference's standard setup refuses more than 16 snakes before anything else.
        if len(board.snakes) > _MAX_SNAKES:
            raise MapSetupError(
                f"map {self.meta.id!r} supports at most {_MAX_SNAKES} snakes, "
                f"got {len(board.snakes)}"
            )
        self._check_board(board.width, board.height)
        setup_standard(board, settings)
        for p in self.setup_hazards(board.width, board.height):
            board.add_hazard(p)

    def setup_hazards(self, width: int, height: int) -> list[Point]:
        """The hazards added at setup, in order (none by default)."""
        return []

    def post_update_board(self, last: BoardView, settings: Settings, edit: MutableBoard) -> None:
        """Spawn food the standard way, then add this turn's hazards.

        Raises:
            MapSetupError: if the board is too small for the map.
        """
        spawn_food_standard(last, settings, edit)
        for p in self.turn_hazards(last, settings):
            edit.add_hazard(p)

    def turn_hazards(self, last: BoardView, settings: Settings) -> list[Point]:
        """The hazards to add after the turn ``last.turn`` (none by default)."""
        return []


# -- static layouts ------------------------------------------------------------------


class InnerWallMap(_HazardMap):
    """A one-square hazard ring inset two squares from the edge, drawn at setup."""

    meta = _meta(
        "hz_inner_wall",
        "A static ring of hazard two squares in from the board's edge.",
        "Battlesnake",
    )

    def setup_hazards(self, width: int, height: int) -> list[Point]:
        """The ring at inset 2 (bottom/top pairs by x, then left/right pairs by y).

        Raises:
            MapSetupError: if the board is too small for the ring.
        """
        return draw_ring(width, height, 2, 2)


class RingsMap(_HazardMap):
    """Concentric hazard rings at insets 2, 4, ... (while below half the width), at setup."""

    meta = _meta(
        "hz_rings",
        "Static concentric hazard rings with a free lane between each pair.",
        "Battlesnake",
    )

    def setup_hazards(self, width: int, height: int) -> list[Point]:
        """The rings from the outermost inwards, each in ring-drawing order.

        Raises:
            MapSetupError: if a ring does not fit the board's height.
        """
        out: list[Point] = []
        for offset in range(2, width // 2, 2):
            out.extend(draw_ring(width, height, offset, offset))
        return out


class ColumnsMap(_HazardMap):
    """A hazard on every square whose x and y are both odd, at setup."""

    meta = _meta(
        "hz_columns",
        "Static single-square hazard pillars on every odd-odd square.",
        "Battlesnake",
    )

    def setup_hazards(self, width: int, height: int) -> list[Point]:
        """Every (odd x, odd y) square, x-major."""
        return [Point(x, y) for x in range(1, width, 2) for y in range(1, height, 2)]


# -- growing layouts -----------------------------------------------------------------

_SPIRAL_EVERY = 3


@lru_cache(maxsize=_CACHE_SIZE)
def _spiral_path(seed: int, width: int, height: int) -> tuple[Point | None, ...]:
    """The spiral's squares in spawn order; ``None`` marks a step that falls off the board.

    Entry ``k`` is added at current turn ``3 * (k + 1)``.  Entry 0 is the start,
    drawn in the middle 40% of each axis; ring ``r`` (``offset = r + 1``) then starts
    on its top side at ``x = start - r`` and walks clockwise: right along the top,
    down the right side, left along the bottom, up the left side.
    """
    rand = _seed_rand(seed)
    off_x = math.floor(width * 0.3)
    off_y = math.floor(height * 0.3)
    sx = rand.range(off_x, width - 1 - off_x)
    sy = rand.range(off_y, height - 1 - off_y)
    path: list[Point | None] = [Point(sx, sy)]
    rings = max(sx, sy, width - sx, height - sy)
    for ring in range(rings):
        o = ring + 1
        x, y = sx - ring, sy + o
        for _ in range(8 * o):
            path.append(Point(x, y) if is_on_board(width, height, x, y) else None)
            if y == sy + o and x < sx + o:
                x += 1
            elif x == sx + o and y > sy - o:
                y -= 1
            elif y == sy - o and x > sx - o:
                x -= 1
            elif x == sx - o and y < sy + o:
                y += 1
    return tuple(path)


class SpiralMap(_HazardMap):
    """One hazard every 3 turns along a clockwise spiral around a random start.

    The start square is added at turn 3; after that each step of the spiral takes
    three turns, and steps that fall off the board add nothing.  Once the spiral
    has passed every ring, nothing more is added.
    """

    meta = _meta(
        "hz_spiral",
        "Hazard grows clockwise in a spiral from a random central square, one every 3 turns.",
        "altersaddle",
    )

    def turn_hazards(self, last: BoardView, settings: Settings) -> list[Point]:
        """The spiral square of this turn, if it is a spawn turn and on the board."""
        current = go_int(last.turn + 1)
        if current < _SPIRAL_EVERY or current % _SPIRAL_EVERY != 0:
            return []
        path = _spiral_path(settings.seed, last.width, last.height)
        k = current // _SPIRAL_EVERY - 1
        if k < len(path):
            p = path[k]
            if p is not None:
                return [p]
        return []


@lru_cache(maxsize=_CACHE_SIZE)
def _scatter_order(seed: int, width: int, height: int) -> tuple[Point, ...]:
    """Every square (x-major), shuffled once by the ``GetRand(0)`` stream."""
    squares = [Point(x, y) for x in range(width) for y in range(height)]
    _seed_rand(seed).shuffle_list(squares)
    return tuple(squares)


class ScatterMap(_HazardMap):
    """One hazard every 2 turns, on the squares of the board in a seeded random order.

    At current turn ``t`` (even, ``t >= 2``) it adds square ``(t - 2) / 2`` of the
    shuffled board.  Deviation: the reference indexes past the end of its list and
    panics at current turn ``2 * W * H + 2``, once every square has been used;
    Snakewar instead stops adding hazards then, and the game goes on.
    """

    meta = _meta(
        "hz_scatter",
        "Hazard fills the whole board one random square every 2 turns.",
    )

    def turn_hazards(self, last: BoardView, settings: Settings) -> list[Point]:
        """This turn's square of the shuffled board, on even turns until all are used."""
        current = go_int(last.turn + 1)
        if current < 2 or current % 2 != 0:
            return []
        order = _scatter_order(settings.seed, last.width, last.height)
        i = (current - 2) // 2
        return [order[i]] if i < len(order) else []


@lru_cache(maxsize=_CACHE_SIZE)
def _grow_box_plan(seed: int, width: int, height: int) -> tuple[Point, tuple[_Line, ...]]:
    """The grow box's start and the line each growth step adds, in order.

    Each step lists the sides that can still grow (left, up, right, down, in that
    order), picks one with ``Intn`` on the same stream as the start, and extends the
    box by that line.  The plan ends when no side can grow.
    """
    rand = _seed_rand(seed)
    sx = rand.range(2, width - 2)
    sy = rand.range(2, height - 2)
    left, right, bottom, top = sx, sx, sy, sy
    lines: list[_Line] = []
    while True:
        sides: list[str] = []
        if left > 0:
            sides.append("left")
        if top < height - 1:
            sides.append("up")
        if right < width - 1:
            sides.append("right")
        if bottom > 0:
            sides.append("down")
        if not sides:
            break
        side = sides[rand.intn(len(sides))]
        if side == "left":
            left -= 1
            lines.append(tuple(Point(left, y) for y in range(bottom, top + 1)))
        elif side == "right":
            right += 1
            lines.append(tuple(Point(right, y) for y in range(bottom, top + 1)))
        elif side == "up":
            top += 1
            lines.append(tuple(Point(x, top) for x in range(left, right + 1)))
        else:
            bottom -= 1
            lines.append(tuple(Point(x, bottom) for x in range(left, right + 1)))
    return Point(sx, sy), tuple(lines)


class GrowBoxMap(_HazardMap):
    """A hazard box that grows by one line on a random side every 12 turns.

    The start square (``Range(2, W-2)``, ``Range(2, H-2)``) is added at turn 1; at
    turns 13, 25, ... the next line of the growth plan is added.  Nothing is added
    once the hazard list holds ``W * H`` entries or the box covers the board.
    """

    meta = _meta(
        "hz_grow_box",
        "A hazard box grows from a random square, one random side every 12 turns.",
    )
    min_width = 4
    min_height = 4

    def turn_hazards(self, last: BoardView, settings: Settings) -> list[Point]:
        """The start at turn 1, then one new line of the box every 12 turns."""
        current = go_int(last.turn + 1)
        if (current - 1) % 12 != 0 or len(last.hazards) == last.width * last.height:
            return []
        self._check_board(last.width, last.height)
        start, lines = _grow_box_plan(settings.seed, last.width, last.height)
        if current == 1:
            return [start]
        step = (current - 1) // 12
        # A negative turn (after Go's Turn + 1 wrapped) draws no growth step in the
        # reference's loop: nothing to add.
        return list(lines[step - 1]) if 1 <= step <= len(lines) else []


def _go_quotient(a: int, b: int) -> int:
    """``a / b`` as Go divides ints (``b > 0``): toward zero, where ``//`` floors."""
    q = a // b
    return q + 1 if q < 0 and q * b != a else q


@lru_cache(maxsize=_CACHE_SIZE)
def _expand_start(seed: int, low: int, high: int) -> Point:
    """Two successive ``Range(low, high)`` draws from ``GetRand(0)``: the start x and y."""
    rand = _seed_rand(seed)
    x = rand.range(low, high)
    return Point(x, rand.range(low, high))


class ExpandingBoxMap(_HazardMap):
    """A hazard box that grows by a full ring around a random square every 20 turns.

    The start is drawn with ``Range(2, W-2)`` for x **and** y (the reference uses the
    width for both) and added at turn 1.  At turn ``20k + 1`` the ring at distance
    ``k`` is added, until the rings pass every edge or the hazard list holds
    ``W * H`` entries.
    """

    meta = _meta(
        "hz_expand_box",
        "A hazard box expands outward from a random square by one ring every 20 turns.",
    )
    min_width = 4

    def turn_hazards(self, last: BoardView, settings: Settings) -> list[Point]:
        """The start at turn 1, then the next ring (on-board squares, x-major)."""
        w, h = last.width, last.height
        current = go_int(last.turn + 1)
        if (current - 1) % 20 != 0 or len(last.hazards) == w * h:
            return []
        self._check_board(w, h)
        sx, sy = _expand_start(settings.seed, 2, w - 2)
        if current == 1:
            return [Point(sx, sy)]
        offset = _go_quotient(current, 20)
        if offset > max(sx, sy, w - sx, h - sy):
            return []
        return _ring_squares(sx, sy, offset, w, h)


@lru_cache(maxsize=_CACHE_SIZE)
def _expand_scatter_order(seed: int, width: int, height: int) -> tuple[Point, tuple[Point, ...]]:
    """The start and then every later square in spawn order.

    The start uses ``Range(1, W-1)`` for x and y (width for both, as the reference).
    Then the rings around it, innermost first, each shuffled on its own on the same
    stream.
    """
    rand = _seed_rand(seed)
    sx = rand.range(1, width - 1)
    sy = rand.range(1, width - 1)
    order: list[Point] = []
    for ring in range(max(sx, sy, width - sx, height - sy)):
        squares = _ring_squares(sx, sy, ring + 1, width, height)
        rand.shuffle_list(squares)
        order.extend(squares)
    return Point(sx, sy), tuple(order)


class ExpandingScatterMap(_HazardMap):
    """Hazard spreads from a random square one square every 2 turns, ring by ring.

    The start is added at turn 1; at turn ``2k + 1`` the ``k``-th square of the
    spawn order (each ring around the start shuffled, innermost ring first) is
    added.  Nothing is added once the hazard list holds ``W * H`` entries.
    Deviation: when other hazards change the count (e.g. the royale ruleset replaces
    the hazard list every turn), the reference can run past the end of its list and
    panic; Snakewar stops adding hazards once the spawn order is used up.
    """

    meta = _meta(
        "hz_expand_scatter",
        "Hazard spreads from a random square in shuffled rings, one square every 2 turns.",
    )
    min_width = 2

    def turn_hazards(self, last: BoardView, settings: Settings) -> list[Point]:
        """The start at turn 1, then the next square of the spawn order on odd turns."""
        current = go_int(last.turn + 1)
        if (current - 1) % 2 != 0 or len(last.hazards) == last.width * last.height:
            return []
        self._check_board(last.width, last.height)
        start, order = _expand_scatter_order(settings.seed, last.width, last.height)
        if current == 1:
            return [start]
        i = current // 2 - 1
        # Below 0 (a negative turn, after Go's Turn + 1 wrapped) the reference indexes
        # its list at i and panics; Snakewar adds nothing, as past the end.
        return [order[i]] if 0 <= i < len(order) else []


MAPS: tuple[GameMap, ...] = (
    InnerWallMap(),
    RingsMap(),
    ColumnsMap(),
    SpiralMap(),
    ScatterMap(),
    GrowBoxMap(),
    ExpandingBoxMap(),
    ExpandingScatterMap(),
)
