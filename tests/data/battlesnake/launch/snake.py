"""A tiny API v1 Battlesnake on the standard library's http.server, for launch tests.

Run it as a bot author would: ``python snake.py --port 8000`` (or with ``PORT`` set).
It steps to a free neighbouring square if it can.  Test knobs: ``--sleep-before S``
(slow to start), ``--never-listen`` (never answers), ``--crash-after N`` (exits with
status 3 after N moves; with ``--crash-file F``, only if F does not exist yet, which it
then creates: one crash per test), ``--child`` (starts a sleeping child process and
prints its pid, to check that stopping the bot stops its children), ``--ignore-term``
(ignores SIGTERM, to check that stopping ends with SIGKILL), ``$SNAKE_NOTE`` (printed at
the start: a config file's environment reached it), ``--move-sleep S`` (each
``/move`` takes S seconds and the bot logs ``moves in flight N``: how many ``/move``
calls it was answering at once, to check a limit on concurrent games).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MOVES = {"up": (0, 1), "down": (0, -1), "left": (-1, 0), "right": (1, 0)}


def choose(game: dict[str, Any]) -> str:
    """A move to a square inside the board and off every body, if there is one."""
    board = game["board"]
    head = game["you"]["head"]
    taken = {(p["x"], p["y"]) for s in board["snakes"] for p in s["body"][:-1]}
    for move, (dx, dy) in MOVES.items():
        x, y = head["x"] + dx, head["y"] + dy
        if 0 <= x < board["width"] and 0 <= y < board["height"] and (x, y) not in taken:
            return move
    return "up"


class Handler(BaseHTTPRequestHandler):
    moves = 0
    crash_after = 0
    crash_file = ""
    move_sleep = 0.0
    in_flight = 0
    lock = threading.Lock()

    def _reply(self, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._reply({"apiversion": "1", "author": "tests", "color": "#3366cc"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        game = json.loads(self.rfile.read(length) or b"{}")
        if self.path == "/move":
            cls = type(self)
            cls.moves += 1
            if (
                cls.crash_after
                and cls.moves >= cls.crash_after
                and not os.path.exists(cls.crash_file or "/nonexistent/")
            ):
                if cls.crash_file:
                    open(cls.crash_file, "w").close()
                print(f"crashing after {cls.moves} moves", flush=True)
                os._exit(3)
            if cls.move_sleep:
                with cls.lock:
                    cls.in_flight += 1
                    print(f"moves in flight {cls.in_flight}", flush=True)
                time.sleep(cls.move_sleep)
                with cls.lock:
                    cls.in_flight -= 1
            self._reply({"move": choose(game), "shout": ""})
        else:
            self._reply({})

    def log_message(self, format: str, *args: Any) -> None:
        print(format % args, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--sleep-before", type=float, default=0.0)
    parser.add_argument("--never-listen", action="store_true")
    parser.add_argument("--crash-after", type=int, default=0)
    parser.add_argument("--crash-file", default="")
    parser.add_argument("--child", action="store_true")
    parser.add_argument("--ignore-term", action="store_true")
    parser.add_argument("--move-sleep", type=float, default=0.0)
    args = parser.parse_args()
    if args.ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    print(f"python snake starting on port {args.port}", flush=True)
    if os.environ.get("SNAKE_NOTE"):
        # Shows that a config file's env reached the bot.
        print(f"note: {os.environ['SNAKE_NOTE']}", flush=True)
    if args.child:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        print(f"child pid {child.pid}", flush=True)
    if args.never_listen:
        print("loading a model that never finishes loading", flush=True)
        time.sleep(600)
    time.sleep(args.sleep_before)
    Handler.crash_after = args.crash_after
    Handler.crash_file = args.crash_file
    Handler.move_sleep = args.move_sleep
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"listening on port {args.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
