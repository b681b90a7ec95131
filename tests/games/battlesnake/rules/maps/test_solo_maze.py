import pytest

from snakewar.errors import MapSetupError
from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.game import setup_board
from snakewar.games.battlesnake.rules.maps import get_map
from snakewar.games.battlesnake.rules.maps.solo_maze import generate_maze, read_level
from snakewar.games.battlesnake.rules.rng import GoRand
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState, Point, Snake

S = Settings({"damagePerTurn": "100"}, 42)


def update(state: BoardState, s: Settings = S) -> BoardState:
    edit = MutableBoard.from_state(state)
    get_map("solo_maze").post_update_board(state, s, edit)
    return edit.freeze()


def pts(*coords: tuple[int, int]) -> tuple[Point, ...]:
    return tuple(Point(x, y) for x, y in coords)


def level_row(level: int, width: int) -> tuple[Point, ...]:
    bits = format(level, "b").rjust(width, "0")
    return tuple(Point(x, 0) for x, c in enumerate(bits) if c == "1")


def test_metadata() -> None:
    meta = get_map("solo_maze").meta
    assert (meta.name, meta.author, meta.version) == ("Solo Maze", "coreyja", 1)
    assert (meta.min_players, meta.max_players) == (1, 1)
    assert meta.sizes.sizes == ((7, 7), (11, 11), (19, 19), (19, 21), (25, 25))
    assert meta.is_experimental
    assert set(meta.tags) == {
        "experimental",
        "food-placement",
        "hazard-placement",
        "snake-placement",
    }


def test_refuses_anything_but_one_snake_and_boards_below_7x7() -> None:
    with pytest.raises(MapSetupError, match="2"):
        setup_board("solo_maze", S, 11, 11, ["a", "b"])
    with pytest.raises(MapSetupError, match="0"):
        setup_board("solo_maze", S, 11, 11, [])
    with pytest.raises(MapSetupError, match="7x6"):
        setup_board("solo_maze", S, 7, 6, ["a"])


def test_setup_matches_the_reference_recording() -> None:
    # public-0044 of the conformance data (official engine), 11x11.
    s = Settings({}, 1320240026385403665)
    state = setup_board("solo_maze", s, 11, 11, ["snake-1"])
    assert state.snakes[0].body == pts((2, 2), (2, 1), (2, 1))
    assert state.food == pts((7, 7))
    maze = pts(
        (3, 8), (3, 3), (3, 4), (3, 5), (3, 6), (8, 3), (4, 3), (5, 3),
        (6, 3), (7, 3), (6, 8), (6, 5), (6, 7), (8, 5), (5, 5), (7, 5),
    )  # fmt: skip
    assert state.hazards[: len(maze)] == maze
    assert len(state.hazards) == 77


def test_setup_layout_on_11x11() -> None:
    state = setup_board("solo_maze", S, 11, 11, ["a"])
    assert state == setup_board("solo_maze", S, 11, 11, ["a"])
    snake = state.snakes[0]
    assert snake.body == pts((2, 2), (2, 1), (2, 1)) and snake.health == 100
    hazards = set(state.hazards)
    assert len(hazards) == len(state.hazards)
    assert read_level(state) == 0 and not any(p.y == 0 for p in hazards)
    outside = {
        Point(x, y) for x in range(11) for y in range(1, 11) if not (2 <= x <= 8 and 2 <= y <= 8)
    }
    assert outside <= hazards
    assert Point(2, 2) not in hazards
    (food,) = state.food
    assert food not in hazards and 2 <= food.x <= 8 and 2 <= food.y <= 8
    assert abs(food.x - 2) + abs(food.y - 2) >= 3


def test_mazes_depend_on_the_seed() -> None:
    layouts = {
        setup_board("solo_maze", S.with_seed(seed), 11, 11, ["a"]).hazards for seed in range(8)
    }
    assert len(layouts) > 4


def test_small_board_uses_a_5x5_maze() -> None:
    state = setup_board("solo_maze", S, 7, 7, ["a"])
    assert state.snakes[0].body == pts((1, 1), (1, 0), (1, 0))
    ring = {Point(x, y) for x in range(7) for y in range(1, 7) if x in (0, 6) or y == 6}
    assert ring <= set(state.hazards)


@pytest.mark.parametrize("size", [5, 7, 8, 12, 19, 23])
def test_generated_mazes_are_connected(size: int) -> None:
    for seed in range(1, 40):
        walls = set(generate_maze(GoRand(seed), size))
        assert len(walls) == len(generate_maze(GoRand(seed), size))
        free = {(x, y) for x in range(size) for y in range(size)} - walls
        assert (0, 0) in free
        seen, todo = {(0, 0)}, [(0, 0)]
        while todo:
            x, y = todo.pop()
            for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if n in free and n not in seen:
                    seen.add(n)
                    todo.append(n)
        assert seen == free


def test_level_is_read_from_row_zero_in_binary() -> None:
    for level in (0, 1, 5, 12):
        state = BoardState(0, 11, 11, (), (), level_row(level, 11) + pts((3, 3)))
        assert read_level(state) == level
    assert level_row(5, 11) == pts((8, 0), (10, 0))


def test_eating_the_food_levels_up_and_rebuilds_the_maze() -> None:
    start = setup_board("solo_maze", S, 11, 11, ["a"])
    moved = Snake("a", pts((3, 5), (2, 5), (2, 4), (2, 3)), health=40)
    eaten = BoardState(9, 11, 11, (moved,), (), start.hazards)
    after = update(eaten)
    assert read_level(after) == 1
    assert [p for p in after.hazards if p.y == 0] == [Point(10, 0)]
    # Level 1: an 8x8 maze at offset (1, 1); the snake is re-placed, 4 long, healed.
    assert after.snakes[0].body == pts((1, 1), (1, 0), (1, 0), (1, 0))
    assert after.snakes[0].health == 100
    assert len(after.food) == 1 and after.food[0] not in after.hazards
    outside = {
        Point(x, y) for x in range(11) for y in range(1, 11) if not (1 <= x <= 8 and 1 <= y <= 8)
    }
    assert outside <= set(after.hazards) and Point(1, 1) not in after.hazards
    assert after.hazards != start.hazards


def test_food_left_alone_outside_evil_mode() -> None:
    snake = Snake("a", pts((4, 4), (4, 3), (4, 2)))
    state = BoardState(30, 11, 11, (snake,), pts((5, 4)), level_row(7, 11))
    assert update(state) == state


def _evil_state(food: Point) -> BoardState:
    # 11x11: max maze 9, so evil mode starts when level - 5 > 9 - 7, i.e. level 8.
    snake = Snake("a", pts((4, 4), (4, 3), (4, 2)))
    return BoardState(30, 11, 11, (snake,), (food,), level_row(8, 11))


def test_evil_mode_moves_food_the_head_gets_near() -> None:
    state = _evil_state(Point(5, 5))
    after = update(state)
    assert len(after.food) == 1
    assert Point(5, 5) not in after.food
    for food in after.food:
        assert abs(food.x - 4) + abs(food.y - 4) >= 4  # min(5, 9 // 2)
        assert food not in state.hazards and food not in state.snakes[0].body
    assert after.snakes == state.snakes and after.hazards == state.hazards
    assert update(state) == after


def test_evil_mode_leaves_distant_food() -> None:
    state = _evil_state(Point(9, 4))  # distance 5
    assert update(state) == state


def test_new_food_also_avoids_the_previous_levels_walls() -> None:
    # The reference checks the food against the old hazards plus the new maze.
    for seed in range(1, 40):
        s = S.with_seed(seed)
        start = setup_board("solo_maze", s, 11, 11, ["a"])
        eaten = BoardState(5, 11, 11, start.snakes, (), start.hazards)
        after = update(eaten, s)
        assert not set(after.food) & set(start.hazards)
