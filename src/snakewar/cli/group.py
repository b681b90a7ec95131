"""The ``snakewar`` typer app: a command group whose subcommands are imported on use.

:mod:`snakewar.cli` names the subcommands (:data:`~snakewar.cli.COMMANDS`) without
typer; this module builds the app from those names when a command runs through typer.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any, ClassVar

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup

from snakewar import __version__
from snakewar.cli import COMMANDS, CommandLoadError, LazyCommand
from snakewar.errors import SnakewarError

__all__ = ["LazyGroup", "app", "run", "table_group"]


HELP = "Snakewar: games' official rules exactly, a referee and an arena for their bots."
"""What ``snakewar --help`` says first (the project's own description)."""


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
        if entry.own_args:
            return _OwnArgsCommand(name, target, entry.help or entry.summary)
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


class _OwnArgsCommand(TyperCommand):
    """A command that reads its own command line: click parses none of its words.

    The typer form of a command declared with ``own_args`` (``main(argv) -> int``):
    ``--help`` and ``--`` included, its words are handed over as they came.
    """

    def __init__(self, name: str, main: Any, help: str) -> None:
        super().__init__(name=name, help=help, add_help_option=False)
        self._main = main

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        ctx.meta[_OWN_ARGS] = list(args)
        ctx.args = []
        return []

    def invoke(self, ctx: Any) -> None:
        """Run the command on its words; a non-zero status ends the program with it."""
        code = self._main(ctx.meta.get(_OWN_ARGS, []))
        if code:
            raise typer.Exit(code)


_OWN_ARGS = "snakewar.own_args"


class _Children(Mapping[str, LazyCommand]):
    """The table's commands directly under a path, read when first asked for, then own."""

    def __init__(self, path: str, own: Mapping[str, LazyCommand]) -> None:
        self._path = path
        self._own = own

    def _children(self) -> dict[str, LazyCommand]:
        children = COMMANDS.children(self._path)
        if taken := sorted(set(children) & set(self._own)):
            # A game's command where the frame's group has its own (bench compare).
            path = f"{self._path} {taken[0]}".strip()
            raise CommandLoadError(
                f"the command {path!r} is declared twice: by snakewar and by {COMMANDS.owner(path)}"
            )
        return {**children, **self._own}

    def __getitem__(self, name: str) -> LazyCommand:
        return self._children()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._children())

    def __len__(self) -> int:
        return len(self._children())


def table_group(path: str, own: Mapping[str, LazyCommand] | None = None) -> type[LazyGroup]:
    """A :class:`LazyGroup` class for the group at ``path`` (``""``: the root).

    Its subcommands are those :data:`~snakewar.cli.COMMANDS` declares under ``path``
    (each game's, in the table's order), then ``own``, the group's own lazy ones.
    """
    name = f"TableGroup[{path or 'snakewar'}]"
    return type(name, (LazyGroup,), {"lazy_commands": _Children(path, own or {})})


_Root = table_group("")


app = typer.Typer(
    name="snakewar",
    cls=_Root,
    help=HELP,
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


UsageError: type[Exception] = typer.BadParameter.__mro__[1]
"""Click's usage error (``typer.BadParameter``'s base), whichever click typer uses.

Newer typers vendor click: the class is the one typer's commands raise either way.
"""

ClickException: type[Exception] = typer.BadParameter.__mro__[2]
"""Click's base exception, which knows how to show itself and its exit status."""


def run(argv: list[str] | None = None) -> int:
    """Run the CLI through typer; returns the exit status.

    Bad usage is one ``error:`` line with exit status 2, whether click found it while
    reading the command line or a command raised it (``typer.BadParameter``); so is
    every :class:`~snakewar.errors.SnakewarError`.
    """
    try:
        # Not standalone: the errors come here, to be shown as one line each.
        result = app(args=argv, standalone_mode=False)
    except SnakewarError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except UsageError as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            # A group run without a command shows its help (click's way, its status).
            exc.show()  # type: ignore[attr-defined]
            return int(exc.exit_code)  # type: ignore[attr-defined]
        print(f"error: {exc.format_message()}", file=sys.stderr)  # type: ignore[attr-defined]
        return 2
    except ClickException as exc:
        exc.show()  # type: ignore[attr-defined]
        return int(exc.exit_code)  # type: ignore[attr-defined]
    except typer.Abort:
        print("Aborted!", file=sys.stderr)
        return 1
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    # Not standalone, click returns a typer.Exit's status (help and --version included).
    return result if isinstance(result, int) else 0
