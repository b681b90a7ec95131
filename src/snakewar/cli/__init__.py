"""The ``snakewar`` command line (all of it but the server's commands).

Every subcommand lives in its own module, imported only when that command runs (or
shows its help): :data:`COMMANDS` names each one's module and its one-line summary,
which is all ``snakewar --help`` needs, so ``snakewar --version`` and ``snakewar --help``
import typer and nothing of the engine, the referee or the server.  Every
:class:`~snakewar.errors.SnakewarError` is printed as one ``error:`` line with exit
status 2, never a traceback.  The console script is :func:`snakewar.command.main`,
which adds the server's commands to :data:`COMMANDS`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, ClassVar

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup

from snakewar import __version__
from snakewar.errors import SnakewarError

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
        "snakewar.cli.halite",
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


class _Commands(MutableMapping[str, Any]):
    """A group's subcommands by name: the lazy ones are imported on first lookup.

    Typer's group reads its ``commands`` mapping for lookups, for the names it suggests
    after a typo and to list the commands; with this mapping, all but a lookup work
    from the names alone.
    """

    def __init__(self, loaded: MutableMapping[str, Any], group: LazyGroup) -> None:
        self._loaded = loaded
        self._group = group

    def __getitem__(self, name: str) -> Any:
        if name not in self._loaded:
            entry = self._group.lazy_commands.get(name)
            if entry is None:
                raise KeyError(name)
            self._loaded[name] = self._group.load(name, entry)
        return self._loaded[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        del self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        yield from self._group.lazy_commands
        yield from (name for name in self._loaded if name not in self._group.lazy_commands)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, name: object) -> bool:
        return name in self._loaded or name in self._group.lazy_commands

    def is_loaded(self, name: str) -> bool:
        """Whether the subcommand's module was imported (by a lookup)."""
        return name in self._loaded


class LazyGroup(TyperGroup):
    """A typer command group whose subcommands are imported only when one is used.

    A subclass names its subcommands in :attr:`lazy_commands`.  Looking a subcommand up
    (to run it, or to show its ``--help``) imports its module and builds its click
    command as ``add_typer``/``command`` would have; listing the commands in ``--help``
    uses each one's :attr:`LazyCommand.summary` and imports nothing.
    """

    lazy_commands: ClassVar[Mapping[str, LazyCommand]] = {}

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = _Commands(self.commands, self)

    def load(self, name: str, entry: LazyCommand) -> Any:
        """Import a subcommand's module; returns its click command."""
        target = getattr(importlib.import_module(entry.module), entry.attribute)
        # Registered on a throwaway app, it is built exactly as add_typer / command
        # would build it on this one (typer's public API only).
        holder = typer.Typer(add_completion=False, rich_markup_mode=self.rich_markup_mode)
        if isinstance(target, typer.Typer):
            if entry.help is None:
                # Not help=None: that would blank the group's own help.
                holder.add_typer(target, name=name)
            else:
                holder.add_typer(target, name=name, help=entry.help)
            group = typer.main.get_command(holder)
            assert isinstance(group, TyperGroup)
            return group.commands[name]
        holder.command(name, help=entry.help)(target)
        return typer.main.get_command(holder)

    # ``ctx`` and ``formatter`` are click's, which newer typers vendor: typed loosely.
    def list_commands(self, ctx: Any) -> list[str]:
        """The subcommands' names, without importing any."""
        return list(self.commands)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The ``Commands:`` section of ``--help``, from the summaries (no imports)."""
        commands = self.commands
        assert isinstance(commands, _Commands)
        names = [
            name
            for name in self.list_commands(ctx)
            if not (commands.is_loaded(name) and commands[name].hidden)
        ]
        if not names:
            return
        # Click's layout: the summaries get the width the longest name leaves.
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [(name, self._short_help(name, limit)) for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def _short_help(self, name: str, limit: int) -> str:
        commands = self.commands
        assert isinstance(commands, _Commands)
        if commands.is_loaded(name) or name not in self.lazy_commands:
            return str(commands[name].get_short_help_str(limit))
        # Shortened to the limit as click would shorten the command's own help.
        stand_in = TyperCommand(name=name, help=self.lazy_commands[name].summary)
        return stand_in.get_short_help_str(limit)


class _Root(LazyGroup):
    lazy_commands = COMMANDS


app = typer.Typer(
    name="snakewar",
    cls=_Root,
    help="Snakewar: Battlesnake's rules exactly, a referee and an arena for snake bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    # -h as well as --help, as in the official CLI (whose -H is the board's height, as ours).
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"snakewar {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Snakewar's command-line interface."""


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (used by the console script)."""
    try:
        app(args=argv, standalone_mode=True)
    except SnakewarError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0
