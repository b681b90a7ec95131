"""Tests for the arcade_maze map (expected values recorded from the Go reference engine)."""

from __future__ import annotations

import pytest

from snakewar.errors import MapSetupError
from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.game import setup_board
from snakewar.games.battlesnake.rules.maps import get_map
from snakewar.games.battlesnake.rules.maps.arcade_maze import ARCADE_MAZE_HAZARDS
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState, Point, Snake

IDS6 = [f"snake-{i}" for i in range(1, 7)]


def _settings(seed: int, chance: int = 15, minimum: int = 1) -> Settings:
    return Settings({"foodSpawnChance": str(chance), "minimumFood": str(minimum)}, seed)


def _snake(sid: str, *body: tuple[int, int], cause: str = "") -> Snake:
    return Snake(sid, tuple(Point(*p) for p in body), 100, cause)


def _update(state: BoardState, settings: Settings) -> list[Point]:
    edit = MutableBoard.from_state(state)
    get_map("arcade_maze").post_update_board(state, settings, edit)
    return edit.food


def test_metadata() -> None:
    meta = get_map("arcade_maze").meta
    assert (meta.name, meta.author, meta.version) == ("Arcade Maze", "Battlesnake", 1)
    assert (meta.min_players, meta.max_players) == (1, 6)
    assert meta.sizes.sizes == ((19, 21),)
    assert set(meta.tags) == {"food-placement", "hazard-placement", "snake-placement"}


@pytest.mark.parametrize("size", [(19, 19), (21, 19), (11, 11)])
def test_refuses_other_sizes(size: tuple[int, int]) -> None:
    with pytest.raises(MapSetupError, match="19x21"):
        setup_board("arcade_maze", _settings(1), *size, ["a"])


def test_refuses_more_than_six_snakes() -> None:
    with pytest.raises(MapSetupError, match="7"):
        setup_board("arcade_maze", _settings(1), 19, 21, [*IDS6, "snake-7"])


def test_hazards_are_the_187_maze_walls_in_reference_order() -> None:
    assert len(ARCADE_MAZE_HAZARDS) == 187 == len(set(ARCADE_MAZE_HAZARDS))
    # Top row first, left to right, down to the bottom row.
    assert ARCADE_MAZE_HAZARDS[:3] == (Point(0, 20), Point(2, 20), Point(3, 20))
    assert ARCADE_MAZE_HAZARDS[-1] == Point(18, 0)
    assert tuple(sorted(ARCADE_MAZE_HAZARDS, key=lambda p: (-p.y, p.x))) == ARCADE_MAZE_HAZARDS
    # The tunnel row has no side walls.
    assert Point(0, 11) not in ARCADE_MAZE_HAZARDS


def test_setup_matches_reference_six_snakes() -> None:
    board = setup_board("arcade_maze", _settings(223113700), 19, 21, IDS6)
    heads = [s.body[0] for s in board.snakes]
    assert heads == [(14, 17), (4, 17), (4, 7), (14, 7), (9, 9), (9, 13)]
    assert all(len(s.body) == 3 and len(set(s.body)) == 1 for s in board.snakes)
    assert board.hazards == ARCADE_MAZE_HAZARDS
    assert board.food == (Point(9, 11),)


def test_setup_matches_reference_two_snakes() -> None:
    board = setup_board("arcade_maze", _settings(4170424468373625263), 19, 21, IDS6[:2])
    assert [s.body[0] for s in board.snakes] == [(4, 17), (14, 17)]


def test_setup_is_deterministic_and_seed_dependent() -> None:
    boards = {
        tuple(s.body[0] for s in setup_board("arcade_maze", _settings(seed), 19, 21, IDS6).snakes)
        for seed in range(1, 30)
    }
    again = setup_board("arcade_maze", _settings(7), 19, 21, IDS6)
    assert again == setup_board("arcade_maze", _settings(7), 19, 21, IDS6)
    assert len(boards) > 1
    # Snakes 5 and 6 always start in the middle.
    assert all(b[4:] == ((9, 9), (9, 13)) for b in boards)


def test_no_centre_food_without_minimum_food() -> None:
    board = setup_board("arcade_maze", _settings(5, minimum=0), 19, 21, IDS6[:2])
    assert board.food == ()


def test_food_spawn_matches_reference() -> None:
    # Turn 2 of a recorded 6-snake game: (17, 1) is added.
    snakes = (
        _snake("snake-1", (14, 14), (14, 15), (14, 16)),
        _snake("snake-2", (4, 14), (4, 15), (4, 16)),
        _snake("snake-3", (4, 4), (4, 5), (4, 6)),
        _snake("snake-4", (14, 10), (14, 9), (14, 8)),
        _snake("snake-5", (6, 9), (7, 9), (8, 9)),
        _snake("snake-6", (6, 13), (7, 13), (8, 13)),
    )
    state = BoardState(2, 19, 21, snakes, (Point(9, 11),), ARCADE_MAZE_HAZARDS)
    assert _update(state, _settings(223113700)) == [Point(9, 11), Point(17, 1)]


def test_food_spawn_skips_spots_under_eliminated_snakes() -> None:
    # Turn 6 of a recorded game: first draw is a free spot (14, 17).
    snakes = (
        _snake("snake-1", (2, 12), (3, 12), (4, 12)),
        _snake("snake-2", (13, 11), (13, 12), (14, 12)),
    )
    state = BoardState(6, 19, 21, snakes, (Point(9, 11),), ARCADE_MAZE_HAZARDS)
    settings = _settings(4170424468373625263)
    assert _update(state, settings)[1:] == [Point(14, 17)]
    # An eliminated snake lying on (14, 17) still blocks it: another spot is chosen.
    dead = _snake("snake-2", (14, 17), (14, 16), (14, 15), cause="hazard")
    blocked = BoardState(6, 19, 21, (snakes[0], dead), (Point(9, 11),), ARCADE_MAZE_HAZARDS)
    added = _update(blocked, settings)[1:]
    assert len(added) == 1 and added[0] != Point(14, 17)


def test_food_spawn_chance_zero_and_hundred() -> None:
    state = BoardState(3, 19, 21, (_snake("a", (4, 7), (4, 7), (4, 7)),), (), ARCADE_MAZE_HAZARDS)
    for seed in range(20):
        assert _update(state, _settings(seed, chance=0)) == []
        # Intn(100) <= 100 always holds: a food spawns every turn.
        assert len(_update(state, _settings(seed, chance=100))) == 1


def test_food_spawn_never_duplicates_food_and_stops_when_full() -> None:
    spots = [
        (1, 1), (3, 11), (4, 7), (4, 17), (9, 1), (9, 5),
        (9, 11), (9, 17), (14, 7), (14, 17), (15, 11), (17, 1),
    ]  # fmt: skip
    food = tuple(Point(*p) for p in spots[:-1])
    state = BoardState(8, 19, 21, (), food, ARCADE_MAZE_HAZARDS)
    assert _update(state, _settings(3, chance=100))[-1] == Point(17, 1)
    full = BoardState(8, 19, 21, (), (*food, Point(17, 1)), ARCADE_MAZE_HAZARDS)
    assert len(_update(full, _settings(3, chance=100))) == 12
