"""Env-steps per second of :class:`~snakewar.games.battlesnake.rl.SimVectorEnv`.

Per-game vs batched observations.

For each number of envs and each randomness mode, two envs with the same seed
step side by side: one encodes the observations per game through ``BoardState``
(``batched_obs=False``), the other straight from the simulator's arrays (the
default).  They alternate in short rounds so that both see the same machine
load; the actions are masked random moves drawn in one vectorised call.  Prints
env-steps/s (envs x steps / second) of both, the speed-up, and the load average
before and after.

    python3 benchmarks/rl_vector_env.py
    python3 benchmarks/rl_vector_env.py --envs 64 --seconds 5 --randomness fast

Each step returns a fresh observation array (1.6 MB at 256 envs), and with
glibc's default thresholds it is often new pages from the kernel: some 250 to 360
page faults per step at 256 envs, 20 to 35% of a batched step in one measurement.
Both paths pay it; ``MALLOC_TRIM_THRESHOLD_`` and ``MALLOC_MMAP_THRESHOLD_`` set
to 268435456 show the rates without it.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from snakewar.games.battlesnake.rl import SimVectorEnv


def load() -> str:
    """The 1, 5 and 15 minute load averages (Linux), or a dash elsewhere."""
    path = Path("/proc/loadavg")
    return " ".join(path.read_text().split()[:3]) if path.exists() else "-"


class Runner:
    """One env and its actions, stepped for a given time."""

    def __init__(self, envs: int, snakes: int, randomness: str, batched: bool) -> None:
        self.env = SimVectorEnv(envs, num_snakes=snakes, randomness=randomness, batched_obs=batched)
        _, info = self.env.reset(seed=1)
        self.mask: Any = info["action_mask"]
        self.rng = np.random.default_rng(2)
        self.steps = 0
        self.seconds = 0.0

    def run(self, seconds: float) -> None:
        env, rng = self.env, self.rng
        started = time.perf_counter()
        end = started + seconds
        while True:
            actions = (rng.random(self.mask.shape) + self.mask).argmax(axis=1)
            _, _, _, _, info = env.step(actions)
            self.mask = info["action_mask"]
            self.steps += 1
            now = time.perf_counter()
            if now >= end:
                break
        self.seconds += now - started

    def rate(self) -> float:
        return self.steps * self.env.num_envs / self.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", type=int, nargs="+", default=[16, 64, 256])
    parser.add_argument("--randomness", nargs="+", default=["go", "fast"])
    parser.add_argument("--snakes", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0, help="per path and setting")
    parser.add_argument("--rounds", type=int, default=6, help="alternations per setting")
    args = parser.parse_args()
    print(f"SimVectorEnv, 11x11 standard, {args.snakes} snakes; load before: {load()}")
    print(
        f"{'envs':>5} {'randomness':>10} {'per-game obs':>14} {'batched obs':>13} {'speed-up':>9}"
    )
    for randomness in args.randomness:
        for envs in args.envs:
            old = Runner(envs, args.snakes, randomness, batched=False)
            new = Runner(envs, args.snakes, randomness, batched=True)
            for runner in (old, new):  # warm-up, not counted
                runner.run(0.2)
                runner.steps, runner.seconds = 0, 0.0
            for _ in range(args.rounds):
                old.run(args.seconds / args.rounds)
                new.run(args.seconds / args.rounds)
            print(
                f"{envs:>5} {randomness:>10} {old.rate():>14,.0f} {new.rate():>13,.0f} "
                f"{new.rate() / old.rate():>8.1f}x"
            )
    print(f"load after: {load()}")


if __name__ == "__main__":
    main()
