"""``--bot-logs DIR``: one log per bot per game, the tail on failure.

``snakewar halite eval`` keeps one per bot of each game; ``snakewar halite play`` one per
bot of its one game.  Real bot programs: a faulty one that dies mid-line with two lines
on stderr, a well-behaved one that writes to stderr, the built-in bots.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from snakewar.arena.botlogs import failure_lines, log_tail, write_bot_logs
from snakewar.engine.protocol import EntrantResult
from tests.games.halite3.oracle import MAIN

FAULTY = Path(__file__).parents[1] / "bots" / "faulty.py"


def _halite(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MAIN, "halite", *args], capture_output=True, text=True, timeout=280, cwd=cwd
    )


def test_each_bot_of_each_game_has_its_log_and_a_failure_shows_its_tail(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    crashing = shlex.join([sys.executable, str(FAULTY), "half_line"])
    done = subprocess.run(
        [*MAIN, "halite", "eval", crashing, "builtin:greedy", "--games", "2",
         "--width", "32", "--turn-limit", "10", "--bot-logs", str(logs)],
        capture_output=True,
        text=True,
        timeout=280,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    files = sorted(p.name for p in logs.iterdir())
    # Two games, two bots each; seats rotate, so the faulty bot sits in seat 0, then 1.
    assert files == [
        "eval-0-seat0-half_line.log",
        "eval-0-seat1-greedy.log",
        "eval-1-seat0-greedy.log",
        "eval-1-seat1-half_line.log",
    ]
    for name in ("eval-0-seat0-half_line.log", "eval-1-seat1-half_line.log"):
        text = (logs / name).read_text()
        assert "Traceback: oops" in text and "ValueError: bad" in text, text
    assert (logs / "eval-0-seat1-greedy.log").read_text() == ""
    # On stderr: each failure, why, and the last lines it wrote, with its file.
    lines = [line for line in done.stderr.splitlines() if " failed: " in line]
    assert len(lines) == 2, done.stderr
    assert lines[0].startswith("eval-0 (seed 1): half_line failed: ")
    assert "last lines of its log: " in lines[0] and "ValueError: bad" in lines[0]
    assert lines[0].endswith(f"({logs / 'eval-0-seat0-half_line.log'})")


def test_write_and_tail_by_hand(tmp_path: Path) -> None:
    game = (
        EntrantResult(0, "../a b", "cmd", 2, failure="crashed", log="one\n\ntwo\nthree\n"),
        EntrantResult(1, "ok", "cmd", 1),
    )
    paths = write_bot_logs(tmp_path, "seed 5/x", game)
    # Names are made safe for a file name: no folder can be escaped.
    assert [p.name for p in paths] == ["seed_5_x-seat0-a_b.log", "seed_5_x-seat1-ok.log"]
    assert all(p.parent == tmp_path for p in paths)
    assert paths[0].read_text() == "one\n\ntwo\nthree\n"
    assert log_tail("one\n\ntwo\nthree\n", 2) == "two | three"
    assert failure_lines("game 1", game, paths) == [
        f"game 1: ../a b failed: crashed; last lines of its log: one | two | three ({paths[0]})"
    ]
    assert log_tail("x" * 700).startswith("...") and len(log_tail("x" * 700)) == 603


def test_the_generic_eval_keeps_halite_bot_logs_and_anchored_ratings(tmp_path: Path) -> None:
    logs, ratings = tmp_path / "logs", tmp_path / "ratings.json"
    faulty = shlex.join([sys.executable, str(FAULTY), "half_line"])
    args = [
        *MAIN, "eval", "builtin:greedy", faulty, "--game", "halite3", "-W", "32", "-H", "32",
        "--max-turns", "10", "--games", "2", "--bot-logs", str(logs),
        "--anchor", "greedy=1000", "--ratings", str(ratings),
    ]  # fmt: skip
    done = subprocess.run(args, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stderr
    # One seed with both seatings: job eval-1-0 seats greedy first, eval-1-1 the other.
    assert sorted(p.name for p in logs.iterdir()) == [
        "eval-1-0-seat0-greedy.log",
        "eval-1-0-seat1-half_line.log",
        "eval-1-1-seat0-half_line.log",
        "eval-1-1-seat1-greedy.log",
    ]
    assert "ValueError: bad" in (logs / "eval-1-0-seat1-half_line.log").read_text()
    failures = [line for line in done.stderr.splitlines() if " failed: " in line]
    assert len(failures) == 2 and all("half_line failed: killed" in f for f in failures)
    assert all("ValueError: bad" in f for f in failures)
    # Greedy won both games against a bot killed at turn 1: anchored at 1000, the other
    # is rated below it (the prior's draw keeps it finite).
    assert "1000 (anchor)" in done.stdout

    book = json.loads(ratings.read_text())
    assert book["config"]["game"] == "halite3"
    rated = {v["anchor"]: v["rating"] for v in book["ratings"].values()}
    assert rated[True] == 1000.0 and rated[False] < 1000.0


def test_play_keeps_each_bots_log_of_its_game_and_says_why_a_bot_was_killed(
    tmp_path: Path,
) -> None:
    logs = tmp_path / "play logs"
    crashing = shlex.join([sys.executable, str(FAULTY), "half_line", "2"])
    talkative = shlex.join([sys.executable, str(FAULTY), "stderr"])
    done = _halite(
        "play", "-s", "7", "--width", "32", "--height", "32", "--turn-limit", "5",
        "--no-replay", "--bot-logs", str(logs), crashing, talkative, "builtin:greedy",
        "builtin:random", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # One file per bot of the game, named by the game's seed, the seat and the bot's name.
    files = sorted(p.name for p in logs.iterdir())
    assert len(files) == 4 and all(f.startswith("seed-7-seat") for f in files), files
    by_seat = {int(f.split("-seat")[1].split("-")[0]): logs / f for f in files}
    # The killed bot's: the engine's lines on it (the turn, the half line) and its stderr.
    dead = by_seat[0].read_text()
    assert "\nTurn 2\n" in dead and "m 1" in dead, dead
    assert "Traceback: oops" in dead and "ValueError: bad" in dead, dead
    # The bot that lived: its stderr (200 kB written on turn 1), under "Game End".
    alive = by_seat[1].read_text()
    assert "Game End" in alive and "E" * 1000 in alive
    # Built-in bots that wrote nothing have their (empty) file all the same.
    assert by_seat[2].read_text() == by_seat[3].read_text() == ""
    # On stderr, after the engine's own log: the killed bot, why, its last lines, its file.
    failed = [line for line in done.stderr.splitlines() if " failed: " in line]
    assert len(failed) == 1, done.stderr
    assert failed[0].startswith("seed 7: ")
    assert "failed: killed on turn 2: " in failed[0]
    assert "last lines of its log: " in failed[0] and "ValueError: bad" in failed[0]
    assert failed[0].endswith(f"({by_seat[0]})")
    assert f"bot logs: {logs}" in done.stderr
    # Without the flag, no such folder and no such lines: the engine's outputs only.
    plain = _halite("play", "-s", "7", "--width", "32", "--height", "32", "--turn-limit", "5",
                    "--no-replay", crashing, "builtin:greedy", cwd=tmp_path)  # fmt: skip
    assert plain.returncode == 0, plain.stderr
    assert " failed: " not in plain.stderr and "bot logs:" not in plain.stderr


def test_play_with_results_as_json_keeps_the_logs_and_stdout_clean(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    crashing = shlex.join([sys.executable, str(FAULTY), "crash", "2"])
    done = _halite(
        "play", "--results-as-json", "-s", "3", "--width", "32", "--height", "32",
        "--turn-limit", "4", "--no-replay", "--bot-logs", str(logs), "builtin:greedy", crashing,
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)  # stdout is the engine's JSON, nothing else
    assert results["terminated"] == {"1": True}
    assert sorted(p.name for p in logs.iterdir())[0].startswith("seed-3-seat0-")
    (failed,) = [line for line in done.stderr.splitlines() if " failed: " in line]
    assert "failed: killed on turn 2" in failed


@pytest.mark.parametrize("bad", ["file", "empty"])
def test_play_refuses_a_bot_log_folder_it_cannot_use(bad: str, tmp_path: Path) -> None:
    in_the_way = tmp_path / "logs"
    in_the_way.write_text("a file\n")
    folder = str(in_the_way) if bad == "file" else ""
    done = _halite("play", "--width", "32", "--height", "32", "--turn-limit", "2",
                   "--bot-logs", folder, "builtin:greedy", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert ("is a file (expected a directory)" if bad == "file" else "--bot-logs") in lines[0]
    # Refused before any game: no replay was written.
    assert not list(tmp_path.glob("replay-*"))
