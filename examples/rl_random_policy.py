"""Evaluate a masked-random policy in Snakewar's Gymnasium environment.

Run: ``python examples/rl_random_policy.py --episodes 20 --opponents greedy``.
Needs the ``rl`` extra: ``pip install "snakewar[rl]"``.
"""

from __future__ import annotations

import argparse

import numpy as np

from snakewar.games.battlesnake.rl import BattlesnakeEnv


def main(argv: list[str] | None = None) -> None:
    """Play ``--episodes`` games and print the mean reward and length."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--opponents", default="random", help="a built-in bot spec")
    parser.add_argument("--snakes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    env = BattlesnakeEnv(opponents=args.opponents, num_snakes=args.snakes)
    rng = np.random.default_rng(args.seed)
    rewards, lengths = [], []
    for episode in range(args.episodes):
        _obs, info = env.reset(seed=args.seed + episode)
        total, done = 0.0, False
        while not done:
            # Masked random: a uniform choice among the moves that are not certainly fatal.
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _obs, reward, terminated, truncated, info = env.step(action)
            total += float(reward)
            done = terminated or truncated
        rewards.append(total)
        lengths.append(info["turn"])
    print(
        f"episodes {args.episodes}: mean reward {np.mean(rewards):+.3f}, "
        f"mean length {np.mean(lengths):.1f} turns"
    )


if __name__ == "__main__":
    main()
