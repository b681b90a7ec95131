"""The sinkholes map: a rounded hazard pit in the centre that deepens every N turns."""

from __future__ import annotations

from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.maps.base import (
    TAG_HAZARD_PLACEMENT,
    BoardSizes,
    GameMap,
    MapMeta,
    setup_standard,
    spawn_food_standard,
)
from snakewar.games.battlesnake.rules.rng import wrap_int64
from snakewar.games.battlesnake.rules.settings import SHRINK_EVERY_N_TURNS, Settings
from snakewar.games.battlesnake.rules.types import BoardView, Point

__all__ = ["SinkholesMap", "sinkhole_ring"]

_START_TURN = 1
_DEFAULT_PERIOD = 10


def sinkhole_ring(center: Point, offset: int) -> list[Point]:
    """The filled square of radius ``offset`` around ``center`` minus its 4 corners.

    The order is x-major, then y, as the reference adds them.
    """
    cx, cy = center
    lo_x, hi_x, lo_y, hi_y = cx - offset, cx + offset, cy - offset, cy + offset
    return [
        Point(x, y)
        for x in range(lo_x, hi_x + 1)
        for y in range(lo_y, hi_y + 1)
        if not (x in (lo_x, hi_x) and y in (lo_y, hi_y))
    ]


class SinkholesMap(GameMap):
    """Standard play plus a sinkhole that grows from the centre.

    Unlike most maps this one works with the pre-increment turn ``T`` itself:
    at ``T == 1`` the centre ``(W // 2, H // 2)`` becomes a hazard; then at every
    ``T = 1 + k * P`` (``k >= 1``, ``T <= P * max_rings``) the square of radius
    ``k`` minus its corners is added *on top of* what is there, so the middle
    becomes deeply stacked.  ``P`` is ``shrinkEveryNTurns`` when positive, else 10;
    ``max_rings`` is 3 on a 7-wide board, 7 on a 19-wide one and 5 otherwise.
    Because the turn is also capped at ``P * max_rings``, the last ring (due at
    ``1 + P * max_rings``) is never drawn, exactly as in the reference.

    As in the reference, only the snake count is checked at setup (at most 16, by
    the standard setup); the listed sizes are advisory.
    """

    meta = MapMeta(
        id="sinkholes",
        name="Sinkholes",
        description="A rounded sinkhole in the centre widens every N turns, stacking hazards.",
        author="Battlesnake",
        version=1,
        min_players=1,
        max_players=8,
        sizes=BoardSizes.fixed((7, 7), (11, 11), (19, 19)),
        tags=(TAG_HAZARD_PLACEMENT,),
    )

    def setup_board(self, board: MutableBoard, settings: Settings) -> None:
        """Standard setup; no hazards yet.

        Raises:
            MapSetupError: with more than 16 snakes, or if the snakes or food do not fit.
        """
        setup_standard(board, settings)

    def post_update_board(self, last: BoardView, settings: Settings, edit: MutableBoard) -> None:
        """Spawn food, then add the centre or the next ring on its turn."""
        spawn_food_standard(last, settings, edit)
        turn = last.turn
        period = settings.get_int(SHRINK_EVERY_N_TURNS, 0)
        if period <= 0:
            period = _DEFAULT_PERIOD
        width = last.width
        max_rings = 3 if width == 7 else 7 if width == 19 else 5
        center = Point(width // 2, last.height // 2)
        if turn == _START_TURN:
            edit.add_hazard(center)
            return
        # Turns before the start never reach a ring (their offset would be <= 0).
        # The cap is an int64 product in the reference: a huge period wraps it.
        if turn < _START_TURN or turn > wrap_int64(period * max_rings):
            return
        offset, rest = divmod(turn - _START_TURN, period)
        if rest != 0 or not 0 < offset <= max_rings:
            return
        for p in sinkhole_ring(center, offset):
            edit.add_hazard(p)


MAPS: tuple[GameMap, ...] = (SinkholesMap(),)
