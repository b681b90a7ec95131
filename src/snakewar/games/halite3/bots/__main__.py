"""``python -m snakewar.games.halite3.bots NAME [--seed N]``: a built-in bot on stdin/stdout.

This is what ``builtin:NAME`` subprocess bots run.  Bad arguments print one
``error:`` line and exit with status 2.
"""

from __future__ import annotations

import argparse
import sys

from snakewar.errors import SnakewarError
from snakewar.games.halite3.bots import halite_bot_names, make_halite_bot, run_stdio


def main(argv: list[str] | None = None) -> int:
    """Run the named bot over the official protocol; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m snakewar.games.halite3.bots",
        description=f"Run a built-in Halite III bot on stdio ({', '.join(halite_bot_names())}).",
    )
    parser.add_argument("bot", help="bot name, with options: greedy?return_at=800")
    parser.add_argument("--seed", type=int, default=0, help="the bot's random seed")
    args = parser.parse_args(argv)
    try:
        bot = make_halite_bot(args.bot, seed=args.seed)
    except SnakewarError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        return run_stdio(bot)
    except (BrokenPipeError, KeyboardInterrupt):
        # The engine kills or closes bots when the game ends: not an error.
        return 0


if __name__ == "__main__":
    sys.exit(main())
