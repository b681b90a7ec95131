"""How long a Halite III map takes to make: CPU milliseconds per map, by size and players.

Each map is made ``--runs`` times (after one map made first: what runs once per process
is not the point) and the median CPU time of this thread is printed; CPU time, which a
busy machine stretches much less than the wall clock.  The official engine makes a
64x64 map in about a millisecond; a test used to assert it here, and a machine kept busy
by a CPU hog made it fail, so the figure lives here.

    python3 benchmarks/halite_mapgen.py [--runs 21]
"""

from __future__ import annotations

import argparse
import statistics
import time

from snakewar.games.halite3.rules.mapgen import generate_map


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="maps made per row")
    args = parser.parse_args()
    generate_map(1, 32, 32, 2)
    print(f"{'size':>7} {'players':>7} {'cpu ms (median)':>16} {'max':>8}")
    for size in (32, 40, 48, 56, 64):
        for players in (2, 4):
            times = []
            for seed in range(1, args.runs + 1):
                start = time.thread_time()
                generate_map(seed, size, size, players)
                times.append((time.thread_time() - start) * 1000)
            print(
                f"{size}x{size:<4} {players:>7} {statistics.median(times):>16.2f} "
                f"{max(times):>8.2f}"
            )


if __name__ == "__main__":
    main()
