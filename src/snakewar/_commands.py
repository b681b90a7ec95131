"""What a game declares of its command-line subcommands: names and where they live.

A :class:`GameCommand` is cheap to make and to read: it names a module and an attribute
and says in one line what the command does, so that ``snakewar --help`` lists every
command, the games' too, without importing any of them.  It imports nothing, so a game's
declaration module (``games/<game>/cli/__init__.py``) costs nothing to import.  It sits
beside the package, not in :mod:`snakewar.engine` (whose package imports the compiled
rules), so that every layer may name it: the protocol as the adapter's ``commands()``,
the command line as :data:`snakewar.cli.LazyCommand`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GameCommand"]


@dataclass(frozen=True, slots=True)
class GameCommand:
    """A subcommand of ``snakewar``, imported when it is used.

    A game declares its subcommands as a table of these by *path*: ``"maps"`` is
    ``snakewar maps``, ``"bench rules"`` is ``snakewar bench rules`` (a subcommand of a
    group of the command line, which lists it with its own).

    Attributes:
        module: The module that defines it, e.g. ``snakewar.games.mygame.cli.app``.
        attribute: Its name there: a :class:`typer.Typer` (a command group) or a
            function (one command), registered as ``app.add_typer`` or ``app.command``
            would register it; with ``own_args``, a function ``main(argv) -> int``.
        summary: What ``snakewar --help`` says of it (shortened to fit, as click does).
            It must say what the command's own help says (a test compares them).
        help: The help given at registration, overriding the group's own help or the
            function's docstring; ``None`` keeps those.
        after: The command it is listed after in ``snakewar --help``: ``None`` lists it
            last, ``""`` first; a command not listed also lists it last.
        own_args: The command reads its own command line: ``snakewar PATH ARGS...`` calls
            ``attribute(ARGS)`` without typer (its exit status is the function's result).
            The group the path is under still lists and runs its typer form.
    """

    module: str
    attribute: str
    summary: str
    help: str | None = None
    after: str | None = None
    own_args: bool = False
