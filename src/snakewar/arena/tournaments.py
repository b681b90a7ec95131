"""Tournaments as pure state machines: elimination brackets, round robin and Swiss.

A :class:`Tournament` knows its entrants (ordered by seed, best first), its matches and
the games reported so far; it never plays a game itself. A caller loops::

    t = Tournament.create("single_elimination", ["a", "b", "c"])
    while not t.is_finished:
        for match in t.pending_matches():
            t.report(match.id, play_a_game(match.entrants))   # a placement, best first
    t.champion, t.standings()

**Matches.** A match is a heat of up to ``heat_size`` snakes playing games until it is
decided. In each game the snakes placed in the top ``advance`` places earn a game win (a
tied group that straddles that line earns nothing; a drawn 1v1 game is replayed). A
match is decided once its top ``advance`` snakes each have ``best_of // 2 + 1`` game wins
and more than every other snake; its order is by game wins, then seed. The top
``advance`` go on (one in a final, and in round-robin and Swiss matches); the rest lose.

**Elimination brackets** use standard seeding: seeds 1 and 2 can meet only in the final,
1 and 4 (or 1, 4, 5, 8 in 4-snake heats) only from the semifinal, and so on. A field
smaller than the bracket leaves out its lowest seeds, so the top seeds get the byes: a
heat with no more snakes than places to advance is not played. Double elimination
in 1v1 drops each winners'-bracket loser into the losers' bracket, alternating the
drop order so that early rematches are avoided, and ends with a grand final between the
two brackets' champions, reset (played again) when the losers'-bracket champion wins
the first one, unless ``grand_final_reset=False``. With heats, each winners' heat drops
all but its top ``advance`` into the losers' bracket, whose heats mix those drops with
its survivors (top ``advance`` go on, the rest are out); the grand final is one heat of
the ``advance`` champions of each bracket (1v1, with the reset, when ``advance`` is 1).

**Round robin** (1v1) pairs every two entrants exactly once (circle method); **Swiss**
(1v1) pairs entrants with equal scores round by round, the top half of a score group
against its bottom half (Dutch system), never twice while it can be avoided, the bye
going to the lowest-ranked entrant without one. A win or a bye is a point. Everything
is deterministic; equal Swiss scores are ordered by seed, or by a hash of ``seed`` when
one is given.

**Heats in round robin and Swiss** (``heat_size`` k of 3 to 8): a heat is decided by game
wins as above (one place to win), and its order is by game wins, then by placement
points summed over its games, then seed. A heat then awards each entrant one point per
heat opponent ordered below it and half a point per opponent level with it (equal game
wins and placement points): k-1 for first down to 0, ties sharing the average. Placement
points in a game work the same way. Swiss ranks entrants by score, gives a bye (worth
k-1, a heat win, as a 1v1 bye is a win) to the lowest-ranked entrant without one when
exactly one would be left over, and cuts the rest into heats of k in rank order (the last
one smaller), searching for heats without repeated meetings (a bounded backtracking
search, then adjacent swaps). Round robin plans rounds greedily until every pair has
shared a heat at least once: each round fills heats of k (the last one smaller, a single
leftover sits out) starting from the entrant with the most unmet opponents and adding
whoever meets the most new opponents. Standings are by points, then Buchholz
(opponents' points, summed over heats), game wins minus losses and seed.

:meth:`Tournament.to_dict` is JSON-ready (its rounds, matches, entrants and results
draw the bracket); :meth:`Tournament.from_dict` rebuilds it by replaying its reports.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from snakewar.arena.ratings import Placement, Rating, RatingError, normalize_placement
from snakewar.errors import SnakewarError, choices_text

__all__ = [
    "FORMATS",
    "FORMAT_TITLES",
    "MAX_ENTRANTS",
    "Match",
    "Standing",
    "Tournament",
    "TournamentError",
    "seed_by_rating",
]

FORMATS = ("single_elimination", "double_elimination", "round_robin", "swiss")
"""The tournament formats."""

FORMAT_TITLES = {
    "single_elimination": "Single elimination",
    "double_elimination": "Double elimination",
    "round_robin": "Round robin",
    "swiss": "Swiss",
}
"""Each format's name for people (pages, tables), by its id in :data:`FORMATS`."""

MAX_ENTRANTS = 64
MAX_HEAT = 8

_RESOLVED = ("done", "bye", "skipped")


class TournamentError(SnakewarError, ValueError):
    """Raised for a tournament that cannot be set up or a report that does not fit."""


def _is(value: object, kind: type) -> bool:
    """``isinstance`` for values that may come from JSON despite their annotations."""
    return isinstance(value, kind) and not isinstance(value, bool)


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
class _Feed:
    """A match slot filled by another match's ``kind`` (``win``/``lose``) at ``index``."""

    match: str
    kind: str
    index: int

    def to_dict(self) -> dict[str, Any]:
        return {"match": self.match, "result": self.kind, "index": self.index}


@dataclass(slots=True)
class Match:
    """One heat of a tournament (read it; change it only through :class:`Tournament`).

    ``status`` is ``"waiting"`` (entrants not known yet), ``"pending"`` (to be played),
    ``"done"``, ``"bye"`` (not played: all its entrants go on) or ``"skipped"`` (a grand
    final reset that was not needed).
    """

    id: str
    round: int
    advance: int
    feeds: list[str | _Feed]
    eliminates: bool = True
    stage: int = 0
    reset_of: str | None = None
    entrants: list[str] = field(default_factory=list)
    games: list[Placement] = field(default_factory=list)
    wins: dict[str, int] = field(default_factory=dict)
    status: str = "waiting"
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
            "status": self.status,
            "entrants": list(self.entrants),
            "from": [f if isinstance(f, str) else f.to_dict() for f in self.feeds],
            "games": [[list(g) for g in game] for game in self.games],
            "wins": dict(self.wins),
            "advanced": self.advanced,
            "lost": self.lost,
        }


@dataclass(slots=True)
class _Round:
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


def _snake_split(items: Sequence[int], groups: int, per: int) -> list[list[int]]:
    """Deal ``items`` (best first) into ``groups`` lists of ``per``, snake order."""
    out: list[list[int]] = [[] for _ in range(groups)]
    for i, item in enumerate(items[: groups * per]):
        rnd, pos = divmod(i, groups)
        out[pos if rnd % 2 == 0 else groups - 1 - pos].append(item)
    return out


def _bracket_levels(size: int, heat: int, advance: int) -> list[list[list[int]]]:
    """Seeds of each heat of each round, first round first, for a full bracket."""
    groups = heat // advance
    levels = [[list(range(1, heat + 1))]]
    total = heat
    while total < size:
        feeders: list[list[int]] = []
        for parent in levels[-1]:
            feeders.extend(_snake_split(sorted(parent), groups, advance))
        new = list(range(total + 1, total * groups + 1))
        ranked = sorted(range(len(feeders)), key=lambda i: sorted(feeders[i]), reverse=True)
        # The weakest feeders take the strongest newcomers, so the top seeds meet the
        # weakest ones: 1 vs 8, 4 vs 5, 2 vs 7, 3 vs 6.
        for pos, members in enumerate(_snake_split(new, len(feeders), heat - advance)):
            feeders[ranked[pos]].extend(members)
        levels.append([sorted(f) for f in feeders])
        total *= groups
    return levels[::-1]


class Tournament:
    """A tournament's state; build one with :meth:`create`."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.entrants: list[str] = list(config["entrants"])
        self.rounds: list[_Round] = []
        self.matches: dict[str, Match] = {}
        self.reports: list[tuple[str, list[Placement]]] = []
        self._seed = {name: i for i, name in enumerate(self.entrants)}

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
        """Set up a tournament.

        Args:
            format: one of :data:`FORMATS`.
            entrants: 2 to 64 distinct names, ordered by seed (best first).
            heat_size: snakes per match, 2 to 8.
            best_of: games per match, odd: a match is won with ``best_of // 2 + 1``.
            advance: snakes going on from each heat before the final;
                ``heat_size // 2`` by default; must divide ``heat_size``.
            grand_final_reset: double elimination: replay the grand final when the
                losers' bracket champion wins it (1v1 grand finals only).
            rounds: Swiss rounds, ``ceil(log2(entrants))`` by default.
            seed: Swiss only: orders equal scores by a hash of it instead of by seed.

        Raises:
            TournamentError: any value out of range, with the value and what fits.
        """
        if format not in FORMATS:
            raise TournamentError(
                f"unknown tournament format {format!r}; expected {choices_text(FORMATS)}"
            )
        names = list(entrants)
        if not 2 <= len(names) <= MAX_ENTRANTS:
            raise TournamentError(
                f"a tournament needs 2 to {MAX_ENTRANTS} entrants, not {len(names)}"
            )
        for name in names:
            if not _is(name, str) or not name:
                raise TournamentError(f"entrant {name!r} is not a non-empty string")
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise TournamentError(f"entrant {dup!r} appears more than once")
        if not _is(heat_size, int) or not 2 <= heat_size <= MAX_HEAT:
            raise TournamentError(f"heat size must be 2 to {MAX_HEAT}, not {heat_size!r}")
        if not _is(best_of, int) or best_of < 1 or best_of % 2 == 0:
            raise TournamentError(f"best of must be a positive odd number, not {best_of!r}")
        adv = heat_size // 2 if advance is None else advance
        if not _is(adv, int) or not 1 <= adv < heat_size or heat_size % adv:
            raise TournamentError(
                f"advance must divide heat size {heat_size} and be smaller, not {advance!r}"
            )
        default_rounds = max(1, math.ceil(math.log2(len(names))))
        swiss_rounds = default_rounds if rounds is None else rounds
        if format == "swiss" and (
            not _is(swiss_rounds, int) or not 1 <= swiss_rounds <= len(names) - 1
        ):
            raise TournamentError(
                f"swiss rounds must be 1 to {len(names) - 1} for {len(names)} entrants, "
                f"not {rounds!r}"
            )
        config = {
            "format": format,
            "entrants": names,
            "heat_size": heat_size,
            "best_of": best_of,
            "advance": adv,
            "grand_final_reset": bool(grand_final_reset),
            "swiss_rounds": swiss_rounds if format == "swiss" else None,
            "seed": seed,
        }
        t = cls(config)
        t._build()
        t._update()
        return t

    @property
    def format(self) -> str:
        """The tournament format."""
        return str(self.config["format"])

    def _by_seed(self, names: Iterable[str]) -> list[str]:
        return sorted(names, key=self._seed.__getitem__)

    @property
    def _heats(self) -> bool:
        """Round robin or Swiss with heats of more than two snakes."""
        return self.format in ("round_robin", "swiss") and self.config["heat_size"] > 2

    def _add_round(self, name: str, bracket: str, matches: list[Match]) -> None:
        self.rounds.append(_Round(name, bracket, [m.id for m in matches]))
        for m in matches:
            self.matches[m.id] = m

    def _build(self) -> None:
        fmt = self.format
        if fmt in ("single_elimination", "double_elimination"):
            self._build_elimination(fmt == "double_elimination")
        elif fmt == "round_robin" and self._heats:
            self._build_round_robin_heats()
        elif fmt == "round_robin":
            self._build_round_robin()
        # Swiss rounds are paired one at a time in _update.

    def _build_elimination(self, double: bool) -> None:
        heat, adv = self.config["heat_size"], self.config["advance"]
        groups = heat // adv
        n = len(self.entrants)
        size = heat
        while size < n:
            size *= groups
        levels = _bracket_levels(size, heat, adv)
        prefix = "W" if double else "R"
        count = len(levels)
        for r, level in enumerate(levels):
            last = r == count - 1
            matches: list[Match] = []
            for j, seeds in enumerate(level):
                feeds: list[str | _Feed]
                if r == 0:
                    feeds = [self.entrants[s - 1] for s in seeds if s <= n]
                else:
                    feeds = [
                        _Feed(f"{prefix}{r}-{j * groups + g + 1}", "win", p)
                        for g in range(groups)
                        for p in range(adv)
                    ]
                matches.append(
                    Match(
                        id=f"{prefix}{r + 1}-{j + 1}",
                        round=len(self.rounds),
                        # Heats keep ``adv`` in the winners' final: they meet the
                        # losers' champions in the grand final.
                        advance=1 if last and (not double or heat == 2) else adv,
                        feeds=feeds,
                        eliminates=not double,
                        stage=r + 1,
                    )
                )
            if double:
                name = "Winners final" if last else f"Winners round {r + 1}"
            else:
                name = "Final" if last else f"Round {r + 1}"
            self._add_round(name, "winners" if double else "main", matches)
        if double and heat == 2:
            self._build_losers(size, count)
        elif double:
            self._build_losers_heats([len(level) for level in levels])

    def _build_losers_heats(self, wmatches: list[int]) -> None:
        """Losers' bracket for heats: drops and survivors share heats of ``heat_size``.

        After each winners' round its dropped entrants (all but the top ``advance`` of
        each heat) join the losers'-bracket survivors; that pool is cut into heats in
        order, whose top ``advance`` survive and whose others are out. Once the winners'
        bracket is over, the survivors keep playing heats until ``advance`` are left. Slots
        that stay empty (byes upstream) make smaller heats or byes.
        """
        heat, adv = self.config["heat_size"], self.config["advance"]
        survivors: list[str | _Feed] = []
        stage = 0

        def add(pool: list[str | _Feed]) -> list[str | _Feed]:
            nonlocal stage
            stage += 1
            chunks = [pool[i : i + heat] for i in range(0, len(pool), heat)]
            matches = [
                Match(
                    id=f"L{stage}-{i + 1}",
                    round=len(self.rounds),
                    advance=adv,
                    feeds=chunk,
                    stage=stage,
                )
                for i, chunk in enumerate(chunks)
            ]
            self._add_round(f"Losers round {stage}", "losers", matches)
            return [_Feed(m.id, "win", p) for m in matches for p in range(adv)]

        for r, count in enumerate(wmatches):
            drops: list[str | _Feed] = [
                _Feed(f"W{r + 1}-{j + 1}", "lose", p)
                for j in range(count)
                for p in range(heat - adv)
            ]
            if r % 2:
                # Alternate the drop order so early rematches are less likely.
                drops.reverse()
            survivors = add(survivors + drops)
        while len(survivors) > adv:
            survivors = add(survivors)
        self.rounds[-1].name = "Losers final"
        wfinal = f"W{len(wmatches)}-1"
        reset = self.config["grand_final_reset"] and adv == 1
        gf = Match(
            id="GF1",
            round=len(self.rounds),
            advance=1,
            feeds=[*(_Feed(wfinal, "win", p) for p in range(adv)), *survivors],
            eliminates=not reset,
            stage=stage + 1,
        )
        self._add_round("Grand final", "final", [gf])
        if reset:
            again = Match(
                id="GF2",
                round=len(self.rounds),
                advance=1,
                feeds=[_Feed("GF1", "win", 0), _Feed("GF1", "lose", 0)],
                stage=stage + 1,
                reset_of="GF1",
            )
            self._add_round("Grand final reset", "final", [again])

    def _build_losers(self, size: int, wrounds: int) -> None:
        lb_champ: _Feed = _Feed(f"W{wrounds}-1", "lose", 0)
        total = 2 * wrounds - 2
        stage = 0

        def add(name: str, feeds_list: list[list[str | _Feed]]) -> str:
            nonlocal stage
            stage += 1
            matches = [
                Match(
                    id=f"L{stage}-{i + 1}", round=len(self.rounds), advance=1, feeds=f, stage=stage
                )
                for i, f in enumerate(feeds_list)
            ]
            self._add_round(name, "losers", matches)
            return f"L{stage}"

        if wrounds >= 2:
            first: list[list[str | _Feed]] = [
                [_Feed(f"W1-{2 * i + 1}", "lose", 0), _Feed(f"W1-{2 * i + 2}", "lose", 0)]
                for i in range(size // 4)
            ]
            prev = add("Losers round 1", first)
            for j in range(1, wrounds):
                count = size // 2 ** (j + 1)
                drop: list[list[str | _Feed]] = []
                for i in range(count):
                    k = count - 1 - i if j % 2 else i
                    drop.append(
                        [_Feed(f"{prev}-{i + 1}", "win", 0), _Feed(f"W{j + 1}-{k + 1}", "lose", 0)]
                    )
                name = "Losers final" if stage + 1 == total else f"Losers round {stage + 1}"
                prev = add(name, drop)
                if j < wrounds - 1:
                    pairs: list[list[str | _Feed]] = [
                        [
                            _Feed(f"{prev}-{2 * i + 1}", "win", 0),
                            _Feed(f"{prev}-{2 * i + 2}", "win", 0),
                        ]
                        for i in range(count // 2)
                    ]
                    prev = add(f"Losers round {stage + 1}", pairs)
            lb_champ = _Feed(f"{prev}-1", "win", 0)
        reset = self.config["grand_final_reset"]
        gf = Match(
            id="GF1",
            round=len(self.rounds),
            advance=1,
            feeds=[_Feed(f"W{wrounds}-1", "win", 0), lb_champ],
            eliminates=not reset,
            stage=total + 1,
        )
        self._add_round("Grand final", "final", [gf])
        if reset:
            again = Match(
                id="GF2",
                round=len(self.rounds),
                advance=1,
                feeds=[_Feed("GF1", "win", 0), _Feed("GF1", "lose", 0)],
                stage=total + 1,
                reset_of="GF1",
            )
            self._add_round("Grand final reset", "final", [again])

    def _build_round_robin(self) -> None:
        slots: list[str | None] = list(self.entrants)
        if len(slots) % 2:
            slots.append(None)
        half = len(slots) // 2
        for r in range(len(slots) - 1):
            matches: list[Match] = []
            for j in range(half):
                a, b = slots[j], slots[-1 - j]
                if a is None or b is None:
                    continue  # the odd one out sits this round out
                pair = sorted((a, b), key=self._seed.__getitem__)
                matches.append(
                    Match(
                        id=f"RR{r + 1}-{len(matches) + 1}",
                        round=r,
                        advance=1,
                        feeds=list(pair),
                        eliminates=False,
                    )
                )
            self._add_round(f"Round {r + 1}", "main", matches)
            # Circle method: the first slot stays, the others rotate by one.
            slots = [slots[0], slots[-1], *slots[1:-1]]

    def _build_round_robin_heats(self) -> None:
        heat = self.config["heat_size"]
        names = self.entrants
        unmet = {e: {o for o in names if o != e} for e in names}
        rnd = 0
        while any(unmet.values()):
            free = list(names)
            matches: list[Match] = []
            while len(free) >= 2:
                # Start from whoever has the most opponents still to meet.
                first = max(free, key=lambda e: (len(unmet[e]), -self._seed[e]))
                members = [first]
                free.remove(first)
                while len(members) < heat and free:
                    best = max(
                        free,
                        key=lambda e: (
                            sum(1 for x in members if x in unmet[e]),
                            len(unmet[e]),
                            -self._seed[e],
                        ),
                    )
                    members.append(best)
                    free.remove(best)
                for a, b in itertools.combinations(members, 2):
                    unmet[a].discard(b)
                    unmet[b].discard(a)
                matches.append(
                    Match(
                        id=f"RR{rnd + 1}-{len(matches) + 1}",
                        round=rnd,
                        advance=1,
                        feeds=[*self._by_seed(members)],
                        eliminates=False,
                    )
                )
            self._add_round(f"Round {rnd + 1}", "main", matches)
            rnd += 1

    # ---------------------------------------------------------------- progress

    def _produced(self, feed: _Feed) -> str | None:
        source = self.matches[feed.match]
        pool = source.advanced if feed.kind == "win" else source.lost
        return pool[feed.index] if feed.index < len(pool) else None

    def _update(self) -> None:
        while True:
            for m in self.matches.values():
                if m.status == "waiting":
                    self._try_start(m)
            if self.format != "swiss" or not self._swiss_next():
                return

    def _try_start(self, m: Match) -> None:
        for feed in m.feeds:
            if isinstance(feed, _Feed) and self.matches[feed.match].status not in _RESOLVED:
                return
        if m.reset_of is not None:
            first = self.matches[m.reset_of]
            # The reset is played only when the losers' bracket champion won the first.
            if first.status != "done" or first.order[0] != first.entrants[-1]:
                m.status = "skipped"
                return
        entrants = [f if isinstance(f, str) else self._produced(f) for f in m.feeds]
        m.entrants = [e for e in entrants if e is not None]
        m.wins = dict.fromkeys(m.entrants, 0)
        if len(m.entrants) <= m.advance:
            m.status = "bye"
            m.order = sorted(m.entrants, key=self._seed.__getitem__)
        else:
            m.status = "pending"

    def pending_matches(self) -> list[Match]:
        """Matches whose entrants are known and that are not decided yet."""
        return [m for m in self.matches.values() if m.status == "pending"]

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
        needed = self.config["best_of"] // 2 + 1
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
        if m.status != "pending":
            raise TournamentError(f"match {match_id!r} is {m.status}, not pending")
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
            if self._heats:
                placed = _placement_points(m.entrants, m.games)
                m.order = sorted(m.entrants, key=lambda e: (-wins[e], -placed[e], self._seed[e]))
            else:
                m.order = sorted(m.entrants, key=lambda e: (-wins[e], self._seed[e]))
            m.status = "done"
            self._update()
        return m

    # ---------------------------------------------------------------- swiss

    def _tiebreak(self, name: str, rnd: int) -> tuple[str, int]:
        seed = self.config["seed"]
        if seed is None:
            return ("", self._seed[name])
        digest = hashlib.sha256(f"{seed}:{rnd}:{name}".encode()).hexdigest()
        return (digest, self._seed[name])

    def _swiss_next(self) -> bool:
        """Pair the next Swiss round when the current one is over; False if none was."""
        if any(m.status not in _RESOLVED for m in self.matches.values()):
            return False
        rnd = len(self.rounds)
        if rnd >= self.config["swiss_rounds"]:
            return False
        if self._heats:
            self._swiss_heats(rnd)
            return True
        points = self._points()
        order = sorted(self.entrants, key=lambda e: (-points[e], self._tiebreak(e, rnd)))
        met = {frozenset(m.entrants) for m in self.matches.values() if len(m.entrants) == 2}
        had_bye = {m.entrants[0] for m in self.matches.values() if len(m.entrants) == 1}
        matches: list[Match] = []
        if len(order) % 2:
            bye = next((e for e in reversed(order) if e not in had_bye), order[-1])
            order.remove(bye)
            matches.append(Match(f"S{rnd + 1}-bye", rnd, 1, [bye], eliminates=False))
        pairs = _pair(_fold(order, points), met)
        for i, (a, b) in enumerate(pairs):
            matches.insert(i, Match(f"S{rnd + 1}-{i + 1}", rnd, 1, [a, b], eliminates=False))
        self._add_round(f"Round {rnd + 1}", "main", matches)
        return True

    def _swiss_heats(self, rnd: int) -> None:
        heat = self.config["heat_size"]
        points = self._points()
        order = sorted(self.entrants, key=lambda e: (-points[e], self._tiebreak(e, rnd)))
        met = {
            frozenset(pair)
            for m in self.matches.values()
            for pair in itertools.combinations(m.entrants, 2)
        }
        had_bye = {m.entrants[0] for m in self.matches.values() if len(m.entrants) == 1}
        bye_match: list[Match] = []
        if len(order) > heat and len(order) % heat == 1:
            bye = next((e for e in reversed(order) if e not in had_bye), order[-1])
            order.remove(bye)
            bye_match.append(Match(f"S{rnd + 1}-bye", rnd, 1, [bye], eliminates=False))
        sizes = [heat] * (len(order) // heat)
        if len(order) % heat:
            sizes.append(len(order) % heat)
        heats = _group(order, sizes, met)
        matches = [
            Match(
                f"S{rnd + 1}-{i + 1}",
                rnd,
                1,
                [*self._by_seed(members)],
                eliminates=False,
            )
            for i, members in enumerate(heats)
        ]
        self._add_round(f"Round {rnd + 1}", "main", matches + bye_match)

    # ---------------------------------------------------------------- results

    def _points(self) -> dict[str, float]:
        points: dict[str, float] = dict.fromkeys(self.entrants, 0)
        heats = self._heats
        for m in self.matches.values():
            if heats and m.status == "done":
                for e, p in _heat_points(m).items():
                    points[e] += p
            elif heats and m.status == "bye":
                for e in m.entrants:
                    points[e] += self.config["heat_size"] - 1
            elif m.status in ("done", "bye"):
                for e in m.advanced:
                    points[e] += 1
        return points

    def _eliminated(self, m: Match) -> list[str]:
        if m.status not in ("done", "bye"):
            return []
        if m.eliminates:
            return m.lost
        reset = self.matches.get("GF2")
        if m.id == "GF1" and reset is not None and reset.status == "skipped":
            return m.lost
        return []

    @property
    def is_finished(self) -> bool:
        """Whether every match is resolved."""
        if self.format == "swiss" and len(self.rounds) < self.config["swiss_rounds"]:
            return False
        return all(m.status in _RESOLVED for m in self.matches.values())

    @property
    def champion(self) -> str | None:
        """The winner once the tournament is finished, else ``None``."""
        if not self.is_finished:
            return None
        if self.format == "single_elimination":
            return self.matches[self.rounds[-1].matches[0]].order[0]
        if self.format == "double_elimination":
            final = self.matches.get("GF2")
            if final is None or final.status == "skipped":
                final = self.matches["GF1"]
            return final.order[0]
        return self.standings()[0].entrant

    def standings(self) -> list[Standing]:
        """Entrants, best first.

        Elimination: the champion, then by how late each was knocked out, then by its
        place in the match that knocked it out; those still in share the top place. Round robin
        and Swiss: by points, then Buchholz (Swiss: opponents' points), game wins minus
        losses, and seed.
        """
        points = self._points()
        losses = dict.fromkeys(self.entrants, 0)
        gw = dict.fromkeys(self.entrants, 0)
        gl = dict.fromkeys(self.entrants, 0)
        opponents: dict[str, list[str]] = {e: [] for e in self.entrants}
        out_stage: dict[str, tuple[int, int]] = {}
        out_in: dict[str, str] = {}
        for m in self.matches.values():
            if m.status != "done":
                continue
            total = sum(m.wins.values())
            for e in m.entrants:
                gw[e] += m.wins[e]
                gl[e] += total - m.wins[e]
                opponents[e].extend(o for o in m.entrants if o != e)
            for e in m.lost:
                losses[e] += 1
            for e in self._eliminated(m):
                out_stage[e], out_in[e] = (m.stage, m.order.index(e)), m.id
        if self.format in ("round_robin", "swiss"):
            buch: dict[str, float] = {
                e: sum(points[o] for o in opponents[e])
                if self.format == "swiss" or self._heats
                else 0
                for e in self.entrants
            }

            def rr_key(e: str) -> tuple[float, ...]:
                return (-points[e], -buch[e], -(gw[e] - gl[e]))

            ordered = sorted(self.entrants, key=lambda e: (*rr_key(e), self._seed[e]))
            keys: dict[str, tuple[Any, ...]] = {e: rr_key(e) for e in self.entrants}
        else:
            buch = dict.fromkeys(self.entrants, 0.0)
            big = (1 << 30, 0)

            def el_key(e: str) -> tuple[int, int]:
                stage, sub = out_stage.get(e, big)
                return (-stage, sub)

            ordered = sorted(self.entrants, key=lambda e: (*el_key(e), self._seed[e]))
            keys = {e: el_key(e) for e in self.entrants}
        rows = []
        for e in ordered:
            place = 1 + sum(1 for o in self.entrants if keys[o] < keys[e])
            rows.append(
                Standing(
                    place=place,
                    entrant=e,
                    seed=self._seed[e] + 1,
                    points=points[e],
                    losses=losses[e],
                    game_wins=gw[e],
                    game_losses=gl[e],
                    buchholz=buch[e],
                    eliminated_in=out_in.get(e),
                )
            )
        return rows

    # ---------------------------------------------------------------- storage

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: the settings, the reports, and rounds of matches to draw."""
        return {
            **{k: (list(v) if isinstance(v, list) else v) for k, v in self.config.items()},
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
        try:
            t = cls.create(
                data["format"],
                data["entrants"],
                data["heat_size"],
                data["best_of"],
                data["advance"],
                grand_final_reset=data["grand_final_reset"],
                rounds=data["swiss_rounds"],
                seed=data["seed"],
            )
            reports = [(r["match"], r["games"]) for r in data["reports"]]
        except (KeyError, TypeError) as exc:
            raise TournamentError(f"tournament data is missing or mistypes {exc}") from None
        for mid, games in reports:
            t.report(mid, *games)
        return t


def _fold(order: list[str], points: Mapping[str, float]) -> list[str]:
    """Reorder each score group so neighbours are its top half against its bottom half.

    ``[1, 2, 3, 4]`` with equal scores becomes ``[1, 3, 2, 4]`` (the Dutch system: the
    best meet the middle, not each other); an odd one out is left last, to float down.
    """
    out: list[str] = []
    for _, members in itertools.groupby(order, key=points.__getitem__):
        group = list(members)
        half = len(group) // 2
        for top, bottom in zip(group[:half], group[half : 2 * half], strict=True):
            out.extend((top, bottom))
        out.extend(group[2 * half :])
    return out


def _pair(order: list[str], met: set[frozenset[str]]) -> list[tuple[str, str]]:
    """Pair neighbours in ``order`` without rematches when possible (backtracking)."""
    budget = [20000]

    def search(rest: list[str]) -> list[tuple[str, str]] | None:
        if not rest:
            return []
        budget[0] -= 1
        if budget[0] < 0:
            return None
        first = rest[0]
        for i in range(1, len(rest)):
            if frozenset((first, rest[i])) in met:
                continue
            tail = search(rest[1:i] + rest[i + 1 :])
            if tail is not None:
                return [(first, rest[i]), *tail]
        return None

    found = search(order)
    if found is not None:
        return found
    # No rematch-free pairing (or too costly to find): pair neighbours by score.
    return [(order[i], order[i + 1]) for i in range(0, len(order), 2)]


def _heat_points(m: Match) -> dict[str, float]:
    """A decided heat's points: one per opponent ordered below, half per one level."""
    placed = _placement_points(m.entrants, m.games)
    key = {e: (m.wins[e], placed[e]) for e in m.entrants}
    return {
        e: sum(
            1.0 if key[e] > key[o] else 0.5 if key[e] == key[o] else 0.0
            for o in m.entrants
            if o != e
        )
        for e in m.entrants
    }


def _placement_points(entrants: Sequence[str], games: Sequence[Placement]) -> dict[str, float]:
    """Placement points over ``games``: per game, one per snake placed below, half per tie."""
    out: dict[str, float] = dict.fromkeys(entrants, 0.0)
    for game in games:
        below = len(entrants)
        for group in game:
            below -= len(group)
            for e in group:
                out[e] += below + (len(group) - 1) / 2
    return out


def _group(order: list[str], sizes: list[int], met: set[frozenset[str]]) -> list[list[str]]:
    """Cut ``order`` into heats of ``sizes`` avoiding pairs in ``met`` where possible.

    A bounded backtracking search keeps each heat as close to rank order as it can;
    when it finds nothing, the plain cut is improved by swapping entrants between
    adjacent heats while that lowers the number of repeated pairs.
    """
    budget = [20000]

    def clash(heat: Sequence[str], e: str) -> bool:
        return any(frozenset((x, e)) in met for x in heat)

    def fill(heat: list[str], rest: list[str], start: int, index: int) -> list[list[str]] | None:
        if len(heat) == sizes[index]:
            tail = search([e for e in rest if e not in heat], index + 1)
            return None if tail is None else [heat, *tail]
        for i in range(start, len(rest)):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            if clash(heat, rest[i]):
                continue
            found = fill([*heat, rest[i]], rest, i + 1, index)
            if found is not None:
                return found
        return None

    def search(rest: list[str], index: int) -> list[list[str]] | None:
        if not rest:
            return []
        return fill([rest[0]], rest, 1, index)

    found = search(order, 0)
    if found is not None:
        return found
    heats: list[list[str]] = []
    pos = 0
    for size in sizes:
        heats.append(order[pos : pos + size])
        pos += size

    def repeats(heat: Sequence[str]) -> int:
        return sum(1 for a, b in itertools.combinations(heat, 2) if frozenset((a, b)) in met)

    improved = True
    passes = 0
    while improved and passes < 50:
        improved, passes = False, passes + 1
        for h in range(len(heats) - 1):
            a, b = heats[h], heats[h + 1]
            base = repeats(a) + repeats(b)
            best: tuple[int, int, int] | None = None
            for i, j in itertools.product(range(len(a)), range(len(b))):
                na = [*a[:i], b[j], *a[i + 1 :]]
                nb = [*b[:j], a[i], *b[j + 1 :]]
                cost = repeats(na) + repeats(nb)
                if cost < base and (best is None or cost < best[0]):
                    best = (cost, i, j)
            if best is not None:
                _, i, j = best
                a[i], b[j] = b[j], a[i]
                improved = True
    return heats
