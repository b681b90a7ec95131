"""The map, its cells, and the players."""

from __future__ import annotations

from hlt.common import read_ints
from hlt.entities import Dropoff, Entity, Ship, Shipyard
from hlt.positionals import Direction, Position


class Player:
    """A player: its shipyard, ships, dropoffs and the halite it holds."""

    def __init__(self, player_id: int, shipyard: Shipyard, halite: int = 0) -> None:
        self.id = player_id
        self.shipyard = shipyard
        self.halite_amount = halite
        self._ships: dict[int, Ship] = {}
        self._dropoffs: dict[int, Dropoff] = {}

    def get_ship(self, ship_id: int) -> Ship:
        """One of this player's ships by id."""
        return self._ships[ship_id]

    def get_ships(self) -> list[Ship]:
        """All of this player's ships."""
        return list(self._ships.values())

    def get_dropoff(self, dropoff_id: int) -> Dropoff:
        """One of this player's dropoffs by id."""
        return self._dropoffs[dropoff_id]

    def get_dropoffs(self) -> list[Dropoff]:
        """All of this player's dropoffs."""
        return list(self._dropoffs.values())

    def has_ship(self, ship_id: int) -> bool:
        """Whether this player owns a ship with this id."""
        return ship_id in self._ships

    @staticmethod
    def _generate() -> Player:
        pid, x, y = read_ints()
        return Player(pid, Shipyard(pid, -1, Position(x, y)))

    def _update(self, num_ships: int, num_dropoffs: int, halite: int) -> None:
        self.halite_amount = halite
        ships = {}
        for _ in range(num_ships):
            sid, x, y, cargo = read_ints()
            ships[sid] = Ship(self.id, sid, Position(x, y), cargo)
        self._ships = ships
        dropoffs = {}
        for _ in range(num_dropoffs):
            did, x, y = read_ints()
            dropoffs[did] = Dropoff(self.id, did, Position(x, y))
        self._dropoffs = dropoffs


class MapCell:
    """One cell: its halite, and the ship and structure on it."""

    def __init__(self, position: Position, halite_amount: int) -> None:
        self.position = position
        self.halite_amount = halite_amount
        self.ship: Ship | None = None
        self.structure: Entity | None = None

    @property
    def is_empty(self) -> bool:
        """No ship and no structure here."""
        return self.ship is None and self.structure is None

    @property
    def is_occupied(self) -> bool:
        """A ship is here (or the cell was marked unsafe)."""
        return self.ship is not None

    @property
    def has_structure(self) -> bool:
        """A shipyard or dropoff is here."""
        return self.structure is not None

    @property
    def structure_type(self) -> type | None:
        """The class of the structure here, if any."""
        return type(self.structure) if self.structure is not None else None

    def mark_unsafe(self, ship: Ship) -> None:
        """Reserve this cell for ``ship`` (navigation treats it as occupied)."""
        self.ship = ship

    def __repr__(self) -> str:
        return f"MapCell({self.position}, halite={self.halite_amount})"


class GameMap:
    """The toroidal map: ``game_map[position]`` or ``game_map[entity]`` gives a cell."""

    def __init__(self, cells: list[list[MapCell]], width: int, height: int) -> None:
        self.width = width
        self.height = height
        self._cells = cells

    def __getitem__(self, location: Position | Entity) -> MapCell:
        position = location.position if isinstance(location, Entity) else location
        position = self.normalize(position)
        return self._cells[position.y][position.x]

    def calculate_distance(self, source: Position, target: Position) -> int:
        """Toroidal Manhattan distance."""
        source, target = self.normalize(source), self.normalize(target)
        dx, dy = abs(source.x - target.x), abs(source.y - target.y)
        return min(dx, self.width - dx) + min(dy, self.height - dy)

    def normalize(self, position: Position) -> Position:
        """The position wrapped onto the map."""
        return Position(position.x % self.width, position.y % self.height, normalize=False)

    def get_unsafe_moves(self, source: Position, destination: Position) -> list[tuple[int, int]]:
        """The (one or two) directions that bring ``source`` closer to ``destination``."""
        source, destination = self.normalize(source), self.normalize(destination)
        moves = []
        dx = (destination.x - source.x) % self.width
        dy = (destination.y - source.y) % self.height
        if dx:
            moves.append(Direction.East if dx <= self.width - dx else Direction.West)
        if dy:
            moves.append(Direction.South if dy <= self.height - dy else Direction.North)
        return moves

    def naive_navigate(self, ship: Ship, destination: Position) -> tuple[int, int]:
        """The first free direction toward ``destination`` (marking it unsafe), else Still."""
        for direction in self.get_unsafe_moves(ship.position, destination):
            target = ship.position.directional_offset(direction)
            cell = self[target]
            if not cell.is_occupied:
                cell.mark_unsafe(ship)
                return direction
        return Direction.Still

    @staticmethod
    def _generate() -> GameMap:
        width, height = read_ints()
        cells = []
        for y in range(height):
            row = read_ints()
            cells.append([MapCell(Position(x, y), row[x]) for x in range(width)])
        return GameMap(cells, width, height)

    def _update(self) -> None:
        for row in self._cells:
            for cell in row:
                cell.ship = None
        for _ in range(read_ints()[0]):
            x, y, halite = read_ints()
            self._cells[y][x].halite_amount = halite
