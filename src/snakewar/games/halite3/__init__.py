"""Halite III: the official engine's rules, map generator and protocol, exactly.

A pure re-implementation of the official C++ engine (1.2.2.finals): the same maps from
the same seed, the same turn resolution, ids, statistics and ranking, checked turn by
turn against games recorded from the official engine (:mod:`.conformance`).

    >>> from snakewar.games.halite3 import HaliteGame
    >>> game = HaliteGame.create(seed=42, num_players=2, width=32, height=32)
    >>> outcome = game.step({0: "g", 1: ""})
    >>> [event.to_list() for event in outcome.events]
    [['spawn', 0, 0, 8, 16]]

The names below are imported on first use (PEP 562), not with the package: importing
one part of the game (its command table, ``cli``) imports none of the others.

Its exceptions, under the classes of :mod:`snakewar.errors` they derive from (names
relative to this package, or whole)::

    SnakewarError
    ├── HaliteError                                   a game driven with bad input
    │   └── rules.snapshot.SnapshotError (ValueError)  a snapshot that cannot be read or started
    ├── ConstantsError                                a constants file that is wrong
    ├── MapError (ValueError)                         a map that cannot be generated
    ├── CommandParseError (ValueError)                a bot's command line the engine cannot decode
    ├── MatchSetupError
    │   └── EntrantError
    │       └── referee.runner.HaliteEntrantError     an entrant that is empty
    ├── bots.kit.ProtocolError (ValueError)           a frame a bot cannot read
    ├── snakewar.replay.ReplayError
    │   └── replay.hlt.HltReplayError                 a .hlt file that cannot be read
    │       ├── replay.hlt.HltTooLargeError (+TooLargeError)  a .hlt larger than accepted
    │       └── adapter.UnfinishedGameError (+ConflictError)  a game with no .hlt yet
    ├── routes.UploadError (ValueError)               an upload that holds no replay file
    └── cli.args.EngineArgsError (ValueError)         a command line the engine refuses
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from snakewar._lazy import lazy_attribute, lazy_dir

if TYPE_CHECKING:
    from snakewar.games.halite3.rules.commands import (
        DIRECTIONS,
        Command,
        CommandParseError,
        ConstructCommand,
        MoveCommand,
        SpawnCommand,
        parse_commands,
        serialize_commands,
    )
    from snakewar.games.halite3.rules.constants import Constants, ConstantsError, turns_for_size
    from snakewar.games.halite3.rules.game import (
        CaptureEvent,
        CollisionEvent,
        ConstructEvent,
        Dropoff,
        Event,
        HaliteError,
        HaliteGame,
        HaliteResult,
        Player,
        PlayerStatistics,
        Ship,
        ShipRows,
        SpawnEvent,
        TurnOutcome,
    )
    from snakewar.games.halite3.rules.mapgen import (
        MAP_SIZES,
        GeneratedMap,
        MapError,
        generate_map,
        size_for_seed,
    )
    from snakewar.games.halite3.rules.protocol import frame_text, init_text

__all__ = [
    "DIRECTIONS",
    "MAP_SIZES",
    "NAME",
    "CaptureEvent",
    "CollisionEvent",
    "Command",
    "CommandParseError",
    "Constants",
    "ConstantsError",
    "ConstructCommand",
    "ConstructEvent",
    "Dropoff",
    "Event",
    "GeneratedMap",
    "HaliteError",
    "HaliteGame",
    "HaliteResult",
    "MapError",
    "MoveCommand",
    "Player",
    "PlayerStatistics",
    "Ship",
    "ShipRows",
    "SpawnCommand",
    "SpawnEvent",
    "TurnOutcome",
    "frame_text",
    "generate_map",
    "init_text",
    "parse_commands",
    "serialize_commands",
    "size_for_seed",
    "turns_for_size",
]

NAME = "halite3"
"""The game's registered name (replays, storage and the API carry it)."""

_HOMES = {
    "DIRECTIONS": "commands",
    "Command": "commands",
    "CommandParseError": "commands",
    "ConstructCommand": "commands",
    "MoveCommand": "commands",
    "SpawnCommand": "commands",
    "parse_commands": "commands",
    "serialize_commands": "commands",
    "Constants": "constants",
    "ConstantsError": "constants",
    "turns_for_size": "constants",
    "CaptureEvent": "game",
    "CollisionEvent": "game",
    "ConstructEvent": "game",
    "Dropoff": "game",
    "Event": "game",
    "HaliteError": "game",
    "HaliteGame": "game",
    "HaliteResult": "game",
    "Player": "game",
    "PlayerStatistics": "game",
    "Ship": "game",
    "ShipRows": "game",
    "SpawnEvent": "game",
    "TurnOutcome": "game",
    "MAP_SIZES": "mapgen",
    "GeneratedMap": "mapgen",
    "MapError": "mapgen",
    "generate_map": "mapgen",
    "size_for_seed": "mapgen",
    "frame_text": "protocol",
    "init_text": "protocol",
}
"""Each public name and the module of this package that defines it."""

_MODULES = {name: f"{__name__}.rules.{home}" for name, home in _HOMES.items()}


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, _MODULES, name)


def __dir__() -> list[str]:
    return lazy_dir(__name__, _MODULES)
