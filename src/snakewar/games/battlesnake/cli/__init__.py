"""Battlesnake's commands of ``snakewar``: what they are and where they live.

:data:`COMMANDS` is the game's table (entry point group ``snakewar.commands``, and its
adapter's ``commands()``): names, modules and one-line summaries, nothing imported, so
``snakewar --help`` lists them at no cost.  Each command's module is imported when
the command runs or shows its help.
"""

from __future__ import annotations

from snakewar._commands import GameCommand

__all__ = ["COMMANDS"]

_HERE = "snakewar.games.battlesnake.cli"

COMMANDS: dict[str, GameCommand] = {
    "play": GameCommand(
        f"{_HERE}.play",
        "play",
        "Referee games between snakes: watch one, or measure many with --games.",
        "Referee games between snakes: watch one, or measure many with --games.",
        after="",
    ),
    "test": GameCommand(
        f"{_HERE}.checkup",
        "test_snake",
        "Test a snake: health checks and positions with known right moves.",
        "Test a snake: health checks and positions with known right moves.",
        after="games",
    ),
    "maps": GameCommand(
        f"{_HERE}.maps", "maps_app", "List the maps and show their details.", after="test"
    ),
    "bot": GameCommand(
        f"{_HERE}.bot",
        "bot_app",
        "Built-in bots: list them, or serve one as an API v1 snake.",
        after="bench",
    ),
    "bench rules": GameCommand(
        f"{_HERE}.bench",
        "bench_rules",
        "Print the rules engine's turns per second (engine only, moves excluded).",
    ),
    "bench referee": GameCommand(
        f"{_HERE}.bench",
        "bench_referee",
        "Referee overhead per turn and batch throughput against local HTTP bots.",
    ),
    "bench sim": GameCommand(
        f"{_HERE}.bench",
        "bench_sim",
        "The batched simulator's turns/s next to the rules engine's, same run.",
    ),
    "bench compare battlesnake": GameCommand(
        f"{_HERE}.bench",
        "compare_rules",
        "Battlesnake's part of bench compare: its rules engine and batched simulator.",
    ),
}
"""The game's commands by path, each listed after the command its ``after`` names."""
