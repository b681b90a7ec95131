"""``snakewar eval`` and ``snakewar ladder run`` with launched bots, as real processes.

Two local versions of a Python snake compared by ``eval --launch``; their version keys
(a hash of the launch command and of the files of its folder); the anchored ratings
file created and updated with its anchor fixed; a per-bot limit on games at once,
read from the bot's own log; a ladder run with a launched snake.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from snakewar.arena.evaluation import launch_version_key
from snakewar.cli import main
from tests.cli_process import run

SNAKE = Path(__file__).parents[1] / "data" / "battlesnake" / "launch" / "snake.py"
SHORT = ("-W", "7", "-H", "7", "--max-turns", "12")


def _command(folder: Path, *extra: str) -> str:
    return shlex.join([sys.executable, str(folder / "snake.py"), "--port", "{port}", *extra])


def _versions(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    for folder in (a, b):
        folder.mkdir()
        shutil.copy(SNAKE, folder / "snake.py")
    (b / "weights.txt").write_text("version b\n")
    return a, b


def _pids(stderr: str) -> list[int]:
    return [int(line.split(", pid ")[1].split(",")[0]) for line in stderr.splitlines()
            if line.startswith("launched ")]  # fmt: skip


def _gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def test_eval_compares_two_launched_versions_and_keeps_anchored_ratings(tmp_path: Path) -> None:
    a, b = _versions(tmp_path)
    ratings = tmp_path / "ratings.json"
    report = tmp_path / "report.json"
    args = [
        "eval",
        "--launch", _command(a),
        "--launch", _command(b),
        "--launch-dir", str(tmp_path),
        "--games", "4",
        *SHORT,
        "--anchor", "snake.py=1000",
        "--ratings", str(ratings),
        "--json", str(report),
    ]  # fmt: skip
    first = run(*args)
    assert first.returncode == 0, first.stderr
    data = json.loads(report.read_text())
    names = [bot["name"] for bot in data["bots"]]
    assert names == ["snake.py", "snake.py#2"]
    # A launched bot's source is its command, its version a hash of command and files.
    assert [bot["source"] for bot in data["bots"]] == [_command(a), _command(b)]
    versions = [bot["version"] for bot in data["bots"]]
    assert all(v.endswith(" of launch") for v in versions) and versions[0] != versions[1]
    assert data["games_used"] == 4 and data["error_count"] == 0
    # The report and the table show the ratings: the anchor fixed, the other rated.
    assert data["ratings"]["snake.py"] == {
        "version": versions[0], "rating": 1000.0, "plus_minus": 0.0, "games": 4, "anchor": True
    }  # fmt: skip
    assert data["ratings"]["snake.py#2"]["anchor"] is False
    assert "1000 (anchor)" in first.stdout and "±" in first.stdout
    book = json.loads(ratings.read_text())
    assert book["anchors"] == {versions[0]: 1000.0}
    assert sum(r["wins"] + r["draws"] + r["losses"] for r in book["results"]) == 4
    for pid in _pids(first.stderr):
        assert _gone(pid), "a launched bot outlived the eval"

    # A second run adds its games to the same versions; the anchor stays where it was.
    second = run(*args)
    assert second.returncode == 0, second.stderr
    again = json.loads(ratings.read_text())
    assert again["anchors"] == {versions[0]: 1000.0}
    assert sorted(again["versions"]) == sorted(versions)
    assert sum(r["wins"] + r["draws"] + r["losses"] for r in again["results"]) == 8
    assert again["ratings"][versions[0]]["rating"] == 1000.0
    assert again["ratings"][versions[1]]["games"] == 8

    # Moving the anchor is refused: one error line, exit 2, the file untouched.
    moved = run(*[("snake.py=900" if x == "snake.py=1000" else x) for x in args])
    assert moved.returncode == 2
    assert moved.stderr.strip().count("\n") == 0 and moved.stderr.startswith("error: ")
    assert "is an anchor at 1000 already, not 900" in moved.stderr
    assert json.loads(ratings.read_text()) == again


def test_launched_version_key_follows_the_files(tmp_path: Path) -> None:
    a, _ = _versions(tmp_path)
    command = _command(a)
    key = launch_version_key(command, str(a))
    assert key == launch_version_key(command, str(a))
    # Caches and version control are not the bot; its own files are.
    (a / "__pycache__").mkdir()
    (a / "__pycache__" / "snake.pyc").write_bytes(b"compiled")
    (a / ".git").mkdir()
    (a / ".git" / "HEAD").write_text("ref\n")
    assert launch_version_key(command, str(a)) == key
    (a / "model.bin").write_bytes(b"new weights")
    changed = launch_version_key(command, str(a))
    assert changed != key
    assert launch_version_key(command, str(a), exclude=[str(a / "model.bin")]) == key
    assert launch_version_key(command + " --fast", str(a)) != changed
    # Past the size cap the rest is left out, and the key says so.
    assert launch_version_key(command, str(a), max_bytes=10).endswith("(capped)")


def test_games_wait_for_a_launched_bots_limit(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    done = run(
        "eval",
        "greedy",
        "--launch", _command(SNAKE.parent, "--move-sleep", "0.05"),
        "--launch-max-games", "1",
        "--parallel", "4",
        "--launch-logs", str(logs),
        "--games", "8",
        *SHORT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "games at once: 1 (snake.py plays at most 1 at once" in done.stdout
    # The bot's own count of the /move calls it answered at once: never two.
    log = (logs / "snake.py.log").read_text()
    seen = [int(line.rsplit(" ", 1)[1]) for line in log.splitlines()
            if line.startswith("moves in flight ")]  # fmt: skip
    assert len(seen) > 8, log[-2000:]
    assert max(seen) == 1, log[-2000:]


def test_a_ladder_plays_a_launched_snake(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'ladder.db'}"
    assert run("ladder", "create", "gym", *SHORT, "--database", database).returncode == 0
    assert run("ladder", "add", "gym", "greedy", "--database", database).returncode == 0
    logs = tmp_path / "logs"
    done = run(
        "ladder", "run", "gym",
        "--launch", _command(SNAKE.parent, "--move-sleep", "0.02"),
        "--launch-max-games", "2",
        "--launch-logs", str(logs),
        "--games", "4",
        "--database", database,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if "snake.py" in line)
    cells = [cell.strip() for cell in row.split("│")]
    # #, entrant, rating, mu, sigma, games, status: it played all four games (against
    # greedy, the only other entrant) and answered every health check.
    assert cells[2:3] + cells[6:8] == ["snake.py", "4", "active"], done.stdout
    log = (logs / "snake.py.log").read_text()
    assert "POST /move" in log and "POST /end" in log
    seen = [int(line.rsplit(" ", 1)[1]) for line in log.splitlines()
            if line.startswith("moves in flight ")]  # fmt: skip
    assert seen and max(seen) <= 2
    for pid in _pids(done.stderr):
        assert _gone(pid), "a launched bot outlived the ladder run"
    shown = run("ladder", "show", "gym", "--database", database)
    assert "snake.py" in shown.stdout and "greedy" in shown.stdout


def test_a_tournament_plays_a_launched_snake(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'cup.db'}"
    # Constrictor on 11x11, so that games are decided: a drawn round-robin game is played
    # again, and 12-turn standard games of snakes that both survive were drawn up to the
    # run's cap on draws ("match 'RR1-1' is undecided after 21 games", about 1 run in 10).
    made = run(
        "tournament", "create", "cup", "--format", "round_robin", "--later",
        "--snake", "greedy", "--snake", "random", "-g", "constrictor", "-W", "11", "-H", "11",
        "--max-turns", "150", "--database", database,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    tid = made.stdout.strip().splitlines()[-1]
    logs = tmp_path / "logs"
    done = run(
        "tournament", "run", tid,
        "--launch", _command(SNAKE.parent),
        "--launch-logs", str(logs),
        "--database", database,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # A round robin of three: the launched snake was entered and played both others.
    exported = run("tournament", "export", tid, "--database", database)
    assert exported.returncode == 0, exported.stderr
    data = json.loads(exported.stdout)
    assert sorted(s["name"] for s in data["snakes"]) == ["greedy", "random", "snake.py"]
    assert data["finished"] is True
    played = [g for m in data["matches"] if "snake.py" in m["entrants"] for g in m["games"]]
    # Two matches of its own (a drawn game is played again, so perhaps more games).
    assert len([m for m in data["matches"] if "snake.py" in m["entrants"]]) == 2
    log = (logs / "snake.py.log").read_text()
    assert log.count("POST /start") == log.count("POST /end") == len(played) >= 2
    for pid in _pids(done.stderr):
        assert _gone(pid), "a launched bot outlived the tournament run"
    # Once started, a launched bot must be one of its entrants.
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(SNAKE, other / "newcomer.py")
    late = run(
        "tournament", "run", tid,
        "--launch", shlex.join([sys.executable, str(other / "newcomer.py"), "--port", "{port}"]),
        "--database", database,
    )  # fmt: skip
    assert late.returncode == 2
    assert "has started and has no entrant 'newcomer.py'" in late.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["eval", "greedy", "--launch", "python3 main.py | tee x"], "'|' needs a shell"),
        (["eval", "greedy", "--launch", "x {port}", "--launch-max-games", "0"], "expected 1 to"),
        (["eval", "greedy", "random", "--launch-max-games", "2"], "add --launch"),
        (["eval", "greedy", "random", "--launch-logs", "logs"], "add --launch"),
        (["eval", "greedy", "--launch", "x", "--ray-address", "auto"], "cannot reach"),
        (["eval", "greedy", "--launch", "no-such-program-here {port}"], "cannot run"),
        (["eval", "greedy", "random", "--anchor", "greedy", "--ratings", "r.json"], "NAME=RATING"),
        (["eval", "greedy", "random", "--anchor", "greedy=1"], "add --ratings FILE"),
        (["eval", "greedy", "random", "--anchor", "nobody=1", "--ratings", "r.json"],
         "no bot of this run is called 'nobody'"),
        (["eval", "greedy", "random", "--ratings", "r.json"], "needs an anchor"),
        (["ladder", "run", "gym", "--launch", "x {port} ; y"], "';' needs a shell"),
        (["tournament", "run", "cup", "--launch", "x", "--launch-timeout", "0"],
         "expected seconds above 0"),
    ],
)  # fmt: skip
def test_bad_launch_input_is_one_clear_line(
    args: list[str],
    needle: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    database = ["--database", f"sqlite:///{tmp_path / 'x.db'}"] if args[0] != "eval" else []
    assert main([*args, *database]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and needle in err[0], err
    assert not (tmp_path / "r.json").exists()
