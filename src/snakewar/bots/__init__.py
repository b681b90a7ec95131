"""Built-in bots that play in-process (no HTTP)."""

from snakewar.bots.random_safe import RandomSafeBot, random_safe_moves, safe_moves

__all__ = ["RandomSafeBot", "random_safe_moves", "safe_moves"]
