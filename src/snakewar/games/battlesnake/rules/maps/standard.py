"""The standard, empty and royale maps."""

from __future__ import annotations

from snakewar.games.battlesnake.rules.board import MutableBoard, place_snakes_automatically
from snakewar.games.battlesnake.rules.maps.base import (
    TAG_HAZARD_PLACEMENT,
    BoardSizes,
    GameMap,
    MapMeta,
    check_standard_snake_limit,
    setup_standard,
    spawn_food_standard,
)
from snakewar.games.battlesnake.rules.rng import go_int
from snakewar.games.battlesnake.rules.rulesets import royale_hazards
from snakewar.games.battlesnake.rules.settings import SHRINK_EVERY_N_TURNS, Settings
from snakewar.games.battlesnake.rules.types import BoardView

__all__ = ["EmptyMap", "RoyaleMap", "StandardMap"]

_ODD_7_25 = BoardSizes.odd(7, 25)


class StandardMap(GameMap):
    """Default snake placement and setup food; food spawns each turn."""

    meta = MapMeta(
        id="standard",
        name="Standard",
        description="Default snake placement and food spawning.",
        author="Battlesnake",
        version=2,
        min_players=1,
        max_players=16,
        sizes=_ODD_7_25,
    )

    def setup_board(self, board: MutableBoard, settings: Settings) -> None:
        """Place snakes and setup food the default way."""
        setup_standard(board, settings)

    def post_update_board(self, last: BoardView, settings: Settings, edit: MutableBoard) -> None:
        """Spawn food (minimum top-up or by chance)."""
        spawn_food_standard(last, settings, edit)


class EmptyMap(GameMap):
    """Default snake placement and nothing else: no food at setup, none ever spawns."""

    meta = MapMeta(
        id="empty",
        name="Empty",
        description="Snakes only: no food and no hazards, ever.",
        author="Battlesnake",
        version=2,
        min_players=1,
        max_players=16,
        sizes=_ODD_7_25,
    )

    def setup_board(self, board: MutableBoard, settings: Settings) -> None:
        """Place the snakes the default way; no food."""
        check_standard_snake_limit(board)
        place_snakes_automatically(settings.get_rand(0), board, [s.id for s in board.snakes])

    def post_update_board(self, last: BoardView, settings: Settings, edit: MutableBoard) -> None:
        """Do nothing."""


class RoyaleMap(GameMap):
    """Standard play, plus hazards that close in from a random edge every N turns.

    From turn ``shrinkEveryNTurns`` on, the hazards are rebuilt each turn as every
    square outside a rectangle that shrinks by one line every N turns, on a side
    drawn from ``GetRand(0)``; this is the same layout the royale ruleset builds.
    """

    meta = MapMeta(
        id="royale",
        name="Royale",
        description="Hazards close in from the edges every N turns.",
        author="Battlesnake",
        version=2,
        min_players=1,
        max_players=16,
        sizes=_ODD_7_25,
        tags=(TAG_HAZARD_PLACEMENT,),
    )

    def setup_board(self, board: MutableBoard, settings: Settings) -> None:
        """Standard setup."""
        setup_standard(board, settings)

    def post_update_board(self, last: BoardView, settings: Settings, edit: MutableBoard) -> None:
        """Spawn food, then rebuild the shrinking hazard zone once it has started."""
        spawn_food_standard(last, settings, edit)
        hazards = royale_hazards(
            settings,
            last.width,
            last.height,
            go_int(last.turn + 1),
            settings.get_int(SHRINK_EVERY_N_TURNS, 20),
        )
        if hazards is not None:
            edit.hazards = hazards


MAPS: tuple[GameMap, ...] = (StandardMap(), EmptyMap(), RoyaleMap())
