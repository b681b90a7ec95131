"""Invariants that hold for every state and move (hypothesis)."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from snakewar.games.battlesnake import BoardState, Game, GameConfig, Settings
from snakewar.games.battlesnake.rules.wire import board_from_api, board_to_api

RULESETS = ["standard", "royale", "constrictor", "wrapped", "wrapped_constrictor", "solo"]
MAPS = ["standard", "empty", "royale", "hz_columns", "hz_spiral", "healing_pools", "sinkholes"]
MOVE = st.sampled_from(["up", "down", "left", "right", "UP", "", "sideways"])


@st.composite
def games(draw: st.DrawFn) -> tuple[Game, list[dict[str, str]]]:
    """A game in progress plus a sequence of moves for it (valid and invalid ones)."""
    size = draw(st.sampled_from([7, 11, 19]))
    snakes = draw(st.integers(min_value=1, max_value=8 if size > 7 else 4))
    seed = draw(st.integers(min_value=1, max_value=2**62))
    config = GameConfig(
        ruleset=draw(st.sampled_from(RULESETS)),
        map=draw(st.sampled_from(MAPS)),
        width=size,
        height=size,
        settings=Settings.defaults(seed=seed, damagePerTurn=draw(st.sampled_from([-5, 0, 14, 50]))),
    )
    game = Game(config, [f"s{i}" for i in range(snakes)])
    turns = draw(st.integers(min_value=1, max_value=60))
    moves = [{f"s{i}": draw(MOVE) for i in range(snakes)} for _ in range(turns)]
    return game, moves


def _play(game: Game, moves: list[dict[str, str]]) -> list[BoardState]:
    states = [game.state]
    for m in moves:
        if game.is_over:
            break
        game.step({k: v for k, v in m.items() if k in game.alive_ids()})
        states.append(game.state)
    return states


@given(games())
def test_invariants_over_a_game(case: tuple[Game, list[dict[str, str]]]) -> None:
    game, moves = case
    states = _play(game, moves)
    for prev, cur in itertools.pairwise(states):
        assert cur.turn == prev.turn + 1
        before = {s.id: s for s in prev.snakes}
        for s in cur.snakes:
            old = before[s.id]
            # Eliminated snakes never come back.
            if old.eliminated_cause:
                assert s.eliminated_cause == old.eliminated_cause
            # Health stays within 0..100.
            assert 0 <= s.health <= 100
            # A snake grows at most one segment a turn.
            assert len(s.body) <= len(old.body) + 1
            if s.eliminated_cause and not old.eliminated_cause:
                assert s.eliminated_on_turn == cur.turn


@given(games())
def test_same_state_moves_and_seed_give_the_same_game(
    case: tuple[Game, list[dict[str, str]]],
) -> None:
    game, moves = case
    twin = Game(game.config, [s.id for s in game.state.snakes])
    assert _play(game, moves) == _play(twin, moves)


@given(games())
def test_api_board_round_trip(case: tuple[Game, list[dict[str, str]]]) -> None:
    game, moves = case
    for state in _play(game, moves[:10]):
        alive_only = state.replace(snakes=state.alive_snakes)
        parsed, _ = board_from_api(board_to_api(state), state.turn)
        assert parsed == alive_only


@given(games())
def test_dict_round_trip(case: tuple[Game, list[dict[str, str]]]) -> None:
    game, moves = case
    for state in _play(game, moves[:10]):
        assert BoardState.from_dict(state.to_dict()) == state
