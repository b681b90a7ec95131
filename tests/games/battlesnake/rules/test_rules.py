"""Rules, settings and driver behaviour that the recorded games do not pin down alone."""

from __future__ import annotations

import pytest

from snakewar.errors import (
    InvalidStateError,
    MapSetupError,
    StepError,
    UnknownMapError,
    UnknownRulesetError,
)
from snakewar.games.battlesnake import (
    BoardState,
    Game,
    GameConfig,
    Point,
    Settings,
    Snake,
    default_move,
    named_ruleset,
    run_game,
    setup_board,
)
from snakewar.games.battlesnake.rules.settings import go_atoi


def _snake(sid: str, *cells: tuple[int, int], health: int = 100) -> Snake:
    return Snake(sid, tuple(Point(x, y) for x, y in cells), health)


def test_unknown_ruleset_names_value_and_choices() -> None:
    with pytest.raises(UnknownRulesetError) as info:
        named_ruleset("squad")
    message = str(info.value)
    assert "'squad'" in message and "'wrapped_constrictor'" in message
    assert isinstance(info.value, ValueError)  # RulesError, also a ValueError


def test_unknown_map_names_value_and_choices() -> None:
    with pytest.raises(UnknownMapError, match=r"'no_such_map'.*'hz_spiral'"):
        setup_board("no_such_map", Settings(), 11, 11, ["a"])


def test_solo_switch_replaces_game_over_stage() -> None:
    assert named_ruleset("standard", solo=True).stages[0] == "game_over.solo_snake"
    assert Game(GameConfig(), ["only"]).ruleset.stages[0] == "game_over.solo_snake"
    assert Game(GameConfig(), ["a", "b"]).ruleset.stages[0] == "game_over.standard"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ([(5, 5), (4, 5)], "right"),
        ([(5, 5), (6, 5)], "left"),
        ([(5, 5), (5, 4)], "up"),
        ([(5, 5), (5, 6)], "down"),
        ([(0, 5), (10, 5)], "right"),
        ([(10, 5), (0, 5)], "left"),
        ([(5, 0), (5, 10)], "up"),
        ([(5, 10), (5, 0)], "down"),
        ([(5, 5), (5, 5)], "up"),
        ([(5, 5)], "up"),
    ],
)
def test_default_move(body: list[tuple[int, int]], expected: str) -> None:
    assert default_move([Point(*p) for p in body]) == expected


def test_invalid_move_continues_straight() -> None:
    state = BoardState(
        3, 11, 11, (_snake("a", (5, 5), (4, 5), (3, 5)), _snake("b", (1, 1), (1, 2), (1, 3)))
    )
    _, after = named_ruleset("standard", Settings()).execute(state, {"a": "UP", "b": "left"})
    assert after.snake("a").head == Point(6, 5)


def test_missing_move_is_a_step_error_with_the_reference_text() -> None:
    state = BoardState(3, 11, 11, (_snake("a", (5, 5), (4, 5)), _snake("b", (1, 1), (1, 2))))
    with pytest.raises(StepError) as info:
        named_ruleset("standard", Settings()).execute(state, {"a": "up"})
    assert info.value.reason == "move not provided for snake"
    assert "'b'" in str(info.value)


def test_game_step_rejects_unknown_snake_ids() -> None:
    game = Game(GameConfig(settings=Settings.defaults(seed=5)), ["a", "b"])
    with pytest.raises(InvalidStateError, match=r"unknown snake id 'zz'.*'a', 'b'"):
        game.step({"a": "up", "b": "up", "zz": "up"})


def test_ruleset_execute_ignores_unknown_ids_like_the_reference() -> None:
    state = BoardState(3, 11, 11, (_snake("a", (5, 5), (4, 5)), _snake("b", (1, 1), (1, 2))))
    _, after = named_ruleset("standard", Settings()).execute(
        state, {"a": "up", "b": "up", "zz": "up"}
    )
    assert after.snake("a").head == Point(5, 6)


def test_invalid_states_raise_one_documented_type() -> None:
    with pytest.raises(InvalidStateError, match="duplicate snake id 'a'"):
        BoardState(0, 11, 11, (_snake("a", (1, 1)), _snake("a", (2, 2)))).validate()
    # Points off the board are the engine's own (replays must load them); only numbers
    # outside Go's int64 are refused.
    BoardState(0, 11, 11, (_snake("a", (500, 1)),)).validate()
    with pytest.raises(InvalidStateError, match=r"\(9223372036854775808, 1\).*out of range"):
        BoardState(0, 11, 11, (_snake("a", (2**63, 1)),)).validate()
    with pytest.raises(InvalidStateError, match="turn -9223372036854775809 is invalid"):
        BoardState(-(2**63) - 1, 11, 11).validate()
    with pytest.raises(InvalidStateError, match="'a': health 9223372036854775808"):
        BoardState(0, 11, 11, (Snake("a", (Point(1, 1),), 2**63),)).validate()
    with pytest.raises(InvalidStateError, match="width 0"):
        BoardState(0, 0, 11).validate()
    with pytest.raises(InvalidStateError, match="body"):
        BoardState.from_dict(
            {"turn": 0, "width": 7, "height": 7, "snakes": [{"id": "a", "body": "x"}]}
        )


def test_empty_body_is_the_reference_execute_error() -> None:
    state = BoardState(3, 11, 11, (Snake("a", ()), _snake("b", (1, 1), (1, 2))))
    with pytest.raises(StepError) as info:
        named_ruleset("standard", Settings()).execute(state, {"a": "up", "b": "up"})
    assert info.value.reason == "snake is length zero"


@pytest.mark.parametrize(("map_id", "size"), [("standard", 19), ("standard", 7), ("empty", 9)])
def test_too_many_snakes_is_a_map_setup_error(map_id: str, size: int) -> None:
    with pytest.raises(MapSetupError, match="17"):
        setup_board(map_id, Settings(seed=1), size, size, [f"s{i}" for i in range(17)])


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("15", 15),
        ("-5", -5),
        ("+7", 7),
        ("007", 7),
        (" 5", None),
        ("5 ", None),
        ("1_0", None),
        ("abc", None),
        ("", None),
        ("9223372036854775808", None),
        ("١٢", None),
    ],
)
def test_settings_parse_like_go_atoi(text: str, value: int | None) -> None:
    assert go_atoi(text) == value
    assert Settings({"k": text}).get_int("k", 99) == (99 if value is None else value)


def test_settings_api_names() -> None:
    s = Settings.from_api({"hazardDamagePerTurn": 9, "royale": {"shrinkEveryNTurns": 5}})
    assert s.get_int("damagePerTurn", 0) == 9 and s.get_int("shrinkEveryNTurns", 0) == 5
    assert s.to_api()["hazardDamagePerTurn"] == 9
    assert s.to_api()["squad"]["allowBodyCollisions"] is False


def test_winner_and_draw() -> None:
    result = run_game(
        GameConfig(settings=Settings.defaults(seed=3)),
        ["a", "b"],
        lambda s: {"a": "down", "b": "down"},
    )
    assert result.is_draw is False or result.winner is None
    final = result.final_state
    alive = [s.id for s in final.snakes if not s.eliminated_cause]
    assert result.winner == (alive[0] if len(alive) == 1 else None)
    assert result.is_draw == (not alive)


def test_same_seed_same_setup_and_game() -> None:
    def policy(state: BoardState) -> dict[str, str]:
        return {s.id: "up" if state.turn % 4 < 2 else "right" for s in state.alive_snakes}

    config = GameConfig(settings=Settings.defaults(seed=123456789))
    assert run_game(config, ["a", "b", "c"], policy) == run_game(config, ["a", "b", "c"], policy)
    other = GameConfig(settings=Settings.defaults(seed=987654321))
    assert setup_board("standard", config.settings, 11, 11, ["a", "b"]) != setup_board(
        "standard", other.settings, 11, 11, ["a", "b"]
    )


def test_max_turns_stops_a_game() -> None:
    result = run_game(
        GameConfig(map="empty", settings=Settings.defaults(seed=1)),
        ["a"],
        lambda s: {"a": ["up", "right", "down", "left"][s.turn % 4]},
        max_turns=7,
    )
    assert result.reason == "max_turns" and result.turns == 7


def test_game_resumed_after_turn_zero_skips_the_initialization_call() -> None:
    from snakewar.games.battlesnake import BoardState, Game, GameConfig, Point, Settings, Snake

    state = BoardState(
        5,
        11,
        11,
        (
            Snake("a", (Point(1, 1), Point(1, 2), Point(1, 3)), 1),
            Snake("b", (Point(5, 5), Point(5, 6), Point(5, 7)), 50),
        ),
        (Point(2, 1),),
    )
    game = Game(GameConfig(settings=Settings.defaults(seed=1)), ["a", "b"], state)
    assert game.state == state  # no move-less turn was played (health 1 would starve)
    after = game.step({"a": "right", "b": "up"}).after
    assert after is not None and after.turn == 6
    assert after.snake("a").health == 100 and not after.snake("a").eliminated_cause
