"""The classic ruleset (the 2017/18 server's game): one test per rule of classic.py."""

from __future__ import annotations

import random

import pytest

from snakewar.errors import MapSetupError, SettingsError
from snakewar.games.battlesnake import (
    BoardState,
    Game,
    GameConfig,
    Point,
    Settings,
    Snake,
    run_game,
)
from snakewar.games.battlesnake.bots.random_safe import safe_moves
from snakewar.games.battlesnake.rules.classic import CLASSIC_DEFAULTS, ClassicSettings
from snakewar.games.battlesnake.rules.wire import GameInfo, game_from_api, game_to_api

MOVES = ("up", "down", "left", "right")


def _config(seed: int = 1, width: int = 20, height: int = 20, **settings: int) -> GameConfig:
    params = {key: str(value) for key, value in settings.items()}
    return GameConfig("classic", "classic", width, height, Settings(params, seed))


def _snake(sid: str, *cells: tuple[int, int], health: int = 100) -> Snake:
    return Snake(sid, tuple(Point(x, y) for x, y in cells), health)


def _board(
    *snakes: Snake, food: tuple[tuple[int, int], ...] = (), size: int = 7, turn: int = 3
) -> BoardState:
    return BoardState(turn, size, size, snakes, tuple(Point(x, y) for x, y in food))


def _step(state: BoardState, moves: dict[str, str], **settings: int) -> BoardState:
    config = _config(width=state.width, height=state.height, **settings)
    game = Game(config, [s.id for s in state.snakes], state)
    after = game.step(moves).after_rules
    return after


# -- rule 1: setup ---------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(1, 30))
def test_setup_places_food_then_stacked_snakes_on_distinct_free_squares(seed: int) -> None:
    game = Game(_config(seed, maxFood=4, snakeStartLength=5), ["a", "b", "c", "d"])
    state = game.state
    assert len(state.food) == 4 and len(set(state.food)) == 4
    heads = [s.body[0] for s in state.snakes]
    assert len(set(heads)) == 4
    for s in state.snakes:
        assert s.body == (s.body[0],) * 5 and s.health == 100
        assert 0 <= s.body[0].x < 20 and 0 <= s.body[0].y < 20
        assert s.body[0] not in state.food
    # Seeded: the same seed gives the same board, another seed (almost always) another.
    assert Game(_config(seed, maxFood=4, snakeStartLength=5), ["a", "b", "c", "d"]).state == state


def test_setup_defaults_are_the_2018_forms() -> None:
    assert dict(CLASSIC_DEFAULTS) == {"maxFood": 1, "snakeStartLength": 3, "decHealthPoints": 1}
    state = Game(_config(7), ["a", "b"]).state
    assert len(state.food) == 1 and all(len(s.body) == 3 for s in state.snakes)
    boards = {Game(_config(seed), ["a", "b"]).state.snakes[0].body[0] for seed in range(20)}
    assert len(boards) > 10  # random starts, not fixed ones


def test_setup_refuses_what_does_not_fit_and_bad_settings() -> None:
    with pytest.raises(MapSetupError, match="not enough space to place snake"):
        Game(_config(1, width=2, height=2, maxFood=2), ["a", "b", "c"])
    for key, value in (("maxFood", "-1"), ("snakeStartLength", "0"), ("decHealthPoints", "x")):
        with pytest.raises(SettingsError, match=key):
            ClassicSettings.of(Settings({key: value}))


def test_classic_ruleset_and_map_go_together() -> None:
    with pytest.raises(MapSetupError, match="classic map only"):
        Game(GameConfig("classic", "standard", 11, 11, Settings({}, 1)), ["a", "b"])
    with pytest.raises(MapSetupError, match="classic ruleset only"):
        Game(GameConfig("standard", "classic", 11, 11, Settings({}, 1)), ["a", "b"])


# -- rule 2/3: a turn's order, deaths judged together ---------------------------------


def test_a_snake_dying_this_turn_is_still_an_obstacle() -> None:
    # "a" starves this turn; "b" runs into its body the same turn and dies too
    # (the official rules would remove "a" first and let "b" live).
    a = _snake("a", (3, 3), (3, 2), (3, 1), health=0)
    b = _snake("b", (2, 3), (1, 3), (0, 3))
    after = _step(_board(a, b), {"a": "up", "b": "right"})
    assert after.snake("a").eliminated_cause == "out-of-health"
    assert after.snake("b").eliminated_cause == "snake-collision"
    assert after.snake("b").eliminated_by == "a"


# -- rule 4: starvation ----------------------------------------------------------------


def test_health_reaching_zero_moves_once_more_then_starves_even_onto_food() -> None:
    a = _snake("a", (1, 1), (1, 0), (0, 0), health=1)
    b = _snake("b", (5, 5), (5, 4), (5, 3))
    after = _step(_board(a, b, food=((6, 6),)), {"a": "up", "b": "up"})
    assert after.snake("a").health == 0 and not after.snake("a").eliminated_cause
    # Next turn "a" moves onto food, yet it starves: deaths come before eating.
    food = ((1, 3),)
    state = BoardState(after.turn + 1, 7, 7, after.snakes, tuple(Point(*f) for f in food))
    final = _step(state, {"a": "up", "b": "up"})
    assert final.snake("a").eliminated_cause == "out-of-health"
    assert Point(1, 3) in final.food  # not eaten


def test_eating_on_the_turn_health_reaches_zero_saves_the_snake() -> None:
    a = _snake("a", (1, 1), (1, 0), (0, 0), health=1)
    b = _snake("b", (5, 5), (5, 4), (5, 3))
    after = _step(_board(a, b, food=((1, 2),)), {"a": "up", "b": "up"})
    assert after.snake("a").health == 100 and len(after.snake("a").body) == 4


# -- rules 5-7: walls, bodies, head-on -------------------------------------------------


def test_walls_kill() -> None:
    a = _snake("a", (0, 3), (1, 3), (2, 3))
    b = _snake("b", (6, 6), (6, 5), (6, 4))
    after = _step(_board(a, b), {"a": "left", "b": "up"})
    assert after.snake("a").eliminated_cause == "wall-collision"
    assert after.snake("b").eliminated_cause == "wall-collision"


def test_own_body_and_other_bodies_kill() -> None:
    a = _snake("a", (2, 2), (2, 3), (3, 3), (3, 2), (3, 1))
    b = _snake("b", (1, 5), (1, 6), (0, 6))
    c = _snake("c", (4, 3), (4, 4), (4, 5))
    after = _step(_board(a, b, c), {"a": "right", "b": "down", "c": "left"})
    assert after.snake("a").eliminated_cause == "snake-self-collision"
    assert not after.snake("b").eliminated_cause
    assert after.snake("c").eliminated_cause == "snake-collision"
    assert after.snake("c").eliminated_by == "a"


def test_head_on_the_longer_survives_and_eats_the_food_there() -> None:
    long = _snake("long", (1, 3), (0, 3), (0, 2), (0, 1))
    short = _snake("short", (3, 3), (4, 3), (5, 3))
    other = _snake("other", (6, 6), (6, 5), (6, 4))
    after = _step(
        _board(long, short, other, food=((2, 3),)),
        {"long": "right", "short": "left", "other": "left"},
    )
    assert after.snake("short").eliminated_cause == "head-collision"
    assert after.snake("short").eliminated_by == "long"
    assert not after.snake("long").eliminated_cause
    assert len(after.snake("long").body) == 5 and after.snake("long").health == 100
    assert Point(2, 3) not in after.food and len(after.food) == 1  # eaten, and restocked


def test_head_on_equal_lengths_both_die_and_the_food_under_them_stays() -> None:
    a = _snake("a", (1, 3), (0, 3), (0, 2))
    b = _snake("b", (3, 3), (4, 3), (5, 3))
    c = _snake("c", (6, 6), (6, 5), (6, 4))
    after = _step(_board(a, b, c, food=((2, 3),)), {"a": "right", "b": "left", "c": "left"})
    assert after.snake("a").eliminated_cause == "head-collision"
    assert after.snake("b").eliminated_cause == "head-collision"
    assert after.food == (Point(2, 3),)  # still there, still the only food (maxFood 1)


# -- rule 8: health loss ---------------------------------------------------------------


def test_health_loss_is_a_setting_and_stops_at_zero() -> None:
    a = _snake("a", (1, 1), (1, 0), (0, 0), health=50)
    b = _snake("b", (5, 5), (5, 4), (5, 3), health=3)
    after = _step(_board(a, b), {"a": "up", "b": "up"}, decHealthPoints=7)
    assert after.snake("a").health == 43
    assert after.snake("b").health == 0 and not after.snake("b").eliminated_cause
    none = _step(_board(a, b), {"a": "up", "b": "up"}, decHealthPoints=0)
    assert none.snake("a").health == 50


# -- rule 9: eating --------------------------------------------------------------------


def test_eating_restores_health_and_grows_at_the_old_tail() -> None:
    a = _snake("a", (1, 1), (1, 0), (0, 0), health=30)
    b = _snake("b", (5, 5), (5, 4), (5, 3))
    after = _step(_board(a, b, food=((1, 2),)), {"a": "up", "b": "up"})
    assert after.snake("a").body == (Point(1, 2), Point(1, 1), Point(1, 0), Point(1, 0))
    assert after.snake("a").health == 100


# -- rule 10: constant food ------------------------------------------------------------


@pytest.mark.parametrize("max_food", [1, 3])
def test_food_count_is_constant_every_turn_over_many_seeded_games(max_food: int) -> None:
    turns = eaten = 0
    for seed in range(1, 41):
        rng = random.Random(seed)  # the test's own moves; the game draws from its seed
        config = _config(seed, width=10, height=10, maxFood=max_food)
        game = Game(config, ["a", "b", "c"])
        assert len(game.state.food) == max_food
        while not game.is_over:
            before = game.state
            # Mostly safe moves, so games last and snakes eat.
            moves = {
                s.id: rng.choice(safe_moves(before, s) or list(MOVES))
                for s in before.snakes
                if not s.eliminated_cause
            }
            after = game.step(moves).after
            assert after is not None
            turns += 1
            assert len(after.food) == max_food, (seed, after.turn)
            assert len(set(after.food)) == max_food
            occupied = {p for s in after.snakes if not s.eliminated_cause for p in s.body}
            new = set(after.food) - set(before.food)
            assert not new & occupied
            eaten += len(new)
    assert turns > 1000 and eaten > 40


def test_restocking_stops_when_the_board_is_full() -> None:
    # A 2x1 board: one snake of length 1 and room for a single food item.
    state = BoardState(0, 2, 1, (_snake("a", (0, 0)),))
    game = Game(_config(1, width=2, height=1, maxFood=3), ["a"], state)
    after = game.step({"a": "up"}).after
    assert after is not None and after.snake("a").eliminated_cause == "wall-collision"
    assert len(after.food) == 2  # both squares are free once the snake is gone


def test_restocking_is_seeded() -> None:
    def play(seed: int) -> list[tuple[Point, ...]]:
        rng = random.Random(0)
        foods: list[tuple[Point, ...]] = []
        game = Game(_config(seed, width=8, height=8, maxFood=2), ["a", "b"])
        while not game.is_over and game.state.turn < 60:
            game.step({sid: rng.choice(MOVES) for sid in game.alive_ids()})
            foods.append(game.state.food)
        return foods

    assert play(5) == play(5)


# -- rule 11: game over ----------------------------------------------------------------


def test_game_over_at_one_snake_left_or_none_alone() -> None:
    result = run_game(_config(3), ["a", "b"], lambda state: {"a": "up", "b": "up"})
    alive = [s for s in result.final_state.snakes if not s.eliminated_cause]
    assert len(alive) <= 1
    solo = run_game(_config(3), ["a"], lambda state: {"a": "up"})
    assert solo.final_state.snakes[0].eliminated_cause == "wall-collision"


# -- rule 12: the default move -----------------------------------------------------------


def test_an_invalid_move_keeps_direction_and_a_stacked_snake_goes_up() -> None:
    a = _snake("a", (3, 3), (3, 3), (3, 3))
    b = _snake("b", (1, 1), (0, 1), (0, 0))
    after = _step(_board(a, b), {"a": "sideways", "b": ""})
    assert after.snake("a").body[0] == Point(3, 4)
    assert after.snake("b").body[0] == Point(2, 1)


# -- the API's settings ----------------------------------------------------------------


def test_v1_game_object_carries_the_classic_settings() -> None:
    settings = Settings({"maxFood": "2", "snakeStartLength": "4", "decHealthPoints": "3"}, 9)
    api = game_to_api(GameInfo("g", "classic", settings=settings, map="classic"))
    assert api["ruleset"]["name"] == "classic"
    assert api["ruleset"]["settings"]["maxFood"] == 2
    assert api["ruleset"]["settings"]["snakeStartLength"] == 4
    assert api["ruleset"]["settings"]["decHealthPoints"] == 3
    back = game_from_api(api)
    assert ClassicSettings.of(back.settings) == ClassicSettings.of(settings)
    plain = game_to_api(GameInfo("g"))
    assert "maxFood" not in plain["ruleset"]["settings"]
