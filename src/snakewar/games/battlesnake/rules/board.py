"""The mutable working board the stages and maps edit, and the setup helpers.

:class:`MutableBoard` plays the part of the reference's cloned ``*BoardState`` plus
its map ``Editor``: the stages of one ``Execute`` and one map update each work on a
fresh copy, and the result is frozen into a :class:`BoardState`.

The placement and food helpers port ``board.go`` (``PlaceSnakesAutomatically``,
``PlaceFoodAutomatically``, ``GetUnoccupiedPoints`` …) with the same scan orders and
the same random draws, so that seeded setups match the reference exactly.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from snakewar.errors import MapSetupError
from snakewar.games.battlesnake.rules.rng import Rand
from snakewar.games.battlesnake.rules.types import (
    SNAKE_MAX_HEALTH,
    SNAKE_START_SIZE,
    BoardState,
    BoardView,
    Point,
    Snake,
)

__all__ = [
    "MutableBoard",
    "MutableSnake",
    "all_points",
    "create_default_board_state",
    "get_even_unoccupied_points",
    "get_unoccupied_points",
    "place_food_automatically",
    "place_food_fixed",
    "place_food_randomly",
    "place_many_snakes_distributed",
    "place_snakes_automatically",
    "place_snakes_fixed",
    "place_snakes_randomly",
]

BOARD_SIZE_SMALL = 7
BOARD_SIZE_MEDIUM = 11

# tuple.__new__ skips the named tuple's generated __new__ and _make (Python code,
# which mypyc cannot compile): new heads are made every turn.
_new_tuple = tuple.__new__


class MutableSnake:
    """A snake being edited: like :class:`Snake`, with a list body."""

    __slots__ = ("body", "eliminated_by", "eliminated_cause", "eliminated_on_turn", "health", "id")

    def __init__(
        self,
        id: str,
        body: list[Point],
        health: int = SNAKE_MAX_HEALTH,
        eliminated_cause: str = "",
        eliminated_by: str = "",
        eliminated_on_turn: int = 0,
    ) -> None:
        self.id = id
        self.body = body
        self.health = health
        self.eliminated_cause = eliminated_cause
        self.eliminated_by = eliminated_by
        self.eliminated_on_turn = eliminated_on_turn

    def eliminate(self, cause: str, by: str, turn: int) -> None:
        """Mark the snake eliminated (the reference's ``EliminateSnake``)."""
        self.eliminated_cause = cause
        self.eliminated_by = by
        self.eliminated_on_turn = turn

    def __reduce__(self) -> tuple[type[MutableSnake], tuple[object, ...]]:
        # Pickle and copy through __init__: a mypyc-compiled class has no bare instances.
        return MutableSnake, (
            self.id,
            self.body,
            self.health,
            self.eliminated_cause,
            self.eliminated_by,
            self.eliminated_on_turn,
        )

    def freeze(self) -> Snake:
        """Return the immutable :class:`Snake`."""
        # tuple.__new__ skips the named tuple's generated __new__: this runs for
        # every snake twice a turn.
        return _new_tuple(
            Snake,
            (
                self.id,
                tuple(self.body),
                self.health,
                self.eliminated_cause,
                self.eliminated_by,
                self.eliminated_on_turn,
            ),
        )

    def __repr__(self) -> str:
        return (
            f"MutableSnake({self.id!r}, body={self.body!r}, health={self.health!r}, "
            f"eliminated_cause={self.eliminated_cause!r})"
        )


class MutableBoard:
    """A board being edited by stages or a map.

    The editing methods follow the reference's map ``Editor`` exactly, quirks
    included (see :meth:`remove_food`).
    """

    __slots__ = ("food", "hazards", "height", "snakes", "turn", "width")

    def __init__(
        self,
        turn: int,
        width: int,
        height: int,
        snakes: list[MutableSnake] | None = None,
        food: list[Point] | None = None,
        hazards: list[Point] | None = None,
    ) -> None:
        self.turn = turn
        self.width = width
        self.height = height
        self.snakes: list[MutableSnake] = snakes if snakes is not None else []
        self.food: list[Point] = food if food is not None else []
        self.hazards: list[Point] = hazards if hazards is not None else []

    @classmethod
    def from_state(cls, state: BoardView) -> MutableBoard:
        """Return a deep, editable copy of ``state`` (the reference's ``Clone``)."""
        return cls(
            state.turn,
            state.width,
            state.height,
            [
                MutableSnake(
                    s.id,
                    list(s.body),
                    s.health,
                    s.eliminated_cause,
                    s.eliminated_by,
                    s.eliminated_on_turn,
                )
                for s in state.snakes
            ],
            list(state.food),
            list(state.hazards),
        )

    def __reduce__(self) -> tuple[type[MutableBoard], tuple[object, ...]]:
        # Pickle and copy through __init__: a mypyc-compiled class has no bare instances.
        return MutableBoard, (
            self.turn,
            self.width,
            self.height,
            self.snakes,
            self.food,
            self.hazards,
        )

    def copy(self) -> MutableBoard:
        """Return a deep copy."""
        return MutableBoard.from_state(self)

    def freeze(self) -> BoardState:
        """Return the immutable :class:`BoardState`."""
        return BoardState(
            self.turn,
            self.width,
            self.height,
            tuple([s.freeze() for s in self.snakes]),
            tuple(self.food),
            tuple(self.hazards),
        )

    # -- the map editor ------------------------------------------------------------

    def clear_hazards(self) -> None:
        """Remove all hazards."""
        self.hazards = []

    def add_food(self, p: Point) -> None:
        """Add one food (no duplicate check, as in the reference)."""
        self.food.append(_new_tuple(Point, (p[0], p[1])))

    def add_hazard(self, p: Point) -> None:
        """Add one hazard; adding a point again stacks it."""
        self.hazards.append(_new_tuple(Point, (p[0], p[1])))

    def remove_food(self, p: Point) -> None:
        """Remove the food at ``p`` exactly as the reference editor does.

        The reference swap-removes inside a ``range`` loop over the original
        length, so it can leave a copy behind or drop a copy twice when the
        list repeats a point; this reproduces that.  Where the loop meets a copy
        past the end of the shortened list the reference panics (index out of
        range); Snakewar stops there instead, keeping the shortened list.
        """
        self.food = _go_swap_remove(self.food, p)

    def remove_hazard(self, p: Point) -> None:
        """Remove the hazards at ``p`` exactly as the reference editor does.

        As :meth:`remove_food`, including where the reference panics.
        """
        self.hazards = _go_swap_remove(self.hazards, p)

    def place_snake(self, snake_id: str, body: Sequence[Point], health: int) -> None:
        """Set the body and health of ``snake_id``, adding the snake if it is new."""
        for s in self.snakes:
            if s.id == snake_id:
                s.body = list(body)
                s.health = health
                return
        self.snakes.append(MutableSnake(snake_id, list(body), health))

    def __repr__(self) -> str:
        return f"MutableBoard(turn={self.turn}, {self.width}x{self.height}, snakes={self.snakes!r})"


def _go_swap_remove(items: list[Point], p: Point) -> list[Point]:
    # Go: for i, q := range s { if q == p { s[i] = s[len(s)-1]; s = s[:len(s)-1] } }
    # The loop runs over the original length and reads the shared backing array.
    # A match at i >= len(s) makes Go's s[i] panic; stop there (documented above).
    backing = list(items)
    length = len(backing)
    for i in range(len(backing)):
        if backing[i] == p:
            if i >= length:
                break
            backing[i] = backing[length - 1]
            length -= 1
    return backing[:length]


# -- setup helpers (board.go) ---------------------------------------------------------


def get_unoccupied_points(
    board: BoardView, include_possible_moves: bool, include_hazards: bool = False
) -> list[Point]:
    """Return the free squares, scanned x-major then y (``GetUnoccupiedPoints``).

    Occupied: food, every segment of an alive snake, with
    ``include_possible_moves=False`` also the four neighbours of each alive head,
    and with ``include_hazards=True`` every hazard square.
    """
    occupied: set[tuple[int, int]] = set(board.food)
    for s in board.snakes:
        if s.eliminated_cause:
            continue
        body = s.body
        occupied.update(body)
        if not include_possible_moves and body:
            hx, hy = body[0]
            occupied.update(((hx - 1, hy), (hx + 1, hy), (hx, hy - 1), (hx, hy + 1)))
    if include_hazards:
        occupied.update(board.hazards)
    return [p for p in all_points(board.width, board.height) if p not in occupied]


@functools.lru_cache(maxsize=64)
def all_points(width: int, height: int) -> tuple[Point, ...]:
    """Every square of a ``width`` x ``height`` board, x-major then y (cached)."""
    return tuple(Point(x, y) for x in range(width) for y in range(height))


def get_even_unoccupied_points(board: BoardView) -> list[Point]:
    """Return the free squares with even ``x + y`` (``GetEvenUnoccupiedPoints``)."""
    return [p for p in get_unoccupied_points(board, True) if (p.x + p.y) % 2 == 0]


def _init_snakes(board: MutableBoard, snake_ids: Sequence[str]) -> None:
    board.snakes = [MutableSnake(sid, [], SNAKE_MAX_HEALTH) for sid in snake_ids]


def place_snakes_automatically(rand: Rand, board: MutableBoard, snake_ids: Sequence[str]) -> None:
    """Place snakes the reference's default way (``PlaceSnakesAutomatically``).

    Square boards of width >= 7 with up to 8 snakes use fixed starts; square boards
    of width >= 11 with more snakes use distributed starts; anything else random.

    Raises:
        MapSetupError: if the snakes do not fit.
    """
    n = len(snake_ids)
    if board.width == board.height:
        if n > 8 and board.width < BOARD_SIZE_SMALL:
            raise MapSetupError(f"too many snakes for fixed start positions: {n} on a small board")
        if n <= 8 and board.width >= BOARD_SIZE_SMALL:
            place_snakes_fixed(rand, board, snake_ids)
            return
        if board.width >= BOARD_SIZE_MEDIUM:
            place_many_snakes_distributed(rand, board, snake_ids)
            return
    place_snakes_randomly(rand, board, snake_ids)


def place_snakes_fixed(rand: Rand, board: MutableBoard, snake_ids: Sequence[str]) -> None:
    """Place up to 8 snakes on the fixed corner and side starts (``PlaceSnakesFixed``).

    Raises:
        MapSetupError: with more than 8 snakes.
    """
    _init_snakes(board, snake_ids)
    mn, md, mx = 1, (board.width - 1) // 2, board.width - 2
    corners = [Point(mn, mn), Point(mn, mx), Point(mx, mn), Point(mx, mx)]
    cardinals = [Point(mn, md), Point(md, mn), Point(md, mx), Point(mx, md)]
    if len(snake_ids) > len(corners) + len(cardinals):
        raise MapSetupError(
            f"too many snakes for fixed start positions: {len(snake_ids)} (at most 8)"
        )
    rand.shuffle_list(corners)
    rand.shuffle_list(cardinals)
    starts = corners + cardinals if rand.intn(2) == 0 else cardinals + corners
    for snake, start in zip(board.snakes, starts, strict=False):
        snake.body = [start] * SNAKE_START_SIZE


def place_many_snakes_distributed(
    rand: Rand, board: MutableBoard, snake_ids: Sequence[str]
) -> None:
    """Spread up to 16 snakes over four mirrored quadrants (``PlaceManySnakesDistributed``).

    Raises:
        MapSetupError: with more than 16 snakes.
    """
    if len(snake_ids) > 16:
        raise MapSetupError(
            f"too many snakes for distributed placement: {len(snake_ids)} (at most 16)"
        )
    _init_snakes(board, snake_ids)
    w, h = board.width, board.height
    qw, qh = w // 2, h // 2
    ho, vo = qw // 3, qh // 3
    q0 = [Point(ho, vo), Point(qw - ho, vo), Point(ho, qh - vo), Point(qw - ho, qh - vo)]
    quads = [
        q0,
        [Point(w - p.x - 1, p.y) for p in q0],
        [Point(p.x, h - p.y - 1) for p in q0],
        [Point(w - p.x - 1, h - p.y - 1) for p in q0],
    ]
    current = rand.intn(4)
    for snake in board.snakes:
        bucket = quads[current]
        if not bucket:
            raise MapSetupError("no more positions available")
        idx = rand.intn(len(bucket))
        p = bucket[idx]
        # The reference removes with a swap-with-last, which shapes later draws.
        bucket[idx] = bucket[-1]
        bucket.pop()
        snake.body = [p] * SNAKE_START_SIZE
        current = (current + 1) % 4


def place_snakes_randomly(rand: Rand, board: MutableBoard, snake_ids: Sequence[str]) -> None:
    """Place each snake on a random free even square, never the centre.

    Raises:
        MapSetupError: if no square is left.
    """
    _init_snakes(board, snake_ids)
    center = Point((board.width - 1) // 2, (board.height - 1) // 2)
    for snake in board.snakes:
        free = [p for p in get_even_unoccupied_points(board) if p != center]
        if not free:
            raise MapSetupError("not enough space to place snake")
        p = free[rand.intn(len(free))]
        snake.body = [p] * SNAKE_START_SIZE


def place_food_automatically(rand: Rand, board: MutableBoard) -> None:
    """Place setup food the reference's default way (``PlaceFoodAutomatically``).

    Raises:
        MapSetupError: if the food does not fit.
    """
    if board.width == board.height and board.width >= BOARD_SIZE_SMALL:
        place_food_fixed(rand, board)
    else:
        place_food_randomly(rand, board, len(board.snakes))


def place_food_fixed(rand: Rand, board: MutableBoard) -> None:
    """Place one food diagonal to each snake, away from the centre, plus the centre.

    This is the reference's ``rules.PlaceFoodFixed`` (used by the standard setup).
    On boards smaller than 11x11 with more than 4 snakes only the centre food is
    placed.

    Raises:
        MapSetupError: if a snake has no candidate square or the centre is taken.
    """
    cx, cy = (board.width - 1) // 2, (board.height - 1) // 2
    center = Point(cx, cy)
    small = board.width * board.height < BOARD_SIZE_MEDIUM * BOARD_SIZE_MEDIUM
    if len(board.snakes) <= 4 or not small:
        w1, h1 = board.width - 1, board.height - 1
        for snake in board.snakes:
            hx, hy = snake.body[0]
            available = []
            for p in (
                Point(hx - 1, hy - 1),
                Point(hx - 1, hy + 1),
                Point(hx + 1, hy - 1),
                Point(hx + 1, hy + 1),
            ):
                if p == center or p in board.food:
                    continue
                away = (p.x < hx < cx) or (cx < hx < p.x) or (p.y < hy < cy) or (cy < hy < p.y)
                if not away:
                    continue
                if p.x in (0, w1) and p.y in (0, h1):
                    continue
                available.append(p)
            if not available:
                raise MapSetupError("not enough space to place food")
            board.food.append(available[rand.intn(len(available))])
    if center not in get_unoccupied_points(board, True):
        raise MapSetupError("not enough space to place food")
    board.food.append(center)


def place_food_randomly(rand: Rand, board: MutableBoard, n: int) -> None:
    """Add up to ``n`` food on random free squares away from heads (``PlaceFoodRandomly``)."""
    for _ in range(n):
        free = get_unoccupied_points(board, False)
        if free:
            board.food.append(free[rand.intn(len(free))])


def create_default_board_state(
    rand: Rand, width: int, height: int, snake_ids: Sequence[str]
) -> MutableBoard:
    """Return a board with snakes and food placed the default way.

    Raises:
        MapSetupError: if the snakes or food do not fit.
    """
    board = MutableBoard(0, width, height)
    place_snakes_automatically(rand, board, snake_ids)
    place_food_automatically(rand, board)
    return board


def initialize_snakes(board: MutableBoard, snake_ids: Iterable[str]) -> None:
    """Add every snake with an empty body and full health (``InitializeSnakes``)."""
    _init_snakes(board, list(snake_ids))
