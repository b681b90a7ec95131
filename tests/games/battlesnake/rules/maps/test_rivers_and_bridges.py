"""Tests for the rivers/islands-and-bridges maps (expected values from the Go reference engine)."""

from __future__ import annotations

import pytest

from snakewar.errors import MapSetupError
from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.game import setup_board
from snakewar.games.battlesnake.rules.maps import get_map
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState, Point, Snake

MAPS = [
    # id, size, max players, hazard count
    ("hz_rivers_bridges", 11, 8, 17),
    ("hz_rivers_bridges_lg", 19, 12, 37),
    ("hz_rivers_bridges_xl", 25, 12, 53),
    ("hz_islands_bridges", 11, 4, 37),
    ("hz_islands_bridges_lg", 19, 16, 101),
]


def _ids(n: int) -> list[str]:
    return [f"snake-{i}" for i in range(1, n + 1)]


def _settings(seed: int, chance: int = 15, minimum: int = 1) -> Settings:
    return Settings({"foodSpawnChance": str(chance), "minimumFood": str(minimum)}, seed)


def _snake(sid: str, *body: tuple[int, int]) -> Snake:
    return Snake(sid, tuple(Point(*p) for p in body))


def _update(map_id: str, state: BoardState, settings: Settings) -> list[Point]:
    edit = MutableBoard.from_state(state)
    get_map(map_id).post_update_board(state, settings, edit)
    return edit.food


@pytest.mark.parametrize(("map_id", "size", "max_players", "hazards"), MAPS)
def test_metadata_refusals_and_layout(
    map_id: str, size: int, max_players: int, hazards: int
) -> None:
    meta = get_map(map_id).meta
    assert (meta.name, meta.author, meta.version) == (map_id, "Battlesnake", 1)
    assert (meta.min_players, meta.max_players) == (1, max_players)
    assert meta.sizes.sizes == ((size, size),)
    assert set(meta.tags) == {"food-placement", "hazard-placement", "snake-placement"}
    with pytest.raises(MapSetupError, match=str(max_players + 1)):
        setup_board(map_id, _settings(1), size, size, _ids(max_players + 1))
    with pytest.raises(MapSetupError, match="got 0"):
        setup_board(map_id, _settings(1), size, size, [])
    with pytest.raises(MapSetupError, match="7x7"):
        setup_board(map_id, _settings(1), 7, 7, _ids(1))
    board = setup_board(map_id, _settings(1), size, size, _ids(max_players))
    assert len(board.hazards) == len(set(board.hazards)) == hazards
    assert len({s.body[0] for s in board.snakes}) == max_players
    # No snake and no setup food on a hazard; one food next to each snake.
    assert not {s.body[0] for s in board.snakes} & set(board.hazards)
    assert not set(board.food) & set(board.hazards)
    assert len(board.food) == max_players


def test_setup_matches_reference() -> None:
    board = setup_board("hz_rivers_bridges", _settings(838800829), 11, 11, _ids(4))
    assert [s.body[0] for s in board.snakes] == [(3, 9), (9, 1), (1, 1), (7, 7)]
    assert all(len(s.body) == 3 and s.health == 100 for s in board.snakes)
    # Recorded with the snakes visited in board order (the reference's order is random).
    assert board.food == (Point(2, 10), Point(10, 2), Point(2, 0), Point(6, 8))
    assert board.hazards[:3] == (Point(5, 10), Point(5, 9), Point(5, 7))


def test_setup_matches_reference_eight_snakes() -> None:
    board = setup_board("hz_rivers_bridges", _settings(4214932669658361478), 11, 11, _ids(8))
    heads = [s.body[0] for s in board.snakes]
    assert heads == [(1, 1), (9, 9), (1, 9), (9, 1), (3, 3), (7, 7), (3, 9), (7, 3)]
    expected = [(2, 0), (8, 10), (0, 8), (10, 2), (2, 4), (8, 6), (2, 10), (6, 2)]
    assert board.food == tuple(Point(*p) for p in expected)


def test_quadrants_rotate() -> None:
    quadrant = {
        (1, 1): 0,
        (3, 3): 0,
        (9, 9): 1,
        (7, 7): 1,
        (1, 9): 2,
        (3, 9): 2,
        (9, 1): 3,
        (7, 3): 3,
    }
    starts = set()
    for seed in range(1, 30):
        board = setup_board("hz_rivers_bridges", _settings(seed), 11, 11, _ids(8))
        quads = [quadrant[s.body[0]] for s in board.snakes]
        assert all(quads[i + 1] == (quads[i] + 1) % 4 for i in range(7))
        starts.add(quads[0])
    assert starts == {0, 1, 2, 3}


def test_setup_is_deterministic() -> None:
    a = setup_board("hz_islands_bridges_lg", _settings(31), 19, 19, _ids(16))
    assert a == setup_board("hz_islands_bridges_lg", _settings(31), 19, 19, _ids(16))
    b = setup_board("hz_islands_bridges_lg", _settings(32), 19, 19, _ids(16))
    assert a.snakes != b.snakes


def test_food_spawn_matches_reference() -> None:
    hazards = setup_board("hz_rivers_bridges", _settings(1), 11, 11, _ids(1)).hazards
    snakes = (
        _snake("snake-1", (1, 9), (0, 9), (0, 10)),
        _snake("snake-2", (9, 7), (9, 6), (10, 6), (10, 5)),
        _snake("snake-3", (2, 8), (2, 7), (2, 6)),
        _snake("snake-4", (5, 5), (6, 5), (6, 4)),
    )
    food = (Point(2, 10), Point(2, 0), Point(6, 8))
    state = BoardState(7, 11, 11, snakes, food, hazards)
    assert _update("hz_rivers_bridges", state, _settings(838800829)) == [*food, Point(4, 6)]


def test_food_spawn_tops_up_without_hazards() -> None:
    # Turn 0 of a recorded constrictor game: three food to reach minimumFood=3.
    setup = setup_board("hz_rivers_bridges", _settings(1), 11, 11, _ids(8))
    snakes = (
        _snake("snake-1", (1, 0), (1, 1), (1, 1)),
        _snake("snake-2", (9, 10), (9, 9), (9, 9)),
        _snake("snake-3", (1, 8), (1, 9), (1, 9)),
        _snake("snake-4", (9, 0), (9, 1), (9, 1)),
        _snake("snake-5", (4, 3), (3, 3), (3, 3)),
        _snake("snake-6", (7, 8), (7, 7), (7, 7)),
        _snake("snake-7", (4, 9), (3, 9), (3, 9)),
        _snake("snake-8", (7, 4), (7, 3), (7, 3)),
    )
    state = BoardState(0, 11, 11, snakes, (), setup.hazards)
    settings = _settings(4214932669658361478, chance=100, minimum=3)
    assert _update("hz_rivers_bridges", state, settings) == [Point(3, 8), Point(4, 0), Point(0, 10)]


def test_food_spawn_never_on_hazards() -> None:
    hazards = setup_board("hz_islands_bridges", _settings(1), 11, 11, _ids(1)).hazards
    state = BoardState(4, 11, 11, (), (), hazards)
    spawned = set()
    for seed in range(60):
        spawned.update(_update("hz_islands_bridges", state, _settings(seed, minimum=20)))
    assert spawned and not spawned & set(hazards)
    assert len(spawned) == 121 - len(hazards)
