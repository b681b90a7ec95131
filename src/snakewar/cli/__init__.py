"""The ``snakewar`` command line (all of it but the server's ``serve``).

Subcommands import what they need when they run, so ``snakewar --help`` stays fast.
Every :class:`~snakewar.errors.SnakewarError` is printed as one ``error:`` line
with exit status 2, never a traceback.  The console script is
:func:`snakewar.command.main`, which adds the server's command to :data:`app`.
"""

from __future__ import annotations

import sys

import typer

from snakewar import __version__
from snakewar.cli.bench import bench_app
from snakewar.cli.bot import bot_app
from snakewar.cli.checkup import test_snake
from snakewar.cli.games import games_command
from snakewar.cli.halite import halite_app
from snakewar.cli.ladder import ladder_app
from snakewar.cli.maps import maps_app
from snakewar.cli.play import play
from snakewar.cli.remote import remote_app
from snakewar.cli.replay import replay_app
from snakewar.cli.tournament import tournament_app
from snakewar.errors import SnakewarError

__all__ = ["app", "main"]

app = typer.Typer(
    name="snakewar",
    help="Snakewar: Battlesnake's rules exactly, a referee and an arena for snake bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    # -h as well as --help, as in the official CLI (whose -H is the board's height, as ours).
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.command(help="Referee games between snakes: watch one, or measure many with --games.")(play)
app.command("games", help="The games: their parameters and built-in bots.")(games_command)
app.add_typer(maps_app, name="maps")
app.add_typer(bench_app, name="bench")
app.add_typer(bot_app, name="bot")
app.add_typer(replay_app, name="replay")
app.add_typer(ladder_app, name="ladder")
app.add_typer(
    halite_app, name="halite", help="Halite III: play games between bots like the official engine."
)
app.add_typer(tournament_app, name="tournament")
app.add_typer(remote_app, name="remote")
app.command("test", help="Test a snake: health checks and positions with known right moves.")(
    test_snake
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
