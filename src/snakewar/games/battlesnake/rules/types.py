"""Immutable Battlesnake state types: :class:`Point`, :class:`Snake`, :class:`BoardState`.

These mirror the reference engine's data model (``board.go``): ``(0, 0)`` is the
bottom-left square and ``up`` is ``y + 1``; eliminated snakes stay in
:attr:`BoardState.snakes` in their original order; food and hazards are ordered
lists that may repeat a point (a hazard listed ``k`` times deals ``k`` times the
damage).

The rules never modify these objects.  A turn thaws the state into a
:class:`~snakewar.games.battlesnake.rules.board.MutableBoard`, runs the stages on it and
freezes the result, much as the reference clones its state before each ``Execute``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple, Protocol

from snakewar.errors import InvalidStateError
from snakewar.games.battlesnake.rules.rng import INT64_MAX, INT64_MIN

__all__ = [
    "MAX_BOARD_SIZE",
    "SNAKE_MAX_HEALTH",
    "SNAKE_START_SIZE",
    "BoardState",
    "BoardView",
    "Direction",
    "EliminationCause",
    "Point",
    "Snake",
    "SnakeView",
]

SNAKE_MAX_HEALTH = 100
"""Health of a snake that has just eaten (and at the start)."""
SNAKE_START_SIZE = 3
"""Number of (stacked) body segments a snake starts with."""
MAX_BOARD_SIZE = 255
"""The largest width or height the engine accepts; far beyond any map's sizes."""


class Point(NamedTuple):
    """A square of the board; ``(0, 0)`` is bottom-left."""

    x: int
    y: int

    def moved(self, direction: Direction) -> Point:
        """Return the neighbouring point in ``direction`` (no bounds check)."""
        dx, dy = _DELTAS[direction]
        return Point(self.x + dx, self.y + dy)

    def to_api(self) -> dict[str, int]:
        """Return the API v1 ``Coord`` object ``{"x": .., "y": ..}``."""
        return {"x": self.x, "y": self.y}


class Direction(StrEnum):
    """A move.  The values are the exact, case-sensitive wire strings."""

    UP = "up"
    DOWN = "down"
    LEFT = "left"
    RIGHT = "right"

    @property
    def delta(self) -> tuple[int, int]:
        """The ``(dx, dy)`` step of this move."""
        return _DELTAS[self]


_DELTAS: dict[str, tuple[int, int]] = {
    "up": (0, 1),
    "down": (0, -1),
    "left": (-1, 0),
    "right": (1, 0),
}


class EliminationCause(StrEnum):
    """Why a snake was eliminated; the values are the reference's wire strings."""

    NOT_ELIMINATED = ""
    SNAKE_COLLISION = "snake-collision"
    SELF_COLLISION = "snake-self-collision"
    OUT_OF_HEALTH = "out-of-health"
    HEAD_COLLISION = "head-collision"
    WALL_COLLISION = "wall-collision"
    HAZARD = "hazard"


class SnakeView(Protocol):
    """Read access to a snake, shared by :class:`Snake` and the mutable working copy."""

    @property
    def id(self) -> str:
        """The ``id`` field."""
        ...

    @property
    def body(self) -> Sequence[Point]:
        """The ``body`` field."""
        ...

    @property
    def health(self) -> int:
        """The ``health`` field."""
        ...

    @property
    def eliminated_cause(self) -> str:
        """The ``eliminated_cause`` field."""
        ...

    @property
    def eliminated_by(self) -> str:
        """The ``eliminated_by`` field."""
        ...

    @property
    def eliminated_on_turn(self) -> int:
        """The ``eliminated_on_turn`` field."""
        ...


class BoardView(Protocol):
    """Read access to a board, shared by :class:`BoardState` and the mutable working copy."""

    @property
    def turn(self) -> int:
        """The ``turn`` field."""
        ...

    @property
    def width(self) -> int:
        """The ``width`` field."""
        ...

    @property
    def height(self) -> int:
        """The ``height`` field."""
        ...

    @property
    def snakes(self) -> Sequence[SnakeView]:
        """The ``snakes`` field."""
        ...

    @property
    def food(self) -> Sequence[Point]:
        """The ``food`` field."""
        ...

    @property
    def hazards(self) -> Sequence[Point]:
        """The ``hazards`` field."""
        ...


def _point(value: Any, where: str) -> Point:
    """Parse ``[x, y]``, ``(x, y)``, ``{"x":, "y":}`` or a Point into a Point."""
    if isinstance(value, Point):
        return value
    if isinstance(value, dict):
        x, y = value.get("x", value.get("X")), value.get("y", value.get("Y"))
    elif isinstance(value, list | tuple) and len(value) == 2:
        x, y = value
    else:
        raise InvalidStateError(
            f"{where}: expected a point [x, y] or {{'x':, 'y':}}, got {value!r}"
        )
    if type(x) is not int or type(y) is not int:
        raise InvalidStateError(f"{where}: point coordinates must be integers, got {value!r}")
    return Point(x, y)


class Snake(NamedTuple):
    """One snake.  ``body`` is head first; stacked segments repeat a point.

    A named tuple rather than a dataclass: a turn creates one per snake, and a
    tuple is several times cheaper to build than a frozen dataclass.
    """

    id: str
    body: tuple[Point, ...]
    health: int = SNAKE_MAX_HEALTH
    eliminated_cause: str = EliminationCause.NOT_ELIMINATED
    """``""`` while alive, otherwise an :class:`EliminationCause` value."""
    eliminated_by: str = ""
    """The id of the snake responsible (own id for self-collision), or ``""``."""
    eliminated_on_turn: int = 0
    """The turn of the state that first shows the elimination (0 while alive)."""

    @property
    def head(self) -> Point:
        """The head (first body segment).

        Raises:
            IndexError: if the body is empty (only before setup places the snake).
        """
        return self.body[0]

    @property
    def length(self) -> int:
        """The body length, stacked segments included (the API's ``length``)."""
        return len(self.body)

    @property
    def is_alive(self) -> bool:
        """True while the snake has not been eliminated."""
        return not self.eliminated_cause

    @property
    def is_eliminated(self) -> bool:
        """True once the snake has been eliminated."""
        return bool(self.eliminated_cause)

    def to_dict(self) -> dict[str, Any]:
        """Return the snake in Snakewar's (and the conformance data's) JSON form."""
        return {
            "id": self.id,
            "body": [[p.x, p.y] for p in self.body],
            "health": self.health,
            "eliminated_cause": str(self.eliminated_cause),
            "eliminated_by": self.eliminated_by,
            "eliminated_on_turn": self.eliminated_on_turn,
        }

    @staticmethod
    def from_dict(data: Any) -> Snake:
        """Build a snake from :meth:`to_dict`'s form.

        Raises:
            InvalidStateError: if a field is missing or has the wrong type.
        """
        if not isinstance(data, dict):
            raise InvalidStateError(f"snake: expected an object, got {data!r}")
        sid = data.get("id")
        if not isinstance(sid, str):
            raise InvalidStateError(f"snake: 'id' must be a string, got {sid!r}")
        body = data.get("body")
        if not isinstance(body, list):
            raise InvalidStateError(f"snake {sid!r}: 'body' must be a list of points, got {body!r}")
        health = data.get("health", SNAKE_MAX_HEALTH)
        if type(health) is not int:
            raise InvalidStateError(f"snake {sid!r}: 'health' must be an integer, got {health!r}")
        cause = data.get("eliminated_cause", "")
        try:
            cause = EliminationCause(cause)
        except ValueError:
            valid = ", ".join(repr(c.value) for c in EliminationCause)
            raise InvalidStateError(
                f"snake {sid!r}: unknown eliminated_cause {cause!r} (expected one of {valid})"
            ) from None
        by = data.get("eliminated_by", "")
        on_turn = data.get("eliminated_on_turn", 0)
        if not isinstance(by, str) or type(on_turn) is not int:
            raise InvalidStateError(f"snake {sid!r}: bad eliminated_by/eliminated_on_turn")
        return Snake(
            id=sid,
            body=tuple(_point(p, f"snake {sid!r} body") for p in body),
            health=health,
            eliminated_cause=cause,
            eliminated_by=by,
            eliminated_on_turn=on_turn,
        )


def reduce_dataclass(obj: Any) -> tuple[type[Any], tuple[Any, ...]]:
    """A frozen dataclass's ``__reduce__``: pickle and copy rebuild it through ``__init__``.

    Compiled with mypyc, a frozen dataclass cannot be restored the way pickle and
    :mod:`copy` otherwise restore one (setting each field on a bare instance).
    """
    return type(obj), tuple(getattr(obj, f.name) for f in dataclasses.fields(obj) if f.init)


@dataclass(frozen=True, slots=True)
class BoardState:
    """The whole board at one turn.

    >>> s = BoardState(turn=0, width=7, height=7, snakes=(Snake("a", (Point(1, 1),) * 3),))
    >>> s.snakes[0].head
    Point(x=1, y=1)
    """

    turn: int
    width: int
    height: int
    snakes: tuple[Snake, ...] = ()
    food: tuple[Point, ...] = ()
    hazards: tuple[Point, ...] = ()

    def __init__(
        self,
        turn: int,
        width: int,
        height: int,
        snakes: tuple[Snake, ...] = (),
        food: tuple[Point, ...] = (),
        hazards: tuple[Point, ...] = (),
    ) -> None:
        # Written out, not generated by @dataclass: mypyc compiles this one, where it
        # would leave the generated __init__ interpreted (every turn builds two states).
        _set = object.__setattr__
        _set(self, "turn", turn)
        _set(self, "width", width)
        _set(self, "height", height)
        _set(self, "snakes", snakes)
        _set(self, "food", food)
        _set(self, "hazards", hazards)

    def __reduce__(self) -> tuple[type[Any], tuple[Any, ...]]:
        return reduce_dataclass(self)

    @property
    def alive_snakes(self) -> tuple[Snake, ...]:
        """The snakes not yet eliminated, in board order."""
        return tuple(s for s in self.snakes if not s.eliminated_cause)

    def snake(self, snake_id: str) -> Snake:
        """Return the snake with ``snake_id``.

        Raises:
            KeyError: if no snake has that id.
        """
        for s in self.snakes:
            if s.id == snake_id:
                return s
        raise KeyError(snake_id)

    def is_on_board(self, p: Point) -> bool:
        """True if ``p`` lies on the board."""
        return 0 <= p.x < self.width and 0 <= p.y < self.height

    def replace(self, **changes: Any) -> BoardState:
        """Return a copy with some fields replaced (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)

    def validate(self) -> None:
        """Check that the state can be played.

        The checks: width and height in ``1..MAX_BOARD_SIZE``; unique, non-empty
        snake ids; a known elimination cause; and every other number (turn, health,
        ``eliminated_on_turn``, each coordinate) a Go ``int``, ``-2**63..2**63-1``,
        the reference's own range.  Points are not limited to the board: the engine
        itself makes states with points far off it (heads that left the board, a
        snake moved by repeated move entries, snail_mode's hazards below it,
        ``hz_expand_box``/``hz_expand_scatter``'s start drawn with the width for both
        coordinates on a board taller than wide), and every state the engine makes
        must load again (replays).  Negative turns are the ``Turn + 1`` after
        ``2**63 - 1``, as in Go.  An alive snake with an empty body is *not* rejected
        here: the reference reports it from ``Execute`` as ``"snake is length
        zero"``, and so does Snakewar.

        Raises:
            InvalidStateError: naming the first problem found.
        """
        w, h = self.width, self.height
        for name, value in (("width", w), ("height", h)):
            if type(value) is not int or not 1 <= value <= MAX_BOARD_SIZE:
                raise InvalidStateError(
                    f"board {name} {value!r} is out of range (expected 1..{MAX_BOARD_SIZE})"
                )
        if type(self.turn) is not int or not INT64_MIN <= self.turn <= INT64_MAX:
            raise InvalidStateError(f"turn {self.turn!r} is invalid ({_INT64_TEXT})")

        def check(p: Point, where: str) -> None:
            if not (INT64_MIN <= p.x <= INT64_MAX and INT64_MIN <= p.y <= INT64_MAX):
                raise InvalidStateError(
                    f"{where}: point ({p.x}, {p.y}) is out of range "
                    f"(coordinates are 64-bit integers, {_INT64_TEXT[9:]})"
                )

        seen: set[str] = set()
        for s in self.snakes:
            if not s.id:
                raise InvalidStateError("snake id must be a non-empty string")
            if s.id in seen:
                raise InvalidStateError(f"duplicate snake id {s.id!r}")
            seen.add(s.id)
            if s.eliminated_cause not in _CAUSES:
                raise InvalidStateError(
                    f"snake {s.id!r}: unknown eliminated_cause {s.eliminated_cause!r}"
                )
            for name, value in (("health", s.health), ("eliminated_on_turn", s.eliminated_on_turn)):
                if not INT64_MIN <= value <= INT64_MAX:
                    raise InvalidStateError(f"snake {s.id!r}: {name} {value} ({_INT64_TEXT})")
            for p in s.body:
                check(p, f"snake {s.id!r} body")
        for p in self.food:
            check(p, "food")
        for p in self.hazards:
            check(p, "hazards")

    def to_dict(self) -> dict[str, Any]:
        """Return the state in Snakewar's JSON form (the conformance data's form)."""
        return {
            "turn": self.turn,
            "width": self.width,
            "height": self.height,
            "food": [[p.x, p.y] for p in self.food],
            "hazards": [[p.x, p.y] for p in self.hazards],
            "snakes": [s.to_dict() for s in self.snakes],
        }

    @classmethod
    def from_dict(cls, data: Any) -> BoardState:
        """Build and validate a state from :meth:`to_dict`'s form.

        Raises:
            InvalidStateError: if the data is malformed or the state is invalid.
        """
        if not isinstance(data, dict):
            raise InvalidStateError(f"board state: expected an object, got {type(data).__name__}")
        for key in ("turn", "width", "height"):
            if type(data.get(key)) is not int:
                raise InvalidStateError(
                    f"board state: {key!r} must be an integer, got {data.get(key)!r}"
                )
        snakes = data.get("snakes", [])
        food = data.get("food", [])
        hazards = data.get("hazards", [])
        for key, value in (("snakes", snakes), ("food", food), ("hazards", hazards)):
            if not isinstance(value, list):
                raise InvalidStateError(f"board state: {key!r} must be a list, got {value!r}")
        state = cls(
            turn=data["turn"],
            width=data["width"],
            height=data["height"],
            snakes=tuple(Snake.from_dict(s) for s in snakes),
            food=tuple(_point(p, "food") for p in food),
            hazards=tuple(_point(p, "hazards") for p in hazards),
        )
        state.validate()
        return state


_CAUSES = frozenset(c.value for c in EliminationCause)
_INT64_TEXT = f"expected a 64-bit integer, {INT64_MIN}..{INT64_MAX}"


def points(items: Iterable[Any]) -> tuple[Point, ...]:
    """Convert ``[[x, y], ...]`` (or Points, or coord dicts) into a tuple of Points.

    Raises:
        InvalidStateError: if an item is not a point.
    """
    return tuple(_point(p, "point") for p in items)
