"""The ``snakewar`` console script: the command line's commands and the server's.

The command line (:mod:`snakewar.cli`) and the web server (:mod:`snakewar.server`) are
layers side by side; this module composes them into one command, so neither imports
the other.  The server's commands are named here and imported only when one of them
runs (or shows its help): ``snakewar --version`` or ``snakewar play`` import nothing of
the server.
"""

from __future__ import annotations

from snakewar.cli import LazyCommand, add_commands, app
from snakewar.cli import main as _run

__all__ = ["app", "main"]

_SERVER = "snakewar.server.command"

add_commands(
    {
        "serve": LazyCommand(
            _SERVER,
            "serve",
            summary="Serve the web app: create and watch games in the browser.",
            help="Serve the web app: create and watch games in the browser.",
        )
    },
    after="test",
)
add_commands(
    {
        "user": LazyCommand(
            _SERVER,
            "user_app",
            summary="Accounts of a server's database (run on the server's machine).",
        ),
        "program": LazyCommand(
            _SERVER,
            "program_app",
            summary="Program bots the operator registers on the server (argument lists, no shell).",
        ),
    }
)


def main(argv: list[str] | None = None) -> int:
    """Run the ``snakewar`` command; returns the exit status."""
    return _run(argv)
