"""The ``random`` built-in bot: a uniformly random move among the safe ones."""

from __future__ import annotations

import random
from collections.abc import Sequence

from snakewar.games.battlesnake.types import BoardState, Point, Snake

__all__ = ["RandomSafeBot", "random_safe_moves", "safe_moves"]

_DIRECTIONS: tuple[tuple[str, int, int], ...] = (
    ("up", 0, 1),
    ("down", 0, -1),
    ("left", -1, 0),
    ("right", 1, 0),
)


def safe_moves(state: BoardState, snake: Snake, wrapped: bool = False) -> list[str]:
    """The moves that do not obviously lose this turn.

    A move is safe if it stays on the board (any move on a wrapped board) and does
    not enter a body segment, except a tail that moves away this turn (one that is
    not stacked).  Head-to-heads and hazards are not considered.
    """
    blocked: set[Point] = set()
    for other in state.snakes:
        if other.eliminated_cause or not other.body:
            continue
        body = other.body
        # A tail moves away unless it is stacked (the snake just ate).
        keep = len(body) if len(body) >= 2 and body[-1] == body[-2] else len(body) - 1
        blocked.update(body[:keep])
    hx, hy = snake.body[0]
    w, h = state.width, state.height
    out = []
    for name, dx, dy in _DIRECTIONS:
        x, y = hx + dx, hy + dy
        if wrapped:
            x, y = x % w, y % h
        elif not (0 <= x < w and 0 <= y < h):
            continue
        if (x, y) not in blocked:
            out.append(name)
    return out


def random_safe_moves(
    state: BoardState, rng: random.Random, wrapped: bool = False, ids: Sequence[str] | None = None
) -> dict[str, str]:
    """Choose a random safe move for every alive snake (``up`` when none is safe)."""
    moves: dict[str, str] = {}
    for snake in state.snakes:
        if snake.eliminated_cause or (ids is not None and snake.id not in ids):
            continue
        options = safe_moves(state, snake, wrapped)
        moves[snake.id] = rng.choice(options) if options else "up"
    return moves


class RandomSafeBot:
    """Plays a uniformly random safe move; seeded, so games are reproducible."""

    name = "random"

    def __init__(self, seed: int | None = None, wrapped: bool = False) -> None:
        self._rng = random.Random(seed)
        self._wrapped = wrapped

    def move(self, state: BoardState, you: str) -> str:
        """Return this bot's move for snake ``you``."""
        options = safe_moves(state, state.snake(you), self._wrapped)
        return self._rng.choice(options) if options else "up"
