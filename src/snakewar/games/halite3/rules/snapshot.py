"""The official engine's snapshots: a game's state as one line, written and read back.

``halite --results-as-json`` prints the ``final_snapshot`` of a game (the viewer offers
the same string for any frame); ``halite --from-snapshot S`` starts a new game from one.
The format (``;`` separates fields, ``,`` list items, ``-`` sub-fields)::

    VERSION;MAPTYPE,WIDTH,HEIGHT,PLAYERS,SEED;CELL,CELL,...;
    PID;ENERGY;FX-FY,DROPOFF_ID-X-Y,...;SHIP_ID-X-Y-CARGO,...;   (once per player)

:func:`parse_snapshot` reads it as the engine's ``Snapshot::from_str`` does, one C++
stream extraction at a time, so that the same strings are accepted, the same values
come out of odd ones (a missing trailing ``,`` or ``;``), and a bad one fails with the
engine's own message, ``could not decode snapshot: Expected ; but got x (at position
N)``, positions and all.  :func:`game_from_snapshot` starts a game from it as the
engine's ``initialize_game`` does:

* the map is generated for the snapshot's size, player count and seed (the map type
  is read but, as there, always fractal), then every cell takes the snapshot's halite;
* player ``i`` (the ``i``-th bot) takes the snapshot's player ``i`` if there is one: its
  shipyard, its energy, its dropoffs and its ships (with their cargo); ships and
  dropoffs get new ids, in order, as the engine makes them anew; players the snapshot
  does not have start as in a new game;
* shipyard cells are emptied and owned, dropoff cells owned (their halite stays);
* the game starts at turn 1 with the full number of turns for the map's size.

Where the engine would read memory out of bounds or stop on an assertion (more bots
than the snapshot's players, a ship or dropoff off the map, two ships on one cell),
Snakewar refuses the snapshot with one line instead.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from snakewar.games.halite3.rules.constants import Constants
from snakewar.games.halite3.rules.game import (
    Dropoff,
    HaliteError,
    HaliteGame,
    ReplayStart,
    Ship,
)
from snakewar.games.halite3.rules.hashorder import HashOrder, location_hash

if TYPE_CHECKING:
    from snakewar.games.halite3.rules.mapgen import GeneratedMap

__all__ = [
    "HaliteSnapshot",
    "PlayerSnapshot",
    "SnapshotError",
    "game_from_snapshot",
    "generated_total",
    "parse_snapshot",
    "write_snapshot",
]

SNAPSHOT_VERSION = "1.2.2.finals"  # the engine version (cli.args.ENGINE_VERSION)
"""The engine version a snapshot must start with (``HALITE_VERSION``)."""

MAX_SNAPSHOT_CHARS = 16 * 1024 * 1024
"""The longest snapshot read (a 128x128 map of 6-digit cells is about 100 KiB)."""

MAX_SIDE = 256
"""The largest map side a snapshot may ask for (the engine's maps are 32..64)."""

_EOF = ""
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
_ULONG_MAX = 2**64 - 1
_UINT_MAX = 2**32 - 1


class SnapshotError(HaliteError, ValueError):
    """Raised for a snapshot that cannot be decoded or started from (one line)."""


@dataclass(slots=True)
class PlayerSnapshot:
    """One player of a snapshot: its energy, shipyard, dropoffs and ships, as read."""

    energy: int
    factory: tuple[int, int] = (0, 0)
    dropoffs: list[tuple[int, int, int]] = field(default_factory=list)
    """``(id, x, y)`` in snapshot order."""
    ships: list[tuple[int, int, int, int]] = field(default_factory=list)
    """``(id, x, y, cargo)`` in snapshot order."""


@dataclass(slots=True)
class HaliteSnapshot:
    """A decoded snapshot: the map's parameters, its cells (row by row), its players."""

    map_type: str
    width: int
    height: int
    num_players: int
    seed: int
    cells: list[int]
    players: dict[int, PlayerSnapshot]


class _Stream:
    """A C++ ``std::istringstream`` over ``text``: the reads the engine's parser makes.

    ``eof`` and ``fail`` are the stream's ``eofbit`` and ``failbit``; every read first
    checks the stream is good (C++'s sentry) and sets ``fail`` when it is not.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.eof = False
        self.fail = False

    @property
    def good(self) -> bool:
        return not (self.eof or self.fail)

    def _sentry(self, skip_space: bool = False) -> bool:
        if not self.good:
            self.fail = True
            return False
        if skip_space:
            while self.pos < len(self.text) and self.text[self.pos] in " \t\n\v\f\r":
                self.pos += 1
            if self.pos >= len(self.text):
                self.eof = self.fail = True
                return False
        return True

    def peek(self) -> str:
        if not self._sentry():
            return _EOF
        if self.pos >= len(self.text):
            self.eof = True
            return _EOF
        return self.text[self.pos]

    def ignore(self) -> None:
        if not self._sentry():
            return
        if self.pos >= len(self.text):
            self.eof = True
        else:
            self.pos += 1

    def tellg(self) -> int:
        if not self._sentry():
            return -1
        return self.pos

    def getline(self, delim: str) -> str | None:
        """``std::getline``: the text up to ``delim`` (taken), ``None`` when nothing was."""
        if not self._sentry():
            return None
        end = self.text.find(delim, self.pos)
        if end < 0:
            line = self.text[self.pos :]
            self.pos = len(self.text)
            self.eof = True
            if not line:
                self.fail = True
                return None
            return line
        line = self.text[self.pos : end]
        self.pos = end + 1
        return line

    def integer(self, unsigned: bool = False, bits: int = 64) -> int:
        """``stream >> n`` for a ``long`` (or an unsigned type): 0 and ``fail`` on no digits."""
        if not self._sentry(skip_space=True):
            return 0
        text, start = self.text, self.pos
        i = start
        negative = False
        if i < len(text) and text[i] in "+-":
            negative = text[i] == "-"
            i += 1
        digits_start = i
        while i < len(text) and text[i].isdigit() and text[i].isascii():
            i += 1
        self.pos = i
        if i >= len(text):
            self.eof = True
        if i == digits_start:
            self.fail = True
            return 0
        magnitude = int(text[digits_start:i])
        if unsigned:
            top = _UINT_MAX if bits == 32 else _ULONG_MAX
            if magnitude > top:
                self.fail = True
                return top
            return (-magnitude) & top if negative else magnitude
        value = -magnitude if negative else magnitude
        if value > _LONG_MAX:
            self.fail = True
            return _LONG_MAX
        if value < _LONG_MIN:
            self.fail = True
            return _LONG_MIN
        return value


def _error(description: str, position: int) -> SnapshotError:
    return SnapshotError(f"could not decode snapshot: {description} (at position {position})")


def _expect(stream: _Stream, delim: str, pos: int) -> None:
    """The engine's ``ignore_delimiter``: take ``delim`` or fail, naming what came."""
    if stream.peek() == delim:
        stream.ignore()
        return
    got = stream.peek()
    raise _error(f"Expected {delim} but got {got or 'EOF'}", pos + stream.tellg())


def parse_snapshot(text: str) -> HaliteSnapshot:
    """Decode a snapshot string exactly as the official engine does.

    Raises:
        SnapshotError: the engine's own message for a string it cannot decode (or,
            beyond it, a string longer than :data:`MAX_SNAPSHOT_CHARS`).
    """
    if len(text) > MAX_SNAPSHOT_CHARS:
        raise SnapshotError(
            f"could not decode snapshot: longer than {MAX_SNAPSHOT_CHARS} characters"
        )
    s = _Stream(text)
    version = s.getline(";")
    if version is None:
        raise _error("EOF while parsing engine version from snapshot", len(text))
    if version != SNAPSHOT_VERSION:
        raise _error("Halite engine version does not match", s.tellg())
    map_type = s.getline(",") or ""
    width = s.integer()
    _expect(s, ",", s.tellg())
    height = s.integer()
    _expect(s, ",", s.tellg())
    num_players = s.integer(unsigned=True)
    _expect(s, ",", s.tellg())
    seed = s.integer(unsigned=True, bits=32)
    _expect(s, ";", s.tellg())

    cells: list[int] = []
    for _ in range(max(0, width * height)):
        if not s.good:
            # Every further read fails and reads nothing: the ';' below is missed.
            break
        cells.append(s.integer())
        if s.peek() == ",":
            s.ignore()
    _expect(s, ";", 0)

    players: dict[int, PlayerSnapshot] = {}
    count = 0
    while count < num_players:
        count += 1
        pid = s.integer()
        _expect(s, ";", 0)
        energy = s.integer()
        _expect(s, ";", 0)
        player = players[pid] = PlayerSnapshot(energy)
        x = s.integer()
        _expect(s, "-", 0)
        y = s.integer()
        if s.peek() == ",":
            s.ignore()
        player.factory = (x, y)
        while not s.fail and s.peek() != ";":
            did = s.integer()
            _expect(s, "-", 0)
            x = s.integer()
            _expect(s, "-", 0)
            y = s.integer()
            if s.peek() == ",":
                s.ignore()
            player.dropoffs.append((did, x, y))
        _expect(s, ";", 0)
        while not s.fail and s.peek() != ";" and s.peek() != _EOF:
            sid = s.integer()
            _expect(s, "-", 0)
            x = s.integer()
            _expect(s, "-", 0)
            y = s.integer()
            _expect(s, "-", 0)
            cargo = s.integer()
            if s.peek() == ",":
                s.ignore()
            player.ships.append((sid, x, y, cargo))
        # The ';' after the last player may be missing (the stream has failed by then).
        if not s.fail:
            _expect(s, ";", 0)
    return HaliteSnapshot(map_type, width, height, num_players, seed, cells, players)


def write_snapshot(game: HaliteGame, map_players: int) -> str:
    """The engine's snapshot of ``game``'s present state (``final_snapshot`` at its end).

    Ships come in the engine's hash-table order, as in the frames bots receive.
    """
    parts = [f"{SNAPSHOT_VERSION};fractal,{game.width},{game.height},{map_players},{game.seed};"]
    parts.append("".join(f"{v}," for v in game.halite) + ";")
    for player in game.players:
        fx, fy = player.shipyard
        dropoffs = "".join(f"{d.id}-{d.x}-{d.y}," for d in player.dropoffs)
        ships = "".join(f"{s.id}-{s.x}-{s.y}-{s.cargo}," for s in player.ships_in_order())
        parts.append(f"{player.id};{player.energy};{fx}-{fy},{dropoffs};{ships};")
    return "".join(parts)


def game_from_snapshot(
    snapshot: HaliteSnapshot,
    num_players: int,
    *,
    constants: Constants | None = None,
    turn_limit: int | None = None,
    default_size: int | None = None,
) -> HaliteGame:
    """A new game of ``num_players`` bots starting from ``snapshot``, as the engine starts it.

    ``default_size`` is the map size the command line's seed picks (the constants'
    ``DEFAULT_MAP_WIDTH``); by default the snapshot seed's.

    Raises:
        SnapshotError: a snapshot the engine could not start from (more bots than its
            players, a map too small or large, a ship or structure off the map, two
            ships on one cell).
    """
    from snakewar.games.halite3.rules.constants import turns_for_size
    from snakewar.games.halite3.rules.mapgen import size_for_seed

    width, height = snapshot.width, snapshot.height
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise SnapshotError(f"snapshot map {width}x{height}: expected sides of 1..{MAX_SIDE} cells")
    if num_players > snapshot.num_players:
        raise SnapshotError(
            f"{num_players} bots but the snapshot has a map for {snapshot.num_players} "
            "players (the engine gives each bot one of its shipyards)"
        )
    base = constants or Constants()
    if snapshot.num_players > base.MAX_PLAYERS:
        raise SnapshotError(
            f"snapshot for {snapshot.num_players} players: at most {base.MAX_PLAYERS}"
        )
    generated = _generate(snapshot, base)
    halite = [list(row) for row in generated.halite]
    if snapshot.cells:
        # The parser always reads width*height cells (0 for those missing after a failed read
        # cannot happen: a failed read makes the parse fail).
        for row in range(height):
            halite[row] = list(snapshot.cells[row * width : (row + 1) * width])
    shipyards = []
    for pid in range(num_players):
        mine = snapshot.players.get(pid)
        shipyards.append(mine.factory if mine else generated.factories[pid])
    for pid, (x, y) in enumerate(shipyards):
        _on_map(x, y, width, height, f"player {pid}'s shipyard")
    if turn_limit is not None:
        base = base.with_turn_limit(turn_limit)
    max_turns = turns_for_size(width, height, base)
    # The engine sets the default size from the command line's seed before it reads the
    # snapshot: that is what the constants bots receive say.
    seed_size = size_for_seed(snapshot.seed) if default_size is None else default_size
    effective = dataclasses.replace(
        base, MAX_TURNS=max_turns, DEFAULT_MAP_WIDTH=seed_size, DEFAULT_MAP_HEIGHT=seed_size
    )
    game = HaliteGame(
        seed=snapshot.seed,
        width=width,
        height=height,
        halite=halite,
        shipyards=shipyards,
        constants=effective,
        max_turns=max_turns,
    )
    # The engine's initialize_game places each player's dropoffs and ships (new ids, in
    # order) before it empties and owns the shipyards; the constructor did the latter, which
    # changes nothing the former touch but the owner of a dropoff built on a shipyard.
    for player in game.players:
        mine = snapshot.players.get(player.id)
        if mine is None:
            continue
        player.energy = mine.energy
        for _, x, y in mine.dropoffs:
            _on_map(x, y, width, height, f"player {player.id}'s dropoff")
            dropoff = Dropoff(game._next_dropoff, player.id, x, y)
            game._next_dropoff += 1
            game.dropoffs.append(dropoff)
            player.dropoffs.append(dropoff)
            game.owner[y * width + x] = player.id
        for _, x, y, cargo in mine.ships:
            _on_map(x, y, width, height, f"a ship of player {player.id}")
            pos = y * width + x
            if game.occupant[pos] != -1:
                raise SnapshotError(f"two ships on cell {x}-{y} (the engine keeps one ship a cell)")
            ship = Ship(game._next_ship, player.id, x, y, cargo)
            game._next_ship += 1
            game._new_ship(ship)
            player._add_ship(ship)
            game.occupant[pos] = ship.id
    for player in game.players:
        x, y = player.shipyard
        game.owner[y * width + x] = player.id
    game._update_player_stats()
    game.replay_start = _replay_start(game, snapshot, generated)
    return game


def _replay_start(
    game: HaliteGame, snapshot: HaliteSnapshot, generated: GeneratedMap
) -> ReplayStart:
    """What the engine's replay records of a game started from ``snapshot``.

    ``initialize_game`` adds a frame 0 and, for each bot's player in the snapshot, a
    ``construct`` event (its id always 0) per dropoff, then a ``spawn`` event per ship
    (its new id, its cargo as ``energy``); it records every cell, by putting each into a
    new ``unordered_set<Location>`` as ``Location(row, col)`` (x and y swapped: the same
    cells on a square map, which are the engine's maps; on others it reads outside its
    map, so Snakewar records each cell at its own place instead), then the dropoffs' cells
    (already there), and writes them in that set's order with their halite once the
    shipyards are emptied.  The replay's ``production_map`` is the map generated before
    the snapshot's cells replaced it.
    """
    width, height = game.width, game.height
    events: list[dict[str, Any]] = []
    ship_ids = iter(sorted(game.ships))
    for player in game.players:
        mine = snapshot.players.get(player.id)
        if mine is None:
            continue
        for _, x, y in mine.dropoffs:
            events.append(
                {"type": "construct", "location": {"x": x, "y": y}, "owner_id": player.id, "id": 0}
            )
        for _, x, y, cargo in mine.ships:
            events.append(
                {
                    "type": "spawn",
                    "location": {"x": x, "y": y},
                    "owner_id": player.id,
                    "id": next(ship_ids),
                    "energy": cargo,
                }
            )
    order: HashOrder[tuple[int, int]] = HashOrder()
    swapped = width == height
    for row in range(height):
        for col in range(width):
            x, y = (row, col) if swapped else (col, row)
            order.add((x, y), location_hash(x, y))
    for d in game.dropoffs:
        order.add((d.x, d.y), location_hash(d.x, d.y))
    cells = [(x, y, game.halite[y * width + x]) for x, y in order]
    entities = [
        [[s.id, {"x": s.x, "y": s.y}] for s in player.ships_in_order()] for player in game.players
    ]
    return ReplayStart(
        production_map=[list(row) for row in generated.halite],
        energy=tuple(p.energy for p in game.players),
        events=events,
        cells=cells,
        entities=entities,
    )


def _generate(snapshot: HaliteSnapshot, constants: Constants) -> GeneratedMap:
    """The map the engine generates for the snapshot's parameters (before its cells)."""
    from snakewar.games.halite3.rules.mapgen import generate_map

    return generate_map(
        snapshot.seed,
        snapshot.width,
        snapshot.height,
        snapshot.num_players,
        persistence=constants.PERSISTENCE,
        factor_exp_1=constants.FACTOR_EXP_1,
        factor_exp_2=constants.FACTOR_EXP_2,
        min_production=constants.MIN_CELL_PRODUCTION,
        max_production=constants.MAX_CELL_PRODUCTION,
    )


def generated_total(snapshot: HaliteSnapshot, num_players: int, constants: Constants) -> int:
    """The results' ``map_total_halite`` of a game started from ``snapshot``.

    The engine sums the map it generated for the snapshot's parameters, before the
    snapshot's cells replace it; counted as for any game (the bots' shipyards emptied).
    """
    generated = _generate(snapshot, constants)
    cells = [list(row) for row in generated.halite]
    for x, y in generated.factories[:num_players]:
        cells[y][x] = 0
    return sum(sum(row) for row in cells)


def _on_map(x: int, y: int, width: int, height: int, what: str) -> None:
    if not (0 <= x < width and 0 <= y < height):
        raise SnapshotError(f"{what} at {x}-{y} is off the {width}x{height} map")
