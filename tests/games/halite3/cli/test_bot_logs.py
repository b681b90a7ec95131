"""``snakewar halite eval --bot-logs DIR``: one log per bot per game, the tail on failure."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from snakewar.arena.botlogs import failure_lines, log_tail, write_bot_logs
from snakewar.engine.protocol import EntrantResult
from tests.games.halite3.oracle import MAIN

FAULTY = Path(__file__).parents[1] / "bots" / "faulty.py"


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
