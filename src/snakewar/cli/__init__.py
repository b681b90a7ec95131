"""The ``snakewar`` command line's frame (all of it but the server's commands).

Every subcommand lives in its own module, imported only when that command runs (or
shows its help): :data:`COMMANDS` names each one's module and its one-line summary,
which is all ``snakewar --help`` needs.  The commands that are the same for every game
(``games``, ``bench``, ``replay``, ``ladder``, ``tournament``, ``remote``) are the
frame's own; each game adds its own commands by declaring a table of them in the
entry point group ``snakewar.commands`` (:data:`ENTRY_POINT_GROUP`), the same table its
adapter's ``commands()`` hook returns.  The frame reads that group only when it lists
or resolves a command: ``snakewar --version`` imports typer and nothing else, and
``snakewar --help`` imports the games' declaration modules (a table of names each) and
nothing of the engine, the referee or the server.  Every
:class:`~snakewar.errors.SnakewarError` is printed as one ``error:`` line with exit
status 2, never a traceback.  The console script is :func:`snakewar.command.main`,
which adds the server's commands to :data:`COMMANDS`.

This module does not import typer: the app (:mod:`snakewar.cli.group`) is built when a
command runs through it.  A command declared with ``own_args`` (a game's command whose
command line is not typer's) does not: :func:`main` hands it its arguments directly.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from snakewar._commands import GameCommand
from snakewar.errors import SnakewarError

if TYPE_CHECKING:
    from snakewar.cli.group import LazyGroup, app

__all__ = [
    "COMMANDS",
    "ENTRY_POINT_GROUP",
    "CommandLoadError",
    "CommandTable",
    "LazyCommand",
    "LazyGroup",
    "add_commands",
    "app",
    "installed_tables",
    "main",
]

LazyCommand = GameCommand
"""A subcommand imported when it is used (the games declare theirs with the same class)."""

ENTRY_POINT_GROUP = "snakewar.commands"
"""The entry point group naming each game's table of commands (``module:ATTRIBUTE``)."""

FRAME = "snakewar"
"""The source named for the frame's own commands when a name is declared twice."""


class CommandLoadError(SnakewarError, ValueError):
    """A command plug-in cannot be loaded, or declares a command that is taken."""


Source = Callable[[], Iterable[tuple[str, Mapping[str, GameCommand]]]]
"""Where the games' tables come from: (the source's name, its table), in listing order."""


def installed_tables() -> Iterator[tuple[str, Mapping[str, GameCommand]]]:
    """The tables the installed packages declare in :data:`ENTRY_POINT_GROUP`, by name.

    An install whose metadata predates the group (an editable install not made again)
    declares none: then the registered games' adapters give their tables (``commands()``),
    which costs importing them, but lists the same commands.

    Raises:
        CommandLoadError: an entry point cannot be loaded or is not a table of commands.
    """
    from importlib.metadata import entry_points

    points = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name)
    if not points:
        from snakewar.adapters import games

        for adapter in games():
            yield adapter.name, adapter.commands()
        return
    for point in points:
        where = f"command plug-in {point.name!r} ({point.value})"
        try:
            table = point.load()
        except Exception as exc:  # whatever the plug-in's import raises
            raise CommandLoadError(
                f"{where} cannot be loaded: {type(exc).__name__}: {exc}"
            ) from exc
        if not isinstance(table, Mapping) or not all(
            isinstance(name, str) and isinstance(entry, GameCommand)
            for name, entry in table.items()
        ):
            raise CommandLoadError(f"{where} is not a mapping of names to commands")
        yield point.name, table


class CommandTable(Mapping[str, LazyCommand]):
    """The commands by path (``"play"``, ``"bench rules"``), in the order they are listed.

    The frame's own commands are given; the games' are read from ``source`` (the
    installed entry points) on the first lookup or listing, and placed by their
    ``after``.  Commands added with :meth:`add` (the server's) are placed after those.
    """

    def __init__(self, own: Mapping[str, LazyCommand], source: Source = installed_tables) -> None:
        self._own = dict(own)
        self._source = source
        self._added: list[tuple[dict[str, LazyCommand], str | None]] = []
        self._table: dict[str, LazyCommand] | None = None
        self._owners: dict[str, str] = {}

    @property
    def loaded(self) -> bool:
        """Whether the games' tables were read."""
        return self._table is not None

    def _load(self) -> dict[str, LazyCommand]:
        if self._table is None:
            table: dict[str, LazyCommand] = {}
            owners: dict[str, str] = {}
            _place(table, owners, FRAME, self._own, None)
            for name, commands in self._source():
                for path, entry in commands.items():
                    _place(table, owners, name, {path: entry}, entry.after)
            self._table, self._owners = table, owners
            for commands, after in self._added:
                self._apply(commands, after)
        return self._table

    def _apply(self, commands: Mapping[str, LazyCommand], after: str | None) -> None:
        assert self._table is not None
        if taken := sorted(set(commands) & set(self._table)):
            raise ValueError(f"subcommands already defined: {', '.join(taken)}")
        if after is not None and after not in self._table:
            raise ValueError(f"no subcommand {after!r} to list the new ones after")
        _place(self._table, self._owners, FRAME, commands, after)

    def add(self, commands: Mapping[str, LazyCommand], after: str | None = None) -> None:
        """Add commands, listed after ``after`` (``None``: last); see :func:`add_commands`."""
        if self._table is None:
            self._added.append((dict(commands), after))  # checked when the table is read
        else:
            self._apply(commands, after)

    def __getitem__(self, path: str) -> LazyCommand:
        return self._load()[path]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._load()))

    def __len__(self) -> int:
        return len(self._load())

    def owner(self, path: str) -> str:
        """Who declared the command: ``"snakewar"`` or the entry point's name."""
        self._load()
        return self._owners[path]

    def children(self, group: str) -> dict[str, LazyCommand]:
        """The commands directly under ``group`` by name (``""``: the top-level ones)."""
        depth = 0 if not group else len(group.split())
        prefix = f"{group} " if group else ""
        return {
            path.split()[depth]: entry
            for path, entry in self._load().items()
            if path.startswith(prefix) and len(path.split()) == depth + 1
        }

    def own_args(self, argv: list[str]) -> tuple[LazyCommand, list[str]] | None:
        """The ``own_args`` command that ``argv`` runs, with the arguments it reads."""
        words: list[str] = []
        for word in argv:
            if word.startswith("-"):
                break
            words.append(word)
            entry = self._load().get(" ".join(words))
            if entry is None:
                return None
            if entry.own_args:
                return entry, argv[len(words) :]
        return None


def _place(
    table: dict[str, LazyCommand],
    owners: dict[str, str],
    source: str,
    commands: Mapping[str, LazyCommand],
    after: str | None,
) -> None:
    # One source's commands, inserted after ``after`` (last when None or not listed).
    for path in commands:
        if path in table:
            raise CommandLoadError(
                f"the command {path!r} is declared twice: by {owners[path]} and by {source}"
            )
    items = list(table.items())
    names = [name for name, _ in items]
    if after == "":
        at = 0
    elif after is not None and after in table:
        at = names.index(after) + 1
        # After the commands already placed right after it, so that ``after`` keeps order.
        while at < len(names) and len(names[at].split()) > len(after.split()):
            at += 1
    else:
        at = len(items)
    items[at:at] = commands.items()
    table.clear()
    table.update(items)
    owners.update(dict.fromkeys(commands, source))


COMMANDS = CommandTable(
    {
        "games": LazyCommand(
            "snakewar.cli.games",
            "games_command",
            "The games: their parameters and built-in bots.",
            "The games: their parameters and built-in bots.",
        ),
        "bench": LazyCommand("snakewar.cli.bench", "bench_app", "Measure throughput."),
        "replay": LazyCommand(
            "snakewar.cli.replay",
            "replay_app",
            "Show a replay file in the terminal (replay FILE), or verify it (replay verify FILE).",
        ),
        "export": LazyCommand(
            "snakewar.cli.export",
            "export_command",
            "Export a game as PNG/SVG (one turn), GIF, MP4 or a self-contained HTML replay.",
            "Export a game as PNG/SVG (one turn), GIF, MP4 or a self-contained HTML replay.",
        ),
        "ladder": LazyCommand(
            "snakewar.cli.ladder",
            "ladder_app",
            "Ladders: snakes that keep playing each other, rated with OpenSkill (mu - 3 sigma).",
        ),
        "tournament": LazyCommand(
            "snakewar.cli.tournament",
            "tournament_app",
            "Tournaments: single or double elimination, round robin or Swiss, with real games.",
        ),
        "eval": LazyCommand(
            "snakewar.cli.evaluate",
            "eval_command",
            "Fair A/B evaluation: paired seeds, every seating, crosstable, Elo and an SPRT.",
            "Fair A/B evaluation: paired seeds, every seating, crosstable, Elo and an SPRT.",
        ),
        "remote": LazyCommand(
            "snakewar.cli.remote",
            "remote_app",
            "Drive a Snakewar server: your snakes, games and ladders (--server, --token).",
        ),
    }
)
"""The subcommands of ``snakewar`` by path, in the order ``snakewar --help`` lists them."""


def add_commands(commands: Mapping[str, LazyCommand], *, after: str | None = None) -> None:
    """Add subcommands to :data:`COMMANDS` (how :mod:`snakewar.command` adds the server's).

    Before the games' tables are read (at start-up) the commands wait, and are checked
    and placed when they are read.

    Args:
        commands: The new subcommands by name, in the order to list them.
        after: The subcommand they are listed after; ``None`` lists them last.

    Raises:
        ValueError: a name is taken, or ``after`` names no subcommand.
    """
    COMMANDS.add(commands, after)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (used by the console script)."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args and not args[0].startswith("-"):
        # A command that reads its own command line runs without typer's cost.
        try:
            found = COMMANDS.own_args(args)
        except SnakewarError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if found is not None:
            entry, rest = found
            run: Callable[[list[str]], int] = getattr(
                importlib.import_module(entry.module), entry.attribute
            )
            return run(rest)
    from snakewar.cli.group import run as run_app

    return run_app(args)


def __getattr__(name: str) -> Any:
    """``app`` and ``LazyGroup``, from :mod:`snakewar.cli.group` (typer) on first use."""
    if name in ("app", "LazyGroup"):
        from snakewar.cli import group

        return getattr(group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
