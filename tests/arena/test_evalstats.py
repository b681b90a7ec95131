"""The eval statistics against values worked out by hand."""

from __future__ import annotations

import math

import pytest

from snakewar.arena.evalstats import (
    Sprt,
    Trinomial,
    elo_from_score,
    elo_interval,
    normal_quantile,
    score_from_elo,
    score_interval,
    sprt_bounds,
    trinomial_llr,
)


def test_elo_from_score_known_values() -> None:
    # 3 points of 4: 10^(E/400) = 3, E = 400 log10 3 = 190.85.
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))
    assert elo_from_score(0.5) == pytest.approx(0.0)
    assert elo_from_score(0.25) == pytest.approx(-400 * math.log10(3))
    assert elo_from_score(1.0) == math.inf
    assert elo_from_score(0.0) == -math.inf
    assert score_from_elo(400.0) == pytest.approx(10 / 11)
    for elo in (-300.0, -12.5, 0.0, 77.0):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)


def test_trinomial_score_and_variance() -> None:
    t = Trinomial(60, 20, 20)
    assert t.games == 100
    assert t.score == pytest.approx(0.7)
    # (60 * 0.3^2 + 20 * 0.2^2 + 20 * 0.7^2) / 100 = (5.4 + 0.8 + 9.8) / 100
    assert t.variance == pytest.approx(0.16)
    assert t.flipped() == Trinomial(20, 20, 60)
    assert Trinomial().score == 0.5


def test_normal_quantile() -> None:
    assert normal_quantile(0.975) == pytest.approx(1.959964, abs=1e-6)
    assert normal_quantile(0.5) == pytest.approx(0.0, abs=1e-9)
    with pytest.raises(ValueError):
        normal_quantile(1.0)


def test_intervals() -> None:
    t = Trinomial(60, 20, 20)
    half = 1.959964 * math.sqrt(0.16 / 100)
    lo, hi = score_interval(t)
    assert lo == pytest.approx(0.7 - half, abs=1e-6)
    assert hi == pytest.approx(0.7 + half, abs=1e-6)
    elo_lo, elo_hi = elo_interval(t)
    assert elo_lo == pytest.approx(elo_from_score(0.7 - half), abs=1e-3)
    assert elo_hi == pytest.approx(elo_from_score(0.7 + half), abs=1e-3)
    assert elo_lo < elo_from_score(0.7) < elo_hi


def test_sprt_bounds_from_error_rates() -> None:
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95))
    assert upper == pytest.approx(math.log(0.95 / 0.05))
    assert upper == pytest.approx(2.944439, abs=1e-6)
    lower, upper = sprt_bounds(0.05, 0.1)
    assert lower == pytest.approx(math.log(0.1 / 0.95))
    assert upper == pytest.approx(math.log(0.9 / 0.05))
    for alpha, beta in ((0.0, 0.05), (0.05, 1.0), (0.6, 0.5)):
        with pytest.raises(ValueError):
            sprt_bounds(alpha, beta)


def test_llr_of_a_known_trinomial() -> None:
    # N (s1 - s0) (2 s - s0 - s1) / (2 var), s0 = 0.5, s1 = 1 / (1 + 10^(-10/400)).
    t = Trinomial(60, 20, 20)
    s1 = 1 / (1 + 10 ** (-10 / 400))
    expected = 100 * (s1 - 0.5) * (1.4 - 0.5 - s1) / (2 * 0.16)
    assert trinomial_llr(t, 0, 10) == pytest.approx(expected)
    assert trinomial_llr(t, 0, 10) == pytest.approx(1.73371, abs=1e-4)
    # Equal results: the score 0.5 sits below the hypotheses' midpoint, evidence for H0.
    assert trinomial_llr(Trinomial(30, 40, 30), 0, 10) < 0
    assert trinomial_llr(Trinomial(), 0, 10) == 0.0


def test_llr_when_every_game_has_one_result() -> None:
    # Counted as 8 wins plus one win and one loss: 9-0-1, s 0.9, var 0.09.
    s1 = score_from_elo(30)
    expected = 10 * (s1 - 0.5) * (1.8 - 0.5 - s1) / (2 * 0.09)
    assert trinomial_llr(Trinomial(8, 0, 0), 0, 30) == pytest.approx(expected)
    assert trinomial_llr(Trinomial(0, 0, 8), 0, 30) < 0


def test_sprt_decisions() -> None:
    sprt = Sprt(0, 30, 0.05, 0.05)
    assert sprt.state(Trinomial(40, 0, 0)).decision == "H1"
    assert sprt.state(Trinomial(0, 0, 40)).decision == "H0"
    assert sprt.state(Trinomial(3, 2, 3)).decision == ""
    with pytest.raises(ValueError):
        Sprt(10, 10)
    with pytest.raises(ValueError):
        Sprt(0, 10, alpha=0.0)


def test_interval_when_every_game_has_one_result() -> None:
    # 10 wins: the variance of 11-0-1 (s 11/12, var 11/144) over 10 games.
    half = 1.959964 * math.sqrt((11 / 144) / 10)
    lo, hi = score_interval(Trinomial(10, 0, 0))
    assert lo == pytest.approx(1 - half, abs=1e-6)
    assert hi == 1.0
    elo_lo, elo_hi = elo_interval(Trinomial(10, 0, 0))
    assert math.isfinite(elo_lo) and elo_lo > 0
    assert elo_hi == math.inf
