"""``snakewar play human ...`` in a terminal: a real process on a pseudo-terminal, keys typed.

The process gets a pty as its terminal (stdin, stdout and stderr), so it reads the keys
in cbreak mode as it would from a person; the test types arrow keys and WASD, one a
turn, and reads the moves back from the replay.  The terminal's settings are checked
after the process ends: restored, by the end of the game and by Ctrl-C.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path

from snakewar.games.battlesnake import Settings, setup_board
from snakewar.games.battlesnake.records import derive_ids
from snakewar.games.battlesnake.replay.format import read_replay
from tests.test_cli_bad_input import assert_one_error_line, run

SEED = 5


def env(home: Path) -> dict[str, str]:
    return {
        "PYTHONIOENCODING": "utf-8",
        "COLUMNS": "120",
        "LINES": "50",
        "TERM": "xterm",
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        **{k: os.environ[k] for k in ("PYTHONPATH", "SNAKEWAR_PURE") if k in os.environ},
    }


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Terminal:
    """A process on a pty, its output read as it comes."""

    def __init__(self, args: list[str], home: Path) -> None:
        self.master, self.slave = os.openpty()
        self.saved = termios.tcgetattr(self.slave)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "snakewar", *args],
            stdin=self.slave,
            stdout=self.slave,
            stderr=self.slave,
            cwd=home,
            env=env(home),
            start_new_session=True,
            # As a shell starts a foreground job: Ctrl-C's SIGINT not ignored.  (A test
            # runner's worker may ignore it, and an ignored signal stays ignored in
            # children: Python then installs no KeyboardInterrupt handler.)
            preexec_fn=_default_sigint,
        )
        self.output = b""

    def wait_for(self, text: str, timeout: float = 120) -> None:
        """Read until ``text`` appears in the output (counted from the start)."""
        deadline = time.monotonic() + timeout
        while text.encode() not in self.output:
            assert time.monotonic() < deadline, (text, self.output.decode(errors="replace"))
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    self.output += os.read(self.master, 65536)
                except OSError:  # the process is gone and its terminal with it
                    assert text.encode() in self.output, self.output.decode(errors="replace")

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def finish(self, timeout: float = 120) -> int:
        deadline = time.monotonic() + timeout
        while self.process.poll() is None:
            assert time.monotonic() < deadline, self.output.decode(errors="replace")
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                with contextlib.suppress(OSError):  # the process is gone, its terminal too
                    self.output += os.read(self.master, 65536)
        return self.process.returncode

    def restored(self) -> bool:
        """Whether the terminal's settings are back as they were before the process."""
        now = termios.tcgetattr(self.slave)
        lflag = 3
        return bool(
            now[lflag] & termios.ECHO
            and now[lflag] & termios.ICANON
            and now[lflag] == self.saved[lflag]
        )

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(30)
        os.close(self.master)
        os.close(self.slave)


def test_arrow_keys_and_wasd_move_the_human_snake(tmp_path: Path) -> None:
    # Where the person's snake starts (the first seat): the keys steer it clear of walls.
    _, ids = derive_ids(SEED, 2)
    start = setup_board("standard", Settings.defaults(seed=SEED), 11, 11, ids).snakes[0].body[0]
    assert (start.x, start.y) == (1, 1)
    replay = tmp_path / "game.jsonl"
    args = ["play", "human", "random", "-r", str(SEED), "--max-turns", "4"]
    args += ["--human-timeout", "120000", "--replay", str(replay)]
    terminal = Terminal(args, tmp_path)
    try:
        terminal.wait_for("arrow keys or WASD")
        terminal.wait_for("turn 0")
        typed = [(b"\x1b[A", "up"), (b"w", "up"), (b"\x1b[C", "right"), (b"D", "right")]
        for turn, (keys, _) in enumerate(typed, start=1):
            terminal.type(keys)
            terminal.wait_for(f"turn {turn}")  # one key a turn: the board moved on
        assert terminal.finish() == 0, terminal.output.decode(errors="replace")
        assert terminal.restored()
    finally:
        terminal.close()
    record = read_replay(replay)
    you = record.snakes[0]
    assert you.source == "human" and you.name == "you-1"
    assert [turn.calls[you.id].move for turn in record.turns] == [move for _, move in typed]
    assert all(turn.calls[you.id].ok for turn in record.turns)
    head = record.turns[-1].after.snake(you.id).body[0]
    assert (head.x, head.y) == (3, 3)


def test_ctrl_c_restores_the_terminal(tmp_path: Path) -> None:
    args = ["play", "human", "random", "-r", str(SEED), "--human-timeout", "120000"]
    terminal = Terminal(args, tmp_path)
    try:
        terminal.wait_for("turn 0")
        os.killpg(terminal.process.pid, signal.SIGINT)  # what Ctrl-C sends the foreground
        assert terminal.finish() != 0
        assert terminal.restored()
        assert b"Traceback" not in terminal.output
    finally:
        terminal.close()


def test_a_key_not_pressed_in_time_replays_the_last_move(tmp_path: Path) -> None:
    replay = tmp_path / "game.jsonl"
    args = ["play", "human", "random", "-r", str(SEED), "--max-turns", "2"]
    args += ["--human-timeout", "300", "--replay", str(replay)]
    terminal = Terminal(args, tmp_path)
    try:
        assert terminal.finish() == 0, terminal.output.decode(errors="replace")
    finally:
        terminal.close()
    record = read_replay(replay)
    you = record.snakes[0].id
    calls = [turn.calls[you] for turn in record.turns]
    assert [call.status for call in calls] == ["timeout", "timeout"]
    assert [call.move for call in calls] == ["up", "up"]  # the default first move, again
    assert "no key pressed within 300 ms" in calls[0].error


def test_human_without_a_terminal_is_one_error_line(tmp_path: Path) -> None:
    done = run("play", "human", "random", home=tmp_path)
    assert_one_error_line(done, "human", "terminal", "--browser")
