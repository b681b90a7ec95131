"""Halite III's commands of ``snakewar``: what they are and where they live.

:data:`COMMANDS` is the game's table (entry point group ``snakewar.commands``, and its
adapter's ``commands()``): names, modules and one-line summaries, nothing imported, so
``snakewar --help`` lists them at no cost.  ``snakewar halite play`` reads its own
command line (the official engine's, :mod:`.play`): the frame hands it its words
without typer, so a game starts sooner; ``snakewar halite`` (:mod:`.app`) runs the
same command through typer.
"""

from __future__ import annotations

from snakewar._commands import GameCommand

__all__ = ["COMMANDS"]

_HERE = "snakewar.games.halite3.cli"

COMMANDS: dict[str, GameCommand] = {
    "halite": GameCommand(
        f"{_HERE}.app",
        "halite_app",
        "Halite III: play games between bots like the official engine.",
        "Halite III: play games between bots like the official engine.",
        after="ladder",
    ),
    "halite play": GameCommand(
        f"{_HERE}.play",
        "main",
        "Play one game, like the official engine: halite [flags] BOT_COMMAND...",
        own_args=True,
    ),
    "bench halite": GameCommand(
        f"{_HERE}.bench",
        "bench_halite",
        "Halite III engine time per turn: 4 in-process built-in bots on 64x64 by default.",
    ),
    "bench compare halite3": GameCommand(
        f"{_HERE}.bench",
        "compare_halite",
        "Halite III's part of bench compare: its engine's CPU time per turn.",
    ),
}
"""The game's commands by path, each listed after the command its ``after`` names."""
