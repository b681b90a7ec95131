from collections import Counter

import pytest

from snakewar.errors import MapSetupError
from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.game import setup_board
from snakewar.games.battlesnake.rules.maps import get_map
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState, Point, Snake

STARTS = {Point(1, 1), Point(9, 1), Point(1, 9), Point(9, 9)}
NO_FOOD = {"foodSpawnChance": "0", "minimumFood": "0"}


def settings(seed: int = 3, **params: str) -> Settings:
    return Settings({**NO_FOOD, **params}, seed)


def update(state: BoardState, s: Settings) -> BoardState:
    edit = MutableBoard.from_state(state)
    get_map("hz_hazard_pits").post_update_board(state, s, edit)
    return edit.freeze()


def board(turn: int, hazards: tuple[Point, ...] = ()) -> BoardState:
    snake = Snake("a", (Point(5, 5), Point(5, 4), Point(5, 3)))
    return BoardState(turn, 11, 11, (snake,), (), hazards)


def test_metadata() -> None:
    meta = get_map("hz_hazard_pits").meta
    assert (meta.name, meta.author, meta.version) == ("hz_hazard_pits", "Battlesnake", 1)
    assert (meta.min_players, meta.max_players) == (0, 4)
    assert meta.sizes.sizes == ((11, 11),)
    assert meta.tags == ("food-placement", "hazard-placement", "snake-placement")


def test_refuses_other_sizes_and_more_than_four_snakes() -> None:
    with pytest.raises(MapSetupError, match="19x19"):
        setup_board("hz_hazard_pits", settings(), 19, 19, ["a"])
    with pytest.raises(MapSetupError, match="5"):
        setup_board("hz_hazard_pits", settings(), 11, 11, ["a", "b", "c", "d", "e"])


def test_setup_places_snakes_on_shuffled_corner_starts_with_fixed_food() -> None:
    ids = ["a", "b", "c", "d"]
    seen_orders = set()
    for seed in range(1, 30):
        state = setup_board("hz_hazard_pits", settings(seed), 11, 11, ids)
        assert state == setup_board("hz_hazard_pits", settings(seed), 11, 11, ids)
        heads = [s.body[0] for s in state.snakes]
        assert set(heads) == STARTS
        for s in state.snakes:
            assert s.body == (s.body[0],) * 3 and s.health == 100
        assert state.food[-1] == Point(5, 5)
        assert len(state.food) == 5
        for snake, food in zip(state.snakes, state.food, strict=False):
            head = snake.body[0]
            assert abs(food.x - head.x) == 1 and abs(food.y - head.y) == 1
        assert state.hazards == ()
        seen_orders.add(tuple(heads))
    assert len(seen_orders) > 5  # the start order depends on the seed


def test_setup_is_pure_between_games() -> None:
    # The reference shuffles a package-level list in place; ours must not leak.
    first = setup_board("hz_hazard_pits", settings(99), 11, 11, ["a", "b"])
    setup_board("hz_hazard_pits", settings(5), 11, 11, ["a", "b"])
    assert setup_board("hz_hazard_pits", settings(99), 11, 11, ["a", "b"]) == first


def test_zero_snakes_get_the_centre_food_only() -> None:
    state = setup_board("hz_hazard_pits", settings(), 11, 11, [])
    assert state.snakes == () and state.food == (Point(5, 5),)


def test_layers_cycle_0_1_2_3_4_4_4() -> None:
    s = settings(shrinkEveryNTurns="10")
    pits = [Point(x, y) for x in range(1, 11, 2) for y in range(1, 11, 2)]
    pits = [p for p in pits if p not in STARTS]
    assert len(pits) == 21
    stale = (Point(0, 0),)
    layers = [len(update(board(10 * k, stale), s).hazards) // 21 for k in range(9)]
    assert layers == [0, 1, 2, 3, 4, 4, 4, 0, 1]
    assert update(board(30, stale), s).hazards == tuple(pits * 3)
    counts = Counter(update(board(50, stale), s).hazards)
    assert set(counts.values()) == {4} and not set(counts) & STARTS


def test_hazards_untouched_between_periods() -> None:
    s = settings(shrinkEveryNTurns="10")
    stale = (Point(0, 0), Point(0, 0))
    assert update(board(15, stale), s).hazards == stale


def test_zero_or_missing_period_does_not_crash_and_leaves_hazards() -> None:
    stale = (Point(3, 3),)
    for s in (settings(shrinkEveryNTurns="0"), settings(), settings(shrinkEveryNTurns="oops")):
        for turn in (0, 1, 10, 25):
            assert update(board(turn, stale), s).hazards == stale


def test_zero_period_still_spawns_food() -> None:
    s = Settings({"minimumFood": "2", "shrinkEveryNTurns": "0"}, 4)
    assert len(update(board(3), s).food) == 2


def test_negative_period_clears_at_multiples_but_never_fills() -> None:
    s = settings(shrinkEveryNTurns="-5")
    stale = (Point(3, 3),)
    assert update(board(10, stale), s).hazards == ()
    assert update(board(7, stale), s).hazards == stale
