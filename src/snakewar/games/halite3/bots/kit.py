"""The bot side of Halite III: a game view, the text protocol and the bot base class.

A built-in Halite bot sees the game through a :class:`GameView`, the same whether it
plays in-process (the view is filled from the engine with :func:`view_from_game` and
:func:`update_view_from_game`) or as a subprocess speaking the official protocol
(:func:`run_stdio`, which fills it with :func:`parse_init` and :func:`apply_frame`).
Each turn the bot returns command strings (``"g"``, ``"m 3 n"``, ``"c 5"``).

This module is imported by bot subprocesses, so it stays light: no engine import at
run time, only ``json`` and ``random`` from the standard library.
"""

from __future__ import annotations

import json
import random
import sys
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from snakewar.errors import SnakewarError

if TYPE_CHECKING:
    from snakewar.games.halite3.rules.game import HaliteGame

__all__ = [
    "DIRECTION_OFFSETS",
    "GameView",
    "HaliteBot",
    "PlayerView",
    "ProtocolError",
    "ShipView",
    "apply_frame",
    "parse_init",
    "run_stdio",
    "update_view_from_game",
    "view_from_game",
]

#: Direction letter -> (dx, dy); ``n`` is y-1 and ``s`` is y+1, both axes wrap.
DIRECTION_OFFSETS: dict[str, tuple[int, int]] = {
    "n": (0, -1),
    "s": (0, 1),
    "e": (1, 0),
    "w": (-1, 0),
}

#: The engine cuts bot names to this many characters.
NAME_MAX_LENGTH = 30


class ProtocolError(SnakewarError, ValueError):
    """The engine's text did not follow the Halite III protocol."""


@dataclass(slots=True)
class ShipView:
    """A ship as a bot sees it."""

    id: int
    owner: int
    x: int
    y: int
    cargo: int


@dataclass(slots=True)
class PlayerView:
    """A player as a bot sees it: ``halite`` is what it holds; dropoffs are ``(id, x, y)``."""

    id: int
    shipyard: tuple[int, int]
    halite: int = 0
    ships: dict[int, ShipView] = field(default_factory=dict)
    dropoffs: list[tuple[int, int, int]] = field(default_factory=list)


@dataclass(slots=True)
class GameView:
    """What a bot knows at the start of a turn; updated in place every turn.

    ``turn`` is the turn about to be played (1-based, as in the frame); ``halite`` is
    the map as a flat list indexed ``y * width + x``.
    """

    my_id: int
    num_players: int
    width: int
    height: int
    constants: dict[str, Any]
    turn: int
    halite: list[int]
    players: dict[int, PlayerView]

    @property
    def me(self) -> PlayerView:
        """This bot's own player."""
        return self.players[self.my_id]

    @property
    def max_turns(self) -> int:
        """The game's last turn (``MAX_TURNS`` as sent, already adjusted for the size)."""
        return int(self.constants.get("MAX_TURNS", 500))

    def index(self, x: int, y: int) -> int:
        """The flat index of a (normalized) cell."""
        return y * self.width + x

    def cell(self, x: int, y: int) -> int:
        """The halite on a cell (coordinates are normalized first)."""
        return self.halite[(y % self.height) * self.width + x % self.width]

    def normalize(self, x: int, y: int) -> tuple[int, int]:
        """Wrap a position onto the torus."""
        return x % self.width, y % self.height

    def distance(self, x1: int, y1: int, x2: int, y2: int) -> int:
        """Toroidal Manhattan distance."""
        dx = abs(x1 - x2) % self.width
        dy = abs(y1 - y2) % self.height
        return min(dx, self.width - dx) + min(dy, self.height - dy)

    def neighbors(self, x: int, y: int) -> list[tuple[str, int, int]]:
        """The four cells next to ``(x, y)`` as ``(direction, x, y)``."""
        w, h = self.width, self.height
        return [
            ("n", x, (y - 1) % h),
            ("s", x, (y + 1) % h),
            ("e", (x + 1) % w, y),
            ("w", (x - 1) % w, y),
        ]

    def structures_of(self, pid: int) -> list[tuple[int, int]]:
        """A player's shipyard and dropoff positions (shipyard first)."""
        player = self.players[pid]
        return [player.shipyard, *((x, y) for _, x, y in player.dropoffs)]

    def occupied(self) -> set[tuple[int, int]]:
        """Positions of every ship on the map (all players)."""
        return {(s.x, s.y) for p in self.players.values() for s in p.ships.values()}

    def enemy_ships(self) -> list[ShipView]:
        """Every ship that is not this bot's."""
        return [s for p in self.players.values() if p.id != self.my_id for s in p.ships.values()]


# -- the text protocol ---------------------------------------------------------------


def _fields(lines: Iterator[str]) -> list[str]:
    """The next non-blank line's fields; StopIteration at the end of the input."""
    while True:
        parts = next(lines).split()
        if parts:
            return parts


def _ints(lines: Iterator[str], count: int, what: str) -> list[int]:
    parts = _fields(lines)
    if len(parts) != count:
        raise ProtocolError(f"{what}: expected {count} integers, got {' '.join(parts)!r}")
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise ProtocolError(f"{what}: expected integers, got {' '.join(parts)!r}") from None


def parse_init(lines: Iterable[str]) -> GameView:
    """Read the init message: constants JSON, ``n my_id``, shipyards, size, map rows.

    Args:
        lines: the engine's lines (a file, ``str.splitlines()``, ...); only the init's
            lines are consumed from an iterator.

    Raises:
        ProtocolError: the text is not an init message.
        StopIteration: the input ended before the init was complete.
    """
    it = iter(lines)
    raw = next(it)
    while not raw.strip():
        raw = next(it)
    try:
        constants = json.loads(raw)
    except ValueError:
        raise ProtocolError(f"init: the first line is not constants JSON: {raw[:60]!r}") from None
    if not isinstance(constants, dict):
        raise ProtocolError(f"init: the constants line is not a JSON object: {raw[:60]!r}")
    num_players, my_id = _ints(it, 2, "init players line")
    players: dict[int, PlayerView] = {}
    for _ in range(num_players):
        pid, x, y = _ints(it, 3, "init shipyard line")
        players[pid] = PlayerView(pid, (x, y))
    width, height = _ints(it, 2, "init size line")
    halite: list[int] = []
    for row in range(height):
        halite.extend(_ints(it, width, f"init map row {row}"))
    return GameView(
        my_id=my_id,
        num_players=num_players,
        width=width,
        height=height,
        constants=constants,
        turn=0,
        halite=halite,
        players=players,
    )


def apply_frame(view: GameView, lines: Iterable[str]) -> None:
    """Read one turn's frame into ``view``: turn, every player's block, changed cells.

    Raises:
        ProtocolError: the text is not a frame for this game.
        StopIteration: the input ended (the game is over for the bot).
    """
    it = iter(lines)
    view.turn = _ints(it, 1, "frame turn line")[0]
    for _ in range(view.num_players):
        pid, num_ships, num_dropoffs, energy = _ints(it, 4, "frame player line")
        player = view.players.get(pid)
        if player is None:
            raise ProtocolError(f"frame: unknown player id {pid}")
        player.halite = energy
        ships: dict[int, ShipView] = {}
        for _ in range(num_ships):
            sid, x, y, cargo = _ints(it, 4, "frame ship line")
            ships[sid] = ShipView(sid, pid, x, y, cargo)
        player.ships = ships
        player.dropoffs = [
            (d[0], d[1], d[2])
            for d in (_ints(it, 3, "frame dropoff line") for _ in range(num_dropoffs))
        ]
    (changed,) = _ints(it, 1, "frame changed-cells count")
    halite, w = view.halite, view.width
    for _ in range(changed):
        x, y, value = _ints(it, 3, "frame cell line")
        halite[y * w + x] = value


# -- in-process views ----------------------------------------------------------------


def view_from_game(game: HaliteGame, pid: int) -> GameView:
    """The view player ``pid`` would build from the engine's init and next frame."""
    constants = game.constants.to_json()
    constants.update(game_seed=game.seed, map_width=game.width, map_height=game.height)
    view = GameView(
        my_id=pid,
        num_players=len(game.players),
        width=game.width,
        height=game.height,
        constants=constants,
        turn=0,
        halite=[],
        players={p.id: PlayerView(p.id, p.shipyard) for p in game.players},
    )
    update_view_from_game(view, game)
    return view


def update_view_from_game(view: GameView, game: HaliteGame) -> None:
    """Bring ``view`` to the state of the engine's next frame (the turn about to be played)."""
    view.turn = game.turn + 1
    view.halite = list(game.halite)
    players = view.players
    for p in game.players:
        player = players[p.id]
        player.halite = p.energy
        # In the order of the frame (the official engine's), as a bot reading it sees them.
        player.ships = {
            s.id: ShipView(s.id, s.owner, s.x, s.y, s.cargo) for s in p.ships_in_order()
        }
        player.dropoffs = [(d.id, d.x, d.y) for d in p.dropoffs]


# -- bots ------------------------------------------------------------------------------


class HaliteBot(ABC):
    """A Halite III bot: :meth:`setup` once with the initial view, :meth:`turn` every turn.

    Bots are deterministic given their seed: randomness comes from :attr:`rng`, seeded
    from the constructor's ``seed`` and the bot's player id in :meth:`setup`.
    """

    #: The name sent to the engine (cut to 30 characters).
    name: str = "bot"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def setup(self, view: GameView) -> None:
        """Called once before the first turn; subclasses that override it call this one."""
        # Mix the player id in so that copies of one bot in one game differ.
        self.rng = random.Random((self.seed & 0xFFFFFFFF) ^ (view.my_id * 0x9E3779B1))

    @abstractmethod
    def turn(self, view: GameView) -> list[str]:
        """This turn's commands, e.g. ``["g", "m 3 n", "c 5"]``."""


def run_stdio(bot: HaliteBot, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Play ``bot`` over the official protocol until the input ends.

    Reads the init, answers the bot's name, then answers every frame with one line of
    commands, flushing each.  The engine never announces the end of the game, so the
    end of the input is a normal exit.

    Returns:
        0, the exit status.
    """
    source = stdin if stdin is not None else sys.stdin
    sink = stdout if stdout is not None else sys.stdout
    # readline, not the file iterator: never read ahead of what the engine has sent.
    lines = iter(source.readline, "")
    try:
        view = parse_init(lines)
    except StopIteration:
        return 0
    bot.setup(view)
    sink.write(bot.name.replace("\n", " ").replace("\r", "")[:NAME_MAX_LENGTH] + "\n")
    sink.flush()
    while True:
        try:
            apply_frame(view, lines)
        except StopIteration:
            return 0
        sink.write(" ".join(bot.turn(view)) + "\n")
        sink.flush()
