"""Directions and positions on the toroidal map."""

from __future__ import annotations

from typing import ClassVar

#: The map size once the game has started (positions wrap with it).
_SIZE: list[int] = []


def _set_size(width: int, height: int) -> None:
    _SIZE[:] = [width, height]


class Direction:
    """Offsets of the four moves and of staying still."""

    North = (0, -1)
    South = (0, 1)
    East = (1, 0)
    West = (-1, 0)
    Still = (0, 0)

    _LETTERS: ClassVar[dict[tuple[int, int], str]] = {
        North: "n",
        South: "s",
        East: "e",
        West: "w",
        Still: "o",
    }

    @staticmethod
    def get_all_cardinals() -> list[tuple[int, int]]:
        """North, South, East and West."""
        return [Direction.North, Direction.South, Direction.East, Direction.West]

    @staticmethod
    def convert(direction: tuple[int, int]) -> str:
        """The protocol letter of a direction."""
        try:
            return Direction._LETTERS[tuple(direction)]  # type: ignore[index]
        except KeyError:
            raise IndexError(f"not a direction: {direction!r}") from None

    @staticmethod
    def invert(direction: tuple[int, int]) -> tuple[int, int]:
        """The opposite direction."""
        return (-direction[0], -direction[1])


class Position:
    """A cell's coordinates; wrapped onto the map once its size is known."""

    def __init__(self, x: int, y: int, normalize: bool = True) -> None:
        if normalize and _SIZE:
            x, y = x % _SIZE[0], y % _SIZE[1]
        self.x = x
        self.y = y

    def directional_offset(self, direction: tuple[int, int]) -> Position:
        """The position one step in ``direction``."""
        return self + Position(*direction, normalize=False)

    def get_surrounding_cardinals(self) -> list[Position]:
        """The four neighbouring positions."""
        return [self.directional_offset(d) for d in Direction.get_all_cardinals()]

    def __add__(self, other: Position) -> Position:
        return Position(self.x + other.x, self.y + other.y)

    def __sub__(self, other: Position) -> Position:
        return Position(self.x - other.x, self.y - other.y)

    def __iadd__(self, other: Position) -> Position:
        return self + other

    def __isub__(self, other: Position) -> Position:
        return self - other

    def __abs__(self) -> Position:
        return Position(abs(self.x), abs(self.y), normalize=False)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and (self.x, self.y) == (other.x, other.y)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((self.x, self.y))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.x}, {self.y})"
