"""What every tournament format shares: matches, reports, standings and storage.

A format is a subclass of :class:`Tournament` that names its
:class:`~snakewar.arena.tournaments.config.TournamentFormat` and says how it pairs
(``_build`` plans matches up front, ``_next_round`` pairs one round at a time), who
scores what (``_points``, ``_ranking``) and who wins (``champion``).  Recording a game
(:meth:`Tournament.report`), deciding a match and starting the matches it feeds are
the same for every format.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from snakewar.arena.ratings import Placement, Rating, RatingError, normalize_placement
from snakewar.arena.tournaments.config import TournamentConfig, TournamentError, TournamentFormat

__all__ = ["Match", "MatchStatus", "Standing", "Tournament", "seed_by_rating"]


class MatchStatus(StrEnum):
    """A match's status; each value is the string the API shows (``matches[].status``)."""

    WAITING = "waiting"
    """Its entrants are not known yet (the matches that feed it are not decided)."""
    PENDING = "pending"
    """To be played."""
    DONE = "done"
    """Decided."""
    BYE = "bye"
    """Not played: all its entrants go on."""
    SKIPPED = "skipped"
    """A grand final reset that was not needed."""

    @property
    def resolved(self) -> bool:
        """Whether the match needs no more games (decided, a bye, or skipped)."""
        return self in _RESOLVED


_RESOLVED = frozenset({MatchStatus.DONE, MatchStatus.BYE, MatchStatus.SKIPPED})
_COUNTED = (MatchStatus.DONE, MatchStatus.BYE)


def seed_by_rating(entrants: Iterable[str], ratings: Mapping[str, Rating]) -> list[str]:
    """Order entrants by display rating, best first (unrated ones last, in given order).

    >>> seed_by_rating(["a", "b", "c"], {"b": Rating(30, 1), "a": Rating(20, 1)})
    ['b', 'a', 'c']
    """
    names = list(entrants)
    low = -math.inf
    return sorted(
        names,
        key=lambda n: (-(ratings[n].display if n in ratings else low), names.index(n)),
    )


@dataclass(frozen=True, slots=True)
class Feed:
    """A match slot filled by another match's ``kind`` (``win``/``lose``) at ``index``."""

    match: str
    kind: str
    index: int

    def to_dict(self) -> dict[str, Any]:
        return {"match": self.match, "result": self.kind, "index": self.index}


@dataclass(slots=True)
class Match:
    """One heat of a tournament (read it; change it only through :class:`Tournament`).

    ``status`` is a :class:`MatchStatus`.
    """

    id: str
    round: int
    advance: int
    feeds: list[str | Feed]
    eliminates: bool = True
    stage: int = 0
    reset_of: str | None = None
    entrants: list[str] = field(default_factory=list)
    games: list[Placement] = field(default_factory=list)
    wins: dict[str, int] = field(default_factory=dict)
    status: MatchStatus = MatchStatus.WAITING
    order: list[str] = field(default_factory=list)

    @property
    def advanced(self) -> list[str]:
        """The entrants that go on (won), once the match is resolved."""
        return self.order[: self.advance]

    @property
    def lost(self) -> list[str]:
        """The entrants that lost, once the match is resolved."""
        return self.order[self.advance :]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, for drawing."""
        return {
            "id": self.id,
            "status": self.status.value,
            "entrants": list(self.entrants),
            "from": [f if isinstance(f, str) else f.to_dict() for f in self.feeds],
            "games": [[list(g) for g in game] for game in self.games],
            "wins": dict(self.wins),
            "advanced": self.advanced,
            "lost": self.lost,
        }


@dataclass(slots=True)
class Round:
    """A named round of matches in one bracket (``main``, ``winners``, ``losers``, ``final``)."""

    name: str
    bracket: str
    matches: list[str]


@dataclass(frozen=True, slots=True)
class Standing:
    """One entrant's line in the standings.

    ``place`` is shared by entrants that cannot be told apart (for example the losers
    of the semifinals). ``points`` are match wins (byes included), or heat points in
    round robin and Swiss with heats (halves for ties).
    """

    place: int
    entrant: str
    seed: int
    points: float
    losses: int
    game_wins: int
    game_losses: int
    buchholz: float
    eliminated_in: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "place": self.place,
            "entrant": self.entrant,
            "seed": self.seed,
            "points": self.points,
            "losses": self.losses,
            "game_wins": self.game_wins,
            "game_losses": self.game_losses,
            "buchholz": self.buchholz,
            "eliminated_in": self.eliminated_in,
        }


@dataclass(slots=True)
class Tally:
    """What the decided matches add up to, per entrant (the inputs of the standings)."""

    points: dict[str, float]
    losses: dict[str, int]
    game_wins: dict[str, int]
    game_losses: dict[str, int]
    opponents: dict[str, list[str]]
    out_stage: dict[str, tuple[int, int]]
    out_in: dict[str, str]


Ranking = tuple[dict[str, float], Callable[[str], tuple[Any, ...]]]
"""A format's Buchholz per entrant and its ranking key (lower is better, seed aside)."""


class Tournament(abc.ABC):
    """A tournament's state: one subclass per format; build one with :meth:`create`.

    Every format answers the same questions: :meth:`pending_matches` (what to play),
    :meth:`report` (record a result), :meth:`standings`, :attr:`is_finished` and
    :attr:`champion`.
    """

    FORMAT: ClassVar[TournamentFormat]
    _classes: ClassVar[dict[TournamentFormat, type[Tournament]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fmt = cls.__dict__.get("FORMAT")
        if fmt is not None:
            Tournament._classes[fmt] = cls

    def __init__(self, config: TournamentConfig) -> None:
        """Set up the tournament of ``config`` (its format must be this class's).

        Raises:
            TournamentError: a config of another format.
        """
        if getattr(type(self), "FORMAT", None) != config.format:
            raise TournamentError(
                f"a {type(self).__name__} cannot run a {config.format.value} tournament"
            )
        self.config = config
        self.entrants: list[str] = list(config.entrants)
        self.rounds: list[Round] = []
        self.matches: dict[str, Match] = {}
        self.reports: list[tuple[str, list[Placement]]] = []
        self._seed = {name: i for i, name in enumerate(self.entrants)}
        if self.playable:
            self._build()
            self._update()

    # ---------------------------------------------------------------- creation

    @classmethod
    def create(
        cls,
        format: str,
        entrants: Sequence[str],
        heat_size: int = 2,
        best_of: int = 1,
        advance: int | None = None,
        *,
        grand_final_reset: bool = True,
        rounds: int | None = None,
        seed: int | None = None,
    ) -> Tournament:
        """Set up a tournament of any format.

        The arguments are those of :meth:`TournamentConfig.create`, whose defaults apply.

        Raises:
            TournamentError: any value out of range, with the value and what fits.
        """
        return cls.from_config(
            TournamentConfig.create(
                format,
                entrants,
                heat_size,
                best_of,
                advance,
                grand_final_reset=grand_final_reset,
                rounds=rounds,
                seed=seed,
            )
        )

    @staticmethod
    def from_config(config: TournamentConfig) -> Tournament:
        """A fresh tournament of ``config``'s format."""
        return Tournament._classes[config.format](config)

    @property
    def format(self) -> TournamentFormat:
        """The tournament format."""
        return self.config.format

    def _by_seed(self, names: Iterable[str]) -> list[str]:
        return sorted(names, key=self._seed.__getitem__)

    def _add_round(self, name: str, bracket: str, matches: list[Match]) -> None:
        self.rounds.append(Round(name, bracket, [m.id for m in matches]))
        for m in matches:
            self.matches[m.id] = m

    # ---------------------------------------------------------------- the format's part

    def _build(self) -> None:  # noqa: B027  (an optional hook: doing nothing is its default)
        """Plan the matches known from the start (none for formats paired round by round)."""

    def _next_round(self) -> bool:
        """Pair the next round once the current one is over; False if none was paired."""
        return False

    def _order(self, m: Match, wins: Mapping[str, int]) -> list[str]:
        """A decided match's entrants, best first: by game wins, then seed."""
        return sorted(m.entrants, key=lambda e: (-wins[e], self._seed[e]))

    def _points(self) -> dict[str, float]:
        """Points so far: a match won (or a bye) is one."""
        points: dict[str, float] = dict.fromkeys(self.entrants, 0)
        for m in self.matches.values():
            if m.status in _COUNTED:
                for e in m.advanced:
                    points[e] += 1
        return points

    @abc.abstractmethod
    def _ranking(self, tally: Tally) -> Ranking:
        """The format's Buchholz and ranking key over ``tally``."""

    @property
    @abc.abstractmethod
    def champion(self) -> str | None:
        """The winner once the tournament is finished, else ``None``."""

    # ---------------------------------------------------------------- progress

    def _produced(self, feed: Feed) -> str | None:
        source = self.matches[feed.match]
        pool = source.advanced if feed.kind == "win" else source.lost
        return pool[feed.index] if feed.index < len(pool) else None

    def _update(self) -> None:
        while True:
            for m in self.matches.values():
                if m.status is MatchStatus.WAITING:
                    self._try_start(m)
            if not self._next_round():
                return

    def _try_start(self, m: Match) -> None:
        for feed in m.feeds:
            if isinstance(feed, Feed) and not self.matches[feed.match].status.resolved:
                return
        if m.reset_of is not None:
            first = self.matches[m.reset_of]
            # The reset is played only when the losers' bracket champion won the first.
            if first.status is not MatchStatus.DONE or first.order[0] != first.entrants[-1]:
                m.status = MatchStatus.SKIPPED
                return
        entrants = [f if isinstance(f, str) else self._produced(f) for f in m.feeds]
        m.entrants = [e for e in entrants if e is not None]
        m.wins = dict.fromkeys(m.entrants, 0)
        if len(m.entrants) <= m.advance:
            m.status = MatchStatus.BYE
            m.order = sorted(m.entrants, key=self._seed.__getitem__)
        else:
            m.status = MatchStatus.PENDING

    def _all_resolved(self) -> bool:
        return all(m.status.resolved for m in self.matches.values())

    def pending_matches(self) -> list[Match]:
        """Matches whose entrants are known and that are not decided yet."""
        return [m for m in self.matches.values() if m.status is MatchStatus.PENDING]

    def match(self, match_id: str) -> Match:
        """One match by id.

        Raises:
            TournamentError: no such match.
        """
        if match_id not in self.matches:
            raise TournamentError(f"no match {match_id!r} in this tournament")
        return self.matches[match_id]

    def _game_wins(self, m: Match, game: Placement) -> list[str]:
        ahead = 0
        winners: list[str] = []
        for group in game:
            if ahead + len(group) <= m.advance:
                winners.extend(group)
            ahead += len(group)
        return winners

    def _decided(self, m: Match, wins: Mapping[str, int]) -> bool:
        needed = self.config.best_of // 2 + 1
        counts = sorted(wins.values(), reverse=True)
        top = counts[m.advance - 1]
        return top >= needed and (len(counts) <= m.advance or top > counts[m.advance])

    def report(self, match_id: str, *placements: Iterable[str | Iterable[str]]) -> Match:
        """Record one or more finished games of a pending match.

        Args:
            match_id: the match.
            placements: each game's placement, best first: an entrant name per place,
                or a tuple of names for a tie (see
                :func:`~snakewar.arena.ratings.normalize_placement`).

        Returns:
            The match, decided or still pending.

        Raises:
            TournamentError: unknown or not pending match, a placement that is not
                exactly the match's entrants, or games after the match was decided.
                Nothing is recorded then.
        """
        m = self.match(match_id)
        if m.status is not MatchStatus.PENDING:
            raise TournamentError(f"match {match_id!r} is {m.status.value}, not pending")
        if not placements:
            raise TournamentError(f"report for match {match_id!r} has no game")
        games: list[Placement] = []
        wins = dict(m.wins)
        for i, placement in enumerate(placements):
            try:
                game = normalize_placement(placement)
            except RatingError as exc:
                raise TournamentError(f"match {match_id!r}: {exc}") from None
            players = sorted(s for g in game for s in g)
            if players != sorted(m.entrants):
                raise TournamentError(
                    f"placement {placement!r} for match {match_id!r} must rank exactly "
                    f"{sorted(m.entrants)!r}"
                )
            if self._decided(m, wins):
                raise TournamentError(
                    f"match {match_id!r} was decided before game {len(m.games) + i + 1}"
                )
            for snake in self._game_wins(m, game):
                wins[snake] += 1
            games.append(game)
        m.games.extend(games)
        m.wins = wins
        self.reports.append((match_id, games))
        if self._decided(m, wins):
            m.order = self._order(m, wins)
            m.status = MatchStatus.DONE
            self._update()
        return m

    # ---------------------------------------------------------------- results

    def _eliminated(self, m: Match) -> list[str]:
        if m.status not in _COUNTED:
            return []
        if m.eliminates:
            return m.lost
        reset = self.matches.get("GF2")
        if m.id == "GF1" and reset is not None and reset.status is MatchStatus.SKIPPED:
            return m.lost
        return []

    @property
    def playable(self) -> bool:
        """Whether it has the 2 entrants a bracket needs (fewer: it waits for entrants)."""
        return len(self.entrants) >= 2

    @property
    def is_finished(self) -> bool:
        """Whether every match is resolved (never while it waits for entrants)."""
        return self.playable and self._all_resolved()

    def _tally(self) -> Tally:
        tally = Tally(
            points=self._points(),
            losses=dict.fromkeys(self.entrants, 0),
            game_wins=dict.fromkeys(self.entrants, 0),
            game_losses=dict.fromkeys(self.entrants, 0),
            opponents={e: [] for e in self.entrants},
            out_stage={},
            out_in={},
        )
        for m in self.matches.values():
            if m.status is not MatchStatus.DONE:
                continue
            total = sum(m.wins.values())
            for e in m.entrants:
                tally.game_wins[e] += m.wins[e]
                tally.game_losses[e] += total - m.wins[e]
                tally.opponents[e].extend(o for o in m.entrants if o != e)
            for e in m.lost:
                tally.losses[e] += 1
            for e in self._eliminated(m):
                tally.out_stage[e], tally.out_in[e] = (m.stage, m.order.index(e)), m.id
        return tally

    def standings(self) -> list[Standing]:
        """Entrants, best first.

        Elimination: the champion, then by how late each was knocked out, then by its
        place in the match that knocked it out; those still in share the top place. Round robin
        and Swiss: by points, then Buchholz (Swiss: opponents' points), game wins minus
        losses, and seed.
        """
        tally = self._tally()
        buch, key = self._ranking(tally)
        ordered = sorted(self.entrants, key=lambda e: (*key(e), self._seed[e]))
        keys = {e: key(e) for e in self.entrants}
        rows = []
        for e in ordered:
            place = 1 + sum(1 for o in self.entrants if keys[o] < keys[e])
            rows.append(
                Standing(
                    place=place,
                    entrant=e,
                    seed=self._seed[e] + 1,
                    points=tally.points[e],
                    losses=tally.losses[e],
                    game_wins=tally.game_wins[e],
                    game_losses=tally.game_losses[e],
                    buchholz=buch[e],
                    eliminated_in=tally.out_in.get(e),
                )
            )
        return rows

    # ---------------------------------------------------------------- storage

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: the settings, the reports, and rounds of matches to draw."""
        return {
            **self.config.to_mapping(),
            "reports": [
                {"match": mid, "games": [[list(g) for g in game] for game in games]}
                for mid, games in self.reports
            ],
            "rounds": [
                {
                    "name": r.name,
                    "bracket": r.bracket,
                    "matches": [self.matches[mid].to_dict() for mid in r.matches],
                }
                for r in self.rounds
            ],
            "finished": self.is_finished,
            "champion": self.champion,
            "standings": [s.to_dict() for s in self.standings()],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tournament:
        """Rebuild a tournament from :meth:`to_dict` by replaying its reports.

        Raises:
            TournamentError: settings or reports that do not fit.
        """
        t = cls.from_config(TournamentConfig.from_mapping(data))
        try:
            reports = [(r["match"], r["games"]) for r in data["reports"]]
        except (KeyError, TypeError) as exc:
            raise TournamentError(f"tournament data is missing or mistypes {exc}") from None
        for mid, games in reports:
            t.report(mid, *games)
        return t
