"""Launched bot servers (:mod:`snakewar.referee.launch`), as real processes."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from snakewar.referee.launch import Crash, Launcher, LaunchError, LaunchSpec

DATA = Path(__file__).parents[1] / "data" / "battlesnake" / "launch"
PYTHON = f"{shlex.quote(sys.executable)} snake.py --port {{port}}"


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait_for(condition: object, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _spec(command: str, **kwargs: object) -> LaunchSpec:
    return LaunchSpec(command, cwd=str(DATA), **kwargs)  # type: ignore[arg-type]


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


def test_a_bot_that_ignores_sigterm_is_killed_after_the_grace(tmp_path: Path) -> None:
    log = str(tmp_path / "bot.log")
    launcher = Launcher([_spec(f"{PYTHON} --ignore-term --child", grace=1.0, log_path=log)])
    with launcher:
        bot = launcher.bots[0]
        with urllib.request.urlopen(bot.url, timeout=30) as reply:
            assert reply.status == 200
        pid = bot.pid
        assert pid is not None and _alive(pid)
        child = int(bot.log_path.read_text().split("child pid ")[1].split()[0])
        assert _alive(child)
    assert not _alive(pid) and not _alive(child)
    assert "stopped bot 1" in bot.log_path.read_text()


def test_when_one_bot_cannot_start_those_started_are_stopped(tmp_path: Path) -> None:
    launcher = Launcher(
        [
            _spec(PYTHON, log_path=str(tmp_path / "1.log")),
            _spec(f"{PYTHON} --never-listen", ready_timeout=1.0, log_path=str(tmp_path / "2.log")),
        ]
    )
    with pytest.raises(LaunchError, match=r"launched bot 2 .* did not answer GET /") as caught:
        launcher.__enter__()
    assert "never finishes loading" in str(caught.value)
    assert f"(log: {tmp_path / '2.log'})" in str(caught.value)
    pids = [pid for bot in launcher.bots for pid in bot.pids]
    assert len(pids) == 2 and not [pid for pid in pids if _alive(pid)]
    launcher.__exit__(None, None, None)  # restores the SIGTERM handler


def test_the_watcher_restarts_a_killed_bot_on_the_same_port_then_gives_up() -> None:
    crashes: list[Crash] = []

    def crashed(count: int) -> bool:
        crashes.extend(launcher.take_crashes())
        return len(crashes) == count

    with Launcher([_spec(PYTHON, max_restarts=1)], watch_every=0.1) as launcher:
        bot = launcher.bots[0]
        port, first = bot.port, bot.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        _wait_for(lambda: crashed(1), "the restart")
        assert crashes[0].restarted and crashes[0].returncode == -signal.SIGKILL
        assert _answers(bot.url)
        assert bot.port == port and bot.pid != first and bot.restarts == 1
        assert "was killed by SIGKILL" in bot.log_path.read_text()
        second = bot.pid
        assert second is not None
        os.kill(second, signal.SIGKILL)
        _wait_for(lambda: crashed(2), "giving up")
        assert not crashes[1].restarted and "after 1 restarts (at most 1)" in crashes[1].reason
        assert launcher.given_up() == [bot]
    assert len(bot.pids) == 2 and not [pid for pid in bot.pids if _alive(pid)]


def test_sigterm_to_play_stops_its_launched_bots(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    play = subprocess.Popen(
        [
            sys.executable, "-m", "snakewar", "play", "--launch", f"{PYTHON} --child",
            "--launch-dir", str(DATA), "--launch-logs", str(logs),
            "-d", "200", "--max-turns", "100000", "--no-live", "-r", "1",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    log = logs / "bot-1.log"
    try:
        _wait_for(lambda: log.exists() and "game with seed 1 starts" in log.read_text(), "game")
    finally:
        play.send_signal(signal.SIGTERM)
        assert play.wait(120) == 128 + signal.SIGTERM
    text = log.read_text()
    pid = int(text.split(": pid ")[1].split()[0])
    child = int(text.split("child pid ")[1].split()[0])
    assert not _alive(pid) and not _alive(child)
    assert "stopped bot 1" in text
