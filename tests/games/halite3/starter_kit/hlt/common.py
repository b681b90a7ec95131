"""Reading the engine's input."""

import sys


def read_input() -> str:
    """The next line from the engine; the bot exits when the engine closes the pipe."""
    line = sys.stdin.readline()
    if not line:
        raise SystemExit(0)
    return line.rstrip("\n")


def read_ints() -> list[int]:
    """The next line's integers."""
    return [int(v) for v in read_input().split()]
