"""Launched bots in eval, ladder and tournament runs, game by game, as real processes.

Each launched bot's limit on games at once holds for its own games only: two bots with
different limits in one tournament, each one's most ``/move`` calls at once read from
its own log.  A launched bot that crashes on its Nth move: its death is kept with the
game it died in (``launch.failures`` of ``eval --json``, the seat's log of a ladder's
stored game), and the output keeps one warning line for it.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from snakewar.storage import Store
from tests.cli_process import run

SNAKE = Path(__file__).parents[1] / "data" / "battlesnake" / "launch" / "snake.py"
SHORT = ("-W", "7", "-H", "7", "--max-turns", "12")
DECIDED = ("-g", "constrictor", "-W", "11", "-H", "11", "--max-turns", "150")
"""Tournament games that are decided: the snakes grow every turn until one is trapped (a
drawn round-robin game is played again, and 12-turn standard games between two snakes
that both survive are drawn, up to the run's cap on draws)."""


def _command(*extra: str) -> list[str]:
    return [sys.executable, str(SNAKE), "--port", "{port}", *extra]


def _most_in_flight(log: Path) -> int:
    """The most ``/move`` calls the bot said it answered at once (its own count)."""
    seen = [int(line.rsplit(" ", 1)[1]) for line in log.read_text().splitlines()
            if line.startswith("moves in flight ")]  # fmt: skip
    assert seen, log.read_text()[-2000:]
    return max(seen)


def _died_lines(stderr: str) -> list[str]:
    """The lines on a launched bot's death (not those quoting it)."""
    lines = stderr.splitlines()
    return [x for x in lines if x.startswith("warning: snake.py (") and " died with exit " in x]


def test_each_launched_bots_limit_holds_for_its_own_games(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'cup.db'}"
    made = run(
        "tournament", "create", "cup", "--format", "round_robin", "--later",
        "--snake", "greedy", *DECIDED, "--database", database,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    tid = made.stdout.strip().splitlines()[-1]
    # Three launched snakes, slow enough per move that games in play overlap: 'one' plays
    # a game at a time, 'two' two at once, 'three' any number.
    config = tmp_path / "snakewar.toml"
    config.write_text(
        "".join(
            f"[[bots]]\nname = {json.dumps(name)}\n"
            f"launch = {json.dumps(_command('--move-sleep', '0.1'))}\n{limit}"
            for name, limit in (("one", "max_games = 1\n"), ("two", "max_games = 2\n"),
                                ("three", ""))
        )
    )  # fmt: skip
    logs = tmp_path / "logs"
    done = run(
        "tournament", "run", tid, "--config", str(config), "--parallel", "6",
        "--launch-logs", str(logs), "--database", database,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "one plays at most 1 game at once" in done.stderr
    assert "two plays at most 2 games at once" in done.stderr
    exported = json.loads(run("tournament", "export", tid, "--database", database).stdout)
    assert exported["finished"] is True
    # A round robin of four: each launched snake played its three matches...
    for name in ("one", "two", "three"):
        assert len([m for m in exported["matches"] if name in m["entrants"]]) == 3
    # ... 'one' never two games at once, 'two' never three, and two at once: its own
    # limit held its games, not the smallest one.  (Every match is there from the start,
    # and two of 'two's three, against 'three' and greedy, wait for no other bot: both
    # start at once whatever the order.)
    assert _most_in_flight(logs / "one.log") == 1
    assert _most_in_flight(logs / "two.log") == 2
    assert _most_in_flight(logs / "three.log") >= 1


def test_a_ladder_keeps_each_launched_bots_limit(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'ladder.db'}"
    assert run("ladder", "create", "gym", *SHORT, "--database", database).returncode == 0
    for bot in ("greedy", "random"):
        assert run("ladder", "add", "gym", bot, "--database", database).returncode == 0
    config = tmp_path / "snakewar.toml"
    config.write_text(
        "".join(
            f"[[bots]]\nname = {json.dumps(name)}\n"
            f"launch = {json.dumps(_command('--move-sleep', '0.05'))}\nmax_games = {limit}\n"
            for name, limit in (("one", 1), ("two", 3))
        )
    )
    logs = tmp_path / "logs"
    done = run(
        "ladder", "run", "gym", "--config", str(config), "--games", "8", "--parallel", "4",
        "--launch-logs", str(logs), "--database", database,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert _most_in_flight(logs / "one.log") == 1
    assert _most_in_flight(logs / "two.log") <= 3
    with Store(database) as store:
        ladder = store.ladders.get("gym")
        assert ladder is not None and ladder.games_played == 8


def test_eval_json_says_which_launched_bot_crashed_in_which_game(tmp_path: Path) -> None:
    report, bot_logs = tmp_path / "report.json", tmp_path / "bot-logs"
    crash_file = tmp_path / "crashed-once"
    done = run(
        "eval", "greedy",
        "--launch", shlex.join(_command("--crash-after", "3", "--crash-file", str(crash_file))),
        "--games", "4", "--parallel", "1", *SHORT,
        "--json", str(report), "--bot-logs", str(bot_logs),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert crash_file.exists()
    data = json.loads(report.read_text())
    launch = data["launch"]
    assert [b["name"] for b in launch["bots"]] == ["snake.py"]
    assert launch["bots"][0]["restarts"] == 1 and launch["bots"][0]["given_up"] == ""
    # One game at a time: it died in exactly one game, named with its seed.
    (failure,) = launch["failures"]
    assert failure["bot"] == "snake.py" and failure["returncode"] == 3
    assert failure["restarted"] is True
    game = failure["game"]
    assert game.startswith("eval-") and failure["seed"] == int(game.split("-")[1])
    assert f"in game {game}" in failure["reason"]
    # The game's log of that bot says so too (the --bot-logs view), and no other does.
    said = "snake.py died with exit status 3 during this game"
    mentioned = [p.name for p in bot_logs.iterdir() if said in p.read_text()]
    assert len(mentioned) == 1 and mentioned[0].startswith(f"{game}-seat")
    assert mentioned[0].endswith("-snake.py.log")
    # The readable output: one warning line for the death, naming its game (and the
    # game's own line on the moves that failed, if enough did, quotes it as their cause).
    (line,) = _died_lines(done.stderr)
    assert line.startswith("warning: snake.py (") and f"in game {game}; restarted" in line
    for other in (x for x in done.stderr.splitlines() if " failed: " in x):
        assert other.startswith(f"warning: {game} (seed ") and "during this game" in other


def test_a_ladder_stores_a_launched_bots_crash_with_its_game(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'ladder.db'}"
    assert run("ladder", "create", "gym", *SHORT, "--database", database).returncode == 0
    assert run("ladder", "add", "gym", "greedy", "--database", database).returncode == 0
    crash_file = tmp_path / "crashed-once"
    done = run(
        "ladder", "run", "gym",
        "--launch", shlex.join(_command("--crash-after", "3", "--crash-file", str(crash_file))),
        "--games", "3", "--parallel", "1", "--database", database,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert crash_file.exists()
    (line,) = _died_lines(done.stderr)
    assert line.startswith("warning: snake.py (") and "; restarted" in line
    with Store(database) as store:
        ladder = store.ladders.get("gym")
        assert ladder is not None
        logs = {
            game.game_id: store.games.log(game.game_id, game.seats.index("snake.py")) or ""
            for game in ladder.recent
        }
    # The game it died in keeps it in the launched snake's log; the others do not.
    crashed = [game_id for game_id, log in logs.items() if "died with exit status 3" in log]
    assert len(crashed) == 1, logs
    assert "snake.py died with exit status 3 during this game; restarted" in logs[crashed[0]]
    assert len(logs) == 3


def test_a_tournament_stores_a_launched_bots_crash_with_its_game(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'cup.db'}"
    made = run(
        "tournament", "create", "cup", "--format", "round_robin", "--later",
        "--snake", "greedy", *DECIDED, "--database", database,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    tid = made.stdout.strip().splitlines()[-1]
    crash_file = tmp_path / "crashed-once"
    done = run(
        "tournament", "run", tid,
        "--launch", shlex.join(_command("--crash-after", "3", "--crash-file", str(crash_file))),
        "--parallel", "1", "--database", database,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert crash_file.exists()
    (line,) = _died_lines(done.stderr)
    assert "; restarted" in line
    exported = json.loads(run("tournament", "export", tid, "--database", database).stdout)
    games = [g for m in exported["matches"] if "snake.py" in m["entrants"] for g in m["games"]]
    with Store(database) as store:
        logs = [store.games.log(g["game_id"], g["seats"].index("snake.py")) or "" for g in games]
    said = "snake.py died with exit status 3 during this game; restarted"
    assert games and sum(said in log for log in logs) == 1, logs
