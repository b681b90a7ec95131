"""A human game played by keystrokes in chromium: ``snakewar play human random --browser``.

The real command starts its local server and the game; the test opens the game's page,
waits until it asks for the person's move, presses arrow keys and WASD, and reads the
moves back from the stored replay.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from snakewar.games.battlesnake.replay.format import read_replay

if TYPE_CHECKING:
    from playwright.sync_api import Page


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def watching_url(log: Path, process: subprocess.Popen[str]) -> str:
    """The game page's address, once the command prints it."""
    deadline = time.monotonic() + 120
    while True:
        found = re.search(r"watching at (\S+)", log.read_text(errors="replace"))
        if found:
            return found[1]
        assert process.poll() is None, log.read_text(errors="replace")
        assert time.monotonic() < deadline, log.read_text(errors="replace")
        time.sleep(0.1)


def test_a_human_game_is_played_with_the_arrow_keys_and_wasd(page: Page, tmp_path: Path) -> None:
    import httpx
    from playwright.sync_api import expect

    env = {**os.environ, "SNAKEWAR_DATABASE_URL": f"sqlite:///{tmp_path / 'games.db'}"}
    env["BROWSER"] = "true"  # webbrowser runs `true URL`: the test's chromium opens it
    log = tmp_path / "stderr.txt"
    args = ["play", "human", "random", "-r", "5", "--max-turns", "3"]
    args += ["--human-timeout", "120000", "--browser", "--port", str(free_port())]
    with log.open("w") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "snakewar", *args],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    try:
        url = watching_url(log, process)
        page.goto(url)
        status = page.get_by_test_id("human-turn")
        pressed = [("ArrowUp", "up"), ("w", "up"), ("ArrowRight", "right")]
        for turn, (key, _) in enumerate(pressed):
            expect(status).to_contain_text(f"Your move, turn {turn}")
            page.keyboard.press(key)
        expect(status).to_contain_text("The game is over")
        game_id = url.rstrip("/").rsplit("/", 1)[-1]
        base = url.split("/view/")[0]
        replay = httpx.get(f"{base}/api/games/{game_id}/replay", timeout=60)
        assert replay.status_code == 200, replay.text
        page.goto("about:blank")  # the page stops asking before its server goes
    finally:
        process.terminate()  # the command keeps the game viewable until it is stopped
        out, _ = process.communicate(timeout=120)
    assert process.returncode == 0, log.read_text(errors="replace")
    assert "Game completed after 3 turns" in out
    record = read_replay(replay.text.splitlines())
    you = record.snakes[0].id
    assert [turn.calls[you].move for turn in record.turns] == [move for _, move in pressed]
    assert all(turn.calls[you].ok for turn in record.turns)
