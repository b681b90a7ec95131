"""The arena: ratings from games, ladders, tournaments, and where games run.

Game-agnostic: every game is played through its adapter (:mod:`snakewar.adapters`).
:mod:`snakewar.arena.ratings` rates entrants with Weng-Lin (OpenSkill) models from game
placements; :mod:`snakewar.arena.tournaments` runs elimination, round-robin and Swiss
tournaments as pure state machines, one class per format over a frozen
:class:`~snakewar.arena.tournaments.TournamentConfig` (neither plays a game nor does any I/O);
:mod:`snakewar.arena.executors` runs many games through one interface: in-process
(asyncio), a local process pool, or Ray (the ``ray`` extra); :mod:`snakewar.arena.ladder`
and :mod:`snakewar.arena.tournament_runner` play ladders and tournaments, kept by a
store that implements :mod:`snakewar.arena.ports`.
"""

from __future__ import annotations

from snakewar.arena.config import MatchConfig, arena_game_id
from snakewar.arena.executors import (
    Executor,
    ExecutorError,
    GameJob,
    GameOutcome,
    InProcessExecutor,
    ProcessPoolExecutor,
    RayExecutor,
    measure_games_per_minute,
)
from snakewar.arena.ladder import (
    Ladder,
    LadderEntry,
    LadderError,
    LadderExistsError,
    LadderGame,
    LadderGameRecordedError,
    LadderNotFoundError,
    load_ladder,
)
from snakewar.arena.ratings import (
    Leaderboard,
    LeaderboardRow,
    Placement,
    Rating,
    RatingError,
    RatingHistory,
    RatingModel,
    placement_from_game,
    rate_game,
)
from snakewar.arena.tournament_runner import (
    TournamentExistsError,
    TournamentGame,
    TournamentNotFoundError,
    TournamentRun,
    TournamentRunError,
    load_tournament,
)
from snakewar.arena.tournaments import (
    FORMAT_TITLES,
    FORMATS,
    Match,
    MatchStatus,
    Standing,
    Tournament,
    TournamentConfig,
    TournamentError,
    TournamentFormat,
    seed_by_rating,
)

__all__ = [
    "FORMATS",
    "FORMAT_TITLES",
    "Executor",
    "ExecutorError",
    "GameJob",
    "GameOutcome",
    "InProcessExecutor",
    "Ladder",
    "LadderEntry",
    "LadderError",
    "LadderExistsError",
    "LadderGame",
    "LadderGameRecordedError",
    "LadderNotFoundError",
    "Leaderboard",
    "LeaderboardRow",
    "Match",
    "MatchConfig",
    "MatchStatus",
    "Placement",
    "ProcessPoolExecutor",
    "Rating",
    "RatingError",
    "RatingHistory",
    "RatingModel",
    "RayExecutor",
    "Standing",
    "Tournament",
    "TournamentConfig",
    "TournamentError",
    "TournamentExistsError",
    "TournamentFormat",
    "TournamentGame",
    "TournamentNotFoundError",
    "TournamentRun",
    "TournamentRunError",
    "arena_game_id",
    "load_ladder",
    "load_tournament",
    "measure_games_per_minute",
    "placement_from_game",
    "rate_game",
    "seed_by_rating",
]
