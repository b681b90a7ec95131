"""How long ``snakewar`` takes to start: wall and CPU time of commands that do no work.

Runs each command ``--runs`` times as a fresh ``python -m snakewar`` process and prints the
median wall time and the median CPU time (user + system, the child's own) of each.  The
first rows are the floor under every command: a bare interpreter, ``import typer`` and
``import snakewar``.  Give ``--src`` once per checkout to compare them in the same run
(e.g. the old code and the new, on the same machine at the same load):

    python3 benchmarks/cli_startup.py --runs 15
    python3 benchmarks/cli_startup.py --src /work/main/src --src src --runs 15
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS: tuple[tuple[str, ...], ...] = (
    ("--version",),
    ("--help",),
    ("play", "--help"),
    ("halite", "play", "--help"),
    # A game up to its start: the command line read, the engine and the referee imported,
    # the map made, the bot started (one that exits at once: the game ends on turn 1).
    ("halite", "play", "--turn-limit", "1", "--no-replay", "-s", "1", "/bin/true"),
    ("serve", "--help"),
)
"""The ``snakewar`` commands measured (none of them plays or serves anything)."""

FLOORS: tuple[tuple[str, str], ...] = (
    ("python -c pass", "pass"),
    ("import typer", "import typer"),
    ("import snakewar", "import snakewar"),
)
"""What every command pays before it does anything: the interpreter, typer, the package."""


def measure(argv: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``argv`` run ``runs`` times (after one warm-up run).

    Each runs in a scratch folder: a game writes its error logs where it runs.
    """
    walls: list[float] = []
    cpus: list[float] = []
    for attempt in range(runs + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as scratch:
            done = subprocess.run(argv, env=env, capture_output=True, check=False, cwd=scratch)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            sys.exit(f"{' '.join(argv)}: exit status {done.returncode}\n{done.stderr.decode()}")
        if attempt == 0:
            continue  # the first run fills the page cache and writes .pyc files
        walls.append(wall)
        cpus.append(
            (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        )
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11, help="runs per command (median)")
    parser.add_argument(
        "--src",
        action="append",
        help="a checkout's src folder (repeat to compare); default: this checkout's",
    )
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs: expected at least 1")
    sources = args.src or [str(Path(__file__).resolve().parents[1] / "src")]
    print(f"python {sys.version.split()[0]}, {args.runs} runs each, median seconds")
    print(f"{'command':52} {'source':28} {'wall':>7} {'cpu':>7}")
    for src in sources:
        env = {**os.environ, "PYTHONPATH": str(Path(src).resolve())}
        # Each command's warm-up run writes the .pyc files, as an install has them.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        rows = [(label, [sys.executable, "-c", code]) for label, code in FLOORS]
        rows += [
            (f"snakewar {' '.join(command)}", [sys.executable, "-m", "snakewar", *command])
            for command in COMMANDS
        ]
        for label, argv in rows:
            wall, cpu = measure(argv, env, args.runs)
            print(f"{label:52} {src[-28:]:28} {wall:7.3f} {cpu:7.3f}", flush=True)


if __name__ == "__main__":
    main()
