"""The ``random`` built-in bot: a uniformly random move among the safe ones."""

from __future__ import annotations

import random
from collections.abc import Sequence

from snakewar.games.battlesnake.bots.base import Bot, SnakeMetadata, request_rng
from snakewar.games.battlesnake.rules.types import BoardState, Point, Snake
from snakewar.games.battlesnake.rules.wire import SnakeRequest

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


class RandomSafeBot(Bot):
    """``random``: a uniformly random safe move (``up`` when none is safe).

    Its randomness comes from :func:`~snakewar.games.battlesnake.bots.base.request_rng`, so a game
    replays exactly from its seed.
    """

    name = "random"
    metadata = SnakeMetadata(author="snakewar", color="#9e9e9e", head="default", tail="default")

    def move(self, request: SnakeRequest) -> str:
        """Return a random safe move."""
        options = safe_moves(request.board, request.you, request.wrapped)
        return request_rng(request).choice(options) if options else "up"
