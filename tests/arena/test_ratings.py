from __future__ import annotations

import math

import pytest

from snakewar.arena.ratings import (
    Leaderboard,
    Rating,
    RatingError,
    RatingHistory,
    RatingModel,
    placement_from_game,
    rate_game,
)
from snakewar.engine.protocol import EntrantResult, GameData, PlayedGame
from snakewar.errors import SnakewarError
from snakewar.games.battlesnake import BoardState, Point, Snake
from snakewar.games.battlesnake.adapter import placement_from_state

BETA = 25.0 / 6.0
TAU = 25.0 / 300.0
KAPPA = 0.0001


def plackett_luce(
    players: list[tuple[float, float]], ranks: list[int]
) -> list[tuple[float, float]]:
    """Weng & Lin (2011), Algorithm 4, one player per team, after adding tau^2 to sigma^2."""
    mus = [mu for mu, _ in players]
    var = [sigma * sigma + TAU * TAU for _, sigma in players]
    c = math.sqrt(sum(v + BETA * BETA for v in var))
    e = [math.exp(mu / c) for mu in mus]
    n = len(players)
    big_c = [sum(e[s] for s in range(n) if ranks[s] >= ranks[q]) for q in range(n)]
    a = [sum(1 for s in range(n) if ranks[s] == ranks[q]) for q in range(n)]
    out = []
    for i in range(n):
        omega = 0.0
        delta = 0.0
        for q in range(n):
            if ranks[q] > ranks[i]:
                continue
            p = e[i] / big_c[q]
            omega += ((1.0 if q == i else 0.0) - p) / a[q]
            delta += p * (1 - p) / a[q]
        gamma = math.sqrt(var[i]) / c
        omega *= var[i] / c
        delta *= gamma * var[i] / (c * c)
        out.append((mus[i] + omega, math.sqrt(var[i] * max(1 - delta, KAPPA))))
    return out


def test_two_player_update_matches_the_published_formulas() -> None:
    after = rate_game({"a": Rating(), "b": Rating(27.0, 6.0)}, ["a", "b"])
    expected = plackett_luce([(25.0, 25.0 / 3.0), (27.0, 6.0)], [1, 2])
    for snake, (mu, sigma) in zip("ab", expected, strict=True):
        assert after[snake].mu == pytest.approx(mu, abs=1e-6)
        assert after[snake].sigma == pytest.approx(sigma, abs=1e-6)
    assert after["a"].mu > 25.0 and after["b"].mu < 27.0


def test_three_player_update_with_a_tie_matches_the_published_formulas() -> None:
    ratings = {"a": Rating(), "b": Rating(30.0, 5.0), "c": Rating(20.0, 7.0)}
    after = rate_game(ratings, ["a", ("b", "c")])
    expected = plackett_luce([(25.0, 25.0 / 3.0), (30.0, 5.0), (20.0, 7.0)], [1, 2, 2])
    for snake, (mu, sigma) in zip("abc", expected, strict=True):
        assert after[snake].mu == pytest.approx(mu, abs=1e-6)
        assert after[snake].sigma == pytest.approx(sigma, abs=1e-6)


def test_tied_equal_snakes_keep_equal_ratings_and_a_draw_moves_little() -> None:
    after = rate_game({}, [("a", "b")])
    assert after["a"] == after["b"]
    assert after["a"].mu == pytest.approx(25.0, abs=1e-9)
    assert after["a"].sigma < 25.0 / 3.0 + TAU


def test_display_is_mu_minus_three_sigma_and_others_are_kept() -> None:
    assert Rating(30.0, 2.0).display == 24.0
    after = rate_game({"x": Rating(10.0, 1.0)}, ["a", "b"])
    assert after["x"] == Rating(10.0, 1.0)
    assert set(after) == {"x", "a", "b"}


def test_other_models_are_selectable_and_differ() -> None:
    pl = rate_game({}, ["a", "b", "c"])
    tm = rate_game({}, ["a", "b", "c"], RatingModel("thurstone_mosteller_full"))
    assert pl["a"].mu > pl["b"].mu > pl["c"].mu
    assert tm["a"].mu > tm["b"].mu > tm["c"].mu
    assert tm["a"].mu != pytest.approx(pl["a"].mu)


@pytest.mark.parametrize(
    "placement",
    [["a"], ["a", "a"], [(), "b"]],
)
def test_bad_placements_raise(placement: list[object]) -> None:
    with pytest.raises(RatingError):
        rate_game({}, placement)  # type: ignore[arg-type]


def test_bad_model_and_sigma_raise_snakewar_errors() -> None:
    with pytest.raises(SnakewarError, match="unknown rating model 'elo'"):
        RatingModel("elo")
    with pytest.raises(SnakewarError, match="sigma"):
        Rating(25.0, 0.0)


def _snake(sid: str, cause: str = "", turn: int = 0) -> Snake:
    return Snake(sid, (Point(0, 0),), 100, cause, "", turn)


def test_placement_from_state_orders_by_elimination_turn_with_ties() -> None:
    state = BoardState(
        turn=40,
        width=11,
        height=11,
        snakes=(
            _snake("a", "wall-collision", 10),
            _snake("b"),
            _snake("c", "head-collision", 30),
            _snake("d", "snake-collision", 30),
        ),
    )
    assert placement_from_state(state) == (("b",), ("c", "d"), ("a",))
    names = {"a": "A", "b": "B", "c": "C", "d": "D"}
    assert placement_from_state(state, names) == (("B",), ("C", "D"), ("A",))
    with pytest.raises(KeyError, match="'d'"):
        placement_from_state(state, {"a": "A", "b": "B", "c": "C"})


def test_placement_from_state_draw_is_one_group() -> None:
    state = BoardState(
        turn=5,
        width=7,
        height=7,
        snakes=(_snake("a", "head-collision", 5), _snake("b", "head-collision", 5)),
    )
    assert placement_from_state(state) == (("a", "b"),)


def _played(*results: tuple[str, int]) -> PlayedGame:
    return PlayedGame(
        game="battlesnake",
        id="g",
        seed=1,
        turns=50,
        results=tuple(
            EntrantResult(seat, name, "builtin:random", rank)
            for seat, (name, rank) in enumerate(results)
        ),
        data=GameData(header={}),
    )


def test_placement_from_game_uses_names_or_keys() -> None:
    played = _played(("hunter", 3), ("greedy", 2), ("random", 1))
    assert placement_from_game(played) == (("random",), ("greedy",), ("hunter",))
    assert placement_from_game(played, ["h", "g", "r"]) == (("r",), ("g",), ("h",))
    with pytest.raises(RatingError, match="keys has 2 entries"):
        placement_from_game(played, ["h", "g"])


def test_placement_from_game_groups_ties() -> None:
    played = _played(("a", 2), ("b", 1), ("c", 2), ("d", 4))
    assert placement_from_game(played) == (("b",), ("a", "c"), ("d",))


def test_leaderboard_sorts_by_display_and_keeps_history() -> None:
    board = Leaderboard()
    board.play("g1", ["a", "b", "c"])
    board.play("g2", ["a", ("b", "c")])
    rows = board.rows()
    assert [row.snake for row in rows] == ["a", "b", "c"]
    displays = [row.display for row in rows]
    assert displays == sorted(displays, reverse=True)
    assert [row.rank for row in rows] == [1, 2, 3]
    assert all(row.games == 2 for row in rows)
    history = board.history.of("a")
    assert [game for game, _ in history] == ["g1", "g2"]
    assert history[-1][1] == board.ratings["a"]
    assert history[0][1].mu < history[1][1].mu
    assert board.history.of("nobody") == []
    again = RatingHistory.from_dict(board.history.to_dict())
    assert again.entries == board.history.entries


def test_rating_round_trips() -> None:
    rating = Rating(31.5, 4.25)
    assert Rating.from_dict(rating.to_dict()) == rating
