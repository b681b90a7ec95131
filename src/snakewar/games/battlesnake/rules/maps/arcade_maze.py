"""The arcade maze: a fixed 19x21 maze whose walls are hazards (reference ``arcade_maze.go``)."""

from __future__ import annotations

from snakewar.errors import MapSetupError
from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.maps.base import (
    TAG_FOOD_PLACEMENT,
    TAG_HAZARD_PLACEMENT,
    TAG_SNAKE_PLACEMENT,
    BoardSizes,
    GameMap,
    MapMeta,
)
from snakewar.games.battlesnake.rules.settings import FOOD_SPAWN_CHANCE, MINIMUM_FOOD, Settings
from snakewar.games.battlesnake.rules.types import SNAKE_START_SIZE, BoardView, Point

__all__ = ["ARCADE_MAZE_HAZARDS", "ArcadeMazeMap"]

WIDTH, HEIGHT = 19, 21

# The maze drawn as it looks on screen: the first row is y=20, the last y=0, and
# '#' marks a wall.  Reading it row by row, left to right, gives the walls in the
# reference's hazard order, which the hazard list must keep.
_MAZE = (
    "#.###############.#",
    "#........#........#",
    "#.##.###.#.###.##.#",
    "#.................#",
    "#.##.#.#####.#.##.#",
    "#....#...#...#....#",
    "#..#.###.#.###.#..#",
    "#..#.#.......#.#..#",
    "####.#.#.#.#.#.####",
    ".......#...#.......",
    "####.#.#.#.#.#.####",
    "#..#.#.......#.#..#",
    "#..#.#.#####.#.#..#",
    "#........#........#",
    "#.##.###.#.###.##.#",
    "#..#...........#..#",
    "##.#.#.#####.#.#.##",
    "#....#...#...#....#",
    "#.######.#.######.#",
    "#.................#",
    "#.###############.#",
)

ARCADE_MAZE_HAZARDS: tuple[Point, ...] = tuple(
    Point(x, HEIGHT - 1 - row)
    for row, line in enumerate(_MAZE)
    for x, cell in enumerate(line)
    if cell == "#"
)
"""The 187 maze walls, in the reference's order."""

# The four corner-ish starts are shuffled; the two centre starts always come last.
_SHUFFLED_STARTS = (Point(4, 7), Point(14, 7), Point(4, 17), Point(14, 17))
_EXTRA_STARTS = (Point(9, 9), Point(9, 13))
_CENTER_FOOD = Point(9, 11)

# Candidate food squares, in the order the reference shuffles them from.
_FOOD_SPOTS = (
    Point(1, 1),
    Point(3, 11),
    Point(4, 7),
    Point(4, 17),
    Point(9, 1),
    Point(9, 5),
    Point(9, 11),
    Point(9, 17),
    Point(14, 7),
    Point(14, 17),
    Point(15, 11),
    Point(17, 1),
)


class ArcadeMazeMap(GameMap):
    """A fixed maze of hazard walls on a 19x21 board, for up to 6 snakes.

    Setup shuffles the four outer starts with ``GetRand(0)``; a fifth and sixth
    snake start in the middle.  The walls deal the configured hazard damage (use
    100 for deadly walls).  One food sits in the centre at setup, but only when
    ``minimumFood > 0``; afterwards ``minimumFood`` is ignored.

    Each turn, with ``chance = foodSpawnChance`` and a source seeded with the turn,
    a food spawns when ``chance > 0`` and ``Intn(100) <= chance`` (so the real
    chance is one percent *more* than the setting, capped at certainty).  The 12
    food spots are then shuffled with the same source and the first one that no
    snake body covers (eliminated snakes included) and that holds no food gets it.
    """

    meta = MapMeta(
        id="arcade_maze",
        name="Arcade Maze",
        description="A fixed arcade-style maze on a 19x21 board, its walls made of hazards.",
        author="Battlesnake",
        version=1,
        min_players=1,
        max_players=6,
        sizes=BoardSizes.fixed((WIDTH, HEIGHT)),
        tags=(TAG_FOOD_PLACEMENT, TAG_HAZARD_PLACEMENT, TAG_SNAKE_PLACEMENT),
    )

    def setup_board(self, board: MutableBoard, settings: Settings) -> None:
        """Place the snakes on the fixed starts, the maze walls, and the centre food.

        Raises:
            MapSetupError: if the board is not 19x21 or there are more than 6 snakes.
        """
        if (board.width, board.height) != (WIDTH, HEIGHT):
            raise MapSetupError(
                f"map 'arcade_maze' only supports a {WIDTH}x{HEIGHT} board, "
                f"got {board.width}x{board.height}"
            )
        starts = list(_SHUFFLED_STARTS)
        # The reference shuffles before it counts the snakes; the order of the two
        # does not matter since a refusal discards the board.
        settings.get_rand(0).shuffle_list(starts)
        starts.extend(_EXTRA_STARTS)
        if len(board.snakes) > len(starts):
            raise MapSetupError(
                f"map 'arcade_maze' supports at most {len(starts)} snakes, got {len(board.snakes)}"
            )
        for snake, head in zip(board.snakes, starts, strict=False):
            board.place_snake(snake.id, [head] * SNAKE_START_SIZE, snake.health)
        for wall in ARCADE_MAZE_HAZARDS:
            board.add_hazard(wall)
        if settings.get_int(MINIMUM_FOOD, 0) > 0:
            board.add_food(_CENTER_FOOD)

    def post_update_board(self, last: BoardView, settings: Settings, edit: MutableBoard) -> None:
        """Maybe spawn one food on the first free fixed spot, in a seeded random order."""
        chance = settings.get_int(FOOD_SPAWN_CHANCE, 0)
        if chance == 0:
            # Checked before any draw, as the reference does.
            return
        rand = settings.get_rand(last.turn)
        if rand.intn(100) > chance:
            return
        spots = list(_FOOD_SPOTS)
        rand.shuffle_list(spots)
        # Bodies of eliminated snakes still block a spot here, unlike the standard spawn.
        taken: set[tuple[int, int]] = set(last.food)
        for snake in last.snakes:
            taken.update(snake.body)
        for spot in spots:
            if spot not in taken:
                edit.add_food(spot)
                return


MAPS: tuple[GameMap, ...] = (ArcadeMazeMap(),)
