"""The ``snakewar`` console script: the command line's commands and the server's.

The command line (:mod:`snakewar.cli`) and the web server (:mod:`snakewar.server`) are
layers side by side; this module composes them into one command, so neither imports
the other.  The server's commands are named here and imported only when one of them
runs (or shows its help): ``snakewar --version`` or ``snakewar play`` import nothing of
the server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from snakewar.cli import LazyCommand, add_commands
from snakewar.cli import main as _run

if TYPE_CHECKING:
    from snakewar.cli.group import app

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
        "cluster": LazyCommand(
            _SERVER,
            "cluster_app",
            summary="Machines of a Ray cluster that plays a server's games.",
        ),
    }
)


def main(argv: list[str] | None = None) -> int:
    """Run the ``snakewar`` command; returns the exit status."""
    return _run(argv)


def __getattr__(name: str) -> Any:
    """``app``: the typer app with the server's commands (built on first use)."""
    if name == "app":
        from snakewar.cli import group

        return group.app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
