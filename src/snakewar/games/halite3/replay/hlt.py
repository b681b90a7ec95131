"""Official Halite III ``.hlt`` replays: written from a finished game, read back safely.

The file is the official engine's replay (``game_engine/replay/Replay.cpp``, format
version 3): one JSON document, zstd-compressed, or plain JSON with the engine's
``--no-compression``.  Its layout is in the Halite III spec, §6; in short:

* top level: ``ENGINE_VERSION``, ``REPLAY_FILE_VERSION`` (3), ``GAME_CONSTANTS``,
  ``map_generator_seed``, ``number_of_players``, ``players``, ``production_map``
  (the initial map), ``game_statistics`` and ``full_frames``;
* ``full_frames`` has T+2 entries for a game of T turns: frame 0 is the initial state
  (``energy`` and ``deposited`` only; for a game started from a snapshot also its cells
  and a ``spawn``/``construct`` event per ship/dropoff, while ``production_map`` stays the
  generated map: see :class:`~snakewar.games.halite3.rules.game.ReplayStart`), frame t
  (1..T) holds the ships at the *start* of turn t, the moves, events and changed cells
  *of* turn t and the halite *after* it, and frame T+1 is the final state (ships with
  recomputed inspiration).

:func:`replay_document` builds that document from a finished
:class:`~snakewar.games.halite3.rules.game.HaliteGame` (a live game sends the same pieces as
it goes: :func:`replay_head` first, then :func:`initial_frame` and each turn's
:func:`turn_frame`); it equals the official engine's
replay of the same game except for ``execution_time`` and the order of the lists the
engine fills from hash tables.  :func:`write_hlt` writes it the way the engine does
(compact JSON with sorted keys, so objects come out in the engine's ``std::map``
order), and :func:`read_hlt` reads any version-3 replay into an :class:`HltReplay`,
refusing damaged, truncated, oversized or foreign input with one-line
:class:`HltReplayError` messages.

The default compression level is :data:`DEFAULT_LEVEL` (3, zstd's own default). On a
64x64 4-player game of 500 turns (1 MB of JSON) it compresses in about 2 ms instead of
0.6 s at the official level 22, for a file about 1.7 times larger (97 kB against 57 kB);
pass ``level=22`` for the official engine's setting.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import zstandard

from snakewar.errors import TooLargeError
from snakewar.games.halite3.rules.game import HaliteGame, TurnOutcome
from snakewar.replay._lines import ReplayError

__all__ = [
    "DEFAULT_LEVEL",
    "ENGINE_VERSION",
    "MAX_COMPRESSED_BYTES",
    "MAX_JSON_BYTES",
    "REPLAY_FILE_VERSION",
    "SUPPORTED_VERSIONS",
    "HltDropoff",
    "HltPlayer",
    "HltReplay",
    "HltReplayError",
    "HltShip",
    "HltTooLargeError",
    "encode_hlt",
    "final_frame",
    "initial_frame",
    "json_elements",
    "read_hlt",
    "replay_document",
    "replay_filename",
    "replay_head",
    "turn_frame",
    "write_hlt",
]

ENGINE_VERSION = "1.2.2.finals"
"""The official engine version this module's replays claim (the finals engine)."""
REPLAY_FILE_VERSION = 3
"""The replay format version written."""
SUPPORTED_VERSIONS: tuple[int, ...] = (3,)
"""The ``REPLAY_FILE_VERSION`` values :func:`read_hlt` accepts."""
DEFAULT_LEVEL = 3
"""zstd level :func:`write_hlt` uses unless told otherwise (the engine uses 22)."""
MAX_COMPRESSED_BYTES = 64 * 1024 * 1024
"""The largest file (compressed or plain) :func:`read_hlt` reads by default."""
MAX_JSON_BYTES = 512 * 1024 * 1024
"""The largest JSON text :func:`read_hlt` decompresses to by default."""

_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
# Unknown-size zstd input is fed this many bytes at a time.  A zstd block holds at most
# 128 KiB and takes at least 4 bytes (an RLE block), so one piece expands to at most
# 8 MiB: the text held never passes the cap by more than that.
_ZSTD_INPUT_CHUNK = 256
# The bytes of JSON text that may start a key or a value (see json_elements).
_ELEMENT_MARKS = (b",", b":", b"[", b"{")


class HltReplayError(ReplayError):
    """A ``.hlt`` replay that cannot be read or written: damaged, foreign or too large.

    The message is one line naming the file and what was expected.
    """


class HltTooLargeError(HltReplayError, TooLargeError):
    """A ``.hlt`` replay larger than accepted, compressed or decompressed."""


# -- writing --------------------------------------------------------------------------


def replay_head(
    game: HaliteGame,
    names: Sequence[str],
    *,
    map_players: int | None = None,
    failed_to_initialize: Collection[int] = (),
) -> dict[str, Any]:
    """The replay document without its frames and statistics: what a viewer needs first.

    It is known once the bots are initialized, before turn 1: the constants, the
    players (names, factories), the initial map, the seed.  A live game sends it as
    its header; :func:`replay_document` is it with ``full_frames`` and
    ``game_statistics`` added.

    Args:
        game: the game (at any turn: only its setup is read).
        names: the players' names, indexed by player id.
        map_players: see :func:`replay_document`.
        failed_to_initialize: see :func:`replay_document`.

    Raises:
        HltReplayError: the number of names is not the number of players, or
            ``map_players`` is too small.
    """
    n = len(game.players)
    if len(names) != n:
        raise HltReplayError(f"replay: got {len(names)} player names, expected {n}")
    if map_players is None:
        map_players = n
    if map_players < n:
        raise HltReplayError(f"replay: a map for {map_players} players cannot hold {n}")
    dead = set(failed_to_initialize)
    start = game.replay_start
    # The engine copies its players after initialize_game (a snapshot's energy and ships);
    # a bot killed in its initialization has lost both by then.
    energy = start.energy if start else (game.constants.INITIAL_ENERGY,) * n
    entities: list[list[list[Any]]] = start.entities if start else [[] for _ in range(n)]
    grid = start.production_map if start else game.initial_halite
    return {
        "ENGINE_VERSION": ENGINE_VERSION,
        "GAME_CONSTANTS": game.constants.to_json(),
        "REPLAY_FILE_VERSION": REPLAY_FILE_VERSION,
        "map_generator_seed": game.seed,
        "number_of_players": map_players,
        "players": [
            {
                "energy": 0 if p.id in dead else energy[p.id],
                "entities": [] if p.id in dead else [list(e) for e in entities[p.id]],
                "factory_location": {"x": p.shipyard[0], "y": p.shipyard[1]},
                "name": names[p.id],
                "player_id": p.id,
            }
            for p in game.players
        ],
        "production_map": {
            "grid": [[{"energy": v} for v in row] for row in grid],
            "height": game.height,
            "width": game.width,
        },
    }


def initial_frame(game: HaliteGame) -> dict[str, Any]:
    """Frame 0 of the replay: every player's starting energy, nothing deposited.

    For a game started from a snapshot it also holds, as the engine's does, every cell
    of the snapshot's map, a ``construct`` event for each of its dropoffs and a
    ``spawn`` event for each of its ships (see
    :class:`~snakewar.games.halite3.rules.game.ReplayStart`); its ``entities`` stay empty.
    """
    pids = [str(p.id) for p in game.players]
    start = game.replay_start
    if start is None:
        return {
            "cells": [],
            "deposited": dict.fromkeys(pids, 0),
            "energy": dict.fromkeys(pids, game.constants.INITIAL_ENERGY),
            "entities": {},
            "events": [],
            "moves": {},
        }
    return {
        "cells": [{"production": v, "x": x, "y": y} for x, y, v in start.cells],
        "deposited": dict.fromkeys(pids, 0),
        "energy": dict(zip(pids, start.energy, strict=True)),
        "entities": {},
        "events": [dict(sorted(e.items())) for e in start.events],
        "moves": {},
    }


def turn_frame(outcome: TurnOutcome, players: int) -> dict[str, Any]:
    """Frame ``outcome.turn`` of the replay, from that turn's outcome alone.

    A live game sends each turn's frame as it is played, and :func:`replay_document`
    builds the stored replay's frames with this same function: the two cannot differ.

    Args:
        outcome: what :meth:`~HaliteGame.step` returned for the turn.
        players: the game's number of players.
    """
    pids = [str(p) for p in range(players)]
    return {
        "cells": [{"production": v, "x": x, "y": y} for x, y, v in outcome.cells],
        "deposited": dict(zip(pids, outcome.deposited, strict=True)),
        "energy": dict(zip(pids, outcome.energy, strict=True)),
        "entities": {
            str(pid): _entities(outcome.entities_at_start.get(pid, ())) for pid in range(players)
        },
        "events": [event.to_replay() for event in outcome.events],
        "moves": {
            str(pid): [command.to_replay() for command in outcome.moves[pid]]
            for pid in sorted(outcome.moves)
        },
    }


def final_frame(game: HaliteGame) -> dict[str, Any]:
    """The replay's last frame: the state after the last turn (ships with their inspiration)."""
    return {
        "cells": [],
        "deposited": {str(p.id): p.deposited for p in game.players},
        "energy": {str(p.id): p.energy for p in game.players},
        "entities": {
            str(p.id): _entities((s.id, s.x, s.y, s.cargo, s.inspired) for s in p.ships.values())
            for p in game.players
        },
        "events": [],
        "moves": {},
    }


def replay_document(
    game: HaliteGame,
    names: Sequence[str],
    *,
    execution_time_ms: int = 0,
    map_players: int | None = None,
    failed_to_initialize: Collection[int] = (),
) -> dict[str, Any]:
    """The official replay document of a finished game.

    Args:
        game: a game whose :attr:`~HaliteGame.over` is true, played with
            :meth:`~HaliteGame.step` from turn 1 (its ``history`` holds every turn).
        names: the players' names, indexed by player id.
        execution_time_ms: the ``game_statistics.execution_time`` to record (the engine
            measures the game's wall time before writing the replay).
        map_players: the players the map was made for (``-n``), which the engine
            records as ``number_of_players`` even when fewer bots play; default: the
            game's players.
        failed_to_initialize: the players whose bot failed its initialization: the
            engine killed them before copying the players into the replay, so their
            entry's ``energy`` is 0.

    Returns:
        The JSON document, with every object's keys in sorted order, like the engine's.

    Raises:
        HltReplayError: the game is not over, its history is incomplete, the number
            of names is not the number of players, or ``map_players`` is too small.
    """
    if not game.over:
        raise HltReplayError(f"replay: the game is not over (turn {game.turn}); finish it first")
    head = replay_head(
        game, names, map_players=map_players, failed_to_initialize=failed_to_initialize
    )
    played = len(game.history)
    # --strict ends the game by setting the turn to its last one: fewer turns are played.
    aborted = game.constants.STRICT_ERRORS and 0 < played <= game.turn
    if (played != game.turn and not aborted) or any(
        o.turn != i + 1 for i, o in enumerate(game.history)
    ):
        raise HltReplayError(
            f"replay: the game's history holds {played} turns, expected turns 1..{game.turn}"
        )
    n = len(game.players)
    head_grid = game.replay_start.production_map if game.replay_start else game.initial_halite
    result = game.result()
    frames = [initial_frame(game)]
    frames.extend(turn_frame(outcome, n) for outcome in game.history)
    frames.append(final_frame(game))
    statistics = [_copy_statistics(s) for s in result.statistics]
    document = {
        **head,
        "full_frames": frames,
        "game_statistics": {
            "execution_time": execution_time_ms,
            # The engine sums the map it generated (before a snapshot's cells).
            "map_total_halite": sum(sum(row) for row in head_grid),
            "number_turns": result.number_turns,
            "player_statistics": statistics,
        },
    }
    return dict(sorted(document.items()))


def _entities(ships: Any) -> dict[str, dict[str, Any]]:
    # Sorted like the engine's std::map of string keys, so the dict's order is the file's.
    rows = sorted(ships, key=lambda s: str(s[0]))
    return {
        str(sid): {"energy": cargo, "is_inspired": inspired, "x": x, "y": y}
        for sid, x, y, cargo, inspired in rows
    }


def _copy_statistics(stats: Mapping[str, Any]) -> dict[str, Any]:
    copied = dict(stats)
    copied["halite_per_dropoff"] = [
        [dict(location), amount] for location, amount in stats["halite_per_dropoff"]
    ]
    return copied


def encode_hlt(
    document: Mapping[str, Any], *, compress: bool = True, level: int = DEFAULT_LEVEL
) -> bytes:
    """The bytes of a replay file: compact, key-sorted JSON, zstd-compressed by default.

    Args:
        document: the replay document (see :func:`replay_document`).
        compress: ``False`` gives plain JSON, like the engine's ``--no-compression``.
        level: the zstd level, 1..22 (the official engine uses 22).

    Raises:
        HltReplayError: the level is out of range or the document is not JSON.
    """
    top = zstandard.MAX_COMPRESSION_LEVEL
    if compress and not 1 <= level <= top:
        raise HltReplayError(f"replay: zstd level {level!r} is out of range, expected 1..{top}")
    try:
        text = json.dumps(document, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise HltReplayError(f"replay: the document is not JSON: {exc}") from None
    data = text.encode("utf-8")
    if not compress:
        return data
    return zstandard.ZstdCompressor(level=level).compress(data)


def write_hlt(
    document: Mapping[str, Any],
    path: str | os.PathLike[str],
    *,
    compress: bool = True,
    level: int = DEFAULT_LEVEL,
) -> Path:
    """Write a replay file (atomically: a temporary file renamed into place).

    The file's mode follows the umask (0644 under the usual 022), as the engine's.

    Args:
        document: the replay document (see :func:`replay_document`).
        path: the file to write; its folder must exist.
        compress: ``False`` writes plain JSON (``--no-compression``).
        level: the zstd level, 1..22; the default :data:`DEFAULT_LEVEL` is fast, 22 is
            the official engine's (smallest, much slower).

    Returns:
        The path written.

    Raises:
        HltReplayError: bad level, a document that is not JSON, or the file cannot be
            written.
    """
    data = encode_hlt(document, compress=compress, level=level)
    target = Path(path)
    try:
        fd, tmp = _create_temporary(target)
    except OSError as exc:
        raise HltReplayError(f"{target}: cannot write the replay: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise HltReplayError(f"{target}: cannot write the replay: {exc.strerror}") from None
    return target


def _create_temporary(target: Path) -> tuple[int, str]:
    """A new file next to ``target``, open for writing, with the umask's mode.

    Not :func:`tempfile.mkstemp`: its files are 0600 whatever the umask.  The kernel
    applies the umask to 0666 here, at creation, so no thread can see the mask change.
    """
    for _ in range(100):
        tmp = str(target.parent / f".{target.name}.{secrets.token_hex(6)}")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(target.parent))


def replay_filename(seed: int, width: int, height: int, when: datetime) -> str:
    """The engine's replay file name, ``replay-YYYYMMDD-HHMMSS±ZZZZ-<seed>-<w>-<h>.hlt``.

    Args:
        seed: the map seed.
        width: the map width.
        height: the map height.
        when: the time the game was played; a naive datetime is taken as local time.
    """
    stamp = when.astimezone() if when.tzinfo is None else when
    return f"replay-{stamp.strftime('%Y%m%d-%H%M%S%z')}-{seed}-{width}-{height}.hlt"


# -- reading --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HltPlayer:
    """A player of the replay: id, name and shipyard (``factory``) position."""

    id: int
    name: str
    factory: tuple[int, int]


@dataclass(frozen=True, slots=True)
class HltShip:
    """A ship in one frame: ``halite`` is its cargo, ``inspired`` its flag that turn."""

    id: int
    owner: int
    x: int
    y: int
    halite: int
    inspired: bool


@dataclass(frozen=True, slots=True)
class HltDropoff:
    """A dropoff rebuilt from a ``construct`` event (ids count construct events)."""

    id: int
    owner: int
    x: int
    y: int
    turn: int
    """The turn (frame) whose events built it."""


@dataclass(eq=False)
class HltReplay:
    """A Halite III replay, read and checked by :func:`read_hlt`.

    Frame ``t`` follows the official layout: ``frames[0]`` is the initial state; for
    ``1 <= t <= T`` the ships are those at the *start* of turn ``t`` while cells,
    energy and deposits are *after* turn ``t``; ``frames[T + 1]`` is the final state.
    The helpers follow the frames: :meth:`ships_at` gives the frame's ships,
    :meth:`grid_at`, :meth:`energy_at` and :meth:`dropoffs_at` the state after turn ``t``.
    """

    engine_version: str
    replay_file_version: int
    seed: int
    width: int
    height: int
    num_players: int
    """The players of the game (``len(players)``)."""
    map_players: int
    """``number_of_players``: the players the map was made for (``-n``), at least
    :attr:`num_players`."""
    players: tuple[HltPlayer, ...]
    constants: dict[str, Any]
    initial_grid: list[list[int]]
    frames: list[dict[str, Any]]
    number_turns: int
    """The engine's turn count, T+1 (``len(frames) - 1``)."""
    map_total_halite: int
    execution_time_ms: int
    statistics: tuple[dict[str, Any], ...]
    """``player_statistics``, indexed by player id."""
    ranks: tuple[int, ...]
    """Rank per player id (1 = best)."""
    document: dict[str, Any] = field(repr=False)
    """The whole JSON document as read."""
    source: str = "replay"
    """The file it was read from (``replay`` for bytes), for messages."""
    finished: bool = True
    """Whether the game ended: an unfinished game's document (``read_hlt(...,
    unfinished=True)``) has its frames so far, ``0..T`` with no final frame, and no
    ``game_statistics`` (:attr:`statistics` and :attr:`ranks` are empty)."""
    _grid: list[int] = field(default_factory=list, init=False, repr=False)
    _grid_turn: int = field(default=-1, init=False, repr=False)
    _dropoffs: list[HltDropoff] | None = field(default=None, init=False, repr=False)

    @property
    def turns_played(self) -> int:
        """T, the number of turns played (frames 1..T)."""
        return len(self.frames) - 2

    def _check_turn(self, turn: int) -> None:
        last = len(self.frames) - 1
        if not 0 <= turn <= last:
            raise HltReplayError(
                f"{self.source}: turn {turn!r} is out of range, expected 0..{last}"
            )

    def grid_at(self, turn: int) -> list[list[int]]:
        """The map's halite after turn ``turn`` (0: the start), as rows.

        The start is :attr:`initial_grid` with frame 0's cells, which are those of the
        snapshot a game started from (the engine leaves the generated map in
        ``production_map``); other games have none.  The changed cells are applied
        incrementally from the last turn asked for, so walking the turns in order costs
        the total number of changed cells plus one copy of the map per call.
        """
        self._check_turn(turn)
        first = self._grid_turn + 1
        if turn < self._grid_turn or self._grid_turn < 0:
            self._grid = [v for row in self.initial_grid for v in row]
            first = 0
        w = self.width
        grid = self._grid
        for t in range(first, turn + 1):
            for cell in self.frames[t]["cells"]:
                grid[cell["y"] * w + cell["x"]] = cell["production"]
        self._grid_turn = turn
        return [grid[y * w : (y + 1) * w] for y in range(self.height)]

    def ships_at(self, turn: int) -> dict[int, HltShip]:
        """The ships of frame ``turn`` (at the start of that turn; final ones at T+1), by id.

        Frame 0 lists no ships: those of a game started from a snapshot are its ``spawn``
        events (their ``energy`` is the cargo), as the engine records them.
        """
        self._check_turn(turn)
        if turn == 0:
            spawned = [
                HltShip(
                    e["id"],
                    e["owner_id"],
                    e["location"]["x"],
                    e["location"]["y"],
                    e["energy"],
                    False,
                )
                for e in self.frames[0]["events"]
                if e["type"] == "spawn"
            ]
            return {s.id: s for s in sorted(spawned, key=lambda s: s.id)}
        ships = [
            HltShip(int(sid), int(pid), s["x"], s["y"], s["energy"], s["is_inspired"])
            for pid, owned in self.frames[turn]["entities"].items()
            for sid, s in owned.items()
        ]
        return {s.id: s for s in sorted(ships, key=lambda s: s.id)}

    def energy_at(self, turn: int) -> tuple[int, ...]:
        """The halite each player holds after turn ``turn``, indexed by player id."""
        self._check_turn(turn)
        energy = self.frames[turn]["energy"]
        return tuple(energy[str(p)] for p in range(self.num_players))

    def deposited_at(self, turn: int) -> tuple[int, ...]:
        """Each player's total deposited halite after turn ``turn``, indexed by player id."""
        self._check_turn(turn)
        deposited = self.frames[turn]["deposited"]
        return tuple(deposited[str(p)] for p in range(self.num_players))

    def dropoffs_at(self, turn: int) -> list[HltDropoff]:
        """The dropoffs standing after turn ``turn`` (shipyards are in :attr:`players`).

        A dropoff's id is the index of its ``construct`` event among all construct
        events in order, which is how the engine numbers them.
        """
        self._check_turn(turn)
        if self._dropoffs is None:
            built: list[HltDropoff] = []
            for t, frame in enumerate(self.frames):
                for event in frame["events"]:
                    if event["type"] == "construct":
                        loc = event["location"]
                        built.append(
                            HltDropoff(len(built), event["owner_id"], loc["x"], loc["y"], t)
                        )
            self._dropoffs = built
        return [d for d in self._dropoffs if d.turn <= turn]

    def winner(self) -> int:
        """The id of the player ranked first."""
        return self.ranks.index(1)


def read_hlt(
    source: str | os.PathLike[str] | bytes,
    *,
    max_file_bytes: int = MAX_COMPRESSED_BYTES,
    max_json_bytes: int = MAX_JSON_BYTES,
    max_elements: int | None = None,
    name: str | None = None,
    unfinished: bool = False,
) -> HltReplay:
    """Read a ``.hlt`` replay, zstd-compressed or plain JSON, and check its structure.

    Args:
        source: a path, or the file's bytes.
        max_file_bytes: refuse files larger than this.
        max_json_bytes: refuse JSON text (after decompression) larger than this.
        max_elements: refuse JSON text that may hold more keys and values than this
            (:func:`json_elements`), before parsing it; ``None``: no such cap (a file
            of one's own).  A server reading strangers' files sets it: a few MiB of
            ``{},`` would otherwise parse to gigabytes of Python objects.
        name: the file's name in error messages (default: the path, or ``replay``).
        unfinished: also accept the document of a game that has not ended (a running
            or stopped game's replay head and frames so far, as a live viewer gets
            them): one without ``game_statistics`` reads as :attr:`HltReplay.finished`
            false.  A document with them is checked as a finished one.

    Raises:
        HltReplayError: the file is missing, too large, not zstd or JSON, truncated, of
            another format version, or lacks a field or has one of the wrong type.
        HltTooLargeError: the file, its JSON text or its number of elements is past
            its cap.
    """
    if isinstance(source, bytes | bytearray | memoryview):
        name = name or "replay"
        data = bytes(source)
        if len(data) > max_file_bytes:
            raise HltTooLargeError(
                f"{name}: {len(data)} bytes is larger than the {max_file_bytes}-byte limit"
            )
    else:
        name = name or os.fspath(source)
        try:
            with open(name, "rb") as handle:
                data = handle.read(max_file_bytes + 1)
        except OSError as exc:
            raise HltReplayError(f"{name}: cannot read the replay: {exc.strerror}") from None
        if len(data) > max_file_bytes:
            raise HltTooLargeError(
                f"{name}: the file is larger than the {max_file_bytes}-byte limit"
            )
    text = _decompress(data, name, max_json_bytes)
    if max_elements is not None:
        elements = json_elements(text)
        if elements > max_elements:
            raise HltTooLargeError(
                f"{name}: the JSON may hold {elements} keys and values, more than the "
                f"{max_elements}-element limit"
            )
    try:
        document = json.loads(text)
    except UnicodeDecodeError as exc:
        raise HltReplayError(f"{name}: the replay is not UTF-8 text: {exc.reason}") from None
    except json.JSONDecodeError as exc:
        raise HltReplayError(
            f"{name}: not a JSON replay: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except ValueError as exc:  # an integer past Python's digit limit
        raise HltReplayError(f"{name}: not a JSON replay: {exc}") from None
    except RecursionError:
        raise HltReplayError(f"{name}: not a JSON replay: nested too deeply") from None
    return _parse_document(document, name, unfinished=unfinished)


def json_elements(text: bytes) -> int:
    """An upper bound on the keys and values ``json.loads(text)`` makes, counted in C.

    In JSON every key and every value but the outermost one follows a ``,``, ``:``,
    ``[`` or ``{``, so their count (plus one) bounds the objects the parse builds; the
    same bytes inside strings only make the bound looser.  This is four
    ``bytes.count`` passes (milliseconds for 32 MiB) where a streaming parser would
    cost a Python call per token, and a refused text is never parsed: memory stays
    the text's own.  Each element costs at most about 64 bytes of Python objects
    (an empty ``{}`` in a list 72 bytes for two of them, a one-key object 190 for
    three), so a cap of N elements bounds a parse to about 64 N bytes.
    """
    return 1 + sum(text.count(mark) for mark in _ELEMENT_MARKS)


def _decompress(data: bytes, name: str, limit: int) -> bytes:
    if not data.startswith(_ZSTD_MAGIC):
        if data.lstrip()[:1] == b"{":
            if len(data) > limit:
                raise HltTooLargeError(f"{name}: the JSON is larger than the {limit}-byte limit")
            return data
        raise HltReplayError(
            f"{name}: not a Halite III replay: expected zstd-compressed or plain JSON, "
            f"the file starts with {data[:8]!r}"
        )
    try:
        size = zstandard.frame_content_size(data)
    except zstandard.ZstdError:
        raise HltReplayError(f"{name}: damaged zstd data: unreadable frame header") from None
    if size > limit:
        raise HltTooLargeError(
            f"{name}: decompresses to {size} bytes, larger than the {limit}-byte limit"
        )
    if size >= 0:
        try:
            return zstandard.ZstdDecompressor().decompress(data)
        except zstandard.ZstdError as exc:
            raise HltReplayError(f"{name}: truncated or damaged zstd data: {exc}") from None
    # No size in the header: decompress piecewise and stop at the cap.
    obj = zstandard.ZstdDecompressor().decompressobj()
    parts: list[bytes] = []
    total = 0
    try:
        for start in range(0, len(data), _ZSTD_INPUT_CHUNK):
            chunk = obj.decompress(data[start : start + _ZSTD_INPUT_CHUNK])
            total += len(chunk)
            if total > limit:
                raise HltTooLargeError(f"{name}: decompresses to more than the {limit}-byte limit")
            parts.append(chunk)
            if obj.eof:
                break
    except zstandard.ZstdError as exc:
        raise HltReplayError(f"{name}: damaged zstd data: {exc}") from None
    if not obj.eof:
        raise HltReplayError(f"{name}: truncated zstd data: the frame does not end")
    return b"".join(parts)


# -- structure checks -------------------------------------------------------------------


class _Checker:
    """Type checks that name the file and the JSON path of a bad value."""

    def __init__(self, name: str) -> None:
        self.name = name

    def fail(self, where: str, expected: str, value: Any) -> HltReplayError:
        shown = repr(value)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        return self.wrong(where, expected, shown)

    def wrong(self, where: str, expected: str, got: str) -> HltReplayError:
        return HltReplayError(f"{self.name}: {where} must be {expected}, got {got}")

    def key(self, obj: Mapping[str, Any], key: str, where: str) -> Any:
        if key not in obj:
            raise HltReplayError(f"{self.name}: {where} lacks the key {key!r}")
        return obj[key]

    def as_obj(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, "an object", value)
        return value

    def as_list(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(where, "a list", value)
        return value

    def as_int(
        self, value: Any, where: str, low: int | None = None, high: int | None = None
    ) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(where, "an integer", value)
        if (low is not None and value < low) or (high is not None and value > high):
            bounds = f"{'' if low is None else low}..{'' if high is None else high}"
            raise self.fail(where, f"an integer in {bounds}", value)
        return value

    def as_str(self, value: Any, where: str) -> str:
        if not isinstance(value, str):
            raise self.fail(where, "a string", value)
        return value

    def as_bool(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(where, "true or false", value)
        return value

    def field_int(
        self,
        obj: Mapping[str, Any],
        key: str,
        where: str,
        low: int | None = None,
        high: int | None = None,
    ) -> int:
        return self.as_int(self.key(obj, key, where), f"{where}.{key}", low, high)

    def location(self, value: Any, where: str, width: int, height: int) -> tuple[int, int]:
        loc = self.as_obj(value, where)
        x = self.field_int(loc, "x", where, 0, width - 1)
        y = self.field_int(loc, "y", where, 0, height - 1)
        return x, y

    def id_key(self, key: str, where: str) -> int:
        if not key.isdigit():
            raise self.fail(where, "keyed by decimal ids", key)
        return int(key)


_TOP_KEYS = (
    "ENGINE_VERSION",
    "REPLAY_FILE_VERSION",
    "GAME_CONSTANTS",
    "map_generator_seed",
    "number_of_players",
    "players",
    "production_map",
    "game_statistics",
    "full_frames",
)
_FRAME_KEYS = ("entities", "moves", "events", "cells", "energy", "deposited")


def _parse_document(document: Any, name: str, *, unfinished: bool = False) -> HltReplay:
    c = _Checker(name)
    if not isinstance(document, dict):
        raise c.wrong("the replay", "a JSON object", type(document).__name__)
    # A game that has not ended has no statistics yet, and its frames so far.
    ended = not unfinished or "game_statistics" in document
    version = c.key(document, "REPLAY_FILE_VERSION", "the replay")
    if version not in SUPPORTED_VERSIONS or isinstance(version, bool):
        supported = ", ".join(str(v) for v in SUPPORTED_VERSIONS)
        raise HltReplayError(
            f"{name}: REPLAY_FILE_VERSION {version!r} is not supported, expected {supported}"
        )
    for key in _TOP_KEYS:
        if ended or key != "game_statistics":
            c.key(document, key, "the replay")
    engine_version = c.as_str(document["ENGINE_VERSION"], "ENGINE_VERSION")
    constants = c.as_obj(document["GAME_CONSTANTS"], "GAME_CONSTANTS")
    seed = c.as_int(document["map_generator_seed"], "map_generator_seed")
    map_players = c.as_int(document["number_of_players"], "number_of_players", 1)

    pmap = c.as_obj(document["production_map"], "production_map")
    width = c.field_int(pmap, "width", "production_map", 1)
    height = c.field_int(pmap, "height", "production_map", 1)
    rows = c.as_list(c.key(pmap, "grid", "production_map"), "production_map.grid")
    if len(rows) != height:
        raise c.wrong("production_map.grid", f"{height} rows", f"{len(rows)} rows")
    grid: list[list[int]] = []
    for y, row in enumerate(c.as_list(r, f"production_map.grid[{i}]") for i, r in enumerate(rows)):
        if len(row) != width:
            raise c.wrong(f"production_map.grid[{y}]", f"{width} cells", f"{len(row)} cells")
        grid.append(
            [
                c.field_int(
                    c.as_obj(cell, f"production_map.grid[{y}][{x}]"),
                    "energy",
                    f"production_map.grid[{y}][{x}]",
                    0,
                )
                for x, cell in enumerate(row)
            ]
        )

    raw_players = c.as_list(document["players"], "players")
    # number_of_players is the map's (``-n``): fewer bots may play on it, never more.
    n = len(raw_players)
    if not 1 <= n <= map_players:
        raise c.wrong("players", f"1..{map_players} entries (number_of_players)", f"{n} entries")
    players: list[HltPlayer] = []
    for i, raw in enumerate(raw_players):
        where = f"players[{i}]"
        p = c.as_obj(raw, where)
        pid = c.field_int(p, "player_id", where)
        if pid != i:
            raise c.fail(f"{where}.player_id", f"{i} (its index)", pid)
        player_name = c.as_str(c.key(p, "name", where), f"{where}.name")
        factory = c.location(
            c.key(p, "factory_location", where), f"{where}.factory_location", width, height
        )
        players.append(HltPlayer(pid, player_name, factory))

    statistics: tuple[dict[str, Any], ...] = ()
    ranks: tuple[int, ...] = ()
    frames = c.as_list(document["full_frames"], "full_frames")
    if ended:
        stats_doc = c.as_obj(document["game_statistics"], "game_statistics")
        number_turns = c.field_int(stats_doc, "number_turns", "game_statistics", 0)
        map_total = c.field_int(stats_doc, "map_total_halite", "game_statistics", 0)
        execution = c.field_int(stats_doc, "execution_time", "game_statistics", 0)
        raw_stats = c.as_list(
            c.key(stats_doc, "player_statistics", "game_statistics"),
            "game_statistics.player_statistics",
        )
        if len(raw_stats) != n:
            raise c.wrong(
                "game_statistics.player_statistics", f"{n} entries", f"{len(raw_stats)} entries"
            )
        by_id: dict[int, dict[str, Any]] = {}
        for i, raw in enumerate(raw_stats):
            where = f"game_statistics.player_statistics[{i}]"
            s = c.as_obj(raw, where)
            pid = c.field_int(s, "player_id", where, 0, n - 1)
            c.field_int(s, "rank", where, 1, n)
            if pid in by_id:
                raise c.fail(f"{where}.player_id", "unique", pid)
            by_id[pid] = s
        ranks = tuple(by_id[p]["rank"] for p in range(n))
        if sorted(ranks) != list(range(1, n + 1)):
            raise c.fail("game_statistics ranks", f"a permutation of 1..{n}", list(ranks))
        statistics = tuple(by_id[p] for p in range(n))
        # --strict ends a game by moving its turn counter to the last turn: fewer frames.
        strict = constants.get("STRICT_ERRORS") is True
        if len(frames) != number_turns + 1 and not (
            strict and 2 <= len(frames) <= number_turns + 1
        ):
            raise c.wrong(
                "full_frames",
                f"number_turns + 1 = {number_turns + 1} frames",
                f"{len(frames)} frames",
            )
    else:
        # Frames 0..T so far (no final frame yet); the statistics come at the end.
        if not frames:
            raise c.wrong("full_frames", "at least one frame", "none")
        number_turns, map_total, execution = len(frames) - 1, 0, 0
    for t, frame in enumerate(frames):
        _check_frame(c, frame, f"full_frames[{t}]", n, width, height)

    return HltReplay(
        engine_version=engine_version,
        replay_file_version=version,
        seed=seed,
        width=width,
        height=height,
        num_players=n,
        map_players=map_players,
        players=tuple(players),
        constants=constants,
        initial_grid=grid,
        frames=frames,
        number_turns=number_turns,
        map_total_halite=map_total,
        execution_time_ms=execution,
        statistics=statistics,
        ranks=ranks,
        document=document,
        source=name,
        finished=ended,
    )


def _check_frame(c: _Checker, frame: Any, where: str, n: int, width: int, height: int) -> None:
    f = c.as_obj(frame, where)
    for key in _FRAME_KEYS:
        c.key(f, key, where)
    for key in ("energy", "deposited"):
        amounts = c.as_obj(f[key], f"{where}.{key}")
        for pid in range(n):
            c.as_int(c.key(amounts, str(pid), f"{where}.{key}"), f"{where}.{key}[{pid}]")
    entities = c.as_obj(f["entities"], f"{where}.entities")
    for pid_key, owned in entities.items():
        pw = f"{where}.entities[{pid_key!r}]"
        if c.id_key(pid_key, pw) >= n:
            raise c.fail(pw, f"a player id below {n}", pid_key)
        for sid_key, ship in c.as_obj(owned, pw).items():
            sw = f"{pw}[{sid_key!r}]"
            c.id_key(sid_key, sw)
            s = c.as_obj(ship, sw)
            c.field_int(s, "x", sw, 0, width - 1)
            c.field_int(s, "y", sw, 0, height - 1)
            c.field_int(s, "energy", sw, 0)
            c.as_bool(c.key(s, "is_inspired", sw), f"{sw}.is_inspired")
    moves = c.as_obj(f["moves"], f"{where}.moves")
    for pid_key, commands in moves.items():
        mw = f"{where}.moves[{pid_key!r}]"
        c.id_key(pid_key, mw)
        for i, command in enumerate(c.as_list(commands, mw)):
            cmd = c.as_obj(command, f"{mw}[{i}]")
            c.as_str(c.key(cmd, "type", f"{mw}[{i}]"), f"{mw}[{i}].type")
    for i, event in enumerate(c.as_list(f["events"], f"{where}.events")):
        ew = f"{where}.events[{i}]"
        e = c.as_obj(event, ew)
        kind = c.as_str(c.key(e, "type", ew), f"{ew}.type")
        c.location(c.key(e, "location", ew), f"{ew}.location", width, height)
        if kind in ("construct", "spawn"):
            c.field_int(e, "owner_id", ew, 0, n - 1)
            c.field_int(e, "id", ew, 0)
            if kind == "spawn":
                c.field_int(e, "energy", ew, 0)
        elif kind == "shipwreck":
            for j, sid in enumerate(c.as_list(c.key(e, "ships", ew), f"{ew}.ships")):
                c.as_int(sid, f"{ew}.ships[{j}]", 0)
    for i, cell in enumerate(c.as_list(f["cells"], f"{where}.cells")):
        cw = f"{where}.cells[{i}]"
        cobj = c.as_obj(cell, cw)
        c.field_int(cobj, "x", cw, 0, width - 1)
        c.field_int(cobj, "y", cw, 0, height - 1)
        c.field_int(cobj, "production", cw, 0)
