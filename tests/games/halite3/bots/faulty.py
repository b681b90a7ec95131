"""A Halite III test bot that misbehaves on purpose (standard library only).

Usage: ``python faulty.py MODE [TURN]``.  It parses the official protocol itself and,
when it behaves, sends no commands.  Modes:

- ``idle``: behaves every turn.
- ``timeout``: sleeps 30 s on turn TURN (default 3) instead of answering.
- ``crash``: exits on turn TURN (default 2) without answering.
- ``half_line``: on turn TURN (default 1) writes ``m 1`` with no newline and two lines on
  stderr, then exits.
- ``garbage``: answers ``x 1 2`` on turn TURN (default 1).
- ``two_lines``: answers ``g`` twice on turn 1 (one line ahead from then on).
- ``stderr``: writes 200 kB to stderr on turn TURN (default 1), then behaves.
- ``no_name``: reads the init and never answers its name.
- ``spawn_child``: starts a long ``sleep`` child (same process group), then behaves.
"""

import subprocess
import sys
import time


def read_line() -> str:
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return line


def read_init() -> int:
    read_line()  # constants JSON
    num_players, _my_id = map(int, read_line().split())
    for _ in range(num_players):
        read_line()
    _width, height = map(int, read_line().split())
    for _ in range(height):
        read_line()
    return num_players


def read_frame(num_players: int) -> int:
    turn = int(read_line())
    for _ in range(num_players):
        _pid, ships, dropoffs, _halite = map(int, read_line().split())
        for _ in range(ships + dropoffs):
            read_line()
    for _ in range(int(read_line())):
        read_line()
    return turn


def send(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def main() -> None:
    mode = sys.argv[1]
    when = int(sys.argv[2]) if len(sys.argv) > 2 else {"timeout": 3, "crash": 2}.get(mode, 1)
    num_players = read_init()
    if mode == "no_name":
        time.sleep(60)
        return
    if mode == "spawn_child":
        subprocess.Popen(["sleep", "60"])
    send(f"faulty-{mode}\r\n")
    while True:
        turn = read_frame(num_players)
        if turn == when and mode == "timeout":
            time.sleep(30)
        elif turn == when and mode == "crash":
            sys.exit(3)
        elif turn == when and mode == "half_line":
            send("m 1")
            sys.stderr.write("Traceback: oops\nValueError: bad\n")
            sys.stderr.flush()
            sys.exit(2)
        elif turn == when and mode == "garbage":
            send("x 1 2\n")
        elif turn == 1 and mode == "two_lines":
            send("g\ng\n")
        elif turn == when and mode == "stderr":
            sys.stderr.write("E" * 200_000)
            sys.stderr.flush()
            send("\n")
        elif mode == "two_lines":
            # Already one line ahead: answering keeps the queue one line deep.
            send("\n")
        else:
            send("\n")


if __name__ == "__main__":
    main()
