"""Weng-Lin (OpenSkill) ratings for snakes, from the placements of finished games.

A game's *placement* is a tuple of groups, best first: the winner (or the survivors of
an unfinished game), then the eliminated snakes from the last eliminated to the first.
Snakes eliminated on the same turn share a group, and a group is a tie: a draw (every
snake eliminated on the same turn) is one group. The update is Weng and Lin's Bayesian
approximation (2011) as implemented by ``openskill``, Plackett-Luce by default; the
rating shown is ``mu - 3 * sigma``, the conservative estimate public leaderboards show.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from openskill.models import (
    BradleyTerryFull,
    BradleyTerryPart,
    PlackettLuce,
    ThurstoneMostellerFull,
    ThurstoneMostellerPart,
)

from snakewar.errors import SnakewarError, choices_text

if TYPE_CHECKING:
    from snakewar.engine.protocol import PlayedGame

__all__ = [
    "DEFAULT_MU",
    "DEFAULT_SIGMA",
    "MODELS",
    "Leaderboard",
    "LeaderboardRow",
    "Placement",
    "Rating",
    "RatingError",
    "RatingHistory",
    "RatingModel",
    "normalize_placement",
    "placement_from_game",
    "rate_game",
]

DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0

Placement = tuple[tuple[str, ...], ...]
"""Groups of snakes, best first; the snakes of one group tied."""

MODELS: dict[str, Any] = {
    "plackett_luce": PlackettLuce,
    "bradley_terry_full": BradleyTerryFull,
    "bradley_terry_part": BradleyTerryPart,
    "thurstone_mosteller_full": ThurstoneMostellerFull,
    "thurstone_mosteller_part": ThurstoneMostellerPart,
}
"""The Weng-Lin models by name."""


class RatingError(SnakewarError, ValueError):
    """Raised for a placement, rating or model that cannot be used."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A snake's skill belief: mean ``mu`` and uncertainty ``sigma``."""

    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA

    def __post_init__(self) -> None:
        if not self.sigma > 0:
            raise RatingError(f"rating sigma must be positive, not {self.sigma!r}")

    @property
    def display(self) -> float:
        """The conservative rating shown on leaderboards: ``mu - 3 * sigma``."""
        return self.mu - 3.0 * self.sigma

    def to_dict(self) -> dict[str, float]:
        """JSON-ready form."""
        return {"mu": self.mu, "sigma": self.sigma}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rating:
        """Inverse of :meth:`to_dict`."""
        return cls(float(data["mu"]), float(data["sigma"]))


def normalize_placement(placement: Iterable[str | Iterable[str]]) -> Placement:
    """Turn ``["a", ("b", "c")]`` into ``(("a",), ("b", "c"))``, checking for repeats.

    A string is a group of its own; any other iterable is a group of tied snakes.

    Raises:
        RatingError: a snake appears twice or a group is empty.
    """
    groups: list[tuple[str, ...]] = []
    seen: set[str] = set()
    for item in placement:
        group = (item,) if isinstance(item, str) else tuple(item)
        if not group:
            raise RatingError(f"placement {placement!r} has an empty group")
        for snake in group:
            if snake in seen:
                raise RatingError(f"snake {snake!r} appears twice in placement {placement!r}")
            seen.add(snake)
        groups.append(group)
    return tuple(groups)


class RatingModel:
    """One Weng-Lin model with its parameters.

    Args:
        name: one of :data:`MODELS`.
        mu: the mean of a new rating.
        sigma: the uncertainty of a new rating.
        beta: performance noise; ``sigma / 2`` when not given.
        tau: uncertainty added before every update (keeps ratings movable);
            ``mu / 300`` when not given.
    """

    def __init__(
        self,
        name: str = "plackett_luce",
        *,
        mu: float = DEFAULT_MU,
        sigma: float = DEFAULT_SIGMA,
        beta: float | None = None,
        tau: float | None = None,
    ) -> None:
        if name not in MODELS:
            raise RatingError(f"unknown rating model {name!r}; expected {choices_text(MODELS)}")
        if not sigma > 0:
            raise RatingError(f"rating sigma must be positive, not {sigma!r}")
        self.name = name
        self.mu = mu
        self.sigma = sigma
        self.beta = sigma / 2.0 if beta is None else beta
        self.tau = mu / 300.0 if tau is None else tau
        self._model = MODELS[name](mu=mu, sigma=sigma, beta=self.beta, tau=self.tau)

    def new_rating(self) -> Rating:
        """The rating of a snake that has not played."""
        return Rating(self.mu, self.sigma)

    def rate(
        self, ratings: Mapping[str, Rating], placement: Iterable[str | Iterable[str]]
    ) -> dict[str, Rating]:
        """Update the ratings of the snakes of one game.

        Args:
            ratings: current ratings; a snake missing here starts at :meth:`new_rating`.
            placement: the game's placement (see :func:`normalize_placement`).

        Returns:
            A new mapping: ``ratings`` with the players' entries updated (and added).

        Raises:
            RatingError: fewer than two snakes, or a malformed placement.
        """
        groups = normalize_placement(placement)
        players = [snake for group in groups for snake in group]
        if len(players) < 2:
            raise RatingError(f"a rated game needs at least 2 snakes, not {len(players)}")
        ranks: list[float] = [
            float(place) for place, group in enumerate(groups, start=1) for _ in group
        ]
        before = [ratings.get(snake) or self.new_rating() for snake in players]
        teams = [[self._model.rating(mu=r.mu, sigma=r.sigma)] for r in before]
        rated = self._model.rate(teams, ranks=ranks)
        result = dict(ratings)
        for snake, team in zip(players, rated, strict=True):
            result[snake] = Rating(float(team[0].mu), float(team[0].sigma))
        return result


_DEFAULT_MODEL = RatingModel()


def rate_game(
    ratings: Mapping[str, Rating],
    placement: Iterable[str | Iterable[str]],
    model: RatingModel | None = None,
) -> dict[str, Rating]:
    """Update ratings after one game (Plackett-Luce with the defaults unless ``model``).

    >>> after = rate_game({}, ["winner", "loser"])
    >>> after["winner"].mu > 25 > after["loser"].mu
    True
    """
    return (model or _DEFAULT_MODEL).rate(ratings, placement)


def placement_from_game(played: PlayedGame, keys: Sequence[str] | None = None) -> Placement:
    """The placement of a played game (any game): its entrants grouped by rank, best first.

    Args:
        played: the game.
        keys: the key to rate for each seat; the entrants' names when not given.

    Raises:
        RatingError: ``keys`` has the wrong length or repeats a key.
    """
    names = list(keys) if keys is not None else [r.name for r in played.results]
    if len(names) != len(played.results):
        raise RatingError(f"keys has {len(names)} entries, expected {len(played.results)}")
    return normalize_placement([names[seat] for seat in group] for group in played.placement)


@dataclass(slots=True)
class RatingHistory:
    """Each snake's rating after each of its games, oldest first."""

    entries: dict[str, list[tuple[str, Rating]]] = field(default_factory=dict)

    def record(self, game_id: str, ratings: Mapping[str, Rating], snakes: Iterable[str]) -> None:
        """Append ``ratings[snake]`` after game ``game_id`` for each of ``snakes``."""
        for snake in snakes:
            self.entries.setdefault(snake, []).append((game_id, ratings[snake]))

    def of(self, snake: str) -> list[tuple[str, Rating]]:
        """The ``(game_id, rating)`` list of one snake (empty if it has not played)."""
        return list(self.entries.get(snake, ()))

    def to_dict(self) -> dict[str, list[dict[str, Any]]]:
        """JSON-ready form."""
        return {
            snake: [{"game": game, **rating.to_dict()} for game, rating in rows]
            for snake, rows in self.entries.items()
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Sequence[Mapping[str, Any]]]) -> RatingHistory:
        """Inverse of :meth:`to_dict`."""
        return cls(
            {
                snake: [(str(row["game"]), Rating.from_dict(row)) for row in rows]
                for snake, rows in data.items()
            }
        )


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """One line of a leaderboard."""

    rank: int
    snake: str
    rating: Rating
    games: int

    @property
    def display(self) -> float:
        """The rating shown: ``mu - 3 * sigma``."""
        return self.rating.display


class Leaderboard:
    """Ratings of a set of snakes, updated game by game, with their history.

    >>> board = Leaderboard()
    >>> board.play("g1", ["hunter", "greedy"])
    >>> [row.snake for row in board.rows()]
    ['hunter', 'greedy']
    """

    def __init__(self, model: RatingModel | None = None) -> None:
        self.model = model or _DEFAULT_MODEL
        self.ratings: dict[str, Rating] = {}
        self.history = RatingHistory()
        self.games: dict[str, int] = {}

    def play(self, game_id: str, placement: Iterable[str | Iterable[str]]) -> None:
        """Rate one finished game and record it in the history."""
        groups = normalize_placement(placement)
        self.ratings = self.model.rate(self.ratings, groups)
        players = [snake for group in groups for snake in group]
        self.history.record(game_id, self.ratings, players)
        for snake in players:
            self.games[snake] = self.games.get(snake, 0) + 1

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: ratings, games played and history (the model is not stored)."""
        return {
            "ratings": {snake: rating.to_dict() for snake, rating in self.ratings.items()},
            "games": dict(self.games),
            "history": self.history.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], model: RatingModel | None = None) -> Leaderboard:
        """Rebuild a leaderboard from :meth:`to_dict`."""
        board = cls(model)
        board.ratings = {s: Rating.from_dict(r) for s, r in data["ratings"].items()}
        board.games = {str(s): int(n) for s, n in data["games"].items()}
        board.history = RatingHistory.from_dict(data["history"])
        return board

    def rows(self) -> list[LeaderboardRow]:
        """Snakes by display rating, best first (ties: higher ``mu``, then name)."""
        ordered = sorted(self.ratings.items(), key=lambda kv: (-kv[1].display, -kv[1].mu, kv[0]))
        return [
            LeaderboardRow(rank, snake, rating, self.games.get(snake, 0))
            for rank, (snake, rating) in enumerate(ordered, start=1)
        ]
