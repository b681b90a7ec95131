"""Tests for the castle wall maps (expected values recorded from the Go reference engine)."""

from __future__ import annotations

from collections import Counter

import pytest

from snakewar.errors import MapSetupError
from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.game import setup_board
from snakewar.games.battlesnake.rules.maps import get_map
from snakewar.games.battlesnake.rules.maps.castle_wall import (
    CastleWallExtraLargeMap,
    CastleWallFoodMemory,
    CastleWallLargeMap,
    CastleWallMap,
    food_order,
)
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState, Point, Snake

MEDIUM_FOOD = (Point(2, 5), Point(5, 2), Point(5, 8), Point(8, 5))


def _ids(n: int) -> list[str]:
    return [f"snake-{i}" for i in range(1, n + 1)]


def _snake(sid: str, *body: tuple[int, int], cause: str = "") -> Snake:
    return Snake(sid, tuple(Point(*p) for p in body), 100, cause)


def _update(
    map_id: str, state: BoardState, settings: Settings, memory: CastleWallFoodMemory | None = None
) -> list[Point]:
    game_map = get_map(map_id)
    assert isinstance(game_map, CastleWallMap | CastleWallLargeMap | CastleWallExtraLargeMap)
    edit = MutableBoard.from_state(state)
    game_map.post_update_board(state, settings, edit, memory=memory)
    return edit.food


@pytest.mark.parametrize(
    ("map_id", "size", "max_players"),
    [("hz_castle_wall", 11, 8), ("hz_castle_wall_lg", 19, 8), ("hz_castle_wall_xl", 25, 12)],
)
def test_metadata_and_refusals(map_id: str, size: int, max_players: int) -> None:
    meta = get_map(map_id).meta
    assert (meta.name, meta.author, meta.version) == (map_id, "bcambl", 1)
    assert (meta.min_players, meta.max_players) == (1, max_players)
    assert meta.sizes.sizes == ((size, size),)
    assert set(meta.tags) == {"food-placement", "hazard-placement", "snake-placement"}
    with pytest.raises(MapSetupError, match=f"{max_players + 1}"):
        setup_board(map_id, Settings({}, 1), size, size, _ids(max_players + 1))
    with pytest.raises(MapSetupError, match="7x7"):
        setup_board(map_id, Settings({}, 1), 7, 7, _ids(2))
    # The full count is accepted, every snake on its own start.
    board = setup_board(map_id, Settings({}, 1), size, size, _ids(max_players))
    assert len({s.body[0] for s in board.snakes}) == max_players


def test_setup_matches_reference_xl() -> None:
    board = setup_board("hz_castle_wall_xl", Settings({}, 194513953323162582), 25, 25, _ids(8))
    heads = [s.body[0] for s in board.snakes]
    assert heads == [(1, 5), (23, 5), (5, 1), (1, 19), (19, 23), (19, 1), (5, 23), (23, 19)]
    assert all(len(s.body) == 3 and s.health == 100 for s in board.snakes)
    assert board.food == ()


def test_setup_matches_reference_medium() -> None:
    board = setup_board("hz_castle_wall", Settings({}, 498293683), 11, 11, _ids(6))
    heads = [s.body[0] for s in board.snakes]
    assert heads == [(9, 5), (1, 1), (1, 5), (9, 1), (1, 9), (9, 9)]


def test_few_snakes_use_only_the_corner_starts() -> None:
    corners = {(1, 1), (1, 9), (9, 1), (9, 9)}
    for seed in range(1, 40):
        board = setup_board("hz_castle_wall", Settings({}, seed), 11, 11, _ids(4))
        assert {s.body[0] for s in board.snakes} == corners
    heads = {
        setup_board("hz_castle_wall", Settings({}, seed), 11, 11, _ids(1)).snakes[0].body[0]
        for seed in range(1, 40)
    }
    assert heads == corners


def test_xl_uses_twelve_starts_above_eight_snakes() -> None:
    board = setup_board("hz_castle_wall_xl", Settings({}, 3), 25, 25, _ids(12))
    assert {(1, 12), (12, 23), (12, 1), (23, 12)} <= {s.body[0] for s in board.snakes}


@pytest.mark.parametrize(
    ("map_id", "size", "walls", "doubled"),
    [
        ("hz_castle_wall", 11, 20, 8),
        ("hz_castle_wall_lg", 19, 88, 24),
        ("hz_castle_wall_xl", 25, 112, 48),
    ],
)
def test_walls_next_to_bridges_are_stacked(
    map_id: str, size: int, walls: int, doubled: int
) -> None:
    board = setup_board(map_id, Settings({}, 9), size, size, _ids(2))
    counts = Counter(board.hazards)
    assert len(counts) == walls and len(board.hazards) == walls + doubled
    assert sorted(counts.values()) == [1] * (walls - doubled) + [2] * doubled
    # The wall comes first, the doubled squares are appended after it.
    assert len(set(board.hazards[:walls])) == walls


def test_no_food_before_turn_ten() -> None:
    for turn in range(10):
        state = BoardState(turn, 11, 11)
        assert _update("hz_castle_wall", state, Settings({}, 5)) == []
    assert len(_update("hz_castle_wall", BoardState(10, 11, 11), Settings({}, 5))) == 1


def test_no_food_at_maximum() -> None:
    two = BoardState(20, 11, 11, (), (Point(2, 5), Point(8, 5)))
    assert _update("hz_castle_wall", two, Settings({}, 5)) == [Point(2, 5), Point(8, 5)]
    four = (Point(3, 8), Point(8, 3), Point(16, 21), Point(21, 16))
    assert _update("hz_castle_wall_xl", BoardState(20, 25, 25, (), four), Settings({}, 5)) == list(
        four
    )
    three = BoardState(20, 25, 25, (), four[:3])
    assert len(_update("hz_castle_wall_xl", three, Settings({}, 5))) == 4


def test_food_matches_reference_xl() -> None:
    settings = Settings({}, 194513953323162582)
    snakes = (
        _snake("snake-1", (6, 3), (7, 3), (7, 2)),
        _snake("snake-2", (21, 2), (22, 2), (23, 2)),
        _snake("snake-3", (5, 2), (6, 2), (5, 2), cause="snake-self-collision"),
        _snake("snake-4", (0, 21), (0, 22), (0, 21), cause="snake-self-collision"),
        _snake("snake-5", (17, 24), (18, 24), (18, 23)),
        _snake("snake-6", (24, 3), (24, 2), (24, 1)),
        _snake("snake-7", (7, 20), (6, 20), (6, 19)),
        _snake("snake-8", (21, 22), (21, 21), (22, 21)),
    )
    memory = CastleWallFoodMemory()
    at10 = BoardState(10, 25, 25, snakes)
    assert _update("hz_castle_wall_xl", at10, settings, memory) == [Point(12, 3)]
    snakes11 = (
        _snake("snake-1", (6, 2), (6, 3), (7, 3)),
        _snake("snake-2", (21, 3), (21, 2), (22, 2)),
        *snakes[2:4],
        _snake("snake-5", (17, 23), (17, 24), (18, 24)),
        _snake("snake-6", (24, 4), (24, 3), (24, 2)),
        _snake("snake-7", (7, 19), (7, 20), (6, 20)),
        _snake("snake-8", (21, 23), (21, 22), (21, 21)),
    )
    at11 = BoardState(11, 25, 25, snakes11, (Point(12, 3),))
    expected = [Point(12, 3), Point(12, 20)]
    assert _update("hz_castle_wall_xl", at11, settings, memory) == expected
    # Without memory the turn-10 shuffle is assumed, which is what happened here.
    assert _update("hz_castle_wall_xl", at11, settings) == expected


def test_food_avoids_bodies_heads_and_existing_food() -> None:
    settings = Settings({}, 77)
    first = _update("hz_castle_wall", BoardState(10, 11, 11), settings)[0]
    # A dead snake's body on the preferred spot blocks it.
    dead = _snake("a", first, first, first, cause="wall-collision")
    second = _update("hz_castle_wall", BoardState(10, 11, 11, (dead,)), settings)
    assert second and second[0] != first
    # A head next to the spot blocks it too.
    head = _snake("b", (first.x + 1, first.y), (first.x + 2, first.y))
    assert _update("hz_castle_wall", BoardState(10, 11, 11, (head,)), settings)[0] != first
    # A spot next to existing food is refused; with the other three spots next to
    # heads, nothing can be placed.
    food = (Point(2, 4),)
    heads = (_snake("c", (5, 7), (5, 6)), _snake("d", (7, 5), (6, 5)), _snake("e", (5, 1), (5, 0)))
    assert _update("hz_castle_wall", BoardState(10, 11, 11, heads, food), settings) == list(food)
    # Without the food, (2, 5) is the only spot left.
    assert _update("hz_castle_wall", BoardState(10, 11, 11, heads), settings) == [Point(2, 5)]


def _shuffle_turns_with_memory(
    skip: set[int], last_turn: int
) -> tuple[list[Point], CastleWallFoodMemory]:
    """Feed turns 0..last_turn through one memory, with maximum food on the ``skip`` turns."""
    settings = Settings({}, 4242)
    memory = CastleWallFoodMemory()
    far = (Point(0, 0), Point(10, 10))  # two food away from every candidate spot
    for turn in range(last_turn + 1):
        food = far if turn in skip else ()
        _update("hz_castle_wall", BoardState(turn, 11, 11, (), food), settings, memory)
    assert memory.order is not None
    return memory.order, memory


def test_memory_tracks_the_reference_in_place_shuffles() -> None:
    settings = Settings({}, 4242)
    skip = {12, 13, 17}
    order, memory = _shuffle_turns_with_memory(skip, 20)
    assert memory.turn == 20
    shuffled = [t for t in range(10, 21) if t not in skip]
    expected = list(MEDIUM_FOOD)
    for t in shuffled:
        settings.get_rand(t).shuffle_list(expected)
    assert order == expected
    # Skipping turns changes the order compared to shuffling on every turn.
    assert order != food_order(settings, MEDIUM_FOOD, range(10, 21))


def test_memory_and_pure_mode_agree_when_every_turn_shuffles() -> None:
    settings = Settings({}, 4242)
    order, _ = _shuffle_turns_with_memory(set(), 30)
    assert order == food_order(settings, MEDIUM_FOOD, range(10, 31))
    # The placed food follows that order: its first entry (no snakes, no food).
    state = BoardState(31, 11, 11)
    expected_first = food_order(settings, MEDIUM_FOOD, range(10, 32))[0]
    assert _update("hz_castle_wall", state, settings) == [expected_first]


def test_memory_fills_unseen_turns_and_resets_on_rewind() -> None:
    settings = Settings({}, 99)
    memory = CastleWallFoodMemory()
    _update("hz_castle_wall", BoardState(12, 11, 11), settings, memory)
    _update("hz_castle_wall", BoardState(15, 11, 11), settings, memory)
    assert memory.order == food_order(settings, MEDIUM_FOOD, range(10, 16))
    _update("hz_castle_wall", BoardState(11, 11, 11), settings, memory)
    assert (memory.turn, memory.order) == (11, food_order(settings, MEDIUM_FOOD, range(10, 12)))


def test_update_is_deterministic_without_memory() -> None:
    state = BoardState(25, 19, 19, (_snake("a", (1, 1), (1, 2)),))
    results = {tuple(_update("hz_castle_wall_lg", state, Settings({}, s))) for s in range(1, 12)}
    assert len(results) > 1
    assert _update("hz_castle_wall_lg", state, Settings({}, 3)) == _update(
        "hz_castle_wall_lg", state, Settings({}, 3)
    )
