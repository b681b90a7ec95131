"""Ratings anchored to reference bots (:func:`snakewar.arena.evalstats.anchored_ratings`).

Every expected number is worked out by hand in the test, from the closed forms of the
one-anchor case: ``R = r + 400 log10(s / (1 - s))`` and a standard deviation of
``1 / (k sqrt(n s (1 - s)))``, ``k = ln(10) / 400``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from snakewar.arena.evalstats import Trinomial, anchored_ratings
from snakewar.arena.ratingsbook import RatingsBook, RatingsFileError

K = math.log(10) / 400


def test_one_player_against_one_anchor_without_prior() -> None:
    # 3 wins and 1 loss: s = 3/4, R = 1000 + 400 log10(3) = 1190.85.
    r = anchored_ratings({("b", "a"): Trinomial(3, 0, 1)}, {"a": 1000.0}, prior_draws=0)
    assert r["a"].rating == 1000.0 and r["a"].anchor and r["a"].plus_minus == 0.0
    assert r["b"].rating == pytest.approx(1000 + 400 * math.log10(3), abs=1e-6)
    # sd = 1 / (k sqrt(4 * 3/4 * 1/4)) = 200.59; the 95% half width is 1.96 sd.
    sd = 1 / (K * math.sqrt(4 * 0.75 * 0.25))
    assert r["b"].plus_minus == pytest.approx(1.959964 * sd, rel=1e-5)
    assert r["b"].games == 4 and not r["b"].anchor


def test_the_prior_is_one_draw_against_the_anchors_mean() -> None:
    # With one virtual draw: s = 3.5 / 5 = 0.7, R = 1000 + 400 log10(7/3) = 1147.19.
    r = anchored_ratings({("b", "a"): Trinomial(3, 0, 1)}, {"a": 1000.0})
    assert r["b"].rating == pytest.approx(1000 + 400 * math.log10(0.7 / 0.3), abs=1e-6)
    # A clean sweep stays finite: 3 wins and the draw, s = 3.5 / 4, R = 1000 + 400 log10 7.
    sweep = anchored_ratings({("a", "b"): Trinomial(0, 0, 3)}, {"a": 1000.0})
    assert sweep["b"].rating == pytest.approx(1000 + 400 * math.log10(7), abs=1e-6)
    assert math.isfinite(sweep["b"].plus_minus)


def test_draws_count_half() -> None:
    # 1 win, 2 draws, 1 loss: s = 1/2, R = the anchor's rating exactly.
    r = anchored_ratings({("a", "b"): Trinomial(1, 2, 1)}, {"a": 1500.0}, prior_draws=0)
    assert r["b"].rating == pytest.approx(1500.0, abs=1e-6)


def test_a_chain_and_two_anchors() -> None:
    # b scores 3/4 against anchor a; c draws b evenly: c = b = 1190.85 (no prior).
    r = anchored_ratings(
        {("b", "a"): Trinomial(3, 0, 1), ("c", "b"): Trinomial(1, 2, 1)},
        {"a": 1000.0},
        prior_draws=0,
    )
    assert r["c"].rating == pytest.approx(r["b"].rating, abs=1e-6)
    # c's interval is wider than b's: it is one step further from the anchor.
    assert r["c"].plus_minus > r["b"].plus_minus
    # Anchors never move, whatever the results say against them.
    two = anchored_ratings(
        {("a", "d"): Trinomial(0, 0, 10), ("b", "d"): Trinomial(5, 0, 5)},
        {"a": 1000.0, "d": 900.0},
    )
    assert (two["a"].rating, two["d"].rating) == (1000.0, 900.0)
    # b's rating solves d/dR = 0: 5 points of 10 against d (900) plus the prior's draw
    # against the anchors' mean (950): 5 - 10 E(R - 900) + 0.5 - E(R - 950) = 0.
    assert two["b"].rating == pytest.approx(_root(900.0, 950.0), abs=1e-4)
    assert 900.0 < two["b"].rating < 950.0


def _root(opponent: float, prior_at: float) -> float:
    """The root of the gradient above, by bisection (independent of Newton's method)."""

    def expected(diff: float) -> float:
        return 1 / (1 + 10 ** (-diff / 400))

    lo, hi = 0.0, 2000.0
    for _ in range(200):
        mid = (lo + hi) / 2
        gradient = 5 - 10 * expected(mid - opponent) + 0.5 - expected(mid - prior_at)
        lo, hi = (mid, hi) if gradient > 0 else (lo, mid)
    return (lo + hi) / 2


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="at least one anchor"):
        anchored_ratings({("a", "b"): Trinomial(1, 0, 0)}, {})
    with pytest.raises(ValueError, match="against itself"):
        anchored_ratings({("a", "a"): Trinomial(1, 0, 0)}, {"a": 0.0})


def test_the_book_adds_results_in_either_order_and_round_trips(tmp_path: Path) -> None:
    book = RatingsBook()
    book.fix_anchor("a", 1000.0, "here")
    book.add("b", "a", Trinomial(3, 0, 1))
    book.add("a", "b", Trinomial(0, 0, 0))
    assert book.results == {("a", "b"): Trinomial(1, 0, 3)}
    path = tmp_path / "r.json"
    book.save(path)
    again = RatingsBook.load(path)
    assert again.results == book.results and again.anchors == {"a": 1000.0}
    assert json.loads(path.read_text())["ratings"]["b"]["rating"] == pytest.approx(1147.19)
    with pytest.raises(RatingsFileError, match="anchor at 1000 already, not 900"):
        again.fix_anchor("a", 900.0, "here")


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ([], "expected a JSON object"),
        ({"format": "x", "version": 1}, "'format' and 'version'"),
        ({"format": "snakewar-ratings", "version": 1, "anchors": {"a": "x"}}, "'anchors'.'a'"),
        ({"format": "snakewar-ratings", "version": 1, "results": [{"a": "x"}]}, "'results'[0].b"),
        (
            {
                "format": "snakewar-ratings",
                "version": 1,
                "results": [{"a": "x", "b": "y", "wins": -1, "draws": 0, "losses": 0}],
            },
            "'results'[0].wins",
        ),
    ],
)
def test_a_bad_book_names_the_field(data: object, needle: str) -> None:
    with pytest.raises(RatingsFileError) as caught:
        RatingsBook.from_dict(data, "r.json")
    assert needle in str(caught.value)
    assert "\n" not in str(caught.value)
