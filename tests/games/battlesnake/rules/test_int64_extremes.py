"""Issue 28: the rules at Go's int64 extremes, on hand-made states.

Each expected value is what the official Go engine answers (confirmed with the engine at
87e094e; the same states and many more are in tests/data/battlesnake/states/
issue28_extremes.jsonl.gz, which test_states.py checks).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snakewar.games.battlesnake import BoardState, Game, GameConfig, Settings
from snakewar.games.battlesnake.rules.rng import INT64_MAX, INT64_MIN, go_int
from snakewar.games.battlesnake.rules.rulesets import named_ruleset, royale_hazards
from snakewar.games.battlesnake.rules.types import Point, Snake

RULESETS = ["standard", "solo", "royale", "constrictor", "wrapped", "wrapped_constrictor"]


def _snake(sid: str, *body: tuple[int, int], health: int = 100) -> Snake:
    return Snake(sid, tuple(Point(x, y) for x, y in body), health)


def test_go_int_wraps_only_out_of_range() -> None:
    assert go_int(INT64_MIN - 1) == INT64_MAX
    assert go_int(INT64_MAX + 1) == INT64_MIN
    assert go_int(INT64_MAX) == INT64_MAX and go_int(-5) == -5


@pytest.mark.parametrize("ruleset", RULESETS)
def test_health_at_int64_min_wraps_and_the_snake_lives(ruleset: str) -> None:
    # Go: Health - 1 at -2**63 is 2**63 - 1; the snake is not out of health.
    state = BoardState(
        7,
        7,
        7,
        (
            _snake("a", (3, 3), (3, 2), (3, 1), health=INT64_MIN),
            _snake("b", (5, 5), (5, 4), (5, 3), health=50),
        ),
    )
    settings_ = Settings({"damagePerTurn": "14"}, seed=1)
    _, after = named_ruleset(ruleset, settings_).execute(state, {"a": "up", "b": "up"})
    a = after.snake("a")
    want = 100 if "constrictor" in ruleset else INT64_MAX
    assert (a.health, a.eliminated_cause) == (want, "")


def test_health_at_int64_min_wins_its_head_to_head() -> None:
    # The wrapped snake stays alive, so the longer snake a beats b head to head (the
    # knock-on collision the issue saw: a eliminated out-of-health let b live).
    state = BoardState(
        3,
        7,
        7,
        (
            _snake("a", (2, 3), (1, 3), (0, 3), (0, 2), health=INT64_MIN),
            _snake("b", (4, 3), (5, 3), (6, 3), health=60),
        ),
    )
    _, after = named_ruleset("standard", Settings()).execute(state, {"a": "right", "b": "left"})
    a, b = after.snakes
    assert (a.health, a.eliminated_cause) == (INT64_MAX, "")
    assert (b.eliminated_cause, b.eliminated_by, b.eliminated_on_turn) == ("head-collision", "a", 4)


@pytest.mark.parametrize(
    ("damage", "health", "cause"),
    [(14, 100, ""), (1, 100, ""), (INT64_MAX, 0, "hazard"), (-14, 0, "hazard")],
)
def test_health_at_int64_min_on_a_hazard(damage: int, health: int, cause: str) -> None:
    # Health - 1 wraps to 2**63 - 1; a positive damage then leaves a huge health that
    # clamps to 100 (2**63 - 1 leaves 0: eliminated), and a negative one (healing)
    # wraps again, to a negative health: 0, eliminated by the hazard, as in Go.
    state = BoardState(
        8, 7, 7, (_snake("a", (3, 3), (3, 2), health=INT64_MIN),), (), (Point(3, 4),)
    )
    settings_ = Settings({"damagePerTurn": str(damage)}, seed=1)
    _, after = named_ruleset("solo", settings_).execute(state, {"a": "up"})
    (a,) = after.snakes
    assert (a.health, a.eliminated_cause) == (health, cause)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_turn_plus_one_wraps_at_int64_max(ruleset: str) -> None:
    # b (health 1) starves; Go records eliminated_on_turn = Turn + 1 = -2**63.
    state = BoardState(
        INT64_MAX,
        7,
        7,
        (
            _snake("a", (2, 3), (1, 3), (0, 3), health=90),
            _snake("b", (4, 5), (5, 5), (6, 5), health=1),
            _snake("c", (6, 1), (6, 0), health=30),
        ),
        (),
        (Point(6, 6),),
    )
    moves = {"a": "right", "b": "left", "c": "up"}
    _, after = named_ruleset(ruleset, Settings(seed=3), solo=ruleset == "solo").execute(
        state, moves
    )
    b = after.snake("b")
    # Starvation comes before constrictor's growth, so b starves under every ruleset.
    assert (b.eliminated_cause, b.eliminated_on_turn) == ("out-of-health", INT64_MIN)
    if ruleset == "royale":
        # Turn + 1 = -2**63 is before the first shrink: the zone is empty (Go erases
        # the hazards and adds none), and this answers at once.
        assert after.hazards == ()
    assert after.turn == INT64_MAX  # the rules never change the turn


def test_the_game_turn_wraps_and_the_state_loads_again() -> None:
    start = BoardState(
        INT64_MAX,
        11,
        11,
        (_snake("a", (2, 3), (1, 3), (0, 3)), _snake("b", (8, 8), (8, 7), (8, 6))),
    )
    game = Game(
        GameConfig("royale", "royale", 11, 11, Settings.defaults(seed=5)), ["a", "b"], start
    )
    result = game.step({"a": "up", "b": "up"})
    assert result.after is not None and result.after.turn == INT64_MIN
    assert BoardState.from_dict(result.after.to_dict()) == result.after
    game.step({"a": "up", "b": "up"})
    assert game.state.turn == INT64_MIN + 1 and game.state.hazards == ()


@pytest.mark.timeout(120)
def test_royale_zone_at_a_huge_turn_is_bounded_and_covers_the_board() -> None:
    # The reference would draw 2**62 sides (it never answers); the rectangle is empty
    # after at most width + height - 1 draws, so the zone is every square.
    zone = royale_hazards(Settings(seed=9), 11, 7, 2**62, 1)
    assert zone is not None and sorted(zone) == [Point(x, y) for x in range(11) for y in range(7)]
    # At a turn where the rectangle is not yet empty, the capped loop draws all sides.
    part = royale_hazards(Settings(seed=9), 11, 11, 6, 1)
    assert part is not None and 0 < len(part) < 121


def _play_off_metadata(
    map_id: str, width: int, height: int, seed: int, turns: int
) -> list[BoardState]:
    config = GameConfig("standard", map_id, width, height, Settings.defaults(seed=seed))
    game = Game(config, ["a", "b"])
    rng = random.Random(seed)
    states = [game.setup_state, game.state]
    for _ in range(turns):
        if game.is_over:
            break
        result = game.step(
            {sid: rng.choice(["up", "down", "left", "right"]) for sid in game.alive_ids()}
        )
        states.append(result.after_rules)
        if result.after is not None:
            states.append(result.after)
    return states


@pytest.mark.parametrize("map_id", ["hz_expand_scatter", "hz_expand_box", "snail_mode"])
def test_off_metadata_boards_round_trip(map_id: str) -> None:
    # On 255x7 the expanding maps draw their start's y with the width, as Go does: far
    # below... above the board.  Every state of such a game must load again (replays).
    states = _play_off_metadata(map_id, 255, 7, 4, 45)
    if map_id != "snail_mode":
        assert any(p.y >= 7 for s in states for p in s.hazards), "the start is off the board"
    for state in states:
        assert BoardState.from_dict(state.to_dict()) == state


def test_moved_far_off_the_board_round_trips() -> None:
    # Repeated move entries move a snake several squares; Go's coordinates wrap as int64.
    state = BoardState(
        4, 7, 7, (_snake("a", (0, INT64_MAX), (0, INT64_MAX - 1)), _snake("b", (3, 3), (3, 2)))
    )
    moves = [("a", "up"), ("a", "up"), ("a", "left"), ("b", "up")]
    _, after = named_ruleset("standard", Settings()).execute(state, moves)
    a = after.snake("a")
    assert a.body == (Point(-1, INT64_MIN + 1), Point(0, INT64_MIN + 1))
    assert a.eliminated_cause == "wall-collision"
    assert BoardState.from_dict(after.to_dict()) == after


@settings(max_examples=25, deadline=None)
@given(
    map_id=st.sampled_from(["hz_expand_scatter", "hz_expand_box", "hz_spiral", "snail_mode"]),
    width=st.integers(min_value=8, max_value=255),
    height=st.integers(min_value=5, max_value=9),
    seed=st.integers(min_value=-(2**62), max_value=2**62),
)
def test_every_state_of_an_off_metadata_game_round_trips(
    map_id: str, width: int, height: int, seed: int
) -> None:
    for state in _play_off_metadata(map_id, width, height, seed, 25):
        assert BoardState.from_dict(state.to_dict()) == state
