"""``snakewar play --launch``: bot servers started, watched and stopped, as real processes.

The snakes are tests/data/battlesnake/launch/snake.py (the standard library's http.server)
and snake.js (Node's http module), started the way their authors would start them.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

from snakewar.cli import main
from snakewar.games.battlesnake.replay.format import read_replay

DATA = Path(__file__).parents[3] / "data" / "battlesnake" / "launch"
PYTHON = f"{shlex.quote(sys.executable)} snake.py --port {{port}}"


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (reaped or not, it is over)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _pids(logs: Path) -> list[int]:
    """Every pid the logs name: each start of each bot, and children the snakes started."""
    pids = []
    for log in sorted(logs.glob("bot-*.log")):
        text = log.read_text()
        pids += [int(p) for p in re.findall(r"^--- snakewar: started .*: pid (\d+)$", text, re.M)]
        pids += [int(p) for p in re.findall(r"^child pid (\d+)$", text, re.M)]
    return pids


def _play(*args: str) -> int:
    return main(["play", "--launch-dir", str(DATA), *args])


def test_a_python_and_a_node_snake_are_launched_play_and_are_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs, replay = tmp_path / "logs", tmp_path / "game.json"
    code = _play(
        "--launch", f"{PYTHON} --child",
        "--launch", "node snake.js",  # no {port}: it reads $PORT
        "--launch-logs", str(logs),
        "-r", "7", "--max-turns", "20", "--replay", str(replay),
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err
    record = read_replay(replay)
    assert [e.name for e in record.snakes] == ["snake.py", "snake.js"]
    assert all(e.source.startswith("http://127.0.0.1:") for e in record.snakes)
    calls = [call for turn in record.turns for call in turn.calls.values()]
    assert len(calls) >= 2 * 5 and all(call.ok for call in calls), calls
    # The logs are where they were said to be, and hold each snake's own output.
    python_log, node_log = logs / "bot-1.log", logs / "bot-2.log"
    assert f"log {python_log}" in captured.err and f"log {node_log}" in captured.err
    assert '"POST /move HTTP/1.1" 200' in python_log.read_text()
    node_text = node_log.read_text()
    assert "node snake listening on port" in node_text and "/end called" in node_text
    assert "--- snakewar: game with seed 7 starts" in node_text
    pids = _pids(logs)
    assert len(pids) == 3  # the two snakes and the Python snake's child
    assert not [pid for pid in pids if _alive(pid)]


def test_a_snake_slow_to_start_still_plays(tmp_path: Path) -> None:
    logs, replay = tmp_path / "logs", tmp_path / "game.json"
    code = _play(
        "--launch", f"{PYTHON} --sleep-before 3", "--launch-logs", str(logs),
        "builtin:greedy", "-r", "3", "--max-turns", "10", "--replay", str(replay),
    )  # fmt: skip
    assert code == 0
    record = read_replay(replay)
    first = record.snakes[0].id
    assert all(turn.calls[first].ok for turn in record.turns if first in turn.calls)
    assert "listening on port" in (logs / "bot-1.log").read_text()
    assert not [pid for pid in _pids(logs) if _alive(pid)]


def test_a_snake_that_never_answers_is_one_error_line_with_its_last_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = tmp_path / "logs"
    command = f"{PYTHON} --never-listen"
    code = _play(
        "--launch", command, "--launch-timeout", "2", "--launch-logs", str(logs), "-r", "1"
    )
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: launched bot 1"), err
    assert repr(command) in err[0]
    assert "did not answer GET / with 200" in err[0]
    assert "loading a model that never finishes loading" in err[0]
    pids = _pids(logs)
    assert len(pids) == 1 and not _alive(pids[0])


def test_a_snake_that_exits_at_once_is_one_error_line_with_its_exit_status(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = _play("--launch", f"{shlex.quote(sys.executable)} snake.py --port notaport")
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "exited with status 2 before answering GET /" in err[0], err
    assert "invalid int value: 'notaport'" in err[0]


def test_a_snake_that_crashes_in_a_batch_is_restarted_and_the_failure_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs, out, flag = tmp_path / "logs", tmp_path / "results.json", tmp_path / "crashed"
    code = _play(
        "--launch", f"{PYTHON} --crash-after 5 --crash-file {flag}",
        "--launch-logs", str(logs), "builtin:greedy",
        "-r", "20", "--games", "3", "--max-turns", "60", "--json", str(out),
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err
    data = json.loads(out.read_text())
    assert data["games"] == 3  # the batch finished
    launch = data["launch"]
    assert launch["bots"][0]["restarts"] == 1 and launch["bots"][0]["given_up"] == ""
    [failure] = launch["failures"]
    assert failure["seed"] == 20 and failure["seat"] == 1
    assert failure["returncode"] == 3 and failure["restarted"] is True
    assert "crashing after 5 moves" in failure["reason"]
    assert "failed: game with seed 20: bot 1" in captured.out
    pids = _pids(logs)
    assert len(pids) == 2  # started, restarted
    assert not [pid for pid in pids if _alive(pid)]


def test_a_snake_that_crashes_in_a_single_game_is_reported_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, flag = tmp_path / "result.json", tmp_path / "crashed"
    code = _play(
        "--launch", f"{PYTHON} --crash-after 3 --crash-file {flag}", "builtin:greedy",
        "-r", "9", "--max-turns", "40", "--no-live", "--json", str(out),
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out.count("failed: bot 1") == 1, captured.out
    [failure] = json.loads(out.read_text())["launch"]["failures"]
    assert failure["seed"] == 9 and failure["returncode"] == 3 and failure["restarted"]


def test_a_snake_that_keeps_crashing_stops_the_batch_after_two_restarts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs, out = tmp_path / "logs", tmp_path / "results.json"
    code = _play(
        "--launch", f"{PYTHON} --crash-after 5", "--launch-logs", str(logs),
        "-r", "30", "--games", "6", "--max-turns", "60", "--json", str(out),
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == 1
    data = json.loads(out.read_text())
    bot = data["launch"]["bots"][0]
    assert bot["restarts"] == 2 and "after 2 restarts" in bot["given_up"]
    failures = data["launch"]["failures"]
    assert len(failures) == 3
    assert [f["restarted"] for f in failures] == [True, True, False]
    assert data["games"] < 6
    assert "is down for good" in captured.out and "the batch stopped after" in captured.out
    pids = _pids(logs)
    assert len(pids) == 3
    assert not [pid for pid in pids if _alive(pid)]


def test_launched_snakes_play_a_batch_on_worker_processes(tmp_path: Path) -> None:
    logs, out = tmp_path / "logs", tmp_path / "results.json"
    code = _play(
        "--launch", "node snake.js --port {port}", "--launch", PYTHON,
        "--launch-logs", str(logs), "-n", "js", "-n", "py",
        "-r", "40", "--games", "4", "--workers", "2", "--max-turns", "30", "--json", str(out),
    )  # fmt: skip
    assert code == 0
    data = json.loads(out.read_text())
    assert data["games"] == 4 and data["launch"]["failures"] == []
    assert [seat["name"] for seat in data["seats"]] == ["js", "py"]
    assert all(seat["failures"] == {} for seat in data["seats"]), data["seats"]
    assert not [pid for pid in _pids(logs) if _alive(pid)]


def test_a_crash_in_a_batch_on_worker_processes_is_restarted_and_recorded(
    tmp_path: Path,
) -> None:
    logs, out, flag = tmp_path / "logs", tmp_path / "results.json", tmp_path / "crashed"
    code = _play(
        "--launch", f"{PYTHON} --crash-after 30 --crash-file {flag}", "builtin:greedy",
        "--launch-logs", str(logs), "-r", "100", "--games", "6", "--workers", "2",
        "--max-turns", "80", "--json", str(out),
    )  # fmt: skip
    assert code == 0
    data = json.loads(out.read_text())
    # Every game is played (one that found the bot restarting is played again).
    assert data["games"] == 6
    assert data["launch"]["bots"][0]["restarts"] == 1
    [failure] = data["launch"]["failures"]
    assert failure["restarted"] and failure["returncode"] == 3
    assert 100 <= failure["seed"] < 106  # the games run at once: one of them
    assert not [pid for pid in _pids(logs) if _alive(pid)]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--launch", "python3 main.py && rm -rf x"], "'&&' needs a shell"),
        (["--launch", "python3 'main.py"], "No closing quotation"),
        (["--launch", ""], "bot command is empty"),
        (["--launch", "x", "--launch-timeout", "0"], "'--launch-timeout': 0: expected seconds"),
        (["--launch", "x", "--launch-dir", "/nonexistent/dir"], "is not a directory"),
        (["--launch-logs", "logs", "builtin:greedy"], "add --launch"),
        (["--launch", "x", "--games", "2", "--ray-address", "auto"], "cannot reach"),
        (["--launch", "no-such-program-here {port}"], "cannot run 'no-such-program-here'"),
    ],
)
def test_bad_launch_input_is_one_clear_line(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and needle in err[0], err
