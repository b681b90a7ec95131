import pytest

from snakewar.errors import MapSetupError
from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.game import setup_board
from snakewar.games.battlesnake.rules.maps import get_map
from snakewar.games.battlesnake.rules.maps.healing_pools import POOL_LAYOUTS
from snakewar.games.battlesnake.rules.rng import GoRand
from snakewar.games.battlesnake.rules.rulesets import royale_hazards
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState, Point, Snake

NO_FOOD = {"foodSpawnChance": "0", "minimumFood": "0"}


def settings(seed: int = 1, **params: str) -> Settings:
    return Settings({**NO_FOOD, **params}, seed)


def update(state: BoardState, s: Settings) -> BoardState:
    edit = MutableBoard.from_state(state)
    get_map("healing_pools").post_update_board(state, s, edit)
    return edit.freeze()


def board(turn: int, size: int, hazards: tuple[Point, ...]) -> BoardState:
    snake = Snake("a", (Point(0, 0), Point(0, 1), Point(0, 2)))
    return BoardState(turn, size, size, (snake,), (), hazards)


def pts(*coords: tuple[int, int]) -> tuple[Point, ...]:
    return tuple(Point(x, y) for x, y in coords)


def test_metadata() -> None:
    meta = get_map("healing_pools").meta
    assert (meta.name, meta.author, meta.version) == ("Healing Pools", "Battlesnake", 1)
    assert (meta.min_players, meta.max_players) == (1, 8)
    assert meta.sizes.sizes == ((7, 7), (11, 11), (19, 19))
    assert meta.tags == ("hazard-placement",)


def test_refuses_unsupported_sizes_and_too_many_snakes() -> None:
    with pytest.raises(MapSetupError, match="9x9"):
        setup_board("healing_pools", settings(), 9, 9, ["a"])
    with pytest.raises(MapSetupError, match="17"):
        setup_board("healing_pools", settings(), 7, 7, [f"s{i}" for i in range(17)])


def test_setup_is_standard_plus_one_whole_layout() -> None:
    seen = set()
    for seed in range(1, 40):
        s = settings(seed)
        state = setup_board("healing_pools", s, 11, 11, ["a", "b"])
        assert state == setup_board("healing_pools", s, 11, 11, ["a", "b"])
        standard = setup_board("standard", s, 11, 11, ["a", "b"])
        assert (state.snakes, state.food) == (standard.snakes, standard.food)
        assert state.hazards in POOL_LAYOUTS[(11, 11)]
        seen.add(state.hazards)
    assert len(seen) == 4
    assert setup_board("healing_pools", settings(), 7, 7, ["a"]).hazards == pts((3, 3))


def test_no_removal_off_period_at_turn_zero_or_without_period() -> None:
    pools = POOL_LAYOUTS[(11, 11)][0]
    s = settings(shrinkEveryNTurns="10")
    assert update(board(0, 11, pools), s).hazards == pools
    assert update(board(15, 11, pools), s).hazards == pools
    for off in (settings(), settings(shrinkEveryNTurns="0"), settings(shrinkEveryNTurns="-10")):
        assert update(board(10, 11, pools), off).hazards == pools
    assert update(board(10, 11, pools), s).hazards != pools


def test_first_removal_uses_the_first_draw_of_the_seeded_global_source() -> None:
    pools = POOL_LAYOUTS[(19, 19)][1]
    for seed in range(1, 20):
        after = update(board(10, 19, pools), settings(seed, shrinkEveryNTurns="10"))
        gone = pools[GoRand(seed).intn(4)]
        assert len(after.hazards) == 3 and gone not in after.hazards


def test_pools_dry_up_one_per_period_replaying_earlier_draws() -> None:
    # Seed 1 draws 1, 0, 1, 0 for Intn(4), Intn(3), Intn(2), Intn(1) in one stream,
    # while a fresh stream per removal would draw Intn(3) = 2 at the second one.
    s = settings(1, shrinkEveryNTurns="10")
    pools = setup_board("healing_pools", s, 19, 19, ["a"]).hazards
    assert pools == pts((5, 10), (13, 10), (10, 13), (10, 5))
    hazards = pools
    history = []
    for turn in range(1, 60):
        hazards = update(board(turn, 19, hazards), s).hazards
        if turn % 10 == 0:
            history.append(hazards)
    assert history == [
        pts((5, 10), (10, 5), (10, 13)),
        pts((10, 13), (10, 5)),
        pts(
            (10, 13),
        ),
        (),
        (),
    ]


def test_foreign_hazards_replay_one_draw_per_earlier_removal_turn() -> None:
    # Under the royale ruleset the stage rebuilds the hazards every turn, so each
    # earlier removal turn drew Intn(size of the royale zone).
    s = settings(5, shrinkEveryNTurns="10")
    zone = tuple(royale_hazards(s, 11, 11, 51, 10) or ())
    expected = GoRand(5)
    for t in (10, 20, 30, 40):  # more removal turns than the layout has pools
        expected.intn(len(royale_hazards(s, 11, 11, t + 1, 10) or ()))
    gone = zone[expected.intn(len(zone))]
    after = update(board(50, 11, zone), s)
    assert len(after.hazards) == len(zone) - 1 and gone not in after.hazards


def test_food_still_spawns() -> None:
    s = Settings({"minimumFood": "2", "shrinkEveryNTurns": "10"}, 8)
    assert len(update(board(3, 7, pts((3, 3))), s).food) == 2
