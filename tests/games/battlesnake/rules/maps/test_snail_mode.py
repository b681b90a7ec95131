from collections import Counter

import pytest

from snakewar.errors import MapSetupError
from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.game import setup_board
from snakewar.games.battlesnake.rules.maps import get_map
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState, Point, Snake

NO_FOOD = Settings({"foodSpawnChance": "0", "minimumFood": "0"}, 11)
H = 11


def update(state: BoardState, s: Settings = NO_FOOD) -> BoardState:
    edit = MutableBoard.from_state(state)
    get_map("snail_mode").post_update_board(state, s, edit)
    return edit.freeze()


def pts(*coords: tuple[int, int]) -> tuple[Point, ...]:
    return tuple(Point(x, y) for x, y in coords)


def state(*snakes: Snake, hazards: tuple[Point, ...] = (), turn: int = 4) -> BoardState:
    return BoardState(turn, 11, H, snakes, (), hazards)


def test_metadata() -> None:
    meta = get_map("snail_mode").meta
    assert (meta.name, meta.author, meta.version) == ("Snail Mode", "coreyja and jlafayette", 1)
    assert (meta.min_players, meta.max_players) == (1, 16)
    assert meta.sizes.allows(7, 7) and meta.sizes.allows(25, 25) and not meta.sizes.allows(8, 8)
    assert meta.is_experimental and "hazard-placement" in meta.tags


def test_refuses_more_than_16_snakes() -> None:
    with pytest.raises(MapSetupError, match="17"):
        setup_board("snail_mode", NO_FOOD, 7, 7, [f"s{i}" for i in range(17)])


def test_setup_is_standard_and_deterministic() -> None:
    s = Settings.defaults(seed=2024)
    ours = setup_board("snail_mode", s, 11, 11, ["a", "b"])
    assert ours == setup_board("standard", s, 11, 11, ["a", "b"])
    assert ours == setup_board("snail_mode", s, 11, 11, ["a", "b"])


def test_tail_is_stored_off_board_with_one_copy_per_segment() -> None:
    snake = Snake("a", pts((5, 5), (5, 4), (5, 3), (5, 2)))
    after = update(state(snake))
    assert after.hazards == (Point(5, 2 + H),) * 4


def test_stored_tail_comes_back_on_board_then_fades() -> None:
    moved = Snake("a", pts((5, 6), (5, 5), (5, 4), (5, 3)))
    after = update(state(moved, hazards=(Point(5, 2 + H),) * 4))
    on_board = [p for p in after.hazards if p.y < H]
    assert on_board == [Point(5, 2)] * 4
    assert Counter(after.hazards)[Point(5, 3 + H)] == 4
    # With the snake gone, the stack shrinks by one per update.
    stacks = []
    current = BoardState(5, 11, H, (), (), tuple(on_board))
    for _ in range(5):
        current = update(current)
        stacks.append(len(current.hazards))
    assert stacks == [3, 2, 1, 0, 0]


def test_stacked_tail_leaves_no_trail() -> None:
    snake = Snake("a", pts((5, 5), (5, 4), (5, 4)))
    assert update(state(snake)).hazards == ()


def test_eliminated_snakes_leave_no_trail_and_do_not_block() -> None:
    dead = Snake("d", pts((5, 2), (5, 3), (5, 4)), eliminated_cause="wall-collision")
    assert update(state(dead)).hazards == ()
    # A stored tail under a dead snake's head is still restored.
    assert update(state(dead, hazards=(Point(5, 2 + H),))).hazards == (Point(5, 2),)


def test_restored_tail_is_skipped_under_a_live_head() -> None:
    head_on_it = Snake("a", pts((5, 2), (5, 3), (5, 3)))
    after = update(state(head_on_it, hazards=(Point(5, 2 + H),) * 3))
    assert after.hazards == ()


def test_single_segment_snake_does_not_crash() -> None:
    tiny = Snake("a", pts((5, 5)))
    assert update(state(tiny)).hazards == ()


def test_hazard_order_is_fixed_decayed_then_stored_then_restored() -> None:
    snake = Snake("a", pts((1, 1), (1, 2), (1, 3)))
    hazards = (Point(7, 7), Point(8, 8), Point(7, 7), Point(9, 0 + H), Point(8, 8))
    after = update(state(snake, hazards=hazards))
    assert after.hazards == pts((7, 7), (8, 8), (1, 3 + H), (1, 3 + H), (1, 3 + H), (9, 0))
    assert update(state(snake, hazards=hazards)) == after


def test_food_still_spawns() -> None:
    s = Settings({"minimumFood": "3"}, 5)
    snake = Snake("a", pts((5, 5), (5, 4), (5, 3)))
    assert len(update(state(snake), s).food) == 3
