"""The arena: ratings of snakes from their games, tournaments, and where games run.

:mod:`snakewar.arena.ratings` rates snakes with Weng-Lin (OpenSkill) models from game
placements; :mod:`snakewar.arena.tournaments` runs elimination, round-robin and Swiss
tournaments as pure state machines (neither plays a game nor does any I/O);
:mod:`snakewar.arena.executors` runs many games through one interface: in-process
(asyncio), a local process pool, or Ray (the ``ray`` extra).
"""

from __future__ import annotations

from snakewar.arena.executors import (
    Executor,
    ExecutorError,
    GameJob,
    GameOutcome,
    InProcessExecutor,
    MissingRayError,
    ProcessPoolExecutor,
    RayExecutor,
    measure_games_per_minute,
)
from snakewar.arena.ratings import (
    Leaderboard,
    LeaderboardRow,
    Placement,
    Rating,
    RatingError,
    RatingHistory,
    RatingModel,
    placement_from_state,
    placement_from_summary,
    rate_game,
)
from snakewar.arena.tournaments import (
    FORMATS,
    Match,
    Standing,
    Tournament,
    TournamentError,
    seed_by_rating,
)

__all__ = [
    "FORMATS",
    "Executor",
    "ExecutorError",
    "GameJob",
    "GameOutcome",
    "InProcessExecutor",
    "Leaderboard",
    "LeaderboardRow",
    "Match",
    "MissingRayError",
    "Placement",
    "ProcessPoolExecutor",
    "Rating",
    "RatingError",
    "RatingHistory",
    "RatingModel",
    "RayExecutor",
    "Standing",
    "Tournament",
    "TournamentError",
    "measure_games_per_minute",
    "placement_from_state",
    "placement_from_summary",
    "rate_game",
    "seed_by_rating",
]
