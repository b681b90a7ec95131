"""Tests of the procedural hazard maps (hz_inner_wall ... hz_expand_scatter)."""

from __future__ import annotations

import pytest

from snakewar.errors import MapSetupError
from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.game import setup_board
from snakewar.games.battlesnake.rules.maps import get_map
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState, Point

STATIC = ("hz_inner_wall", "hz_rings", "hz_columns")
DYNAMIC = ("hz_spiral", "hz_scatter", "hz_grow_box", "hz_expand_box", "hz_expand_scatter")
ALL = STATIC + DYNAMIC

# No food spawns: keeps long runs fast and hazards are independent of food anyway.
NO_FOOD = {"minimumFood": "0", "foodSpawnChance": "0"}


def pts(text: str) -> list[Point]:
    """Parse ``"x,y x,y ..."``."""
    return [Point(*map(int, item.split(","))) for item in text.split()]


def run(
    map_id: str,
    seed: int,
    width: int,
    height: int,
    turns: int,
    params: dict[str, str] | None = None,
) -> list[list[Point]]:
    """Set up a one-snake game and apply only the map update for turns 0..turns-1.

    Returns the hazards added by each update (index T = the update after turn T).
    """
    settings = Settings(NO_FOOD if params is None else params, seed)
    game_map = get_map(map_id)
    state = setup_board(map_id, settings, width, height, ["a"])
    added: list[list[Point]] = []
    for t in range(turns):
        last = BoardState(t, width, height, state.snakes, state.food, state.hazards)
        edit = MutableBoard.from_state(last)
        game_map.post_update_board(last, settings, edit)
        assert edit.hazards[: len(last.hazards)] == list(last.hazards)  # append-only
        added.append(edit.hazards[len(last.hazards) :])
        state = edit.freeze()
    return added


def final_hazards(map_id: str, seed: int, width: int, height: int, turns: int) -> list[Point]:
    state = setup_board(map_id, Settings(NO_FOOD, seed), width, height, ["a"])
    return list(state.hazards) + [
        p for step in run(map_id, seed, width, height, turns) for p in step
    ]


# -- metadata and refusals -------------------------------------------------------------


def test_metadata() -> None:
    authors = {"hz_inner_wall": "Battlesnake", "hz_rings": "Battlesnake"}
    authors |= {"hz_columns": "Battlesnake", "hz_spiral": "altersaddle"}
    for map_id in ALL:
        meta = get_map(map_id).meta
        assert meta.id == map_id
        assert meta.name == map_id
        assert meta.author == authors.get(map_id, "")
        assert meta.version == 2
        assert (meta.min_players, meta.max_players) == (1, 16)
        assert meta.tags == ("hazard-placement",)
        assert meta.sizes.allows(7, 7) and meta.sizes.allows(25, 25)
        assert not meta.sizes.allows(8, 8) and not meta.sizes.allows(27, 27)
        assert meta.description


@pytest.mark.parametrize("map_id", ALL)
def test_refuses_more_than_16_snakes(map_id: str) -> None:
    ids = [f"s{i}" for i in range(17)]
    with pytest.raises(MapSetupError, match="17"):
        setup_board(map_id, Settings(seed=1), 19, 19, ids)
    # 16 fit (distributed placement on a big board).
    assert len(setup_board(map_id, Settings(seed=1), 19, 19, ids[:16]).snakes) == 16


@pytest.mark.parametrize("map_id", ["hz_grow_box", "hz_expand_box"])
def test_refuses_boards_too_small_for_random_start(map_id: str) -> None:
    with pytest.raises(MapSetupError, match="at least 4x"):
        setup_board(map_id, Settings(seed=1), 3, 3, ["a"])
    # A hand-built tiny board fails cleanly on the first spawn turn, not with a ValueError.
    last = BoardState(0, 3, 3)
    with pytest.raises(MapSetupError, match="3x3"):
        get_map(map_id).post_update_board(last, Settings(NO_FOOD, 1), MutableBoard.from_state(last))


def test_inner_wall_refuses_board_without_room_for_the_ring() -> None:
    with pytest.raises(MapSetupError, match="ring offset"):
        setup_board("hz_inner_wall", Settings(seed=1), 3, 3, ["a"])


# -- static layouts --------------------------------------------------------------------


def test_inner_wall_layout() -> None:
    state = setup_board("hz_inner_wall", Settings(seed=5), 7, 7, ["a", "b"])
    ring = [Point(x, y) for x in range(1, 6) for y in (1, 5)]
    ring += [Point(x, y) for y in range(2, 5) for x in (1, 5)]
    assert list(state.hazards) == ring
    # The standard setup is untouched: same snakes and food as the standard map.
    std = setup_board("standard", Settings(seed=5), 7, 7, ["a", "b"])
    assert state.snakes == std.snakes and state.food == std.food
    assert run("hz_inner_wall", 5, 7, 7, 30) == [[]] * 30


def test_rings_layout() -> None:
    s7 = setup_board("hz_rings", Settings(seed=2), 7, 7, ["a"])
    assert list(s7.hazards) == list(
        setup_board("hz_inner_wall", Settings(seed=2), 7, 7, ["a"]).hazards
    )
    s11 = setup_board("hz_rings", Settings(seed=2), 11, 11, ["a"])
    outer, inner = s11.hazards[:32], s11.hazards[32:]
    assert len(s11.hazards) == 32 + 16
    assert {max(abs(p.x - 5), abs(p.y - 5)) for p in outer} == {4}
    assert {max(abs(p.x - 5), abs(p.y - 5)) for p in inner} == {2}
    assert list(inner[:4]) == pts("3,3 3,7 4,3 4,7")
    # 19x19: rings at insets 2, 4, 6, 8 (the last is a 5x5 ring around the centre).
    s19 = setup_board("hz_rings", Settings(seed=2), 19, 19, ["a"])
    assert len(s19.hazards) == 64 + 48 + 32 + 16
    assert {max(abs(p.x - 9), abs(p.y - 9)) for p in s19.hazards} == {8, 6, 4, 2}


def test_columns_layout() -> None:
    state = setup_board("hz_columns", Settings(seed=3), 7, 7, ["a"])
    assert list(state.hazards) == pts("1,1 1,3 1,5 3,1 3,3 3,5 5,1 5,3 5,5")
    assert run("hz_columns", 3, 7, 7, 10) == [[]] * 10


@pytest.mark.parametrize("map_id", DYNAMIC)
def test_dynamic_maps_have_no_setup_hazards_and_standard_setup(map_id: str) -> None:
    state = setup_board(map_id, Settings(seed=9), 11, 11, ["a", "b", "c"])
    std = setup_board("standard", Settings(seed=9), 11, 11, ["a", "b", "c"])
    assert state.hazards == ()
    assert state.snakes == std.snakes and state.food == std.food


@pytest.mark.parametrize("map_id", DYNAMIC)
def test_food_spawns_like_the_standard_map(map_id: str) -> None:
    settings = Settings({"minimumFood": "3", "foodSpawnChance": "50"}, 77)
    state = setup_board(map_id, settings, 11, 11, ["a", "b"])
    last = BoardState(4, 11, 11, state.snakes, (), ())
    mine, std = MutableBoard.from_state(last), MutableBoard.from_state(last)
    get_map(map_id).post_update_board(last, settings, mine)
    get_map("standard").post_update_board(last, settings, std)
    assert mine.food == std.food and len(mine.food) == 3


# -- golden results from the reference engine -------------------------------------------
# Hazard lists recorded from the Go engine (conformance games on the standard or
# wrapped ruleset), after the update of the given number of turns.


def test_spiral_matches_reference() -> None:
    expected = pts(
        "9,7 9,8 10,8 10,7 10,6 9,6 8,6 8,7 8,8 8,9 9,9 10,9 11,9 11,8 11,7 11,6 11,5 10,5 "
        "9,5 8,5 7,5 7,6 7,7 7,8 7,9 7,10 8,10 9,10 10,10 11,10 12,10 12,9 12,8 12,7 12,6 "
        "12,5 12,4 11,4 10,4 9,4 8,4 7,4 6,4 6,5 6,6"
    )
    assert final_hazards("hz_spiral", 2594828536515679000, 19, 19, 136) == expected


def test_scatter_matches_reference() -> None:
    expected = pts("2,5 1,2 3,6 0,2 2,1 4,3 1,3 4,4 5,2 0,4 5,1 0,0")
    assert final_hazards("hz_scatter", 55148625511917701, 7, 7, 25) == expected


def test_grow_box_matches_reference() -> None:
    expected = pts("2,2 1,2 1,1 2,1 0,1 0,2 0,3 1,3 2,3")
    assert final_hazards("hz_grow_box", 1104072179255805591, 7, 7, 60) == expected


def test_expand_box_matches_reference() -> None:
    expected = pts(
        "9,9 8,8 8,9 8,10 9,8 9,10 10,8 10,9 10,10 7,7 7,8 7,9 7,10 8,7 9,7 10,7 6,6 6,7 "
        "6,8 6,9 6,10 7,6 8,6 9,6 10,6 5,5 5,6 5,7 5,8 5,9 5,10 6,5 7,5 8,5 9,5 10,5 4,4 "
        "4,5 4,6 4,7 4,8 4,9 4,10 5,4 6,4 7,4 8,4 9,4 10,4"
    )
    assert final_hazards("hz_expand_box", 4483841300561511193, 11, 11, 105) == expected


def test_expand_scatter_matches_reference() -> None:
    expected = pts(
        "5,9 4,9 5,10 5,8 4,8 6,8 4,10 6,10 6,9 3,8 7,10 7,8 3,7 4,7 7,9 3,10 5,7 7,7 6,7 "
        "3,9 8,9 2,8 3,6 8,6 4,6 2,10 2,9 6,6 8,8"
    )
    assert final_hazards("hz_expand_scatter", 1284124806, 11, 11, 58) == expected


# -- behaviours ------------------------------------------------------------------------


@pytest.mark.parametrize("map_id", DYNAMIC)
def test_deterministic_from_seed(map_id: str) -> None:
    a = run(map_id, 424242, 11, 11, 130)
    assert a == run(map_id, 424242, 11, 11, 130)
    assert a != run(map_id, 424243, 11, 11, 130)


def test_spiral_timing_and_clockwise_path() -> None:
    added = run("hz_spiral", 31337, 11, 11, 60)
    for t, step in enumerate(added):
        current = t + 1
        assert len(step) == (1 if current >= 3 and current % 3 == 0 else 0), current
    path = [step[0] for step in added if step]
    sx, sy = path[0]
    assert 3 <= sx <= 7 and 3 <= sy <= 7  # middle of the board: floor(0.3*11) .. 11-1-3
    # Ring 1 starts above the start and walks clockwise; ring 2 starts one left of it.
    ring1 = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]
    assert path[1:9] == [Point(sx + dx, sy + dy) for dx, dy in ring1]
    assert path[9:12] == [Point(sx - 1, sy + 2), Point(sx, sy + 2), Point(sx + 1, sy + 2)]


def test_spiral_skips_off_board_squares_and_covers_board_once() -> None:
    seed, size = 1, 7
    added = run("hz_spiral", seed, size, size, 600)
    flat = [p for step in added for p in step]
    # Every square exactly once, then nothing more.
    assert sorted(flat) == sorted(Point(x, y) for x in range(size) for y in range(size))
    # The spiral spends turns on off-board squares: it finishes later than 3 * 49.
    last_turn = max(t + 1 for t, step in enumerate(added) if step)
    assert last_turn > 3 * size * size
    # Each added square is adjacent (8-neighbourhood) to some earlier one.
    for i in range(1, len(flat)):
        p = flat[i]
        assert any(max(abs(p.x - q.x), abs(p.y - q.y)) == 1 for q in flat[:i])


def test_scatter_fills_board_then_stops_without_crashing() -> None:
    # The reference panics at current turn 2*W*H + 2 = 100 on 7x7; Snakewar stops adding.
    added = run("hz_scatter", 2024, 7, 7, 260)
    for t, step in enumerate(added):
        current = t + 1
        expect = 1 if current % 2 == 0 and current <= 2 * 49 else 0
        assert len(step) == expect, current
    flat = [p for step in added for p in step]
    assert sorted(flat) == sorted(Point(x, y) for x in range(7) for y in range(7))


def test_scatter_far_past_the_end() -> None:
    settings = Settings(NO_FOOD, 5)
    last = BoardState(10_001, 7, 7)
    edit = MutableBoard.from_state(last)
    get_map("hz_scatter").post_update_board(last, settings, edit)
    assert edit.hazards == []


def test_grow_box_grows_one_side_every_12_turns_until_full() -> None:
    size = 7
    added = run("hz_grow_box", 99, size, size, 12 * 14 + 30)
    spawn_turns = [t + 1 for t, step in enumerate(added) if step]
    assert spawn_turns == [1 + 12 * k for k in range(len(spawn_turns))]
    assert len(spawn_turns) == 1 + (size - 1) * 2  # start, then one line per step
    start = added[0][0]
    assert 2 <= start.x <= size - 2 and 2 <= start.y <= size - 2
    box: set[Point] = {start}
    for step in (s for s in added[1:] if s):
        line = set(step)
        assert len(line) == len(step) and not line & box
        box |= line
        xs, ys = {p.x for p in box}, {p.y for p in box}
        # The union stays a full rectangle.
        assert len(box) == len(xs) * len(ys) == (max(xs) - min(xs) + 1) * (max(ys) - min(ys) + 1)
    assert len(box) == size * size


def test_grow_box_stops_when_hazard_count_reaches_board_area() -> None:
    settings = Settings(NO_FOOD, 99)
    filler = tuple(Point(0, 0) for _ in range(49))
    last = BoardState(12, 7, 7, hazards=filler)  # current 13 is a spawn turn
    edit = MutableBoard.from_state(last)
    get_map("hz_grow_box").post_update_board(last, settings, edit)
    assert edit.hazards == list(filler)
    last = BoardState(12, 7, 7, hazards=filler[:48])
    edit = MutableBoard.from_state(last)
    get_map("hz_grow_box").post_update_board(last, settings, edit)
    assert len(edit.hazards) > 48


def test_expand_box_rings_every_20_turns() -> None:
    added = run("hz_expand_box", 7, 11, 11, 20 * 12 + 5)
    spawns = {t + 1: step for t, step in enumerate(added) if step}
    assert all((turn - 1) % 20 == 0 for turn in spawns)
    (start,) = spawns[1]
    assert 2 <= start.x <= 9 and 2 <= start.y <= 9
    for turn, step in spawns.items():
        k = turn // 20
        assert {max(abs(p.x - start.x), abs(p.y - start.y)) for p in step} == {k}
        assert step == sorted(step)  # x-major, then y
        assert all(0 <= p.x < 11 and 0 <= p.y < 11 for p in step)
    flat = [p for step in added for p in step]
    assert sorted(flat) == sorted(Point(x, y) for x in range(11) for y in range(11))


def test_expand_box_draws_start_y_from_the_width() -> None:
    # On a wide, short board the start row can lie above the top edge, as in the reference.
    off_board = 0
    for seed in range(1, 40):
        (start,) = run("hz_expand_box", seed, 13, 7, 1)[0]
        assert 2 <= start.y <= 11
        off_board += start.y >= 7
    assert off_board > 0


def test_expand_scatter_one_square_every_2_turns_ring_by_ring() -> None:
    size = 7
    added = run("hz_expand_scatter", 11, size, size, 2 * size * size + 20)
    for t, step in enumerate(added):
        current = t + 1
        expect = 1 if current % 2 == 1 and current <= 2 * size * size - 1 else 0
        assert len(step) == expect, current
    flat = [p for step in added for p in step]
    start = flat[0]
    assert 1 <= start.x <= size - 1 and 1 <= start.y <= size - 1
    rings = [max(abs(p.x - start.x), abs(p.y - start.y)) for p in flat]
    assert rings == sorted(rings)  # inner rings are used up before outer ones
    assert sorted(flat) == sorted(Point(x, y) for x in range(size) for y in range(size))
    # Within a ring the order is shuffled, not the x-major scan order.
    ring1 = [p for p, r in zip(flat, rings, strict=True) if r == 1]
    around = {Point(start.x + dx, start.y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
    on_board = {p for p in around if 0 <= p.x < size and 0 <= p.y < size} - {start}
    assert set(ring1) == on_board and len(ring1) == len(on_board)
    assert ring1 != sorted(ring1)


def test_expand_scatter_stops_when_its_squares_run_out() -> None:
    # With other hazards replacing the map's (as the royale ruleset does), the count
    # never reaches W*H; the reference then indexes past its list. Snakewar adds nothing.
    last = BoardState(2 * 49 + 10, 7, 7, hazards=(Point(0, 0),))
    edit = MutableBoard.from_state(last)
    get_map("hz_expand_scatter").post_update_board(last, Settings(NO_FOOD, 3), edit)
    assert edit.hazards == [Point(0, 0)]


def test_expand_scatter_draws_start_y_from_the_width() -> None:
    off_board = 0
    for seed in range(1, 40):
        (start,) = run("hz_expand_scatter", seed, 13, 7, 1)[0]
        assert 1 <= start.x <= 12 and 1 <= start.y <= 12
        off_board += start.y >= 7
    assert off_board > 0
