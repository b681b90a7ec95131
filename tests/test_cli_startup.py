"""``snakewar`` starts without importing what the command does not use.

Each command runs as a user runs it (``python -m snakewar ...`` in a fresh process) and
reports the modules it imported; the assertions are on those modules, never on time.
The games' commands come from the entry point group ``snakewar.commands``: listing
them imports each game's declaration module (a table of names) and nothing heavier.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.core import TyperGroup

import snakewar
from snakewar.adapters import games
from snakewar.cli import (
    COMMANDS,
    CommandLoadError,
    CommandTable,
    LazyCommand,
    add_commands,
    installed_tables,
)
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


FRAME = [
    "snakewar",
    "snakewar._commands",
    "snakewar._moved",
    "snakewar.cli",
    "snakewar.cli.group",
    "snakewar.command",
    "snakewar.errors",
]
"""The command line's frame: what ``snakewar --version`` imports of snakewar."""

DECLARATIONS = [
    "snakewar._lazy",
    "snakewar.games",
    "snakewar.games.battlesnake",
    "snakewar.games.battlesnake.cli",
    "snakewar.games.halite3",
    "snakewar.games.halite3.cli",
]
"""The games' declarations of their commands (and the packages they are in, lazy)."""


@pytest.mark.parametrize("args", [("--version",), ("--help",), ("-h",)])
def test_the_bare_command_imports_no_subcommand(args: tuple[str, ...], tmp_path: Path) -> None:
    modules, out = imported_by(*args, tmp_path=tmp_path)
    ours = sorted(m for m in modules if m.startswith("snakewar"))
    # --version reads no entry point; a listing reads the games' tables of commands.
    assert ours == (FRAME if args == ("--version",) else sorted(FRAME + DECLARATIONS))
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
        (("play", "--help"), "snakewar.games.battlesnake.cli.play"),
        # The typer form of `halite play` is the same command (app imports it).
        (("halite", "--help"), "snakewar.games.halite3.cli.app,snakewar.games.halite3.cli.play"),
        # Read by its own parser, without typer: the fast path of an own_args command.
        (("halite", "play", "--help"), "snakewar.games.halite3.cli.play"),
        (("test", "--help"), "snakewar.games.battlesnake.cli.checkup"),
        (("bench", "--help"), "snakewar.cli.bench"),
        (("bench", "rules", "--help"), "snakewar.cli.bench,snakewar.games.battlesnake.cli.bench"),
        # Compare gathers every game's part (their modules), and nothing else.
        (
            ("bench", "compare", "--help"),
            "snakewar.cli.bench,snakewar.cli.compare,snakewar.games.battlesnake.cli.bench,"
            "snakewar.games.halite3.cli.bench",
        ),
        (("maps", "--help"), "snakewar.games.battlesnake.cli.maps"),
        (("bot", "--help"), "snakewar.games.battlesnake.cli.bot"),
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
    if args[:2] == ("halite", "play"):
        assert "typer" not in modules


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


def _commands_section(width: int, load_all: bool, group_name: str = "") -> str:
    group = typer.main.get_command(app)
    assert isinstance(group, TyperGroup)
    ctx = group.make_context("snakewar", ["--version"], resilient_parsing=True)
    if group_name:
        group = group.commands[group_name]
        assert isinstance(group, TyperGroup)
        ctx = group.make_context(group_name, [], parent=ctx, resilient_parsing=True)
    formatter = ctx.make_formatter()
    formatter.width = width
    if load_all:
        # Click's own listing: every command imported and asked for its short help.
        TyperGroup.format_commands(group, ctx, formatter)
    else:
        group.format_commands(ctx, formatter)
    return str(formatter.getvalue())


@pytest.mark.parametrize("group", ["", "bench"])
@pytest.mark.parametrize("width", [80, 250])
def test_the_listing_says_what_each_command_says_of_itself(width: int, group: str) -> None:
    # The summaries kept in the tables must not drift from the commands' own help.
    lazy = _commands_section(width, load_all=False, group_name=group)
    assert lazy == _commands_section(width, load_all=True, group_name=group)
    names = COMMANDS.children(group)
    assert names and all(f"\n  {name} " in lazy for name in names)


def test_every_subcommand_shows_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    # Every path of the table, the games' subcommands of the frame's groups too; the
    # parts of `bench compare` are options of that one command, not commands.
    parts = {f"bench compare {name}" for name in COMMANDS.children("bench compare")}
    assert parts == {"bench compare battlesnake", "bench compare halite3"}
    for path in set(COMMANDS) - parts:
        assert main([*path.split(), "--help"]) == 0, path
        assert "Usage: " in capsys.readouterr().out


def test_the_games_commands_come_from_their_adapters_tables() -> None:
    # The entry point group and each adapter's commands() hook give the same table.
    for adapter in games():
        table = adapter.commands()
        for path, entry in table.items():
            assert COMMANDS[path] is entry, path
            assert COMMANDS.owner(path) == adapter.name, path
    declared = {path for path in COMMANDS if COMMANDS.owner(path) != "snakewar"}
    assert declared == {path for adapter in games() for path in adapter.commands()}
    # The frame's own commands name no game module; the server's are the command's.
    for path in COMMANDS:
        if COMMANDS.owner(path) == "snakewar":
            assert not COMMANDS[path].module.startswith("snakewar.games."), path


def test_the_games_subcommands_join_the_frames_groups(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--help"]) == 0
    section = capsys.readouterr().out.split("Commands:")[1]
    listed = [line.split()[0] for line in section.splitlines() if line.startswith("  ")]
    # The games' benchmarks in the table's order, then the frame's compare.
    assert listed == ["rules", "referee", "sim", "halite", "compare"]


def _table(*sources: tuple[str, dict[str, LazyCommand]]) -> CommandTable:
    own = {"games": LazyCommand("snakewar.cli.games", "games_command", "The games.")}
    return CommandTable(own, source=lambda: iter(sources))


def test_a_command_declared_twice_is_an_error_naming_both() -> None:
    entry = LazyCommand("elsewhere", "play", "Again.")
    table = _table(("one", {"play": entry}), ("two", {"play": entry}))
    with pytest.raises(CommandLoadError, match="'play' is declared twice: by one and by two"):
        list(table)
    clash = _table(("one", {"games": entry}))
    with pytest.raises(CommandLoadError, match="'games' is declared twice: by snakewar and by one"):
        len(clash)


def test_a_games_commands_are_placed_by_their_after() -> None:
    table = _table(
        (
            "one",
            {
                "first": LazyCommand("m", "a", "First.", after=""),
                "next": LazyCommand("m", "a", "After games.", after="games"),
                "last": LazyCommand("m", "a", "At the end."),
                "lost": LazyCommand("m", "a", "Its place is not listed.", after="nowhere"),
                "games more": LazyCommand("m", "a", "A subcommand of games."),
            },
        )
    )
    assert list(table.children("")) == ["first", "games", "next", "last", "lost"]
    assert list(table.children("games")) == ["more"]
    assert table.owner("first") == "one" and table.owner("games") == "snakewar"


def test_the_table_is_read_once_and_only_when_asked(tmp_path: Path) -> None:
    reads: list[int] = []

    def source() -> list[tuple[str, dict[str, LazyCommand]]]:
        reads.append(1)
        return [("one", {"x": LazyCommand("m", "a", "X.")})]

    table = CommandTable({}, source=source)
    table.add({"y": LazyCommand("m", "a", "Y.")}, after="x")  # waits for the table
    assert reads == [] and not table.loaded
    assert list(table) == ["x", "y"] and list(table) == ["x", "y"]
    assert reads == [1]


def test_an_install_without_the_group_takes_the_adapters_tables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Metadata installed before the group existed: the registry's adapters give the tables.
    import importlib.metadata

    real = importlib.metadata.entry_points

    def without_commands(**params: Any) -> Any:
        return [] if params.get("group") == "snakewar.commands" else real(**params)

    monkeypatch.setattr(importlib.metadata, "entry_points", without_commands)
    fallback = CommandTable({}, source=installed_tables)
    assert list(fallback) == list(CommandTable({}))  # the same commands, the same order
    assert {fallback.owner(path) for path in fallback} == {a.name for a in games()}


def test_a_broken_command_plug_in_is_a_one_line_error(tmp_path: Path) -> None:
    site = tmp_path / "site"
    info = site / "broken-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[snakewar.commands]\nbroken = broken_gone:COMMANDS\n")
    path = [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    for args in (["--help"], ["play", "--help"]):
        done = subprocess.run(
            [sys.executable, "-m", "snakewar", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr.splitlines() == [
            "error: command plug-in 'broken' (broken_gone:COMMANDS) cannot be loaded: "
            "ModuleNotFoundError: No module named 'broken_gone'"
        ]
    # --version reads no entry point.
    done = subprocess.run(
        [sys.executable, "-m", "snakewar", "--version"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout.startswith("snakewar ")


def test_a_typo_is_one_usage_error_with_suggestions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plya"]) == 2
    err = capsys.readouterr().err
    assert "No such command 'plya'" in err and "Did you mean 'play'" in err
    assert "Traceback" not in err


def test_add_commands_refuses_a_taken_name_or_an_unknown_place() -> None:
    entry = LazyCommand("snakewar.games.battlesnake.cli.play", "play", "Again.")
    assert len(COMMANDS) > 0  # the table read: added commands are checked at once
    with pytest.raises(ValueError, match="already defined: play"):
        add_commands({"play": entry})
    with pytest.raises(ValueError, match="no subcommand 'nowhere'"):
        add_commands({"again": entry}, after="nowhere")
    assert "again" not in COMMANDS
