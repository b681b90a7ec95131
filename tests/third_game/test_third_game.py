"""A third game plugs in with one adapter and one entry point, and every layer serves it.

``countgame.py`` is installed the way another package would install a game: a module
and a ``.dist-info`` folder whose ``entry_points.txt`` names the adapter in the
``snakewar.games`` group, found on ``PYTHONPATH``.  No Snakewar file changes; then the
command line lists the game, a ladder plays and rates it, the server creates, stores,
lists, shows and exports its games, and ``snakewar replay`` verifies the export.
Everything runs in child processes, so the registry of this test process stays as it is.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

SERVER_SCRIPT = r"""
import json, sys, time
from fastapi.testclient import TestClient
from snakewar.server import ServerConfig, create_app

out = {}
app = create_app(ServerConfig(database_url=sys.argv[1]))
with TestClient(app, base_url="http://localhost") as client:
    catalogue = client.get("/api/catalogue").json()
    out["catalogue"] = sorted(g["name"] for g in catalogue)
    body = {"game": "count", "snakes": ["one", "two"], "params": {"turns": 5}, "seed": 9}
    created = client.post("/api/games", json=body)
    out["created"] = created.status_code
    game_id = created.json()["id"]
    deadline = time.monotonic() + 30
    while (game := client.get(f"/api/games/{game_id}").json())["status"] == "running":
        assert time.monotonic() < deadline, game
        time.sleep(0.05)
    out["game"] = game
    out["listed"] = [g["id"] for g in client.get("/api/games").json()["games"]]
    page = client.get(f"/view/{game_id}")
    out["page"] = [page.status_code, "<title>Count: one vs two" in page.text]
    bad = client.post("/api/games", json={"game": "count", "snakes": ["three", "one"]})
    out["bad"] = [bad.status_code, bad.json()["detail"]]
    replay = client.get(f"/api/games/{game_id}/replay")
    out["replay"] = [replay.status_code, replay.headers["content-type"],
                     replay.headers["content-disposition"]]
    open(sys.argv[2], "wb").write(replay.content)
print(json.dumps(out))
"""


@pytest.fixture
def plugin_path(tmp_path: Path) -> Path:
    """A folder holding the Count game as an installed distribution with an entry point."""
    site = tmp_path / "site"
    site.mkdir()
    shutil.copy(HERE / "countgame.py", site / "countgame.py")
    info = site / "countgame-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: countgame\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[snakewar.games]\ncount = countgame:GAME\n\n"
        "[snakewar.commands]\ncount = countgame:COMMANDS\n"
    )
    return site


def run(args: list[str], site: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    # The plug-in beside the Snakewar under test (the PYTHONPATH the tests run with).
    path = [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=180
    )


@pytest.mark.slow
def test_a_third_game_is_one_adapter_and_an_entry_point(plugin_path: Path, tmp_path: Path) -> None:
    cli = ["-m", "snakewar"]
    listed = run([*cli, "games"], plugin_path, tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "count" in listed.stdout and "Count" in listed.stdout

    # The arena: a ladder of Count bots plays, stores and rates its games.
    db = ["--database", f"sqlite:///{tmp_path / 'ladder.db'}"]
    for args in (
        ["ladder", "create", "c", "--game", "count", "-p", "turns=4", *db],
        ["ladder", "add", "c", "one", *db],
        ["ladder", "add", "c", "two", *db],
        ["ladder", "run", "c", "--games", "4", "--parallel", "2", *db],
    ):
        done = run([*cli, *args], plugin_path, tmp_path)
        assert done.returncode == 0, (args, done.stderr)
    show = run([*cli, "ladder", "show", "c", *db], plugin_path, tmp_path)
    assert show.returncode == 0, show.stderr
    lines = [line for line in show.stdout.splitlines() if " one" in line or " two" in line]
    assert "two" in lines[0] and "one" in lines[1], show.stdout  # two always wins

    # The server: create, store, list, show and export a Count game.
    replay = tmp_path / "game.count.json"
    served = run(
        ["-c", SERVER_SCRIPT, f"sqlite:///{tmp_path / 'server.db'}", str(replay)],
        plugin_path,
        tmp_path,
    )
    assert served.returncode == 0, served.stderr
    out = json.loads(served.stdout)
    assert out["catalogue"] == ["battlesnake", "count", "halite3"]
    assert out["created"] == 201
    game = out["game"]
    assert game["game"] == "count" and game["status"] == "complete"
    assert game["winner"] == "two" and game["seed"] == "9" and game["turn"] == 5
    assert game["id"] in out["listed"]
    assert out["page"] == [200, True]
    assert out["bad"][0] == 400 and "unknown Count bot 'three'" in out["bad"][1]
    assert out["replay"][0] == 200 and out["replay"][1].startswith("application/json")
    assert f'filename="{game["id"]}.count.json"' in out["replay"][2]

    # The replay command finds the format through the registry and verifies it.
    assert json.loads(replay.read_text())["totals"] == [5, 10]
    verified = run([*cli, "replay", "verify", str(replay)], plugin_path, tmp_path)
    assert verified.returncode == 0, verified.stderr
    assert "OK: 5 turns replayed" in verified.stdout + verified.stderr


def test_a_third_game_adds_its_commands(plugin_path: Path, tmp_path: Path) -> None:
    listed = run(["-m", "snakewar", "--help"], plugin_path, tmp_path)
    assert listed.returncode == 0, listed.stderr
    names = [line.split()[0] for line in listed.stdout.split("Commands:")[1].splitlines() if line]
    # Listed where its table places it (after games), beside the built-in games' commands.
    assert names[names.index("games") + 1] == "count" and "play" in names and "halite" in names
    # A command that reads its own command line, run without typer.
    done = run(["-m", "snakewar", "count", "4"], plugin_path, tmp_path)
    assert (done.returncode, done.stdout) == (0, "one 4, two 8 after 4 turns\n"), done.stderr
    bad = run(["-m", "snakewar", "count", "many"], plugin_path, tmp_path)
    assert bad.returncode == 2 and bad.stderr == "error: usage: snakewar count [TURNS]\n"
    # A benchmark in the frame's bench group, listed with the built-in games' ones.
    bench = run(["-m", "snakewar", "bench", "--help"], plugin_path, tmp_path)
    assert bench.returncode == 0 and "\n  count " in bench.stdout and "\n  rules " in bench.stdout
    counted = run(["-m", "snakewar", "bench", "count", "--games", "3"], plugin_path, tmp_path)
    assert (counted.returncode, counted.stdout) == (0, "3 Count games played\n"), counted.stderr
    # The adapter's hook gives the same table as the entry point.
    same = run(
        ["-c", "import countgame; assert countgame.GAME.commands() is countgame.COMMANDS"],
        plugin_path,
        tmp_path,
    )
    assert same.returncode == 0, same.stderr


def test_a_broken_game_plug_in_is_a_one_line_error(plugin_path: Path, tmp_path: Path) -> None:
    info = plugin_path / "countgame-1.0.dist-info" / "entry_points.txt"
    info.write_text("[snakewar.games]\ncount = countgame_gone:GAME\n")
    done = run(["-m", "snakewar", "games"], plugin_path, tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "error: game plug-in 'count' (countgame_gone:GAME) cannot be loaded: "
        "ModuleNotFoundError: No module named 'countgame_gone'"
    ]
