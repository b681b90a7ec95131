"""The bot config file (``--config snakewar.toml``): every bad key or value is one line.

Each bad file below is refused by ``snakewar eval --config`` (and ``ladder run``) with
exactly one ``error:`` line that names the key, exit status 2, before any bot starts.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from snakewar.cli.botconfig import BotConfigError, load_bot_config
from tests.cli_process import run

SNAKE = Path(__file__).parent / "data" / "battlesnake" / "launch" / "snake.py"
GOOD_LAUNCH = 'launch = "python3 snake.py --port {port}"'

BAD = [
    ("colour = 1", "colour: unknown key"),
    ("options = 3", "options: expected a table"),
    ("[options]\nturns = 3", "options.turns: unknown option"),
    ("[options]\nmax_turns = 0", "options.max_turns: expected a whole number"),
    ("[options]\nwidth = true", "options.width: expected a whole number"),
    ("[options]\ngame = 'no such/game'", "options.game: expected a game's name"),
    ("[options.params]\n'a b' = 1", "options.params.a b: expected a parameter name"),
    ("bots = 1", "bots: expected an array of tables"),
    ("[[bots]]\nlaunch = 'x {port}'", "bots[0].name: expected 1 to 64"),
    ("[[bots]]\nname = 'a b'\nentrant = 'greedy'", "bots[0].name: expected"),
    ("[[bots]]\nname = 'a'", "bots[0]: expected one of 'launch'"),
    ("[[bots]]\nname = 'a'\nentrant = 'greedy'\nlaunch = 'x {port}'", "bots[0]: expected one"),
    ("[[bots]]\nname = 'a'\nlaunch = 'x {port}'\ncolor = 'red'", "bots[0].color: unknown key"),
    ("[[bots]]\nname = 'a'\nlaunch = 'x'", "bots[0].launch: has no {port}"),
    ("[[bots]]\nname = 'a'\nlaunch = 'x {port} | tee log'", "bots[0].launch: bot command"),
    ("[[bots]]\nname = 'a'\nlaunch = 'x {port} $HOME'", "bots[0].launch: bot command"),
    ("[[bots]]\nname = 'a'\nlaunch = 'x {port} \"open'", "bots[0].launch: bot command"),
    ("[[bots]]\nname = 'a'\nlaunch = []", "bots[0].launch: expected a command"),
    ("[[bots]]\nname = 'a'\nlaunch = [1, 2]", "bots[0].launch: expected a command"),
    ("[[bots]]\nname = 'a'\nlaunch = 7", "bots[0].launch: expected a command"),
    (f"[[bots]]\nname = 'a'\n{GOOD_LAUNCH}\ndir = 'nowhere'", "bots[0].dir: "),
    (f"[[bots]]\nname = 'a'\n{GOOD_LAUNCH}\nenv = 1", "bots[0].env: expected a table"),
    (f"[[bots]]\nname = 'a'\n{GOOD_LAUNCH}\nenv = {{PORT = '1'}}", "bots[0].env.PORT:"),
    (f"[[bots]]\nname = 'a'\n{GOOD_LAUNCH}\nenv = {{'1X' = '1'}}", "bots[0].env.1X:"),
    (f"[[bots]]\nname = 'a'\n{GOOD_LAUNCH}\nenv = {{X = 1}}", "bots[0].env.X: expected a str"),
    (f"[[bots]]\nname = 'a'\n{GOOD_LAUNCH}\nready_timeout = 0", "bots[0].ready_timeout:"),
    (f"[[bots]]\nname = 'a'\n{GOOD_LAUNCH}\nready_timeout = 'x'", "bots[0].ready_timeout:"),
    (f"[[bots]]\nname = 'a'\n{GOOD_LAUNCH}\nmax_games = 0", "bots[0].max_games: expected"),
    (f"[[bots]]\nname = 'a'\n{GOOD_LAUNCH}\nmax_games = 65", "bots[0].max_games: expected"),
    ("[[bots]]\nname = 'a'\nentrant = 'greedy'\nmax_games = 2", "bots[0].max_games: is about"),
    ("[[bots]]\nname = 'a'\nentrant = 1", "bots[0].entrant: expected"),
    (
        "[[bots]]\nname = 'a'\nentrant = 'greedy'\n[[bots]]\nname = 'a'\nentrant = 'random'",
        "bots[1].name: 'a' is the name of an earlier bot",
    ),
    ("[[bots]\nname = 'a'", "not TOML"),
]


@pytest.mark.parametrize(("text", "needle"), BAD, ids=[n for _, n in BAD])
def test_each_bad_key_is_named(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "snakewar.toml"
    path.write_text(text + "\n")
    with pytest.raises(BotConfigError) as caught:
        load_bot_config(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message
    assert needle in message, message
    assert "\n" not in message


@pytest.mark.parametrize("command", [("eval",), ("ladder", "run", "gym")])
@pytest.mark.parametrize(
    ("text", "needle"),
    [BAD[2], BAD[13], BAD[14], BAD[27], BAD[-1]],
    ids=["option", "no-port", "shell", "max-games", "toml"],
)
def test_the_commands_say_one_error_line(
    tmp_path: Path, command: tuple[str, ...], text: str, needle: str
) -> None:
    path = tmp_path / "snakewar.toml"
    path.write_text(text + "\n")
    database = ("--database", f"sqlite:///{tmp_path / 'x.db'}") if command[0] == "ladder" else ()
    done = run(*command, "--config", str(path), *database)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr
    assert needle in done.stderr
    assert done.stdout == ""


def test_missing_file_is_one_line(tmp_path: Path) -> None:
    done = run("eval", "--config", str(tmp_path / "none.toml"))
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1
    assert "cannot read it" in done.stderr


def test_a_config_file_declares_bots_and_options(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "snake.py").write_text(SNAKE.read_text())
    logs = tmp_path / "logs"
    (tmp_path / "snakewar.toml").write_text(
        "[options]\n"
        "games = 2\nmax_turns = 8\nwidth = 7\nheight = 7\n"
        "[[bots]]\n"
        "name = 'base'\nentrant = 'greedy'\n"
        "[[bots]]\n"
        "name = 'mine'\n"
        f"launch = [{json.dumps(sys.executable)}, 'snake.py', '--port', '{{port}}',"
        " '--move-sleep', '0.01']\n"
        "dir = 'mine'\nenv = { SNAKE_NOTE = 'from the config' }\n"
        "ready_timeout = 60\nmax_games = 1\n"
    )
    report = tmp_path / "report.json"
    done = run(
        "eval", "--config", str(tmp_path / "snakewar.toml"), "--json", str(report),
        "--launch-logs", str(logs), "--parallel", "3",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(report.read_text())
    assert [b["name"] for b in data["bots"]] == ["base", "mine"]
    assert data["bots"][1]["source"] == shlex.join(
        [sys.executable, "snake.py", "--port", "{port}", "--move-sleep", "0.01"]
    )
    # The file's options: two games (one seed, both seatings) on a 7x7 board.
    assert data["games_played"] == 2
    assert data["config"]["params"]["width"] == 7 and data["config"]["max_turns"] == 8
    assert "games at once: 1 (mine plays at most 1 at once" in done.stdout
    log = (logs / "mine.log").read_text()
    assert "POST /move" in log and "note: from the config" in log
    assert max(int(line.rsplit(" ", 1)[1]) for line in log.splitlines()
               if line.startswith("moves in flight ")) == 1  # fmt: skip
    # An option given on the command line wins over the file's.
    more = run("eval", "--config", str(tmp_path / "snakewar.toml"), "--games", "4",
               "--json", str(report))  # fmt: skip
    assert more.returncode == 0, more.stderr
    assert json.loads(report.read_text())["games_played"] == 4
