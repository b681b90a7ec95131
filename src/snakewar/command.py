"""The ``snakewar`` console script: the command line's commands and the server's.

The command line (:mod:`snakewar.cli`) and the web server (:mod:`snakewar.server`) are
layers side by side; this module composes them into one command, so neither imports
the other.
"""

from __future__ import annotations

from snakewar.cli import app
from snakewar.cli import main as _run
from snakewar.server.command import program_app, serve, user_app

__all__ = ["app", "main"]

app.command(help="Serve the web app: create and watch games in the browser.")(serve)
app.add_typer(user_app, name="user")
app.add_typer(program_app, name="program")


def main(argv: list[str] | None = None) -> int:
    """Run the ``snakewar`` command; returns the exit status."""
    return _run(argv)
