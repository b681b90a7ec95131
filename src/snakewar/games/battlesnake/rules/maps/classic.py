"""The classic map: the 2017/18 server's setup, for the ``classic`` ruleset."""

from __future__ import annotations

from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.classic import CLASSIC, place_classic
from snakewar.games.battlesnake.rules.maps.base import (
    TAG_FOOD_PLACEMENT,
    TAG_SNAKE_PLACEMENT,
    BoardSizes,
    GameMap,
    MapMeta,
)
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardView

__all__ = ["ClassicMap"]


class ClassicMap(GameMap):
    """Food first, then snakes stacked on random free squares; food is the ruleset's.

    See :mod:`snakewar.games.battlesnake.rules.classic` for the rules and their sources.
    """

    meta = MapMeta(
        id=CLASSIC,
        name="Classic",
        description="The 2017/18 game: random stacked starts, a constant number of food "
        "(the classic ruleset only).",
        author="Battlesnake 2017/18",
        version=1,
        min_players=1,
        max_players=16,
        sizes=BoardSizes.any(),
        tags=(TAG_SNAKE_PLACEMENT, TAG_FOOD_PLACEMENT),
    )

    def setup_board(self, board: MutableBoard, settings: Settings) -> None:
        """Place ``maxFood`` food, then every snake (``snakeStartLength`` stacked segments)."""
        place_classic(board, settings)

    def post_update_board(self, last: BoardView, settings: Settings, edit: MutableBoard) -> None:
        """Nothing: the classic ruleset restocks the food itself."""


MAPS: tuple[GameMap, ...] = (ClassicMap(),)
