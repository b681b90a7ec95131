"""Leagues: round robin and Swiss, 1v1 or in heats of 3 to 8, ranked by points."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Mapping, Sequence

from snakewar.arena.ratings import Placement
from snakewar.arena.tournaments.base import Match, MatchStatus, Ranking, Tally, Tournament
from snakewar.arena.tournaments.config import TournamentFormat

__all__ = ["RoundRobin", "Swiss"]


class _League(Tournament):
    """Every match is played by its entrants (no one is knocked out); points rank them."""

    @property
    def _heats(self) -> bool:
        """Heats of more than two entrants (points per opponent placed below)."""
        return self.config.heat_size > 2

    @property
    def _buchholz(self) -> bool:
        """Whether opponents' points break ties (Swiss, and round robin with heats)."""
        return self._heats

    def _order(self, m: Match, wins: Mapping[str, int]) -> list[str]:
        if not self._heats:
            return super()._order(m, wins)
        placed = _placement_points(m.entrants, m.games)
        return sorted(m.entrants, key=lambda e: (-wins[e], -placed[e], self._seed[e]))

    def _points(self) -> dict[str, float]:
        if not self._heats:
            return super()._points()
        points: dict[str, float] = dict.fromkeys(self.entrants, 0)
        for m in self.matches.values():
            if m.status is MatchStatus.DONE:
                for e, p in _heat_points(m).items():
                    points[e] += p
            elif m.status is MatchStatus.BYE:
                for e in m.entrants:
                    points[e] += self.config.heat_size - 1
        return points

    def _ranking(self, tally: Tally) -> Ranking:
        points, gw, gl = tally.points, tally.game_wins, tally.game_losses
        buch: dict[str, float] = {
            e: sum(points[o] for o in tally.opponents[e]) if self._buchholz else 0
            for e in self.entrants
        }

        def key(e: str) -> tuple[float, ...]:
            return (-points[e], -buch[e], -(gw[e] - gl[e]))

        return buch, key

    @property
    def champion(self) -> str | None:
        """The top of the standings once the tournament is finished, else ``None``."""
        if not self.is_finished:
            return None
        return self.standings()[0].entrant


class RoundRobin(_League):
    """Round robin: every two entrants meet (share a heat) at least once."""

    FORMAT = TournamentFormat.ROUND_ROBIN

    def _build(self) -> None:
        if self._heats:
            self._build_heats()
        else:
            self._build_pairs()

    def _build_pairs(self) -> None:
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

    def _build_heats(self) -> None:
        heat = self.config.heat_size
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


class Swiss(_League):
    """Swiss: a fixed number of rounds, each paired from the scores so far."""

    FORMAT = TournamentFormat.SWISS

    @property
    def _buchholz(self) -> bool:
        return True

    @property
    def rounds_to_play(self) -> int:
        """The tournament's rounds."""
        rounds = self.config.swiss_rounds
        assert rounds is not None  # a Swiss config always has them
        return rounds

    @property
    def is_finished(self) -> bool:
        """Whether every round was paired and every match is resolved."""
        return len(self.rounds) >= self.rounds_to_play and self._all_resolved()

    def _tiebreak(self, name: str, rnd: int) -> tuple[str, int]:
        seed = self.config.seed
        if seed is None:
            return ("", self._seed[name])
        digest = hashlib.sha256(f"{seed}:{rnd}:{name}".encode()).hexdigest()
        return (digest, self._seed[name])

    def _next_round(self) -> bool:
        """Pair the next Swiss round when the current one is over; False if none was."""
        if not self._all_resolved():
            return False
        rnd = len(self.rounds)
        if rnd >= self.rounds_to_play:
            return False
        if self._heats:
            self._pair_heats(rnd)
        else:
            self._pair_duels(rnd)
        return True

    def _pair_duels(self, rnd: int) -> None:
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

    def _pair_heats(self, rnd: int) -> None:
        heat = self.config.heat_size
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
