"""The Halite III turn engine, in the official engine's exact order (1.2.2.finals).

One call to :meth:`HaliteGame.step` is one engine turn:

0. inspiration, from the positions at the start of the turn;
1. command lines are parsed; a missing line (timeout, crash) or an undecodable one
   kills the player before anything is resolved;
2. validation, players in id order and commands in the order sent; every player with a
   fatal error is killed and validation runs again on the others;
3. commit: construct, move, dump, spawn;
4. mining by every ship the turn did not touch;
5. (capture, when enabled), statistics, and the end-of-game check.

Wherever the official engine loops over one of its hash tables, this engine loops in the
same order (see :mod:`~snakewar.games.halite3.rules.hashorder`): players inside each commit
step (by default in *descending* id order), move destinations, every ship for the dump and
mining steps (which orders the changed cells), each player's ships (the order bots and
``final_snapshot`` list them), the changed cells and each player's ``halite_per_dropoff``.

The engine is pure: no clock, no I/O.  Bots, timeouts and replays live in the referee.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import operator
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, cast, overload

from snakewar.errors import SnakewarError
from snakewar.games.halite3.rules.commands import (
    DIRECTIONS,
    Command,
    CommandParseError,
    ConstructCommand,
    MoveCommand,
    SpawnCommand,
    parse_commands,
)
from snakewar.games.halite3.rules.constants import Constants, turns_for_size
from snakewar.games.halite3.rules.hashorder import HashOrder, fresh_order, location_hash
from snakewar.games.halite3.rules.mapgen import generate_map, size_for_seed
from snakewar.games.halite3.rules.mt19937 import MT19937

__all__ = [
    "CollisionEvent",
    "ConstructEvent",
    "Dropoff",
    "Event",
    "HaliteError",
    "HaliteGame",
    "HaliteResult",
    "Player",
    "PlayerStatistics",
    "ReplayStart",
    "Ship",
    "ShipRows",
    "SpawnEvent",
    "TurnOutcome",
]

_DIRECTION_NAMES = {"n": "north", "s": "south", "e": "east", "w": "west", "o": "still"}
#: A ship as ``TurnOutcome.entities_at_start`` lists it: ``(id, x, y, cargo, inspired)``.
_ENTITY = operator.attrgetter("id", "x", "y", "cargo", "inspired")
_EntityRow = tuple[int, int, int, int, bool]
_CARGO = operator.attrgetter("cargo")


class HaliteError(SnakewarError):
    """A Halite III game was set up or driven with bad input."""


@dataclass(frozen=True, slots=True)
class ReplayStart:
    """What the replay of a game started from a snapshot records of its start.

    The official engine (``HaliteImpl::initialize_game``) copies the map it *generated*
    into the replay's ``production_map`` before the snapshot's cells replace it, and
    records the start in frame 0 instead: every cell, a ``construct`` event (id 0) for
    each dropoff and a ``spawn`` event for each ship, the players' energy; the header's
    players carry their energy and ships.  A game made by :func:`game_from_snapshot
    <snakewar.games.halite3.rules.snapshot.game_from_snapshot>` keeps these here for the
    replay writer; a new game has none.
    """

    production_map: list[list[int]]
    """The generated map (rows of halite): the replay's ``production_map``."""
    energy: tuple[int, ...]
    """Each player's halite at the start (frame 0's ``energy``)."""
    events: list[dict[str, Any]]
    """Frame 0's events, in the engine's order."""
    cells: list[tuple[int, int, int]]
    """Frame 0's cells ``(x, y, halite)``, in the engine's hash-table order."""
    entities: list[list[list[Any]]]
    """Per player, the header's ``entities``: ``[id, {"x", "y"}]`` pairs in the order of
    the engine's per-player hash table."""


@dataclass(slots=True)
class Ship:
    """A ship: ``cargo`` is the halite it carries; ``inspired`` is this turn's flag."""

    id: int
    owner: int
    x: int
    y: int
    cargo: int = 0
    inspired: bool = False


@dataclass(slots=True)
class Dropoff:
    """A dropoff built by converting a ship (shipyards are not dropoffs)."""

    id: int
    owner: int
    x: int
    y: int
    deposited: int = 0


@dataclass(slots=True)
class Player:
    """A player's state.  ``energy`` is the halite it holds.

    ``ship_order`` holds the ids of ``ships`` in the official engine's order (its
    per-player hash table): the order bots receive them in.
    """

    id: int
    shipyard: tuple[int, int]
    energy: int
    deposited: int = 0
    shipyard_deposited: int = 0
    terminated: bool = False
    can_play: bool = True
    ships: dict[int, Ship] = field(default_factory=dict)
    dropoffs: list[Dropoff] = field(default_factory=list)
    ship_order: HashOrder[int] = field(default_factory=HashOrder, compare=False, repr=False)

    def ships_in_order(self) -> list[Ship]:
        """The player's ships in the official engine's order (as bots receive them)."""
        ships = self.ships
        return [ships[sid] for sid in self.ship_order]

    def _add_ship(self, ship: Ship) -> None:
        self.ships[ship.id] = ship
        self.ship_order.add(ship.id, ship.id)

    def _remove_ship(self, ship_id: int) -> None:
        del self.ships[ship_id]
        self.ship_order.discard(ship_id)


@dataclass(slots=True)
class PlayerStatistics:
    """The engine's per-player statistics (see :meth:`to_json` for the replay's shape)."""

    player_id: int
    random_id: int
    rank: int = 0
    last_turn_alive: int = 0
    last_turn_ship_spawn: int = 0
    turn_productions: list[int] = field(default_factory=list)
    total_production: int = 0
    max_entity_distance: int = 0
    total_distance: int = 0
    total_entity_lifespan: int = 0
    number_dropoffs: int = 0
    interaction_opportunities: int = 0
    ships_spawned: int = 0
    ships_peak: int = 0
    self_collisions: int = 0
    all_collisions: int = 0
    dropoff_collisions: int = 0
    total_mined: int = 0
    total_bonus: int = 0
    total_dropped: int = 0
    carried_at_end: int = 0
    halite_per_dropoff: dict[tuple[int, int], int] = field(default_factory=dict)
    #: The locations of ``halite_per_dropoff`` in the engine's (hash table) order.
    dropoff_order: HashOrder[tuple[int, int]] = field(
        default_factory=HashOrder, compare=False, repr=False
    )

    def set_dropoff_halite(self, x: int, y: int, amount: int) -> None:
        """Record the halite deposited at a shipyard or dropoff (first time: a new entry)."""
        self.halite_per_dropoff[(x, y)] = amount
        self.dropoff_order.add((x, y), location_hash(x, y))

    def to_json(self) -> dict[str, Any]:
        """The statistics object of the replay and of ``--results-as-json``."""
        average = (
            self.total_distance // self.total_entity_lifespan if self.total_entity_lifespan else 0
        )
        efficiency = self.total_production / self.total_mined if self.total_mined > 0 else 0.0
        return {
            "all_collisions": self.all_collisions,
            "average_entity_distance": average,
            "carried_at_end": self.carried_at_end,
            "dropoff_collisions": self.dropoff_collisions,
            "final_production": self.turn_productions[-1] if self.turn_productions else 0,
            "halite_per_dropoff": [
                [{"x": x, "y": y}, self.halite_per_dropoff[(x, y)]] for x, y in self.dropoff_order
            ],
            "interaction_opportunities": self.interaction_opportunities,
            "last_turn_alive": self.last_turn_alive,
            "last_turn_ship_spawn": self.last_turn_ship_spawn,
            "max_entity_distance": self.max_entity_distance,
            "mining_efficiency": efficiency,
            "number_dropoffs": self.number_dropoffs,
            "player_id": self.player_id,
            "random_id": self.random_id,
            "rank": self.rank,
            "self_collisions": self.self_collisions,
            "ships_peak": self.ships_peak,
            "ships_spawned": self.ships_spawned,
            "total_bonus": self.total_bonus,
            "total_dropped": self.total_dropped,
            "total_mined": self.total_mined,
            "total_production": self.total_production,
        }


class ShipRows(Sequence[_EntityRow]):
    """A player's ships as ``(id, x, y, cargo, inspired)`` rows, read-only.

    The rows are kept in one flat tuple: a turn of a crowded game then leaves a few
    objects in the history, not one per ship, which keeps the garbage collector's
    passes (run every few hundred new objects) rare and short.
    """

    __slots__ = ("_flat",)

    def __init__(self, ships: Iterable[Ship] = ()) -> None:
        self._flat: tuple[int, ...] = tuple(chain.from_iterable(map(_ENTITY, ships)))

    def __len__(self) -> int:
        return len(self._flat) // 5

    @overload
    def __getitem__(self, index: int) -> _EntityRow: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[_EntityRow, ...]: ...

    def __getitem__(self, index: int | slice) -> _EntityRow | tuple[_EntityRow, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        start = range(0, len(self._flat), 5)[index]
        return cast(_EntityRow, self._flat[start : start + 5])

    def __iter__(self) -> Iterator[_EntityRow]:
        flat = self._flat
        rows = zip(flat[0::5], flat[1::5], flat[2::5], flat[3::5], flat[4::5], strict=True)
        return cast(Iterator[_EntityRow], rows)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ShipRows):
            return self._flat == other._flat
        if isinstance(other, Sequence):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._flat)

    def __repr__(self) -> str:
        return f"ShipRows({list(self)!r})"


@dataclass(frozen=True, slots=True)
class SpawnEvent:
    """A ship was built at a shipyard."""

    owner: int
    ship_id: int
    x: int
    y: int

    def to_list(self) -> list[Any]:
        """``["spawn", owner, ship_id, x, y]``."""
        return ["spawn", self.owner, self.ship_id, self.x, self.y]

    def to_replay(self) -> dict[str, Any]:
        """The replay's ``spawn`` event."""
        return {
            "type": "spawn",
            "location": {"x": self.x, "y": self.y},
            "owner_id": self.owner,
            "id": self.ship_id,
            "energy": 0,
        }


@dataclass(frozen=True, slots=True)
class CollisionEvent:
    """Ships destroyed on one cell (movers first, then the ship that stood there)."""

    x: int
    y: int
    ships: tuple[int, ...]

    def to_list(self) -> list[Any]:
        """``["collision", x, y, [ship ids]]``."""
        return ["collision", self.x, self.y, list(self.ships)]

    def to_replay(self) -> dict[str, Any]:
        """The replay's ``shipwreck`` event."""
        return {
            "type": "shipwreck",
            "location": {"x": self.x, "y": self.y},
            "ships": list(self.ships),
        }


@dataclass(frozen=True, slots=True)
class ConstructEvent:
    """A ship became a dropoff."""

    owner: int
    ship_id: int
    x: int
    y: int
    dropoff_id: int

    def to_list(self) -> list[Any]:
        """``["construct", owner, ship_id, x, y, dropoff_id]``."""
        return ["construct", self.owner, self.ship_id, self.x, self.y, self.dropoff_id]

    def to_replay(self) -> dict[str, Any]:
        """The replay's ``construct`` event (its ``id`` is the ship's)."""
        return {
            "type": "construct",
            "location": {"x": self.x, "y": self.y},
            "owner_id": self.owner,
            "id": self.ship_id,
        }


@dataclass(frozen=True, slots=True)
class CaptureEvent:
    """A ship changed owner (only when ``CAPTURE_ENABLED``)."""

    x: int
    y: int
    old_owner: int
    old_id: int
    new_owner: int
    new_id: int

    def to_list(self) -> list[Any]:
        """``["capture", x, y, old_owner, old_id, new_owner, new_id]``."""
        return ["capture", self.x, self.y, self.old_owner, self.old_id, self.new_owner, self.new_id]

    def to_replay(self) -> dict[str, Any]:
        """The replay's ``capture`` event."""
        return {
            "type": "capture",
            "location": {"x": self.x, "y": self.y},
            "old_owner": self.old_owner,
            "new_owner": self.new_owner,
            "old_id": self.old_id,
            "new_id": self.new_id,
        }


Event = SpawnEvent | CollisionEvent | ConstructEvent | CaptureEvent


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """What happened during one turn (the state after it is on the game)."""

    turn: int
    inspired_at_start: tuple[int, ...]
    accepted: tuple[int, ...]
    killed: tuple[int, ...]
    events: tuple[Event, ...]
    cells: tuple[tuple[int, int, int], ...]
    moves: Mapping[int, tuple[Command, ...]]
    entities_at_start: Mapping[int, ShipRows]
    errors: Mapping[int, str]
    energy: tuple[int, ...]
    deposited: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HaliteResult:
    """The end of a game: ranks (1 = best), scores and the engine's statistics."""

    number_turns: int
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    terminated: tuple[bool, ...]
    statistics: tuple[dict[str, Any], ...]
    final_inspired: tuple[int, ...]


class _TurnLog:
    """Per-player error log text, worded like the engine's ``errorlog`` files."""

    __slots__ = ("entries", "turn")

    def __init__(self, turn: int) -> None:
        self.turn = turn
        self.entries: dict[int, list[str]] = {}

    def add(self, pid: int, level: str, message: str, context: str = "") -> None:
        self.entries.setdefault(pid, []).append(f"{level}: {message}\n{context}")

    def add_raw(self, pid: int, entry: str) -> None:
        self.entries.setdefault(pid, []).append(entry)

    def text(self, pid: int) -> str:
        parts = self.entries.get(pid)
        if not parts:
            return ""
        return f"\nTurn {self.turn}\n{'=' * 64}\n" + "".join(parts)


def _context(commands: list[Command], index: int) -> str:
    lines = [f"At command {index + 1} of {len(commands)}:"]
    lines.extend(_context_lines(commands, index))
    return "\n".join(lines) + "\n\n"


def _context_blocks(commands: list[Command], indices: list[int]) -> str:
    """The engine's context section: each other command with its neighbours, at most 5."""
    shown = indices[:5]
    text = "".join("\n".join(_context_lines(commands, i)) + "\n\n" for i in shown)
    if len(indices) > 5:
        text += f"(suppressing {len(indices) - 5} other commands)\n\n"
    return text


def _context_lines(commands: list[Command], index: int) -> list[str]:
    start = max(0, index - 2)
    end = min(len(commands), index + 3)
    return [
        f"{'>>> ' if i == index else '    '}{i + 1}   {commands[i].serial()}"
        for i in range(start, end)
    ]


class HaliteGame:
    """A Halite III game, turn by turn, exactly as the official engine plays it.

    Create one with :meth:`create`; feed each turn's raw command lines to :meth:`step`.
    """

    def __init__(
        self,
        *,
        seed: int,
        width: int,
        height: int,
        halite: list[list[int]],
        shipyards: list[tuple[int, int]],
        constants: Constants,
        max_turns: int,
    ) -> None:
        if len(shipyards) < 1:
            raise HaliteError("a game needs at least 1 player")
        if len(halite) != height or any(len(row) != width for row in halite):
            raise HaliteError(f"the map must be {height} rows of {width} cells")
        self.seed = seed
        self.width = width
        self.height = height
        self.constants = constants
        self.max_turns = max_turns
        #: Turns played so far (the turn being resolved inside :meth:`step`).
        self.turn = 0
        self.over = False
        self.number_turns = 0
        self.initial_halite = [list(row) for row in halite]
        n = width * height
        self.halite: list[int] = [v for row in halite for v in row]
        self.owner: list[int] = [-1] * n
        self.occupant: list[int] = [-1] * n
        self.ships: dict[int, Ship] = {}
        #: The ids of ``ships`` in the official engine's order (its table of every ship):
        #: the order of the dump and mining steps.
        self.ship_order: HashOrder[int] = HashOrder()
        self.dropoffs: list[Dropoff] = []
        self.players: list[Player] = []
        self.error_logs: dict[int, str] = {}
        #: Every turn played, in order (what a replay is written from).
        self.history: list[TurnOutcome] = []
        # Bumped whenever ships may have moved; guards the inspiration cache.
        self._version = 0
        # The opponents near each ship (in ``ships`` order) counted by the last statistics
        # tally: next turn's inspiration, when no ship changed since (same version).
        self._inspiration_cache: tuple[int, list[int]] | None = None
        self._nearby_buffer: Any = None  # scratch of _tally_ships_numpy (a numpy array)
        self._next_ship = 0
        self._next_dropoff = 0
        #: Cells changed during the last turn (``y * width + x``) in the engine's order:
        #: what the next frame tells bots.  The engine keeps one table for the whole game.
        self.changed_cells: HashOrder[int] = HashOrder()
        self._cell_codes = [location_hash(p % width, p // width) for p in range(n)]
        #: Direction letter -> the cell one step that way from each cell (wrapping).
        self._steps = {
            letter: [
                ((p // width + dy) % height) * width + (p % width + dx) % width for p in range(n)
            ]
            for letter, (dx, dy) in DIRECTIONS.items()
        }
        rng = MT19937(seed)
        self.stats: list[PlayerStatistics] = []
        for pid, (x, y) in enumerate(shipyards):
            self.players.append(Player(pid, (x, y), constants.INITIAL_ENERGY))
            self.stats.append(PlayerStatistics(pid, rng.next_u32()))
            self.error_logs[pid] = ""
        self.map_total_halite = sum(self.halite)
        for player in self.players:
            pos = self._pos(*player.shipyard)
            self.map_total_halite -= self.halite[pos]
            self.halite[pos] = 0
            self.owner[pos] = player.id
            self.initial_halite[player.shipyard[1]][player.shipyard[0]] = 0
        self._update_player_stats()
        self._result: HaliteResult | None = None
        #: Set for a game started from a snapshot: what its replay records of the start.
        self.replay_start: ReplayStart | None = None

    @classmethod
    def create(
        cls,
        seed: int,
        num_players: int,
        *,
        width: int | None = None,
        height: int | None = None,
        map_players: int | None = None,
        constants: Constants | None = None,
        turn_limit: int | None = None,
    ) -> HaliteGame:
        """A new game on the official fractal map for ``seed``.

        Args:
            seed: the map seed (also the tie-break seed), as ``halite -s``.
            num_players: bots in the game.
            width: map width; by default the size the seed picks (32..64).
            height: map height; by default the size the seed picks.
            map_players: build the map for this many players (``-n``); the bots take the
                first factories.  Defaults to ``num_players``.
            constants: overrides (``-c``); defaults to the official constants.
            turn_limit: the official ``--turn-limit``.
        """
        base = constants or Constants()
        seed &= 0xFFFFFFFF
        seed_size = size_for_seed(seed)
        # As the engine: a side not given is the seed's size (--width 40 alone: 40xS).
        width = seed_size if width is None else width
        height = seed_size if height is None else height
        map_players = map_players or num_players
        if num_players < 1 or num_players > map_players:
            raise HaliteError(f"{num_players} players do not fit a map for {map_players} players")
        if map_players > base.MAX_PLAYERS:
            raise HaliteError(f"at most {base.MAX_PLAYERS} players, got {map_players}")
        generated = generate_map(
            seed,
            width,
            height,
            map_players,
            persistence=base.PERSISTENCE,
            factor_exp_1=base.FACTOR_EXP_1,
            factor_exp_2=base.FACTOR_EXP_2,
            min_production=base.MIN_CELL_PRODUCTION,
            max_production=base.MAX_CELL_PRODUCTION,
        )
        if turn_limit is not None:
            base = base.with_turn_limit(turn_limit)
        max_turns = turns_for_size(width, height, base)
        # The engine overwrites these with the seed's size and the adjusted turn count:
        # that is what bots receive and what replays store.
        effective = dataclasses.replace(
            base, MAX_TURNS=max_turns, DEFAULT_MAP_WIDTH=seed_size, DEFAULT_MAP_HEIGHT=seed_size
        )
        return cls(
            seed=seed,
            width=width,
            height=height,
            halite=[list(row) for row in generated.halite],
            shipyards=list(generated.factories[:num_players]),
            constants=effective,
            max_turns=max_turns,
        )

    # -- geometry ---------------------------------------------------------------------

    def _pos(self, x: int, y: int) -> int:
        return y * self.width + x

    def distance(self, x1: int, y1: int, x2: int, y2: int) -> int:
        """Toroidal Manhattan distance."""
        dx = abs(x1 - x2)
        dy = abs(y1 - y2)
        return min(dx, self.width - dx) + min(dy, self.height - dy)

    def cell(self, x: int, y: int) -> int:
        """The halite on a cell."""
        return self.halite[y * self.width + x]

    def grid(self) -> list[list[int]]:
        """The map as rows of halite."""
        w = self.width
        return [self.halite[r * w : (r + 1) * w] for r in range(self.height)]

    @property
    def num_players(self) -> int:
        """How many players the game has."""
        return len(self.players)

    # -- the turn ---------------------------------------------------------------------

    def step(
        self,
        commands: Mapping[int, str | None],
        failures: Mapping[int, str] | None = None,
        unfinished: Mapping[int, str] | None = None,
    ) -> TurnOutcome:
        """Play one turn from each live player's raw command line.

        Args:
            commands: for every player not yet terminated, the line it sent (without the
                newline), or ``None`` when it timed out, crashed or broke the protocol
                (the engine kills it).  Lines for terminated players are ignored.
            failures: for players whose line is ``None``, why (for the error log), e.g.
                ``timed out after 2000 ms (when reading string)``.
            unfinished: for players whose line is ``None``, what they had sent of a line
                without ending it, if anything (the error log shows it, as the engine's).

        Returns:
            What happened; the new state is on the game.  The game is over when
            :attr:`over` is true (see :meth:`result`).
        """
        if self.over:
            raise HaliteError("the game is over; no more turns can be played")
        if self.max_turns == 0:
            raise HaliteError("a game of 0 turns has no turn to play; see end_without_turns")
        c = self.constants
        self.turn += 1
        turn = self.turn
        log = _TurnLog(turn)
        self._update_inspiration()
        self._version += 1
        inspired = tuple(sorted(s.id for s in self.ships.values() if s.inspired))
        entities_at_start = {p.id: ShipRows(p.ships.values()) for p in self.players}
        killed: list[int] = []
        parsed: dict[int, list[Command]] = {}
        for player in self.players:
            if player.terminated:
                continue
            pid = player.id
            if pid not in commands:
                raise HaliteError(f"no command line given for live player {pid} on turn {turn}")
            line = commands[pid]
            if line is None:
                why = (failures or {}).get(pid, "communication error with bot: no reply")
                sent = (unfinished or {}).get(pid, "")
                log.add(pid, "error", why, f"Last input received was:\n\n{sent}\n")
                self._kill(pid)
                killed.append(pid)
                continue
            try:
                parsed[pid] = parse_commands(line)
            except CommandParseError as exc:
                log.add(pid, "error", exc.message, f"Last input received was:\n{line}\n\n")
                self._kill(pid)
                killed.append(pid)

        events: list[Event] = []
        touched: set[int] = set()
        strict_offence = False
        while parsed:
            touched.clear()
            self.changed_cells.clear()
            offenders = self._validate(parsed, log)
            if offenders:
                for pid in sorted(offenders):
                    self._kill(pid)
                    killed.append(pid)
                    del parsed[pid]
                continue
            strict_offence = self._commit(parsed, events, touched, log)
            break
        # A --strict abort commits the commands but records none, as the engine.
        accepted = () if strict_offence else tuple(sorted(parsed))
        moves = {pid: tuple(parsed[pid]) for pid in accepted}

        if strict_offence:
            # --strict: a warning aborts the game before mining (turn set to the limit).
            self.turn = self.max_turns
            outcome_cells: tuple[tuple[int, int, int], ...] = ()
        else:
            self._mine(touched)
            if c.CAPTURE_ENABLED:
                self._capture(events)
            w = self.width
            halite = self.halite
            outcome_cells = tuple((p % w, p // w, halite[p]) for p in self.changed_cells)
            self._update_player_stats()
        for pid, text in ((pid, log.text(pid)) for pid in log.entries):
            self.error_logs[pid] += text
        ended = self._game_ended()
        if ended or self.turn >= self.max_turns:
            self._finish()
        outcome = TurnOutcome(
            turn=turn,
            inspired_at_start=inspired,
            accepted=accepted,
            killed=tuple(killed),
            events=tuple(events),
            cells=outcome_cells,
            moves=moves,
            entities_at_start=entities_at_start,
            errors={pid: log.text(pid) for pid in log.entries},
            energy=tuple(p.energy for p in self.players),
            deposited=tuple(p.deposited for p in self.players),
        )
        self.history.append(outcome)
        return outcome

    def end_without_turns(self, failed: Iterable[int] = ()) -> None:
        """End a game of 0 turns (``--turn-limit 0``) before its first turn, as the engine.

        The engine's turn loop runs no turn when the turn count is 0, and the game ends
        as a 1-turn game that played none: ``number_turns`` is 1, the replay has the
        first and the last frames only, and every player still playing was alive on
        turn 1.

        Args:
            failed: the players whose bots failed their initialization: killed first,
                as the engine kills them before its turn loop.

        Raises:
            HaliteError: the game has turns to play, or is over.
        """
        if self.over or self.max_turns != 0:
            raise HaliteError("only a game of 0 turns ends without turns")
        for pid in sorted(set(failed)):
            self._kill(pid)
        self._finish()

    def _kill(self, pid: int) -> None:
        player = self.players[pid]
        player.terminated = True
        player.can_play = False
        for ship in player.ships.values():
            self.occupant[self._pos(ship.x, ship.y)] = -1
            self._delete_ship(ship.id)
        player.ships.clear()
        player.ship_order.clear()
        player.energy = 0

    def _new_ship(self, ship: Ship) -> None:
        """Add a ship to the table of every ship (the engine's ``new_entity``)."""
        self.ships[ship.id] = ship
        self.ship_order.add(ship.id, ship.id)

    def _delete_ship(self, ship_id: int) -> Ship:
        """Take a ship out of the table of every ship (the engine's ``delete_entity``)."""
        self.ship_order.discard(ship_id)
        return self.ships.pop(ship_id)

    def _structure_cells(self) -> list[int]:
        """The cells of every shipyard and dropoff."""
        w = self.width
        cells = [y * w + x for x, y in (p.shipyard for p in self.players)]
        cells.extend(d.y * w + d.x for d in self.dropoffs)
        return cells

    def _mark(self, pos: int) -> None:
        """Note a changed cell (the engine's ``changed_cells.emplace``)."""
        self.changed_cells.add(pos, self._cell_codes[pos])

    def _validate(self, parsed: dict[int, list[Command]], log: _TurnLog) -> set[int]:
        """Check every player's commands; log and return the players with fatal errors.

        Errors are logged in the engine's order: moves, then constructions, of ships the
        player does not own, overspending, several commands to one ship (ships in the
        order of the engine's hash table of them, shared by all players), building on a
        structure, and more than one spawn.
        """
        c = self.constants
        offenders: set[int] = set()
        # Per player: the entries before and after the several-commands ones, and those.
        pending: list[tuple[int, list[str], dict[int, str], list[str]]] = []
        repeated: HashOrder[int] = HashOrder()
        for pid in sorted(parsed):
            player = self.players[pid]
            commands = parsed[pid]
            if _plainly_valid(commands, player, c.NEW_ENTITY_ENERGY_COST):
                continue
            unknown: list[str] = []
            unknown_builds: list[str] = []
            spent = 0
            first_over: int | None = None
            seen: dict[int, list[int]] = {}
            owned_cells: list[str] = []
            spawns: list[int] = []
            for index, command in enumerate(commands):
                if isinstance(command, SpawnCommand):
                    spawns.append(index)
                    cost = c.NEW_ENTITY_ENERGY_COST
                else:
                    ship = player.ships.get(command.ship_id)
                    if ship is None:
                        verb = (
                            f"move {_DIRECTION_NAMES[command.direction]}"
                            if isinstance(command, MoveCommand)
                            else "construct"
                        )
                        (unknown if isinstance(command, MoveCommand) else unknown_builds).append(
                            f"error: unknown entity {command.ship_id} was requested to {verb}\n"
                            + _context(commands, index)
                        )
                        continue
                    indices = seen.setdefault(command.ship_id, [])
                    indices.append(index)
                    if len(indices) == 2:
                        repeated.add(command.ship_id, command.ship_id)
                    if not isinstance(command, ConstructCommand):
                        continue
                    pos = self._pos(ship.x, ship.y)
                    credit = self.halite[pos] + ship.cargo
                    cost = 0 if credit >= c.DROPOFF_COST else c.DROPOFF_COST - credit
                    if self.owner[pos] != -1:
                        owned_cells.append(
                            f"error: entity {ship.id} was directed to construct at"
                            f" ({ship.x}, {ship.y}), but that cell was already owned by player"
                            f" {self.owner[pos]}\n" + _context(commands, index)
                        )
                spent += cost
                if spent > player.energy and first_over is None:
                    first_over = index
            before = unknown + unknown_builds
            if first_over is not None:
                before.append(
                    f"error: player attempted to use {spent} halite, but only {player.energy}"
                    " halite was available\n" + _context(commands, first_over)
                )
            several = {
                ship_id: f"error: entity {ship_id} received {len(indices)} commands on this"
                " turn, but only one is permitted\n"
                + _context(commands, indices[1])
                + "The other commands issued to this entity:\n"
                + _context_blocks(commands, [indices[0], *indices[2:]])
                for ship_id, indices in seen.items()
                if len(indices) > 1
            }
            after = owned_cells
            if len(spawns) > 1:
                after.append(
                    "error: received more than one spawn command on this turn\n"
                    + _context(commands, spawns[1])
                    + "The other spawn commands issued on this turn:\n"
                    + _context_blocks(commands, [spawns[0], *spawns[2:]])
                )
            if before or several or after:
                pending.append((pid, before, several, after))
        for pid, before, several, after in pending:
            offenders.add(pid)
            entries = [*before, *(several[s] for s in repeated if s in several), *after]
            for entry in entries:
                log.add_raw(pid, entry)
        return offenders

    def _dump(self, pos: int, amount: int) -> None:
        """Credit ``amount`` to the cell's owner (a structure), else drop it on the cell."""
        owner = self.owner[pos]
        if owner == -1:
            self.halite[pos] += amount
            self.map_total_halite += amount
            return
        player = self.players[owner]
        player.energy += amount
        player.deposited += amount
        x, y = pos % self.width, pos // self.width
        if (x, y) == player.shipyard:
            player.shipyard_deposited += amount
            return
        for dropoff in player.dropoffs:
            if dropoff.x == x and dropoff.y == y:
                dropoff.deposited += amount
                return
        raise AssertionError("an owned cell that is neither a shipyard nor a dropoff")

    def _commit(
        self,
        parsed: dict[int, list[Command]],
        events: list[Event],
        touched: set[int],
        log: _TurnLog,
    ) -> bool:
        c = self.constants
        strict = c.STRICT_ERRORS
        # Under --strict the engine does not ignore these: they are logged as errors.
        level = "error" if strict else "warning"
        offence = False
        mark = self._mark
        w = self.width

        kinds = _command_kinds(parsed)
        # Construct.
        for pid in _players_with(kinds, ConstructCommand):
            player = self.players[pid]
            for command in parsed[pid]:
                if not isinstance(command, ConstructCommand):
                    continue
                ship = self._delete_ship(command.ship_id)
                pos = self._pos(ship.x, ship.y)
                self.owner[pos] = pid
                dropoff = Dropoff(self._next_dropoff, pid, ship.x, ship.y)
                self._next_dropoff += 1
                player.dropoffs.append(dropoff)
                self.dropoffs.append(dropoff)
                self.map_total_halite -= self.halite[pos]
                credit = self.halite[pos] + ship.cargo
                self.halite[pos] = 0
                self.occupant[pos] = -1
                events.append(ConstructEvent(pid, ship.id, ship.x, ship.y, dropoff.id))
                mark(pos)
                self._dump(pos, credit)
                player.energy -= c.DROPOFF_COST
                player._remove_ship(ship.id)

        # Move: lift every mover, then settle each destination (in the order of the
        # engine's hash table of destinations).  A lifted ship leaves its owner's table
        # (``ship_order``) and goes back in when it lands alone; its entry in
        # ``player.ships`` stays until a collision destroys it.
        halite = self.halite
        occupant = self.occupant
        ships = self.ships
        players = self.players
        costs = (c.MOVE_COST_RATIO, c.INSPIRED_MOVE_COST_RATIO)  # by ``ship.inspired``
        steps = self._steps
        # The first ship to arrive on each cell, and every arrival on cells with more.
        destinations: dict[int, int] = {}
        crowded: dict[int, list[int]] = {}
        for pid in _players_with(kinds, MoveCommand):
            commands = parsed[pid]
            lifted: list[int] = []
            for command in commands:
                if type(command) is not MoveCommand or command.direction == "o":
                    continue
                sid = command.ship_id
                ship = ships[sid]
                pos = ship.y * w + ship.x
                required = halite[pos] // costs[ship.inspired]
                if ship.cargo < required:
                    log.add(
                        pid,
                        level,
                        f"entity {sid} was directed to use {required} halite to move"
                        f" {_DIRECTION_NAMES[command.direction]}, but only {ship.cargo} halite"
                        " was available",
                        _context(commands, commands.index(command)),
                    )
                    offence = offence or strict
                    continue
                ship.cargo -= required
                occupant[pos] = -1
                dest = steps[command.direction][pos]
                ship.x = dest % w
                ship.y = dest // w
                if destinations.setdefault(dest, sid) != sid:
                    arriving = crowded.get(dest)
                    if arriving is None:
                        crowded[dest] = [destinations[dest], sid]
                    else:
                        arriving.append(sid)
                lifted.append(sid)
            players[pid].ship_order.discard_all(lifted)
        codes = self._cell_codes
        destination_order = fresh_order(list(destinations), [codes[d] for d in destinations])
        # Per owner, the ships that landed alone, in the order they go back in its table.
        landed: list[list[int]] = [[] for _ in players]
        for dest in destination_order:
            # A ship still on the cell (it stayed, or could not pay) is hit as well.  The
            # engine first joins every such ship, then settles the cells: settling one
            # cell reads and writes that cell only, so one pass does both.
            standing = occupant[dest]
            if standing == -1 and dest not in crowded:
                sid = destinations[dest]
                occupant[dest] = sid
                landed[ships[sid].owner].append(sid)
                continue
            arriving = crowded.get(dest) or [destinations[dest]]
            if standing != -1:
                arriving.append(standing)
                players[ships[standing].owner]._remove_ship(standing)
                occupant[dest] = -1
            x, y = dest % w, dest // w
            by_owner: dict[int, list[int]] = {}
            for sid in arriving:
                by_owner.setdefault(ships[sid].owner, []).append(sid)
            for pid, own in by_owner.items():
                if len(own) > 1:
                    causes = [_move_index(parsed[pid], s) for s in own if s != standing]
                    if causes:
                        names = ", ".join(str(s) for s in own)
                        log.add(
                            pid,
                            level,
                            f"owned entities {names} collided on cell ({x}, {y}) as the result"
                            " of moves on this turn",
                            _context(parsed[pid], causes[0])
                            + (
                                "Other commands that placed an entity on this cell:\n"
                                + _context_blocks(parsed[pid], causes[1:])
                                if len(causes) > 1
                                else ""
                            ),
                        )
                        offence = offence or strict
            self._collision(dest, tuple(arriving), events)
            for sid in arriving:
                ship = self._delete_ship(sid)
                players[ship.owner].ships.pop(sid, None)
                self._dump(dest, ship.cargo)
            mark(dest)
        for owner, alone in enumerate(landed):
            if alone:
                players[owner].ship_order.add_all(alone, alone)
                touched.update(alone)

        # Dump: every ship on its own structure deposits everything, in the order of the
        # table of every ship.  Only a structure's cell can hold one.
        owner_of = self.owner
        docked: list[int] = []
        for pos in self._structure_cells():
            sid = occupant[pos]
            if sid != -1 and ships[sid].owner == owner_of[pos]:
                docked.append(sid)
        if len(docked) > 1:
            docked.sort(key=list(self.ship_order).index)
        for sid in docked:
            ship = ships[sid]
            pos = ship.y * w + ship.x
            self._dump(pos, ship.cargo)
            ship.cargo = 0
            mark(pos)
            touched.add(sid)

        # Spawn.
        for pid in _players_with(kinds, SpawnCommand):
            player = self.players[pid]
            for command in parsed[pid]:
                if not isinstance(command, SpawnCommand):
                    continue
                player.energy -= c.NEW_ENTITY_ENERGY_COST
                x, y = player.shipyard
                pos = self._pos(x, y)
                ship = Ship(self._next_ship, pid, x, y)
                self._next_ship += 1
                touched.add(ship.id)
                events.append(SpawnEvent(pid, ship.id, x, y))
                stats = self.stats[pid]
                stats.ships_spawned += 1
                stats.last_turn_ship_spawn = self.turn
                # The engine files the ship before it looks for a collision, so a ship
                # destroyed at once still counts for its hash tables' growth.
                self._new_ship(ship)
                player._add_ship(ship)
                standing = self.occupant[pos]
                if standing == -1:
                    self.occupant[pos] = ship.id
                    continue
                existing = self.ships[standing]
                if existing.owner == self.owner[pos]:
                    log.add(
                        pid,
                        level,
                        f"spawn on cell ({x}, {y}) collided with owned entity {existing.id}"
                        " on that cell",
                        _context(parsed[pid], parsed[pid].index(command)),
                    )
                    offence = offence or strict
                self._collision(pos, (existing.id, ship.id), events)
                self._dump(pos, existing.cargo)
                self.players[existing.owner]._remove_ship(existing.id)
                self._delete_ship(existing.id)
                player._remove_ship(ship.id)
                self._delete_ship(ship.id)
                self.occupant[pos] = -1
        return offence

    def _collision(self, pos: int, ship_ids: tuple[int, ...], events: list[Event]) -> None:
        """Record a collision event and its statistics (before the ships are deleted)."""
        w = self.width
        events.append(CollisionEvent(pos % w, pos // w, ship_ids))
        owner_here = self.owner[pos]
        involved: dict[int, int] = {}
        for sid in ship_ids:
            ship = self.ships[sid]
            stats = self.stats[ship.owner]
            involved[ship.owner] = involved.get(ship.owner, 0) + 1
            stats.all_collisions += 1
            if owner_here == ship.owner:
                stats.dropoff_collisions += 1
            else:
                stats.total_dropped += ship.cargo
        for pid, count in involved.items():
            if count > 1:
                self.stats[pid].self_collisions += count

    def _mine(self, touched: set[int]) -> None:
        c = self.constants
        cap = c.MAX_ENERGY
        bonus = c.INSPIRED_BONUS_MULTIPLIER
        halite = self.halite
        w = self.width
        codes = self._cell_codes
        ships = self.ships
        mined: list[int] = []
        # On a crowded turn most ships moved: pick the others out at C speed.
        for sid in [sid for sid in self.ship_order if sid not in touched]:
            ship = ships[sid]
            if ship.cargo >= cap:
                continue
            pos = ship.y * w + ship.x
            cell = halite[pos]
            ratio = c.INSPIRED_EXTRACT_RATIO if ship.inspired else c.EXTRACT_RATIO
            extracted = math.ceil(cell / ratio)
            gained = extracted
            if extracted == 0 and cell > 0:
                extracted = gained = cell
            room = cap - ship.cargo
            if extracted > room:
                extracted = room
            if ship.inspired and bonus > 0:
                gained = int(gained + bonus * gained)
            if room < gained:
                gained = room
            stats = self.stats[ship.owner]
            stats.total_mined += extracted
            if gained > extracted:
                stats.total_bonus += gained - extracted
            ship.cargo += gained
            halite[pos] = cell - extracted
            self.map_total_halite -= extracted
            mined.append(pos)
        self.changed_cells.add_all(mined, [codes[pos] for pos in mined])

    def _update_inspiration(self) -> None:
        c = self.constants
        if not c.INSPIRATION_ENABLED:
            return
        radius = c.INSPIRATION_RADIUS
        need = c.INSPIRATION_SHIP_COUNT
        w, h = self.width, self.height
        ships = list(self.ships.values())
        if w < 2 * radius + 1 or h < 2 * radius + 1:
            # The engine scans the square of offsets around the ship, so on a map
            # narrower than the square a ship can be counted more than once.
            for ship in ships:
                count = 0
                for other in ships:
                    if other.owner != ship.owner and (
                        self.distance(ship.x, ship.y, other.x, other.y) <= radius
                    ):
                        count += _offsets(other.x - ship.x, w, radius) * _offsets(
                            other.y - ship.y, h, radius
                        )
                ship.inspired = count >= need
            return
        cache = self._inspiration_cache
        if cache is not None and cache[0] == self._version:
            for ship, count in zip(ships, cache[1], strict=True):
                ship.inspired = count >= need
            return
        for ship, count in zip(ships, _opponents_near(ships, w, h, radius), strict=True):
            ship.inspired = count >= need

    def _capture(self, events: list[Event]) -> None:
        c = self.constants
        radius = c.CAPTURE_RADIUS
        switches: dict[int, int] = {}
        switch_order: HashOrder[int] = HashOrder()
        for player in self.players:
            for ship in player.ships_in_order():
                counts = dict.fromkeys(range(len(self.players)), 0)
                for other in self.ships.values():
                    if self.distance(ship.x, ship.y, other.x, other.y) <= radius:
                        counts[other.owner] += 1
                best, best_id = 0, -1
                for pid in sorted(counts, reverse=True):
                    if pid != player.id and counts[pid] > best:
                        best, best_id = counts[pid], pid
                if counts[player.id] + c.SHIPS_ABOVE_FOR_CAPTURE <= best:
                    pos = self._pos(ship.x, ship.y)
                    switches[pos] = best_id
                    switch_order.add(pos, self._cell_codes[pos])
        for pos in switch_order:
            new_owner = switches[pos]
            old = self._delete_ship(self.occupant[pos])
            self.players[old.owner]._remove_ship(old.id)
            new = Ship(self._next_ship, new_owner, old.x, old.y, old.cargo)
            self._next_ship += 1
            self._new_ship(new)
            self.players[new_owner]._add_ship(new)
            self.occupant[pos] = new.id
            events.append(CaptureEvent(old.x, old.y, old.owner, old.id, new_owner, new.id))

    def _can_play(self, player: Player) -> bool:
        return bool(player.ships) or player.energy >= self.constants.NEW_ENTITY_ENERGY_COST

    def _update_player_stats(self) -> None:
        turn = self.turn
        tallies = self._tally_ships()
        for stats in self.stats:
            player = self.players[stats.player_id]
            if player.terminated or not player.can_play:
                stats.turn_productions.append(0)
                continue
            if self._can_play(player):
                stats.last_turn_alive = turn
                stats.carried_at_end = sum(map(_CARGO, player.ships.values()))
            stats.turn_productions.append(player.energy)
            stats.number_dropoffs = len(player.dropoffs)
            stats.ships_peak = max(stats.ships_peak, len(player.ships))
            farthest, distance, interacting = tallies[player.id]
            stats.max_entity_distance = max(stats.max_entity_distance, farthest)
            stats.total_distance += distance
            stats.total_entity_lifespan += len(player.ships)
            stats.interaction_opportunities += interacting
            fx, fy = player.shipyard
            stats.set_dropoff_halite(fx, fy, player.shipyard_deposited)
            stats.total_production = player.deposited
            for dropoff in player.dropoffs:
                stats.set_dropoff_halite(dropoff.x, dropoff.y, dropoff.deposited)

    def _tally_ships(self) -> list[tuple[int, int, int]]:
        """Per player: its ships' farthest and summed distance from home, and interactions.

        These are statistics: the distances are from the player's shipyard, and a ship
        interacts when another player's ship or structure is within 2 cells.  The
        distances between ships give next turn's inspiration too (no ship moves in
        between), so those counts are kept for :meth:`_update_inspiration`.
        """
        ships = list(self.ships.values())
        self._inspiration_cache = None
        if not ships:
            return [(0, 0, 0)] * len(self.players)
        c = self.constants
        w, h = self.width, self.height
        radius = c.INSPIRATION_RADIUS
        exact = c.INSPIRATION_ENABLED and w >= 2 * radius + 1 and h >= 2 * radius + 1
        radii = (2, radius if exact else 2)
        structures = [(p.shipyard[0], p.shipyard[1], p.id) for p in self.players]
        structures.extend((d.x, d.y, d.owner) for d in self.dropoffs)
        if len(ships) > _VECTOR_MIN:
            return self._tally_ships_numpy(ships, radii, structures, exact)
        near, inspiring = _opponents_near_radii(ships, w, h, radii)
        if exact:
            self._inspiration_cache = (self._version, inspiring)
        by_structure = _opponents_near(ships, w, h, 2, others=structures)
        farthest = [0] * len(self.players)
        distance = [0] * len(self.players)
        interacting = [0] * len(self.players)
        yards = [p.shipyard for p in self.players]
        for ship, a, b in zip(ships, near, by_structure, strict=True):
            owner = ship.owner
            fx, fy = yards[owner]
            dx = abs(ship.x - fx)
            dy = abs(ship.y - fy)
            d = min(dx, w - dx) + min(dy, h - dy)
            farthest[owner] = max(farthest[owner], d)
            distance[owner] += d
            if a > 0 or b > 0:
                interacting[owner] += 1
        return list(zip(farthest, distance, interacting, strict=True))

    def _tally_ships_numpy(
        self,
        ships: list[Ship],
        radii: tuple[int, int],
        structures: list[tuple[int, int, int]],
        exact: bool,
    ) -> list[tuple[int, int, int]]:
        """:meth:`_tally_ships` for many ships, with numpy.

        Once a turn is resolved no two ships share a cell, and no two structures do, so
        a grid of who stands where (owner + 1, 0 for nobody) holds every ship.  Each
        ship reads that grid at the cells near it (:func:`_neighbourhood`), one row per
        nearby cell: an opponent is a non-zero owner other than its own.  The arrays
        stay small (a byte per cell, per ship and nearby cell), as fresh pages for large
        temporaries would cost more than the arithmetic.
        """
        import numpy as np

        w, h = self.width, self.height
        cells = w * h
        players = len(self.players)
        at = np.array([s.owner * cells + s.y * w + s.x for s in ships], dtype=np.intp)
        owners, where = np.divmod(at, cells)
        ys, xs = np.divmod(where, w)
        radius = max(radii)
        pad_index, offsets, within = _neighbourhood(w, h, radius)
        kind = np.int8 if players < 127 else np.int32
        mine = (owners + 1).astype(kind)
        standing = np.zeros(cells, dtype=kind)
        standing[where] = mine
        if np.count_nonzero(standing) != len(ships):
            raise AssertionError("two ships share a cell after a turn")
        # Row k: every ship's k-th nearest cell in the padded grid.  The rows live in a
        # buffer kept between turns: a fresh one this size would be fresh pages each turn.
        size = len(offsets) * len(ships)
        if self._nearby_buffer is None or len(self._nearby_buffer) < size:
            self._nearby_buffer = np.empty(2 * size, dtype=np.intp)
        nearby = self._nearby_buffer[:size].reshape(len(offsets), len(ships))
        np.add(offsets[:, None], (ys + radius) * (w + 2 * radius) + xs + radius, out=nearby)
        around = standing.take(pad_index).take(nearby)
        opponents = ((around != 0) & (around != mine)).view(np.uint8)
        near = opponents[: within[radii[0]]].sum(axis=0, dtype=np.intp)
        if exact:
            inspiring = opponents[: within[radii[1]]].sum(axis=0, dtype=np.intp)
            self._inspiration_cache = (self._version, inspiring.tolist())
        built = np.zeros(cells, dtype=kind)
        for x, y, owner in structures:
            built[y * w + x] = owner + 1
        by_structure = built.take(pad_index).take(nearby[: within[2]])
        rival_structure = ((by_structure != 0) & (by_structure != mine)).any(axis=0)
        interacting = (near > 0) | rival_structure
        yards = np.array([p.shipyard for p in self.players], dtype=np.intp)
        dx = np.abs(xs - yards[owners, 0])
        dy = np.abs(ys - yards[owners, 1])
        d = np.minimum(dx, w - dx) + np.minimum(dy, h - dy)
        farthest = np.zeros(players, dtype=np.intp)
        np.maximum.at(farthest, owners, d)
        # Weights make the sums floats: exact, as they stay below 2**53.
        distance = np.bincount(owners, weights=d, minlength=players).astype(np.intp)
        interactions = np.bincount(owners[interacting], minlength=players)
        return list(zip(farthest.tolist(), distance.tolist(), interactions.tolist(), strict=True))

    def _game_ended(self) -> bool:
        if self.map_total_halite == 0:
            return all(ship.cargo == 0 for ship in self.ships.values())
        alive = 0
        for player in self.players:
            can = self._can_play(player)
            if not player.terminated and player.can_play and not can:
                player.can_play = False
                self.stats[player.id].last_turn_alive = self.turn
            if not player.terminated and can:
                alive += 1
        if alive > 1:
            return False
        return not (len(self.players) == 1 and alive == 1)

    def _finish(self) -> None:
        self.over = True
        # The engine's turn counter is one past the last turn when it leaves the loop.
        self.turn += 1
        self.number_turns = self.turn
        self._update_inspiration()
        self._update_player_stats()
        self.turn -= 1
        ranked = sorted(self.stats, key=functools.cmp_to_key(_compare_stats))
        ranked.reverse()
        for index, stats in enumerate(ranked):
            stats.rank = index + 1
        self._result = HaliteResult(
            number_turns=self.number_turns,
            ranks=tuple(s.rank for s in self.stats),
            scores=tuple(s.turn_productions[-1] for s in self.stats),
            terminated=tuple(p.terminated for p in self.players),
            statistics=tuple(s.to_json() for s in self.stats),
            final_inspired=tuple(sorted(s.id for s in self.ships.values() if s.inspired)),
        )

    def result(self) -> HaliteResult:
        """The final ranks, scores and statistics (only once the game is over)."""
        if self._result is None:
            raise HaliteError("the game is not over yet")
        return self._result

    def live_players(self) -> list[int]:
        """Ids of the players not yet terminated (they get frames and send commands)."""
        return [p.id for p in self.players if not p.terminated]

    def snapshot_ships(self) -> list[tuple[int, int, int, int, int]]:
        """``(id, owner, x, y, cargo)`` of every ship, sorted by id."""
        return sorted((s.id, s.owner, s.x, s.y, s.cargo) for s in self.ships.values())


_VECTOR_MIN = 32
"""Above this many ships, distances are counted with numpy."""


def _opponents_near(
    ships: list[Ship],
    width: int,
    height: int,
    radius: int,
    others: list[tuple[int, int, int]] | None = None,
) -> list[int]:
    """For each ship, how many ``others`` (default: the ships) of another owner are near.

    ``others`` are ``(x, y, owner)``; "near" is a toroidal Manhattan distance of at
    most ``radius``.
    """
    return _opponents_near_radii(ships, width, height, (radius,), others)[0]


def _opponents_near_radii(
    ships: list[Ship],
    width: int,
    height: int,
    radii: tuple[int, ...],
    others: list[tuple[int, int, int]] | None = None,
) -> list[list[int]]:
    """:func:`_opponents_near` for several radii at once.

    Few ships are counted pair by pair in Python; from :data:`_VECTOR_MIN` ships on,
    numpy counts the cells near each ship (:func:`_opponents_near_grid`), which costs
    about as much as the pairs of 32 ships and grows with the ships, not their square.
    """
    if len(ships) <= _VECTOR_MIN:
        points = others if others is not None else [(o.x, o.y, o.owner) for o in ships]
        result = [[0] * len(ships) for _ in radii]
        for i, ship in enumerate(ships):
            sx, sy, owner = ship.x, ship.y, ship.owner
            for px, py, other_owner in points:
                if other_owner != owner:
                    dx = abs(px - sx)
                    dy = abs(py - sy)
                    d = min(dx, width - dx) + min(dy, height - dy)
                    for r, radius in enumerate(radii):
                        if d <= radius:
                            result[r][i] += 1
        return result
    # numpy loads the standard ``random`` module, which the pure core must not load
    # merely by being imported: import it when a game needs it.
    import numpy as np

    n = len(ships)
    xs = np.fromiter((s.x for s in ships), dtype=np.intp, count=n)
    ys = np.fromiter((s.y for s in ships), dtype=np.intp, count=n)
    owners = np.fromiter((s.owner for s in ships), dtype=np.intp, count=n)
    counted = None
    if others is not None:
        table = np.array(others, dtype=np.intp).reshape(-1, 3)
        counted = (table[:, 0], table[:, 1], table[:, 2])
    counts = _opponents_near_grid(xs, ys, owners, width, height, radii, counted)
    return [count.tolist() for count in counts]


def _opponents_near_grid(
    xs: Any,
    ys: Any,
    owners: Any,
    width: int,
    height: int,
    radii: tuple[int, ...],
    points: tuple[Any, Any, Any] | None = None,
) -> list[Any]:
    """:func:`_opponents_near_radii` with numpy arrays, looking only at cells near ships.

    ``xs``, ``ys`` and ``owners`` describe the ships, ``points`` (the same, default: the
    ships) what is counted.  The points are counted per cell and owner; a ship's
    opponents on a cell are the points there minus its own owner's.  The grid is padded
    by the largest radius on every side (wrapping), so the cells near a ship are its
    padded index plus fixed offsets, one per distinct cell within that radius, nearest
    first.  Returns one integer array per radius.
    """
    import numpy as np

    radius = max(radii)
    pad_index, offsets, within = _neighbourhood(width, height, radius)
    point_xs, point_ys, point_owners = (xs, ys, owners) if points is None else points
    players = 1 + max(int(owners.max()), int(point_owners.max()) if len(point_owners) else 0)
    cells = width * height
    grid = np.bincount(
        point_owners * cells + point_ys * width + point_xs, minlength=players * cells
    ).reshape(players, cells)
    total = np.bincount(point_ys * width + point_xs, minlength=cells)
    opponents = (total - grid).take(pad_index, axis=1).ravel()
    padded_width = width + 2 * radius
    base = owners * len(pad_index) + (ys + radius) * padded_width + xs + radius
    near = opponents[base[:, None] + offsets[None, :]]
    return [near[:, : within[r]].sum(axis=1) for r in radii]


@functools.lru_cache(maxsize=8)
def _neighbourhood(width: int, height: int, radius: int) -> tuple[Any, Any, tuple[int, ...]]:
    """The padded grid's geometry for :func:`_opponents_near_grid`.

    Returns the original cell of every cell of the grid padded by ``radius`` (wrapping),
    the padded-index offsets of the distinct cells within ``radius`` of a cell, nearest
    first, and for each radius up to ``radius`` how many of those offsets are within it.
    On a map narrower than a neighbourhood, offsets that land on one cell count once.
    """
    import numpy as np

    padded_width = width + 2 * radius
    padded_height = height + 2 * radius
    columns = (np.arange(padded_width) - radius) % width
    rows = (np.arange(padded_height) - radius) % height
    pad_index = (rows[:, None] * width + columns[None, :]).ravel()
    nearest: dict[tuple[int, int], tuple[int, int]] = {}
    for dy in range(-radius, radius + 1):
        span = radius - abs(dy)
        for dx in range(-span, span + 1):
            cell = (dx % width, dy % height)
            distance = abs(dx) + abs(dy)
            if cell not in nearest or distance < nearest[cell][0]:
                nearest[cell] = (distance, dy * padded_width + dx)
    ranked = sorted(nearest.values())
    offsets = np.array([offset for _, offset in ranked], dtype=np.intp)
    within = tuple(sum(1 for d, _ in ranked if d <= r) for r in range(radius + 1))
    pad_index.flags.writeable = offsets.flags.writeable = False  # shared by every game
    return pad_index, offsets, within


def _offsets(delta: int, size: int, radius: int) -> int:
    target = delta % size
    return sum(1 for d in range(-radius, radius + 1) if d % size == target)


def _compare_stats(a: PlayerStatistics, b: PlayerStatistics) -> int:
    """The engine's ``operator<`` as a three-way comparison (negative: a ranks below b)."""
    if a.last_turn_alive != b.last_turn_alive:
        return -1 if a.last_turn_alive < b.last_turn_alive else 1
    # Under --strict the official engine compares past the end of its per-turn arrays
    # (undefined behaviour); start from the last recorded turn instead.
    turn = min(a.last_turn_alive, len(a.turn_productions) - 1, len(b.turn_productions) - 1)
    while a.turn_productions[turn] == b.turn_productions[turn]:
        turn -= 1
        if turn < 0:
            if a.random_id == b.random_id:
                return 0
            return -1 if a.random_id < b.random_id else 1
    return -1 if a.turn_productions[turn] < b.turn_productions[turn] else 1


def _move_index(commands: list[Command], ship_id: int) -> int:
    """The index of the move command of ``ship_id`` (validation left one per ship)."""
    return next(
        index
        for index, command in enumerate(commands)
        if isinstance(command, MoveCommand) and command.ship_id == ship_id
    )


def _plainly_valid(commands: list[Command], player: Player, spawn_cost: int) -> bool:
    """True when the commands can hold no error, checked at a glance (the usual case).

    That is: moves of the player's own ships, one each, and at most one spawn the player
    can pay for.  Any other list (with a construction, say) takes the full check.
    """
    moved = [command.ship_id for command in commands if type(command) is MoveCommand]
    others = len(commands) - len(moved)
    if others > 1:
        return False
    if others == 1 and (
        player.energy < spawn_cost or not any(type(c) is SpawnCommand for c in commands)
    ):
        return False
    distinct = set(moved)
    return len(distinct) == len(moved) and player.ships.keys() >= distinct


def _command_kinds(parsed: Mapping[int, list[Command]]) -> dict[int, set[type[Command]]]:
    """Each player's kinds of command this turn (for :func:`_players_with`)."""
    return {pid: set(map(type, commands)) for pid, commands in parsed.items()}


def _players_with(kinds: Mapping[int, set[type[Command]]], kind: type[Command]) -> list[int]:
    """The players with a command of ``kind``, in the order a commit step visits them.

    ``kinds`` are each player's kinds of command (:func:`_command_kinds`).  Each step
    keeps its commands in a hash table keyed by player, filled in player id order; up
    to 13 players that visits them in descending id order.
    """
    having = [pid for pid in sorted(kinds) if kind in kinds[pid]]
    if len(having) <= 13 and (not having or having[-1] < 13):
        return having[::-1]  # one bucket each, every new one in front: the shortcut
    order: HashOrder[int] = HashOrder()
    for pid in having:
        order.add(pid, pid)
    return list(order)
