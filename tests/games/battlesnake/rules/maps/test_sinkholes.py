from collections import Counter

import pytest

from snakewar.errors import MapSetupError
from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.game import setup_board
from snakewar.games.battlesnake.rules.maps import get_map
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState, Point, Snake

NO_FOOD = {"foodSpawnChance": "0", "minimumFood": "0"}


def settings(seed: int = 7, **params: str) -> Settings:
    return Settings({**NO_FOOD, **params}, seed)


def update(state: BoardState, s: Settings) -> BoardState:
    edit = MutableBoard.from_state(state)
    get_map("sinkholes").post_update_board(state, s, edit)
    return edit.freeze()


def board(turn: int, size: int = 11, hazards: tuple[Point, ...] = ()) -> BoardState:
    snake = Snake("a", (Point(0, 0), Point(0, 1), Point(0, 2)))
    return BoardState(turn, size, size, (snake,), (), hazards)


def test_metadata() -> None:
    meta = get_map("sinkholes").meta
    assert (meta.name, meta.author, meta.version) == ("Sinkholes", "Battlesnake", 1)
    assert (meta.min_players, meta.max_players) == (1, 8)
    assert meta.sizes.sizes == ((7, 7), (11, 11), (19, 19))
    assert meta.tags == ("hazard-placement",)
    assert not meta.is_experimental


def test_refuses_more_than_16_snakes_even_where_random_placement_would_fit() -> None:
    ids = [f"s{i}" for i in range(17)]
    with pytest.raises(MapSetupError, match="17"):
        setup_board("sinkholes", settings(), 7, 7, ids)


def test_setup_is_the_standard_setup_and_deterministic() -> None:
    s = settings(seed=12345)
    ours = setup_board("sinkholes", s, 11, 11, ["a", "b", "c"])
    assert ours == setup_board("standard", s, 11, 11, ["a", "b", "c"])
    assert ours == setup_board("sinkholes", s, 11, 11, ["a", "b", "c"])
    assert ours.hazards == ()


def test_centre_appears_at_pre_increment_turn_one() -> None:
    s = settings()
    assert update(board(0), s).hazards == ()
    assert update(board(1), s).hazards == (Point(5, 5),)
    assert update(board(2), s).hazards == ()


def test_ring_is_square_minus_corners_and_stacks_on_existing() -> None:
    s = settings(shrinkEveryNTurns="4")
    after = update(board(5, hazards=(Point(5, 5),)), s)
    added = after.hazards[1:]
    assert after.hazards[0] == Point(5, 5)
    assert len(added) == 5  # 3x3 minus its 4 corners
    assert set(added) == {Point(5, 5), Point(4, 5), Point(6, 5), Point(5, 4), Point(5, 6)}
    assert added[0] == Point(4, 5)  # x-major order
    assert Counter(after.hazards)[Point(5, 5)] == 2


def test_default_period_is_ten_when_setting_is_zero_missing_or_invalid() -> None:
    for s in (settings(), settings(shrinkEveryNTurns="0"), settings(shrinkEveryNTurns="x")):
        assert update(board(11), s).hazards != ()
        assert update(board(6), s).hazards == ()
    assert update(board(6), settings(shrinkEveryNTurns="5")).hazards != ()


def test_full_run_on_7x7_never_reaches_the_last_ring() -> None:
    s = settings(shrinkEveryNTurns="2")
    state = board(0, size=7)
    grown_at = []
    for turn in range(30):
        state = BoardState(turn, 7, 7, state.snakes, (), state.hazards)
        before = len(state.hazards)
        state = update(state, s)
        if len(state.hazards) != before:
            grown_at.append(turn)
    # Centre, ring 1, ring 2; ring 3 would be due at T = 7 > P * max_rings = 6.
    assert grown_at == [1, 3, 5]
    counts = Counter(state.hazards)
    assert counts[Point(3, 3)] == 3  # centre + each ring covers it
    assert counts[Point(1, 3)] == 1  # outermost drawn ring only
    assert Point(1, 1) not in counts  # rounded corners
    assert Point(0, 3) not in counts
    assert len(state.hazards) == 1 + 5 + 21


def test_max_rings_depends_on_width() -> None:
    s = settings(shrinkEveryNTurns="1")
    # ring k is added at T = 1 + k while T <= max_rings (period 1)
    assert update(board(6, size=11), s).hazards == ()  # offset 5 but T=6 > 1*5
    assert update(board(5, size=11), s).hazards != ()
    assert update(board(8, size=19), s).hazards == ()
    assert update(board(7, size=19), s).hazards != ()
