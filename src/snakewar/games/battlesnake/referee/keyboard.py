"""A person's keys from the terminal: arrow keys and WASD, read in cbreak mode.

``snakewar play human hunter`` reads the keys of its terminal while the live board
shows the game.  The terminal is put in cbreak mode (keys arrive one by one, without
echo) rather than raw mode: Ctrl-C still interrupts, and the terminal's settings are
restored on the way out whatever ends the game.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
from collections.abc import Iterator

from snakewar.games.battlesnake.referee.human import HumanMoves

__all__ = ["KEYS", "parse_keys", "terminal_keys"]

KEYS: dict[bytes, str] = {
    b"\x1b[A": "up",
    b"\x1b[B": "down",
    b"\x1b[C": "right",
    b"\x1b[D": "left",
    # The same keys in the terminal's application mode.
    b"\x1bOA": "up",
    b"\x1bOB": "down",
    b"\x1bOC": "right",
    b"\x1bOD": "left",
    b"w": "up",
    b"a": "left",
    b"s": "down",
    b"d": "right",
    b"W": "up",
    b"A": "left",
    b"S": "down",
    b"D": "right",
}
"""Each key's bytes and the move it sends."""


def parse_keys(data: bytes) -> list[str]:
    r"""The moves in what the terminal sent; other keys are skipped.

    >>> parse_keys(b"\x1b[Dxw\x1bOB")
    ['left', 'up', 'down']
    """
    moves: list[str] = []
    i = 0
    while i < len(data):
        for size in (3, 1):
            move = KEYS.get(data[i : i + size])
            if move is not None:
                moves.append(move)
                i += size
                break
        else:
            i += 1
    return moves


@contextlib.contextmanager
def terminal_keys(moves: HumanMoves, fd: int) -> Iterator[None]:
    """Send the keys typed on the terminal ``fd`` to ``moves`` while the block runs.

    The terminal's settings are restored when the block ends, by an exception too
    (Ctrl-C's ``KeyboardInterrupt``).
    """
    import termios
    import tty

    saved = termios.tcgetattr(fd)
    stop_read, stop_write = os.pipe()

    def read() -> None:
        pending = b""  # an arrow key's bytes split across two reads
        while True:
            ready, _, _ = select.select([fd, stop_read], [], [])
            if stop_read in ready:
                return
            try:
                data = os.read(fd, 64)
            except OSError:
                return
            if not data:
                return
            data = pending + data
            cut = data.rfind(b"\x1b")
            pending = data[cut:] if cut >= 0 and len(data) - cut < 3 else b""
            for move in parse_keys(data[: len(data) - len(pending)]):
                moves.push(move)

    reader = threading.Thread(target=read, name="snakewar-keys", daemon=True)
    try:
        tty.setcbreak(fd, termios.TCSANOW)
        reader.start()
        yield
    finally:
        os.write(stop_write, b"x")
        if reader.is_alive():
            reader.join(5)
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        os.close(stop_read)
        os.close(stop_write)
