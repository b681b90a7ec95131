"""The ``greedy`` built-in bot: safe moves first, then the nearest food.

For each of the four moves it judges, in this order of importance:

1. survival this turn: not off the board, not into a body (tails that move away
   are free), not starving or dying in a hazard;
2. no head-to-head risk: not onto a square an equal or longer snake's head can
   also reach this turn;
3. room: the squares it can reach after the move (a flood fill in which bodies
   free up as tails move on) number at least its own length;
4. food: the shortest BFS distance to a reachable food;
5. room again, as much as possible.

It looks only one move ahead, so it is a baseline, not a strong player.  It is
deterministic: exact ties go to the first move in ``up, down, left, right``.
"""

from __future__ import annotations

from snakewar.games.battlesnake.bots._board import (
    FROZEN,
    MOVE_NAMES,
    OFF_BOARD,
    Sim,
    SimSnake,
    sim_from_request,
    territory,
)
from snakewar.games.battlesnake.bots.base import Bot, SnakeMetadata
from snakewar.games.battlesnake.rules.wire import SnakeRequest

__all__ = ["GreedyBot", "greedy_scores"]

_FAR = 1 << 20


def greedy_scores(
    sim: Sim, snakes: list[SimSnake | None], food: int
) -> list[tuple[int, int, int, int, int]]:
    """Score each move of ``snakes[0]``; a larger tuple is a better move.

    Returns:
        One ``(alive, no_head_risk, enough_room, -food_distance, room)`` tuple per
        move in :data:`~snakewar.games.battlesnake.bots._board.MOVE_NAMES` order.
    """
    me = snakes[0]
    assert me is not None
    geo = sim.geo
    body, health, _ = me
    length = len(body)
    blocked = sim.blocked(snakes)
    # Squares where an equal or longer snake's head may arrive this turn.
    danger = 0
    for other in snakes[1:]:
        if other is not None and len(other[0]) >= length:
            for dest in geo.neighbours[other[0][0]]:
                if dest >= 0:
                    danger |= 1 << dest
    # Only this snake is moved: the others keep their heads but lose the tails
    # that their own move takes away.
    shrunk: list[SimSnake | None] = [me]
    for other in snakes[1:]:
        if other is not None:
            obody, ohealth, omask = other
            if len(obody) >= 2 and obody[-1] != obody[-2]:
                other = (obody[:-1], ohealth, omask & ~(1 << obody[-1]))
        shrunk.append(other)
    frozen = [FROZEN] * len(snakes)
    scores: list[tuple[int, int, int, int, int]] = []
    for dest in geo.neighbours[body[0]]:
        frozen[0] = dest
        if dest == OFF_BOARD or (blocked >> dest) & 1:
            scores.append((0, 0, 0, -_FAR, 0))
            continue
        if sim.health_after(health, dest, food) <= 0:
            scores.append((0, 0, 0, -_FAR, 0))
            continue
        after, after_food = sim.step(shrunk, food, frozen)
        mine = after[0]
        if mine is None:
            scores.append((0, 0, 0, -_FAR, 0))
            continue
        areas, food_dists, _ = territory(
            geo,
            after,
            [0],
            after_food,
            release=not sim.constrictor,
        )
        room = areas[0]
        ate = (food >> dest) & 1
        dist = 0 if ate else food_dists[0] if food_dists[0] >= 0 else _FAR
        scores.append(
            (1, 0 if (danger >> dest) & 1 else 1, 1 if room >= len(mine[0]) else 0, -dist, room)
        )
    return scores


class GreedyBot(Bot):
    """``greedy``: survive this turn, keep room, then head for the nearest food.

    A one-move-lookahead baseline (see the module docstring for the exact
    preferences).  It takes no options.
    """

    name = "greedy"
    metadata = SnakeMetadata(author="snakewar", color="#43a047", head="smile", tail="round-bum")

    def move(self, request: SnakeRequest) -> str:
        """Return the best move by :func:`greedy_scores`."""
        sim, snakes, food, _ = sim_from_request(request)
        scores = greedy_scores(sim, snakes, food)
        best = max(range(4), key=lambda i: scores[i])
        return MOVE_NAMES[best]
