"""The map interface, map metadata, and the helpers several maps share.

A map has three hooks, as in the reference (``maps/game_map.go``):

* :meth:`GameMap.setup_board` places snakes, food and hazards on a new board.  The
  board it gets already lists every snake (empty body, health 100); reads and
  writes go to that one board, as in the reference.
* :meth:`GameMap.pre_update_board` runs before each turn's moves (a no-op for every
  reference map).
* :meth:`GameMap.post_update_board` runs after the rules of each turn.  It reads
  ``last`` (the state the rules produced, turn number **not** yet incremented) and
  writes to ``edit``, a fresh copy of it; reads never see the writes, exactly as
  with the reference's ``lastBoardState`` and ``Editor``.

Map code is pure: all randomness comes from ``settings.get_rand(...)``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mypy_extensions import mypyc_attr

from snakewar.errors import MapSetupError
from snakewar.games.battlesnake.rules.board import (
    MutableBoard,
    create_default_board_state,
    get_unoccupied_points,
)
from snakewar.games.battlesnake.rules.rng import Rand
from snakewar.games.battlesnake.rules.settings import FOOD_SPAWN_CHANCE, MINIMUM_FOOD, Settings
from snakewar.games.battlesnake.rules.types import BoardView, Point, reduce_dataclass

__all__ = [
    "TAG_EXPERIMENTAL",
    "TAG_FOOD_PLACEMENT",
    "TAG_HAZARD_PLACEMENT",
    "TAG_SNAKE_PLACEMENT",
    "BoardSizes",
    "GameMap",
    "MapMeta",
    "draw_ring",
    "setup_standard",
    "spawn_food_standard",
]

TAG_EXPERIMENTAL = "experimental"
TAG_SNAKE_PLACEMENT = "snake-placement"
TAG_HAZARD_PLACEMENT = "hazard-placement"
TAG_FOOD_PLACEMENT = "food-placement"


@dataclass(frozen=True, slots=True)
class BoardSizes:
    """The board sizes a map supports: a list of ``(width, height)``, or any size."""

    sizes: tuple[tuple[int, int], ...] = ()
    unlimited: bool = False

    def __reduce__(self) -> tuple[type[Any], tuple[Any, ...]]:
        return reduce_dataclass(self)

    @classmethod
    def any(cls) -> BoardSizes:
        """Any size."""
        return cls((), True)

    @classmethod
    def odd(cls, lo: int, hi: int) -> BoardSizes:
        """Square boards with an odd side from ``lo`` to ``hi``."""
        return cls(tuple((n, n) for n in range(lo, hi + 1, 2)))

    @classmethod
    def fixed(cls, *sizes: tuple[int, int]) -> BoardSizes:
        """Exactly these sizes."""
        return cls(tuple(sizes))

    def allows(self, width: int, height: int) -> bool:
        """True if the map supports a ``width`` x ``height`` board."""
        return self.unlimited or (width, height) in self.sizes

    def describe(self) -> str:
        """A short human description, e.g. ``odd 7x7..25x25`` or ``11x11, 19x19``."""
        if self.unlimited:
            return "any"
        sizes = self.sizes
        odd_run = len(sizes) > 2 and all(
            w == h and w % 2 == 1 and (i == 0 or w == sizes[i - 1][0] + 2)
            for i, (w, h) in enumerate(sizes)
        )
        if odd_run:
            return f"odd {sizes[0][0]}x{sizes[0][1]}..{sizes[-1][0]}x{sizes[-1][1]}"
        return ", ".join(f"{w}x{h}" for w, h in sizes)


@dataclass(frozen=True, slots=True)
class MapMeta:
    """Descriptive map metadata, as the reference's ``Meta()`` gives it."""

    id: str
    name: str
    description: str
    author: str
    version: int
    min_players: int
    max_players: int
    sizes: BoardSizes
    tags: tuple[str, ...] = ()

    def __reduce__(self) -> tuple[type[Any], tuple[Any, ...]]:
        return reduce_dataclass(self)

    @property
    def is_experimental(self) -> bool:
        """True for maps tagged experimental."""
        return TAG_EXPERIMENTAL in self.tags


# Compiled with mypyc, the class still takes subclasses from plain Python: other
# packages and the tests register maps of their own.
@mypyc_attr(allow_interpreted_subclasses=True)
class GameMap(ABC):
    """A Battlesnake map: board setup plus a per-turn update."""

    meta: MapMeta

    @property
    def id(self) -> str:
        """The map's registered id."""
        return self.meta.id

    @abstractmethod
    def setup_board(self, board: MutableBoard, settings: Settings) -> None:
        """Place snakes, food and hazards on a new ``board``.

        Raises:
            MapSetupError: if the map cannot be set up for this board or snake count.
        """

    def pre_update_board(  # noqa: B027 - an optional hook: a no-op unless a map needs it
        self, last: BoardView, settings: Settings, edit: MutableBoard
    ) -> None:
        """Update the board before the moves are applied (no reference map does)."""

    def new_memory(self) -> object | None:
        """Return a fresh per-game memory, for maps whose update depends on history.

        The reference's castle-wall maps shuffle a list in place every turn, so a
        turn's result depends on earlier turns, not only on the board.  Such a map
        returns a memory object here; the driver keeps one per game and passes it
        to :meth:`update_board`.  Most maps need none.
        """
        return None

    def new_process_memory(self) -> object | None:
        """Return a memory that replays updates as one fresh reference process would.

        Where the reference keeps map state at package level (the castle-wall food
        list), a fresh process starts from the state as declared, and only the
        updates passed to this memory change it: turns not seen did not happen.
        The hand-made conformance states, each run alone by the reference, are
        checked this way.  Maps without such state return :meth:`new_memory`.
        """
        return self.new_memory()

    def update_board(
        self, last: BoardView, settings: Settings, edit: MutableBoard, memory: object | None
    ) -> None:
        """Run :meth:`post_update_board` with this game's memory (what drivers call).

        Raises:
            MapSetupError: as :meth:`post_update_board`.
        """
        self.post_update_board(last, settings, edit)

    @abstractmethod
    def post_update_board(self, last: BoardView, settings: Settings, edit: MutableBoard) -> None:
        """Update the board after the rules ran; ``last.turn`` is the pre-increment turn.

        Raises:
            MapSetupError: if the map cannot continue (documented per map).
        """

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.meta.id!r}>"


def check_players(meta: MapMeta, board: BoardView) -> None:
    """Raise if the snake count is outside the map's player range.

    Raises:
        MapSetupError: naming the count and the allowed range.
    """
    n = len(board.snakes)
    if not meta.min_players <= n <= meta.max_players:
        raise MapSetupError(
            f"map {meta.id!r} supports {meta.min_players}..{meta.max_players} snakes, got {n}"
        )


def check_size(meta: MapMeta, board: BoardView) -> None:
    """Raise if the board size is not one the map supports.

    Raises:
        MapSetupError: naming the size and the supported sizes.
    """
    if not meta.sizes.allows(board.width, board.height):
        raise MapSetupError(
            f"map {meta.id!r} does not support a {board.width}x{board.height} board "
            f"(supported: {meta.sizes.describe()})"
        )


STANDARD_MAX_SNAKES = 16


def check_standard_snake_limit(board: BoardView) -> None:
    """Refuse more than 16 snakes, as the reference's standard setup does.

    Default placement alone would accept more on some boards (random placement on
    a non-square or 7x7 board), so the limit is checked explicitly.

    Raises:
        MapSetupError: with more than 16 snakes.
    """
    if len(board.snakes) > STANDARD_MAX_SNAKES:
        raise MapSetupError(
            f"too many snakes: {len(board.snakes)} (the standard setup takes at most "
            f"{STANDARD_MAX_SNAKES})"
        )


def setup_standard(board: MutableBoard, settings: Settings) -> None:
    """Standard setup: default snake placement and setup food, drawn from ``GetRand(0)``.

    Raises:
        MapSetupError: if the snakes or food do not fit.
    """
    check_standard_snake_limit(board)
    rand = settings.get_rand(0)
    ids = [s.id for s in board.snakes]
    placed = create_default_board_state(rand, board.width, board.height, ids)
    for food in placed.food:
        board.add_food(food)
    for snake in placed.snakes:
        board.place_snake(snake.id, snake.body, snake.health)


def spawn_food_standard(
    last: BoardView, settings: Settings, edit: MutableBoard, include_hazards: bool = False
) -> None:
    """The standard per-turn food spawn (``StandardMap.PostUpdateBoard``).

    Below ``minimumFood`` the board is topped up; otherwise one food spawns when
    ``(100 - Intn(100)) < foodSpawnChance`` (so the real chance is one percent
    less than the setting).  Food goes to free squares not next to an alive head;
    hazard squares are allowed unless ``include_hazards`` (the rivers and islands
    maps exclude them).
    """
    rand = settings.get_rand(last.turn)
    min_food = settings.get_int(MINIMUM_FOOD, 0)
    chance = settings.get_int(FOOD_SPAWN_CHANCE, 0)
    current = len(last.food)
    if current < min_food:
        place_food_shuffled(rand, last, edit, min_food - current, include_hazards)
    elif chance > 0 and (100 - rand.intn(100)) < chance:
        place_food_shuffled(rand, last, edit, 1, include_hazards)


def place_food_shuffled(
    rand: Rand, last: BoardView, edit: MutableBoard, n: int, include_hazards: bool = False
) -> None:
    """Shuffle the free squares (away from heads) and add the first ``n`` as food."""
    free = get_unoccupied_points(last, False, include_hazards)
    rand.shuffle_list(free)
    for p in free[:n]:
        edit.add_food(p)


def draw_ring(width: int, height: int, h_offset: int, v_offset: int) -> list[Point]:
    """Return a one-square ring inset ``h_offset``/``v_offset`` from the edges.

    The order is the reference's: the horizontal walls pairwise (bottom, top) by x,
    then the vertical walls pairwise (left, right) by y, corners only once.

    Raises:
        MapSetupError: if the offsets do not fit the board.
    """
    if width < 1 or height < 1:
        raise MapSetupError(f"board {width}x{height} is too small for a ring")
    if h_offset >= width - 1 or v_offset >= height - 1:
        raise MapSetupError(f"ring offset ({h_offset}, {v_offset}) too large for {width}x{height}")
    if h_offset < 1 or v_offset < 1:
        raise MapSetupError(f"ring offset ({h_offset}, {v_offset}) too small")
    x0, x1 = h_offset - 1, width - h_offset
    y0, y1 = v_offset - 1, height - v_offset
    ring: list[Point] = []
    for x in range(x0, x1 + 1):
        ring.append(Point(x, y0))
        ring.append(Point(x, y1))
    for y in range(y0 + 1, y1):
        ring.append(Point(x0, y))
        ring.append(Point(x1, y))
    return ring


def is_on_board(width: int, height: int, x: int, y: int) -> bool:
    """True if ``(x, y)`` lies on a ``width`` x ``height`` board."""
    return 0 <= x < width and 0 <= y < height


def snake_ids(board: BoardView) -> Sequence[str]:
    """The ids of every snake on ``board``, in board order."""
    return [s.id for s in board.snakes]
