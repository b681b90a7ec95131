"""The snail_mode map (experimental): snakes leave a fading trail of hazards."""

from __future__ import annotations

from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.maps.base import (
    TAG_EXPERIMENTAL,
    TAG_HAZARD_PLACEMENT,
    BoardSizes,
    GameMap,
    MapMeta,
    setup_standard,
    spawn_food_standard,
)
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardView, Point

__all__ = ["SnailModeMap"]


class SnailModeMap(GameMap):
    """Standard play where every snake's vacated tail square becomes a hazard stack.

    Each update, after the standard food spawn:

    1. every on-board hazard stack is re-added with one copy fewer, so trails fade;
    2. for each alive snake whose tail is not stacked, ``len(body)`` copies of
       ``(tail.x, tail.y + H)`` are stored **off the board** (the reference keeps
       its state there, so the hazard list snakes see contains these points);
    3. each off-board hazard of the previous update becomes one hazard at
       ``(x, y - H)``, unless an alive snake's head is on that square.

    Hazard order: the reference re-adds the stacks of step 1 in Go map iteration
    order, which is random, so only the multiset of hazards is reproducible.
    Snakewar uses a fixed order: step 1 in order of each point's first appearance
    in the previous hazard list, then step 2 by snake, then step 3 in the
    previous list's order.

    A snake of a single segment has no "previous segment" to compare its tail
    with (the reference would index out of range); it leaves no trail.
    """

    meta = MapMeta(
        id="snail_mode",
        name="Snail Mode",
        description="Snakes leave a trail of hazards behind their tails that fades over time.",
        author="coreyja and jlafayette",
        version=1,
        min_players=1,
        max_players=16,
        sizes=BoardSizes.odd(7, 25),
        tags=(TAG_EXPERIMENTAL, TAG_HAZARD_PLACEMENT),
    )

    def setup_board(self, board: MutableBoard, settings: Settings) -> None:
        """Standard setup.

        Raises:
            MapSetupError: with more than 16 snakes, or if the snakes or food do not fit.
        """
        setup_standard(board, settings)

    def post_update_board(self, last: BoardView, settings: Settings, edit: MutableBoard) -> None:
        """Spawn food, fade the trails, store the new tails, restore the stored ones."""
        spawn_food_standard(last, settings, edit)
        width, height = last.width, last.height
        counts: dict[Point, int] = {}
        restored: list[Point] = []
        for p in last.hazards:
            x, y = p
            if 0 <= x < width and 0 <= y < height:
                counts[p] = counts.get(p, 0) + 1
            else:
                restored.append(Point(x, y - height))

        hazards: list[Point] = []
        for p, n in counts.items():
            hazards.extend([p] * (n - 1))

        heads: set[Point] = set()
        for snake in last.snakes:
            body = snake.body
            if snake.eliminated_cause or not body:
                continue
            heads.add(body[0])
            # A stacked tail stays put next turn, so it leaves no new trail.
            if len(body) >= 2 and body[-1] != body[-2]:
                tail = body[-1]
                hazards.extend([Point(tail.x, tail.y + height)] * len(body))

        # A hazard drawn under a live head would not hurt it but looks confusing.
        hazards.extend(p for p in restored if p not in heads)
        edit.hazards = hazards


MAPS: tuple[GameMap, ...] = (SnailModeMap(),)
