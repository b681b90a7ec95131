"""The replay line helpers every game shares, and the old home of one game's formats.

:class:`ReplayError` (a ``ValueError``: every problem with a file, as a one-line
message naming the file, the line and the field), :data:`MAX_FILE_BYTES`,
:data:`MAX_LINE_BYTES` and :data:`ReplaySource` are every game's
(:mod:`snakewar.replay._lines`).  Each game's replay formats live in its package
(``snakewar.games.<game>.replay``); the names they exported from here before they
moved are still importable, with a :class:`DeprecationWarning`, for one release.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from snakewar._lazy import lazy_attribute, lazy_dir, warn_moved

if TYPE_CHECKING:
    from snakewar.games.battlesnake.replay.format import (
        FORMAT_NAME,
        FORMAT_VERSION,
        Replay,
        config_to_dict,
        header_dict,
        load_replay,
        read_replay,
        replay_digest,
        replay_lines,
        result_dict,
        turn_dict,
        write_replay,
    )
    from snakewar.games.battlesnake.replay.official import (
        OfficialFrame,
        OfficialReplay,
        OfficialResult,
        official_game_info,
        official_jsonl_lines,
        read_official_jsonl,
        sniff_replay,
        write_official_jsonl,
    )
    from snakewar.games.battlesnake.replay.verify import (
        VerifyReport,
        state_differences,
        verify_replay,
    )
    from snakewar.games.halite3.replay.hlt import (
        HltReplay,
        HltReplayError,
        HltTooLargeError,
        read_hlt,
        replay_document,
        write_hlt,
    )
    from snakewar.games.halite3.replay.verify import HltVerifyReport, verify_hlt
    from snakewar.replay._lines import MAX_FILE_BYTES, MAX_LINE_BYTES, ReplayError, ReplaySource

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MAX_FILE_BYTES",
    "MAX_LINE_BYTES",
    "HltReplay",
    "HltReplayError",
    "HltTooLargeError",
    "HltVerifyReport",
    "OfficialFrame",
    "OfficialReplay",
    "OfficialResult",
    "Replay",
    "ReplayError",
    "ReplaySource",
    "VerifyReport",
    "config_to_dict",
    "header_dict",
    "load_replay",
    "official_game_info",
    "official_jsonl_lines",
    "read_hlt",
    "read_official_jsonl",
    "read_replay",
    "replay_digest",
    "replay_document",
    "replay_lines",
    "result_dict",
    "sniff_replay",
    "state_differences",
    "turn_dict",
    "verify_hlt",
    "verify_replay",
    "write_hlt",
    "write_official_jsonl",
    "write_replay",
]

# Each public name and its module, imported on first use: reading one game's replays
# does not load another game's formats.
_LAZY: dict[str, str] = {
    "MAX_FILE_BYTES": "snakewar.replay._lines",
    "MAX_LINE_BYTES": "snakewar.replay._lines",
    "ReplayError": "snakewar.replay._lines",
    "ReplaySource": "snakewar.replay._lines",
    "FORMAT_NAME": "snakewar.games.battlesnake.replay.format",
    "FORMAT_VERSION": "snakewar.games.battlesnake.replay.format",
    "Replay": "snakewar.games.battlesnake.replay.format",
    "config_to_dict": "snakewar.games.battlesnake.replay.format",
    "header_dict": "snakewar.games.battlesnake.replay.format",
    "load_replay": "snakewar.games.battlesnake.replay.format",
    "read_replay": "snakewar.games.battlesnake.replay.format",
    "replay_digest": "snakewar.games.battlesnake.replay.format",
    "replay_lines": "snakewar.games.battlesnake.replay.format",
    "result_dict": "snakewar.games.battlesnake.replay.format",
    "turn_dict": "snakewar.games.battlesnake.replay.format",
    "write_replay": "snakewar.games.battlesnake.replay.format",
    "HltReplay": "snakewar.games.halite3.replay.hlt",
    "HltReplayError": "snakewar.games.halite3.replay.hlt",
    "HltTooLargeError": "snakewar.games.halite3.replay.hlt",
    "read_hlt": "snakewar.games.halite3.replay.hlt",
    "replay_document": "snakewar.games.halite3.replay.hlt",
    "write_hlt": "snakewar.games.halite3.replay.hlt",
    "HltVerifyReport": "snakewar.games.halite3.replay.verify",
    "verify_hlt": "snakewar.games.halite3.replay.verify",
    "OfficialFrame": "snakewar.games.battlesnake.replay.official",
    "OfficialReplay": "snakewar.games.battlesnake.replay.official",
    "OfficialResult": "snakewar.games.battlesnake.replay.official",
    "official_game_info": "snakewar.games.battlesnake.replay.official",
    "official_jsonl_lines": "snakewar.games.battlesnake.replay.official",
    "read_official_jsonl": "snakewar.games.battlesnake.replay.official",
    "sniff_replay": "snakewar.games.battlesnake.replay.official",
    "write_official_jsonl": "snakewar.games.battlesnake.replay.official",
    "VerifyReport": "snakewar.games.battlesnake.replay.verify",
    "state_differences": "snakewar.games.battlesnake.replay.verify",
    "verify_replay": "snakewar.games.battlesnake.replay.verify",
}


_GENERIC = frozenset({"MAX_FILE_BYTES", "MAX_LINE_BYTES", "ReplayError", "ReplaySource"})
"""The names above whose home is this package; every other one moved into its game."""


def __getattr__(name: str) -> Any:
    if name in _LAZY and name not in _GENERIC:
        # Once per name: lazy_attribute keeps the value here, so this hook is not asked again.
        warn_moved(f"{__name__}.{name}", f"{_LAZY[name]}.{name}")
    return lazy_attribute(__name__, _LAZY, name)


def __dir__() -> list[str]:
    return lazy_dir(__name__, _LAZY)
