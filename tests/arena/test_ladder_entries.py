"""Ladder and tournament entrants from the command line: checked when they join, run
from their own folder, and shown failing with the reason when they cannot play.

Regressions: ``snakewar ladder add h3 "python3 MyBot.py"`` stored no folder, so a run
started from another folder failed every game with "communication error with bot"
while ``ladder show`` still said "active"; ``ladder add`` took an unreachable snake
without a word.  Every command here runs as a real ``snakewar`` process, in the folder
a user would run it from.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from snakewar.arena.ladder import load_ladder
from snakewar.arena.tournament_runner import load_tournament
from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store

STARTER_KIT = Path(__file__).resolve().parents[1] / "games" / "halite3" / "starter_kit"


def snakewar(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "snakewar", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def ok(cwd: Path, *args: str) -> str:
    done = snakewar(cwd, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def refused(cwd: Path, *args: str) -> str:
    """The one ``error:`` line of a command that must fail with exit status 2."""
    done = snakewar(cwd, *args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path, Path, str]:
    """A bot's folder (the official starter kit), a broken bot's, elsewhere, a database."""
    bot = tmp_path / "mybot"
    shutil.copytree(STARTER_KIT, bot)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "MyBot.py").write_text(
        "import sys\nsys.exit('ModuleNotFoundError: No module named numpy')\n"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return bot, broken, elsewhere, f"sqlite:///{tmp_path / 'arena.db'}"


def test_a_program_entrant_runs_from_its_own_folder(
    folders: tuple[Path, Path, Path, str],
) -> None:
    bot, _, elsewhere, db = folders
    ok(elsewhere, "ladder", "create", "h3", "--game", "halite3", "-W", "32", "-H", "32",
       "--max-turns", "30", "--database", db)  # fmt: skip
    added = ok(bot, "ladder", "add", "h3", "python3 MyBot.py", "--database", db)
    assert f"run in {bot}" in added
    ok(elsewhere, "ladder", "add", "h3", "builtin:greedy", "--database", db)
    ok(elsewhere, "ladder", "run", "h3", "--games", "2", "--parallel", "1", "--database", db)
    with Store(db) as store:
        ladder = load_ladder(store, "h3")
    entry = ladder.entries["MyBot"]
    assert entry.workdir == str(bot) and ladder.entries["greedy"].workdir is None
    assert not entry.failing and not entry.paused, entry.note
    assert {row.snake: row.games for row in ladder.standings()} == {"MyBot": 2, "greedy": 2}
    shown = ok(elsewhere, "ladder", "show", "h3", "--database", db)
    assert shown.count("active") == 2


def test_a_tournament_keeps_its_commands_folder(folders: tuple[Path, Path, Path, str]) -> None:
    bot, _, elsewhere, db = folders
    tid = ok(bot, "tournament", "create", "cup", "--game", "halite3", "-W", "32", "-H", "32",
             "--max-turns", "20", "-f", "round_robin", "-s", "python3 MyBot.py",
             "-s", "builtin:random", "--database", db).strip()  # fmt: skip
    ok(elsewhere, "tournament", "run", tid, "--database", db)
    with Store(db) as store:
        run = load_tournament(store, tid)
    assert run.workdirs == {"MyBot": str(bot)} and run.is_finished
    [game] = [g for games in run.games.values() for g in games]
    with Store(db) as store:
        stored = store.games.get(game.game_id)
    assert stored is not None and stored.result is not None
    # The bot played the whole game: nobody was killed (as it was, at its initialization,
    # when it ran from the wrong folder).
    assert stored.result["killed"] == {}


def test_a_bot_that_cannot_start_is_refused_with_the_reason(
    folders: tuple[Path, Path, Path, str],
) -> None:
    _, broken, elsewhere, db = folders
    ok(elsewhere, "ladder", "create", "h3", "--game", "halite3", "--database", db)
    line = refused(broken, "ladder", "add", "h3", "python3 MyBot.py", "--database", db)
    assert "failed to initialize" in line and "No module named numpy" in line
    assert "--no-check" in line
    missing = refused(elsewhere, "ladder", "add", "h3", "python3 Nope.py", "--database", db)
    assert "can't open file" in missing
    with Store(db) as store:
        assert load_ladder(store, "h3").entries == {}


def test_a_failing_bot_is_shown_failing_with_the_reason(
    folders: tuple[Path, Path, Path, str], tmp_path: Path
) -> None:
    _, broken, elsewhere, db = folders
    ok(elsewhere, "ladder", "create", "h3", "--game", "halite3", "-W", "32", "-H", "32",
       "--max-turns", "10", "--database", db)  # fmt: skip
    ok(broken, "ladder", "add", "h3", "python3 MyBot.py", "-n", "broken", "--no-check",
       "--database", db)  # fmt: skip
    ok(elsewhere, "ladder", "add", "h3", "builtin:greedy", "--database", db)
    # One failed game: failing, not yet paused (Halite pauses after two in a row).
    ok(elsewhere, "ladder", "run", "h3", "--games", "1", "--database", db)
    shown = ok(elsewhere, "ladder", "show", "h3", "--database", db)
    assert "failing:" in shown  # the table wraps the reason; the store has it whole
    assert "active" in shown  # greedy is active
    with Store(db) as store:
        entry = load_ladder(store, "h3").entries["broken"]
    assert entry.failing and not entry.paused
    assert entry.note.startswith("failed to initialize: ")
    assert "No module named numpy" in entry.note
    # The web shows the same: the standings carry the failure while the bot plays on.
    with TestClient(create_app(ServerConfig(database_url=db)), base_url="http://localhost") as c:
        standings = {s["snake"]: s for s in c.get("/api/ladders/h3").json()["standings"]}
    assert "No module named numpy" in standings["broken"]["failure"]
    assert standings["greedy"]["failure"] == "" and not standings["broken"]["paused"]
    # A second one pauses it, still with the reason.
    ok(elsewhere, "ladder", "run", "h3", "--games", "1", "--database", db)
    with Store(db) as store:
        entry = load_ladder(store, "h3").entries["broken"]
    assert entry.paused and entry.note.startswith("paused: failed 2 games in a row: ")
    assert "No module named numpy" in entry.note


def test_an_unreachable_snake_is_refused(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    ok(tmp_path, "ladder", "create", "bs", "--database", db)
    # A port nothing listens on (bound, then closed).
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    line = refused(tmp_path, "ladder", "add", "bs", url, "--database", db)
    assert url in line and "cannot play" in line
    added = ok(tmp_path, "ladder", "add", "bs", url, "--no-check", "--database", db)
    assert "added" in added
