"""Elimination brackets: single and double elimination, 1v1 or in heats."""

from __future__ import annotations

from collections.abc import Sequence

from snakewar.arena.tournaments.base import Feed, Match, MatchStatus, Ranking, Tally, Tournament
from snakewar.arena.tournaments.config import TournamentFormat

__all__ = ["DoubleElimination", "SingleElimination"]


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


class _Elimination(Tournament):
    """A bracket planned up front, ranked by how late each entrant was knocked out."""

    DOUBLE = False

    def _build(self) -> None:
        double = self.DOUBLE
        heat, adv = self.config.heat_size, self.config.advance
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
                feeds: list[str | Feed]
                if r == 0:
                    feeds = [self.entrants[s - 1] for s in seeds if s <= n]
                else:
                    feeds = [
                        Feed(f"{prefix}{r}-{j * groups + g + 1}", "win", p)
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
        self._build_after(size, [len(level) for level in levels])

    def _build_after(self, size: int, wmatches: list[int]) -> None:
        """Plan what follows the main bracket (``wmatches``: its matches per round)."""

    def _ranking(self, tally: Tally) -> Ranking:
        big = (1 << 30, 0)

        def key(e: str) -> tuple[int, int]:
            stage, sub = tally.out_stage.get(e, big)
            return (-stage, sub)

        return dict.fromkeys(self.entrants, 0.0), key


class SingleElimination(_Elimination):
    """Single elimination: the losers of each heat are out; the final's winner wins."""

    FORMAT = TournamentFormat.SINGLE_ELIMINATION

    @property
    def champion(self) -> str | None:
        """The final's winner once the tournament is finished, else ``None``."""
        if not self.is_finished:
            return None
        return self.matches[self.rounds[-1].matches[0]].order[0]


class DoubleElimination(_Elimination):
    """Double elimination: a winners' bracket, a losers' bracket and a grand final."""

    FORMAT = TournamentFormat.DOUBLE_ELIMINATION
    DOUBLE = True

    @property
    def champion(self) -> str | None:
        """The grand final's winner once the tournament is finished, else ``None``."""
        if not self.is_finished:
            return None
        final = self.matches.get("GF2")
        if final is None or final.status is MatchStatus.SKIPPED:
            final = self.matches["GF1"]
        return final.order[0]

    def _build_after(self, size: int, wmatches: list[int]) -> None:
        if self.config.heat_size == 2:
            self._build_losers(size, len(wmatches))
        else:
            self._build_losers_heats(wmatches)

    def _grand_final(self, feeds: list[str | Feed], reset: bool, stage: int) -> None:
        gf = Match(
            id="GF1",
            round=len(self.rounds),
            advance=1,
            feeds=feeds,
            eliminates=not reset,
            stage=stage,
        )
        self._add_round("Grand final", "final", [gf])
        if reset:
            again = Match(
                id="GF2",
                round=len(self.rounds),
                advance=1,
                feeds=[Feed("GF1", "win", 0), Feed("GF1", "lose", 0)],
                stage=stage,
                reset_of="GF1",
            )
            self._add_round("Grand final reset", "final", [again])

    def _build_losers_heats(self, wmatches: list[int]) -> None:
        """Losers' bracket for heats: drops and survivors share heats of ``heat_size``.

        After each winners' round its dropped entrants (all but the top ``advance`` of
        each heat) join the losers'-bracket survivors; that pool is cut into heats in
        order, whose top ``advance`` survive and whose others are out. Once the winners'
        bracket is over, the survivors keep playing heats until ``advance`` are left. Slots
        that stay empty (byes upstream) make smaller heats or byes.
        """
        heat, adv = self.config.heat_size, self.config.advance
        survivors: list[str | Feed] = []
        stage = 0

        def add(pool: list[str | Feed]) -> list[str | Feed]:
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
            return [Feed(m.id, "win", p) for m in matches for p in range(adv)]

        for r, count in enumerate(wmatches):
            drops: list[str | Feed] = [
                Feed(f"W{r + 1}-{j + 1}", "lose", p)
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
        self._grand_final(
            [*(Feed(wfinal, "win", p) for p in range(adv)), *survivors],
            self.config.grand_final_reset and adv == 1,
            stage + 1,
        )

    def _build_losers(self, size: int, wrounds: int) -> None:
        lb_champ: Feed = Feed(f"W{wrounds}-1", "lose", 0)
        total = 2 * wrounds - 2
        stage = 0

        def add(name: str, feeds_list: list[list[str | Feed]]) -> str:
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
            first: list[list[str | Feed]] = [
                [Feed(f"W1-{2 * i + 1}", "lose", 0), Feed(f"W1-{2 * i + 2}", "lose", 0)]
                for i in range(size // 4)
            ]
            prev = add("Losers round 1", first)
            for j in range(1, wrounds):
                count = size // 2 ** (j + 1)
                drop: list[list[str | Feed]] = []
                for i in range(count):
                    k = count - 1 - i if j % 2 else i
                    drop.append(
                        [Feed(f"{prev}-{i + 1}", "win", 0), Feed(f"W{j + 1}-{k + 1}", "lose", 0)]
                    )
                name = "Losers final" if stage + 1 == total else f"Losers round {stage + 1}"
                prev = add(name, drop)
                if j < wrounds - 1:
                    pairs: list[list[str | Feed]] = [
                        [
                            Feed(f"{prev}-{2 * i + 1}", "win", 0),
                            Feed(f"{prev}-{2 * i + 2}", "win", 0),
                        ]
                        for i in range(count // 2)
                    ]
                    prev = add(f"Losers round {stage + 1}", pairs)
            lb_champ = Feed(f"{prev}-1", "win", 0)
        self._grand_final(
            [Feed(f"W{wrounds}-1", "win", 0), lb_champ],
            self.config.grand_final_reset,
            total + 1,
        )
