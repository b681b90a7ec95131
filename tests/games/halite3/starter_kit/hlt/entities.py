"""Ships, shipyards and dropoffs."""

from __future__ import annotations

from hlt import constants
from hlt.positionals import Direction, Position


class Entity:
    """Something on the map owned by a player."""

    def __init__(self, owner: int, id: int, position: Position) -> None:
        self.owner = owner
        self.id = id
        self.position = position

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id}, {self.position})"


class Dropoff(Entity):
    """A structure where ships deposit halite."""


class Shipyard(Entity):
    """A player's shipyard (its id is -1)."""

    def spawn(self) -> str:
        """The command that builds a ship here."""
        return "g"


class Ship(Entity):
    """A ship and the halite it carries."""

    def __init__(self, owner: int, id: int, position: Position, halite_amount: int) -> None:
        super().__init__(owner, id, position)
        self.halite_amount = halite_amount

    @property
    def is_full(self) -> bool:
        """Whether the ship carries as much as it can."""
        return self.halite_amount >= constants.MAX_HALITE

    def make_dropoff(self) -> str:
        """The command that turns this ship into a dropoff."""
        return f"c {self.id}"

    def move(self, direction: tuple[int, int] | str) -> str:
        """The command that moves this ship (a direction tuple or a letter)."""
        letter = direction if isinstance(direction, str) else Direction.convert(direction)
        return f"m {self.id} {letter}"

    def stay_still(self) -> str:
        """The command that keeps this ship where it is."""
        return f"m {self.id} o"
