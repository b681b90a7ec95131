"""Tournaments as pure state machines: elimination brackets, round robin and Swiss.

A :class:`Tournament` (one subclass per format, over a frozen
:class:`TournamentConfig`) knows its entrants (ordered by seed, best first), its matches and
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

The formats are :class:`SingleElimination`, :class:`DoubleElimination`,
:class:`RoundRobin` and :class:`Swiss`; :meth:`Tournament.create` picks the one its
format names.
"""

from snakewar.arena.tournaments.base import Match, MatchStatus, Standing, Tournament, seed_by_rating
from snakewar.arena.tournaments.config import (
    FORMAT_TITLES,
    FORMATS,
    MAX_ENTRANTS,
    MAX_HEAT,
    TournamentConfig,
    TournamentError,
    TournamentFormat,
)
from snakewar.arena.tournaments.elimination import DoubleElimination, SingleElimination
from snakewar.arena.tournaments.league import RoundRobin, Swiss

__all__ = [
    "FORMATS",
    "FORMAT_TITLES",
    "MAX_ENTRANTS",
    "MAX_HEAT",
    "DoubleElimination",
    "Match",
    "MatchStatus",
    "RoundRobin",
    "SingleElimination",
    "Standing",
    "Swiss",
    "Tournament",
    "TournamentConfig",
    "TournamentError",
    "TournamentFormat",
    "seed_by_rating",
]
