"""``snakewar play --config snakewar.toml``: bots and options from a file, real processes."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from tests.cli_process import run

SNAKE = Path(__file__).parents[3] / "data" / "battlesnake" / "launch" / "snake.py"


def _config(tmp_path: Path, extra: str = "") -> Path:
    (tmp_path / "mine").mkdir()
    shutil.copy(SNAKE, tmp_path / "mine" / "snake.py")
    path = tmp_path / "snakewar.toml"
    path.write_text(
        "[options]\nmax_turns = 10\nwidth = 7\nheight = 7\nseed = 3\n"
        "[[bots]]\nname = 'mine'\n"
        f"launch = [{json.dumps(sys.executable)}, 'snake.py', '--port', '{{port}}',"
        " '--move-sleep', '0.02']\n"
        "dir = 'mine'\nmax_games = 1\nenv = { SNAKE_NOTE = 'from the file' }\n"
        "[[bots]]\nname = 'base'\nentrant = 'greedy'\n" + extra
    )
    return path


def test_play_seats_the_files_bots_and_keeps_to_a_bots_limit(tmp_path: Path) -> None:
    config = _config(tmp_path)
    logs, out = tmp_path / "logs", tmp_path / "out.json"
    done = run(
        "play", "--config", str(config), "--games", "3", "--workers", "2",
        "--json", str(out), "--launch-logs", str(logs), "--no-live",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    # The launched bot first, the file's other bot last, each under its name.
    assert data["config"]["names"] == ["mine", "base"]
    assert data["config"]["snakes"][1] == "greedy"
    assert (data["config"]["width"], data["config"]["height"]) == (7, 7)
    assert data["first_seed"] == 3 and data["games"] == 3
    assert data["mean_turns"] <= 10
    # --workers 2, but mine plays one game at a time: its own count never reaches two.
    assert "games at once: 1" in done.stderr
    log = (logs / "mine.log").read_text()
    assert "note: from the file" in log  # the file's env reached the bot
    seen = [int(line.rsplit(" ", 1)[1]) for line in log.splitlines()
            if line.startswith("moves in flight ")]  # fmt: skip
    assert len(seen) > 3 and max(seen) == 1, log[-2000:]


def test_play_refuses_game_parameters_from_the_file(tmp_path: Path) -> None:
    config = _config(tmp_path, "[options.params]\nruleset = 'royale'\n")
    # TOML: [options.params] after [[bots]] still belongs to the options table.
    done = run("play", "--config", str(config))
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
    assert "options.params" in done.stderr
