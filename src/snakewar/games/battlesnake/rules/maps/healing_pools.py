"""The healing_pools map: fixed single-square pools that dry up one by one."""

from __future__ import annotations

from collections.abc import Mapping

from snakewar.errors import MapSetupError
from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.maps.base import (
    TAG_HAZARD_PLACEMENT,
    BoardSizes,
    GameMap,
    MapMeta,
    setup_standard,
    spawn_food_standard,
)
from snakewar.games.battlesnake.rules.rng import GoRand
from snakewar.games.battlesnake.rules.rulesets import royale_hazards
from snakewar.games.battlesnake.rules.settings import SHRINK_EVERY_N_TURNS, Settings
from snakewar.games.battlesnake.rules.types import BoardView, Point

__all__ = ["POOL_LAYOUTS", "HealingPoolsMap", "pool_layout"]


def _pts(*coords: tuple[int, int]) -> tuple[Point, ...]:
    return tuple(Point(x, y) for x, y in coords)


POOL_LAYOUTS: Mapping[tuple[int, int], tuple[tuple[Point, ...], ...]] = {
    (7, 7): (_pts((3, 3)),),
    (11, 11): (
        _pts((3, 3), (7, 7)),
        _pts((3, 7), (7, 3)),
        _pts((3, 5), (7, 5)),
        _pts((5, 7), (5, 3)),
    ),
    (19, 19): (
        _pts((5, 5), (13, 13), (5, 13), (13, 5)),
        _pts((5, 10), (13, 10), (10, 13), (10, 5)),
    ),
}
"""The pool layouts per board size, in the reference's order (a layout's index is drawn)."""


def pool_layout(settings: Settings, width: int, height: int) -> tuple[Point, ...]:
    """The pools a game with these settings starts with: layout ``GetRand(0).Intn(#layouts)``.

    Raises:
        MapSetupError: if the board size has no layouts.
    """
    options = POOL_LAYOUTS.get((width, height))
    if options is None:
        raise MapSetupError(
            f"map 'healing_pools' does not support a {width}x{height} board "
            "(supported: 7x7, 11x11, 19x19)"
        )
    return options[settings.get_rand(0).intn(len(options))]


class HealingPoolsMap(GameMap):
    """Standard play plus a few fixed pools, one of which dries up every N turns.

    The pools are ordinary hazards: they heal only when ``damagePerTurn`` is
    negative.  At setup one layout for the board size is drawn with
    ``GetRand(0).Intn(#layouts)``.  Each update spawns standard food; then, if
    ``T > 0``, ``N = shrinkEveryNTurns > 0``, ``T % N == 0`` and hazards remain,
    the hazard ``last.hazards[Intn(len(last.hazards))]`` is removed (every copy of
    its point, with the editor's swap-removal).

    **Randomness of the removal.** The reference draws that index from Go's
    process-global ``math/rand``, which the CLI (and the recorded games) seed once
    per game with ``rand.Seed(seed)``; nothing else in a game touches that source.
    Snakewar stays pure by replaying it: the update builds a fresh
    ``GoRand(seed)`` and redraws every earlier removal before its own draw.  The
    earlier draws follow from the turn, the period and the layout: at the k-th
    removal turn (k = 0, 1, ...) ``n0 - k`` pools were left, so the draw was
    ``Intn(n0 - k)``, and there was no draw once the pools were gone.
    If ``last`` holds hazards that are not pools of the layout, something else
    rebuilds the hazards every turn (the royale ruleset does, starting at turn N);
    the earlier removal turns then each drew ``Intn(size of the royale zone)``
    instead.  This matches every recorded game (whose removals happen not to
    tell it apart from a fresh source per removal, so the replay rests on Go's
    semantics of one global stream); a CLI process that ran other games before
    is not reproducible.
    """

    meta = MapMeta(
        id="healing_pools",
        name="Healing Pools",
        description="Fixed one-square hazard pools (healing under negative damage) dry up in turn.",
        author="Battlesnake",
        version=1,
        min_players=1,
        max_players=8,
        sizes=BoardSizes.fixed((7, 7), (11, 11), (19, 19)),
        tags=(TAG_HAZARD_PLACEMENT,),
    )

    def setup_board(self, board: MutableBoard, settings: Settings) -> None:
        """Standard setup, then the pools of a randomly drawn layout.

        Raises:
            MapSetupError: with more than 16 snakes, if the snakes or food do not
                fit, or if the board is not 7x7, 11x11 or 19x19.
        """
        # The reference runs the standard setup before it looks at the size.
        setup_standard(board, settings)
        for p in pool_layout(settings, board.width, board.height):
            board.add_hazard(p)

    def post_update_board(self, last: BoardView, settings: Settings, edit: MutableBoard) -> None:
        """Spawn food, then dry up one pool every N turns."""
        spawn_food_standard(last, settings, edit)
        period = settings.get_int(SHRINK_EVERY_N_TURNS, 0)
        turn = last.turn
        hazards = last.hazards
        if turn <= 0 or period <= 0 or not hazards or turn % period != 0:
            return
        rand = self._removal_source(last, settings, period)
        edit.remove_hazard(hazards[rand.intn(len(hazards))])

    @staticmethod
    def _removal_source(last: BoardView, settings: Settings, period: int) -> GoRand:
        # The global source as it stands before this turn's draw: seeded with the
        # game seed, advanced by one draw per earlier removal.
        rand = GoRand(settings.seed)
        earlier_turns = range(period, last.turn, period)
        if not earlier_turns:
            return rand
        options = POOL_LAYOUTS.get((last.width, last.height))
        pools = pool_layout(settings, last.width, last.height) if options else ()
        if pools and set(last.hazards) <= set(pools):
            for left in range(len(pools), len(pools) - len(earlier_turns), -1):
                if left <= 0:
                    break
                rand.intn(left)
        else:
            for t in earlier_turns:
                # The royale stage ran with the current turn t + 1 before the map saw it.
                zone = royale_hazards(settings, last.width, last.height, t + 1, period)
                if zone:
                    rand.intn(len(zone))
        return rand


MAPS: tuple[GameMap, ...] = (HealingPoolsMap(),)
