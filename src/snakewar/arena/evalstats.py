"""Statistics of an A/B evaluation: Elo from a score, intervals and the trinomial GSPRT.

Pure functions (no I/O, no clock), so that every number in an eval report can be
checked by hand.  Results are counted as a trinomial: wins, draws and losses of one
bot against another, a draw worth half a point.  The sequential test is the
generalised SPRT that chess engine testing uses (the "logistic" GSPRT): the
log-likelihood ratio of "the Elo difference is ``elo1``" over "it is ``elo0``", in its
normal approximation from the observed score and its variance.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "AnchoredRating",
    "Sprt",
    "SprtState",
    "Trinomial",
    "anchored_ratings",
    "elo_from_score",
    "elo_interval",
    "normal_quantile",
    "score_from_elo",
    "score_interval",
    "sprt_bounds",
    "trinomial_llr",
]


@dataclass(frozen=True, slots=True)
class Trinomial:
    """Wins, draws and losses of one bot against another."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        """Games counted."""
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Points per game (win 1, draw 1/2); 0.5 before any game."""
        if self.games == 0:
            return 0.5
        return (self.wins + 0.5 * self.draws) / self.games

    @property
    def variance(self) -> float:
        """The variance of one game's points around :attr:`score`."""
        if self.games == 0:
            return 0.0
        s = self.score
        return (
            self.wins * (1 - s) ** 2 + self.draws * (0.5 - s) ** 2 + self.losses * s**2
        ) / self.games

    def plus(self, other: Trinomial) -> Trinomial:
        """The counts of both."""
        return Trinomial(
            self.wins + other.wins, self.draws + other.draws, self.losses + other.losses
        )

    def flipped(self) -> Trinomial:
        """The same games seen from the other bot."""
        return Trinomial(self.losses, self.draws, self.wins)


def score_from_elo(elo: float) -> float:
    """The expected score of a bot ``elo`` points stronger (logistic Elo model)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_from_score(score: float) -> float:
    """The Elo difference that gives ``score``; infinite at 0 and 1.

    >>> round(elo_from_score(0.75), 1)
    190.8
    """
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def normal_quantile(p: float) -> float:
    """The standard normal quantile (inverse CDF) of ``p`` in (0, 1), by bisection on erf."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"normal_quantile: p {p} is not in (0, 1)")
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def score_interval(t: Trinomial, confidence: float = 0.95) -> tuple[float, float]:
    """The normal-approximation interval of the score, clipped to [0, 1].

    While every game has had the same result, the variance is that of the results
    with one more win and one more loss (as :func:`trinomial_llr`), so that the
    interval is not a single point.
    """
    if t.games == 0:
        return (0.0, 1.0)
    z = normal_quantile(0.5 + confidence / 2)
    variance = t.variance if t.variance > 0.0 else t.plus(Trinomial(1, 0, 1)).variance
    half = z * math.sqrt(variance / t.games)
    return (max(0.0, t.score - half), min(1.0, t.score + half))


def elo_interval(t: Trinomial, confidence: float = 0.95) -> tuple[float, float]:
    """The Elo difference's interval: the score interval's ends mapped to Elo."""
    lo, hi = score_interval(t, confidence)
    return (elo_from_score(lo), elo_from_score(hi))


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the LLR: accept H0 at or below the first, H1 at or above the second.

    Raises:
        ValueError: error rates not in (0, 1) or summing to 1 or more.
    """
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
        raise ValueError(f"alpha {alpha}, beta {beta}: expected each in (0, 1), summing below 1")
    return (math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha))


def trinomial_llr(t: Trinomial, elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (Elo ``elo1``) over H0 (Elo ``elo0``).

    The normal approximation: ``N (s1 - s0) (2 s - s0 - s1) / (2 var)``, with ``s`` the
    observed score and ``var`` the per-game variance.  Zero before any game.  While
    every game has had the same result there is no variance to scale by: the results
    are then counted as if with one more win and one more loss (a weak prior), so
    that a bot winning every game is accepted after a few games, not never.
    """
    if t.games == 0:
        return 0.0
    if t.variance <= 0.0:
        t = t.plus(Trinomial(1, 0, 1))
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return t.games * (s1 - s0) * (2 * t.score - s0 - s1) / (2 * t.variance)


@dataclass(frozen=True, slots=True)
class SprtState:
    """Where the test stands: its LLR, its bounds, and ``"H0"``, ``"H1"`` or ``""``."""

    llr: float
    lower: float
    upper: float
    decision: str


@dataclass(frozen=True, slots=True)
class Sprt:
    """The test "B is ``elo1`` Elo better than A" against "only ``elo0``".

    Raises:
        ValueError: (when built) ``elo1`` not above ``elo0``, or bad error rates.
    """

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo1 > self.elo0:
            raise ValueError(f"elo1 {self.elo1} must be above elo0 {self.elo0}")
        sprt_bounds(self.alpha, self.beta)

    def state(self, t: Trinomial) -> SprtState:
        """The test after the results ``t`` (B's wins, draws and losses against A)."""
        lower, upper = sprt_bounds(self.alpha, self.beta)
        llr = trinomial_llr(t, self.elo0, self.elo1)
        decision = "H1" if llr >= upper else "H0" if llr <= lower else ""
        return SprtState(llr, lower, upper, decision)


@dataclass(frozen=True, slots=True)
class AnchoredRating:
    """A rating on the anchors' scale: its value, its 95% interval's half width, its games.

    ``plus_minus`` is 0 for an anchor (held fixed) and infinite where nothing bounds it.
    """

    rating: float
    plus_minus: float
    games: int
    anchor: bool


_ELO_SLOPE = math.log(10.0) / 400.0


def anchored_ratings(
    results: Mapping[tuple[str, str], Trinomial],
    anchors: Mapping[str, float],
    *,
    prior_draws: float = 1.0,
    confidence: float = 0.95,
) -> dict[str, AnchoredRating]:
    """Maximum-likelihood Elo ratings of every player, with the anchors held fixed.

    The model is Bradley-Terry on the Elo scale: ``i`` scores ``1 / (1 + 10**((Rj - Ri) /
    400))`` against ``j``, a draw counting half a win and half a loss.  The ratings of
    the players not in ``anchors`` maximise the likelihood of every result in
    ``results`` (``(a, b)``: ``a``'s wins, draws and losses against ``b``) with the
    anchors' ratings fixed; Newton's method finds them.  So that a player who won or
    lost every game has a finite rating, each non-anchor player also counts
    ``prior_draws`` drawn games against a virtual player rated at the anchors' mean.
    The interval is the normal one from the likelihood's curvature (the inverse of the
    observed information, prior included), ``z * sqrt(variance)``.

    For one player ``B`` against one anchor rated ``r``: ``R_B = r + 400 log10(s / (1 -
    s))`` with ``s`` B's score counting the prior's draws, and its variance ``1 / (k^2 n
    s (1 - s))``, ``k = ln(10) / 400``, ``n`` the games with the prior's.

    >>> r = anchored_ratings({("b", "a"): Trinomial(3, 0, 1)}, {"a": 1000.0}, prior_draws=0)
    >>> round(r["b"].rating, 2)
    1190.85

    Raises:
        ValueError: no anchors, a negative prior, or a result of a player with itself.
    """
    if not anchors:
        raise ValueError("anchored ratings need at least one anchor")
    if prior_draws < 0:
        raise ValueError(f"prior_draws {prior_draws}: expected 0 or more")
    players = sorted({p for pair in results for p in pair} | set(anchors))
    free = [p for p in players if p not in anchors]
    index = {p: n for n, p in enumerate(free)}
    mean = sum(anchors.values()) / len(anchors)
    # Points and games of each pair, in both directions: (i, j) -> (points of i, games).
    games: dict[str, int] = dict.fromkeys(players, 0)
    edges: list[tuple[str, str, float, float]] = []
    for (a, b), t in results.items():
        if a == b:
            raise ValueError(f"a result of {a!r} against itself")
        if t.games == 0:
            continue
        edges.append((a, b, t.wins + 0.5 * t.draws, float(t.games)))
        games[a] += t.games
        games[b] += t.games
    rating = {p: anchors.get(p, mean) for p in players}

    def expected(diff: float) -> float:
        return score_from_elo(diff)

    def system() -> tuple[list[float], list[list[float]]]:
        # The log-likelihood's gradient and the negative Hessian over the free players.
        size = len(free)
        grad = [0.0] * size
        info = [[0.0] * size for _ in range(size)]
        for a, b, points, n in edges:
            p = expected(rating[a] - rating[b])
            g = _ELO_SLOPE * (points - n * p)
            w = _ELO_SLOPE**2 * n * p * (1 - p)
            ia, ib = index.get(a), index.get(b)
            if ia is not None:
                grad[ia] += g
                info[ia][ia] += w
            if ib is not None:
                grad[ib] -= g
                info[ib][ib] += w
            if ia is not None and ib is not None:
                info[ia][ib] -= w
                info[ib][ia] -= w
        if prior_draws > 0:
            for p_name, i in index.items():
                p = expected(rating[p_name] - mean)
                grad[i] += _ELO_SLOPE * prior_draws * (0.5 - p)
                info[i][i] += _ELO_SLOPE**2 * prior_draws * p * (1 - p)
        return grad, info

    for _ in range(200):
        grad, info = system()
        step = _solve(info, grad)
        if step is None:
            break
        # Damped: a step of at most 400 Elo keeps Newton from overshooting far out.
        largest = max((abs(x) for x in step), default=0.0)
        scale = min(1.0, 400.0 / largest) if largest > 0 else 1.0
        for p_name, i in index.items():
            rating[p_name] += scale * step[i]
        if largest < 1e-9:
            break
    _, info = system()
    inverse = _inverse(info)
    z = normal_quantile(0.5 + confidence / 2)
    out: dict[str, AnchoredRating] = {}
    for p_name in players:
        if p_name in anchors:
            out[p_name] = AnchoredRating(anchors[p_name], 0.0, games[p_name], True)
            continue
        i = index[p_name]
        variance = inverse[i][i] if inverse is not None else math.inf
        half = z * math.sqrt(variance) if variance > 0 and math.isfinite(variance) else math.inf
        out[p_name] = AnchoredRating(rating[p_name], half, games[p_name], False)
    return out


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float] | None:
    """``matrix^-1 vector`` by Gaussian elimination with partial pivoting (None: singular)."""
    size = len(vector)
    rows = [[*matrix[r], vector[r]] for r in range(size)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) < 1e-15:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(size):
            if r != col and rows[r][col] != 0.0:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[col], strict=True)]
    return [rows[r][size] / rows[r][r] for r in range(size)]


def _inverse(matrix: list[list[float]]) -> list[list[float]] | None:
    """The inverse of ``matrix`` (None: singular), column by column."""
    size = len(matrix)
    columns = []
    for c in range(size):
        column = _solve(matrix, [1.0 if r == c else 0.0 for r in range(size)])
        if column is None:
            return None
        columns.append(column)
    return [[columns[c][r] for c in range(size)] for r in range(size)]
