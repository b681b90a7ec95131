"""The ``snakewar`` command line (all of it but the server's commands).

Every subcommand lives in its own module, imported only when that command runs (or
shows its help): :data:`COMMANDS` names each one's module and its one-line summary,
which is all ``snakewar --help`` needs, so ``snakewar --version`` and ``snakewar --help``
import typer and nothing of the engine, the referee or the server.  Every
:class:`~snakewar.errors.SnakewarError` is printed as one ``error:`` line with exit
status 2, never a traceback.  The console script is :func:`snakewar.command.main`,
which adds the server's commands to :data:`COMMANDS`.

This module does not import typer: the app (:mod:`snakewar.cli.group`) is built when a
command runs through it.  ``snakewar halite play`` does not: its command line is the
official engine's, read by its own parser (:mod:`snakewar.games.halite3.cli.play`), so a game
starts without typer's cost.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from snakewar.cli.group import LazyGroup, app

__all__ = ["COMMANDS", "LazyCommand", "LazyGroup", "add_commands", "app", "main"]


@dataclass(frozen=True, slots=True)
class LazyCommand:
    """A subcommand of ``snakewar`` that is imported when it is used.

    Attributes:
        module: The module that defines it, e.g. ``snakewar.cli.play``.
        attribute: Its name there: a :class:`typer.Typer` (a command group) or a
            function (one command), registered as ``app.add_typer`` or ``app.command``
            would register it.
        summary: What ``snakewar --help`` says of it (shortened to fit, as click does).
            It must say what the command's own help says (a test compares them).
        help: The help given at registration, overriding the group's own help or the
            function's docstring; ``None`` keeps those.
    """

    module: str
    attribute: str
    summary: str
    help: str | None = None


def _with_help(module: str, attribute: str, help: str) -> LazyCommand:
    # A command whose help is given here, as app.command(help=...) or add_typer(help=...).
    return LazyCommand(module, attribute, help, help)


def _own_help(module: str, attribute: str, summary: str) -> LazyCommand:
    # A group that keeps its own help (typer.Typer(help=...) in its module).
    return LazyCommand(module, attribute, summary)


COMMANDS: dict[str, LazyCommand] = {
    "play": _with_help(
        "snakewar.cli.play",
        "play",
        "Referee games between snakes: watch one, or measure many with --games.",
    ),
    "games": _with_help(
        "snakewar.cli.games", "games_command", "The games: their parameters and built-in bots."
    ),
    "test": _with_help(
        "snakewar.cli.checkup",
        "test_snake",
        "Test a snake: health checks and positions with known right moves.",
    ),
    "maps": _own_help("snakewar.cli.maps", "maps_app", "List the maps and show their details."),
    "bench": _own_help("snakewar.cli.bench", "bench_app", "Measure throughput."),
    "bot": _own_help(
        "snakewar.cli.bot", "bot_app", "Built-in bots: list them, or serve one as an API v1 snake."
    ),
    "replay": _own_help(
        "snakewar.cli.replay",
        "replay_app",
        "Show a replay file in the terminal (replay FILE), or verify it (replay verify FILE).",
    ),
    "ladder": _own_help(
        "snakewar.cli.ladder",
        "ladder_app",
        "Ladders: snakes that keep playing each other, rated with OpenSkill (mu - 3 sigma).",
    ),
    "halite": _with_help(
        "snakewar.games.halite3.cli.app",
        "halite_app",
        "Halite III: play games between bots like the official engine.",
    ),
    "tournament": _own_help(
        "snakewar.cli.tournament",
        "tournament_app",
        "Tournaments: single or double elimination, round robin or Swiss, with real games.",
    ),
    "remote": _own_help(
        "snakewar.cli.remote",
        "remote_app",
        "Drive a Snakewar server: your snakes, games and ladders (--server, --token).",
    ),
}
"""The subcommands of ``snakewar``, in the order ``snakewar --help`` lists them."""


def add_commands(commands: Mapping[str, LazyCommand], *, after: str | None = None) -> None:
    """Add subcommands to :data:`COMMANDS` (how :mod:`snakewar.command` adds the server's).

    Args:
        commands: The new subcommands by name, in the order to list them.
        after: The subcommand they are listed after; ``None`` lists them last.

    Raises:
        ValueError: a name is taken, or ``after`` names no subcommand.
    """
    if taken := sorted(set(commands) & set(COMMANDS)):
        raise ValueError(f"subcommands already defined: {', '.join(taken)}")
    if after is not None and after not in COMMANDS:
        raise ValueError(f"no subcommand {after!r} to list the new ones after")
    items = list(COMMANDS.items())
    at = len(items) if after is None else [name for name, _ in items].index(after) + 1
    items[at:at] = commands.items()
    COMMANDS.clear()
    COMMANDS.update(items)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (used by the console script)."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:2] == ["halite", "play"]:
        # The same command as through the app (snakewar.games.halite3.cli.app's play), sooner.
        from snakewar.games.halite3.cli.play import main as play

        return play(args[2:])
    from snakewar.cli.group import run

    return run(args)


def __getattr__(name: str) -> Any:
    """``app`` and ``LazyGroup``, from :mod:`snakewar.cli.group` (typer) on first use."""
    if name in ("app", "LazyGroup"):
        from snakewar.cli import group

        return getattr(group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
