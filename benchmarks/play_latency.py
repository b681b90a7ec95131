"""A fast HTTP snake's latency beside a built-in bot that thinks hard, as ``snakewar play``
measures it: with the bot in a worker process (the default) and in the referee's process.

Serves the built-in random bot over HTTP from another process (``snakewar bot serve``,
it answers in about a millisecond) and plays it against ``hunter?budget=B`` (B ms of
thinking a move) for T turns, once each way, in this process.  Prints the fast snake's
p50/p90/max latency, the hunter's thinking time, and the CPU the referee's process used.

This is a figure for a quiet machine (on a busy one every latency grows);
``tests/games/battlesnake/referee/test_play_parity.py`` proves the cause (the thinking
happens in workers) with CPU time, which load does not stretch.

    python3 benchmarks/play_latency.py [--budget 150] [--turns 20] [--seed 2]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from snakewar.cli import main
from snakewar.cli.bench import free_port as _free_port


def cpu_seconds() -> float:
    """CPU time of this process (the referee's) so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def play(url: str, hunter: str, turns: int, seed: int, in_process: bool) -> dict[str, float]:
    """One game; the fast snake's latency figures and the referee's CPU."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "summary.json"
        args = ["play", url, hunter, "-r", str(seed), "--no-live", "--max-turns", str(turns)]
        args += ["--json", str(out)] + (["--bots-in-process"] if in_process else [])
        before = cpu_seconds()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = main(args)
        referee = cpu_seconds() - before
        if code != 0:
            raise SystemExit(f"snakewar play exited {code}")
        fast, thinker = json.loads(out.read_text())["snakes"]
    latencies = sorted(fast["latencies"])
    return {
        "moves": len(latencies),
        "p50": statistics.median(latencies),
        "p90": latencies[int(0.9 * (len(latencies) - 1))],
        "max": latencies[-1],
        "thinking": sum(thinker["latencies"]) / 1000,
        "referee": referee,
    }


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=int, default=150, help="the hunter's ms a move")
    parser.add_argument("--turns", type=int, default=20, help="turns a game")
    parser.add_argument("--seed", type=int, default=2)
    options = parser.parse_args()
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "snakewar", "bot", "serve", "random", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(url, timeout=2)
                break
            except httpx.TransportError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("the snake server did not start") from None
                time.sleep(0.05)
        hunter = f"hunter?budget={options.budget}"
        play(url, "random", 3, options.seed, in_process=False)  # warm up: imports, first pool
        for label, in_process in (("hunter in a worker", False), ("hunter in-process", True)):
            row = play(url, hunter, options.turns, options.seed, in_process)
            print(
                f"{label:<20} fast snake p50 {row['p50']:.0f} ms, p90 {row['p90']:.0f} ms, "
                f"max {row['max']:.0f} ms over {row['moves']:.0f} moves; "
                f"hunter thought {row['thinking']:.2f} s; referee CPU {row['referee']:.2f} s"
            )
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main_()
