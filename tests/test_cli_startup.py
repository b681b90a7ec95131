"""``snakewar`` starts without importing what the command does not use.

Each command runs as a user runs it (``python -m snakewar ...`` in a fresh process) and
reports the modules it imported; the assertions are on those modules, never on time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.core import TyperGroup

import snakewar
from snakewar.cli import COMMANDS, LazyCommand, add_commands
from snakewar.command import app, main

# Prints the modules imported by the time the command exits, into the file $MODULES.
_RUN = """
import atexit, json, os, runpy, sys
def report():
    with open(os.environ["MODULES"], "w", encoding="utf-8") as out:
        json.dump(sorted(sys.modules), out)
atexit.register(report)
sys.argv = ["snakewar", *sys.argv[1:]]
runpy.run_module("snakewar", run_name="__main__", alter_sys=True)
"""

SERVER_STACK = (
    "fastapi",
    "starlette",
    "sqlalchemy",
    "alembic",
    "uvicorn",
    "jinja2",
    "argon2",
    "snakewar.server.app",
    "snakewar.storage",
)
"""The web server and its database: imported by ``serve``, ``user`` and ``program`` only."""

HEAVY = (
    *SERVER_STACK,
    "numpy",
    "httpx",
    "snakewar.referee",
    "snakewar.games.battlesnake.sim",
    "snakewar.adapters",
)
"""Never imported to show a help page."""


def imported_by(*args: str, tmp_path: Path) -> tuple[set[str], str]:
    """Run ``python -m snakewar ARGS``: the modules it imported, and its output."""
    report = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", _RUN, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={
            "PYTHONIOENCODING": "utf-8",
            "COLUMNS": "100",
            "PATH": os.environ.get("PATH", ""),
            "MODULES": str(report),
            **{k: os.environ[k] for k in ("PYTHONPATH", "SNAKEWAR_PURE") if k in os.environ},
        },
    )
    assert done.returncode == 0, done.stderr
    modules = set(json.loads(report.read_text(encoding="utf-8")))
    return modules, done.stdout


def _found(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return [n for n in names if any(m == n or m.startswith(n + ".") for m in modules)]


@pytest.mark.parametrize("args", [("--version",), ("--help",), ("-h",)])
def test_the_bare_command_imports_no_subcommand(args: tuple[str, ...], tmp_path: Path) -> None:
    modules, out = imported_by(*args, tmp_path=tmp_path)
    ours = sorted(m for m in modules if m.startswith("snakewar"))
    assert ours == [
        "snakewar",
        "snakewar._moved",
        "snakewar.cli",
        "snakewar.cli.group",
        "snakewar.command",
        "snakewar.errors",
    ]
    # The engine is not even chosen: its sources are not hashed.
    assert "hashlib" not in modules
    assert not _found(modules, HEAVY)
    if args == ("--version",):
        assert out == f"snakewar {snakewar.__version__}\n"
    else:
        assert "Usage:" in out and "serve" in out and "halite" in out


@pytest.mark.parametrize(
    ("args", "module"),
    [
        (("play", "--help"), "snakewar.cli.play"),
        (("halite", "--help"), "snakewar.games.halite3.cli.app"),
        (("halite", "play", "--help"), "snakewar.games.halite3.cli.play"),
        (("test", "--help"), "snakewar.cli.checkup"),
        (("bench", "--help"), "snakewar.cli.bench"),
        (("replay", "--help"), "snakewar.cli.replay"),
        # A tournament's games take the ladder's options (ladder.match_config).
        (("tournament", "export", "--help"), "snakewar.cli.tournament,snakewar.cli.ladder"),
        (("serve", "--help"), "snakewar.server.command"),
        (("user", "invite", "--help"), "snakewar.server.command"),
    ],
)
def test_a_help_page_imports_its_command_only(
    args: tuple[str, ...], module: str, tmp_path: Path
) -> None:
    # ``module``: the command's module, then those of other commands it uses.
    modules, out = imported_by(*args, tmp_path=tmp_path)
    own = set(module.split(","))
    assert own <= modules
    assert "Usage:" in out
    assert not _found(modules, HEAVY), _found(modules, HEAVY)
    others = {entry.module for entry in COMMANDS.values()} - own
    assert not others & modules, others & modules


def test_playing_a_game_imports_no_server(tmp_path: Path) -> None:
    modules, out = imported_by(
        "play", "-r", "1", "-W", "7", "-H", "7", "random", "random", tmp_path=tmp_path
    )
    assert "seed 1" in out
    assert "snakewar.referee" in modules
    assert not _found(modules, SERVER_STACK), _found(modules, SERVER_STACK)


def test_serve_help_lists_the_same_options_as_serve_runs_with(tmp_path: Path) -> None:
    _, out = imported_by("serve", "--help", tmp_path=tmp_path)
    for option in ("--host", "--port", "--database", "--public", "--signup", "--allowed-host"):
        assert option in out


def _commands_section(width: int, load_all: bool) -> str:
    group = typer.main.get_command(app)
    assert isinstance(group, TyperGroup)
    ctx = group.make_context("snakewar", ["--version"], resilient_parsing=True)
    formatter = ctx.make_formatter()
    formatter.width = width
    if load_all:
        # Click's own listing: every command imported and asked for its short help.
        TyperGroup.format_commands(group, ctx, formatter)
    else:
        group.format_commands(ctx, formatter)
    return str(formatter.getvalue())


@pytest.mark.parametrize("width", [80, 250])
def test_the_listing_says_what_each_command_says_of_itself(width: int) -> None:
    # The summaries kept in snakewar.cli must not drift from the commands' own help.
    lazy = _commands_section(width, load_all=False)
    assert lazy == _commands_section(width, load_all=True)
    assert all(f"\n  {name} " in lazy for name in COMMANDS)


def test_every_subcommand_shows_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    for name in COMMANDS:
        assert main([name, "--help"]) == 0, name
        assert "Usage: " in capsys.readouterr().out


def test_a_typo_is_one_usage_error_with_suggestions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plya"]) == 2
    err = capsys.readouterr().err
    assert "No such command 'plya'" in err and "Did you mean 'play'" in err
    assert "Traceback" not in err


def test_add_commands_refuses_a_taken_name_or_an_unknown_place() -> None:
    entry = LazyCommand("snakewar.cli.play", "play", "Again.")
    with pytest.raises(ValueError, match="already defined: play"):
        add_commands({"play": entry})
    with pytest.raises(ValueError, match="no subcommand 'nowhere'"):
        add_commands({"again": entry}, after="nowhere")
    assert "again" not in COMMANDS
