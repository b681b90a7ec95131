"""Round robin and Swiss with heats of 3 to 8 snakes."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from snakewar.arena.tournaments import Match, Tournament

SIZES = [*range(2, 21), 32, 64]
HEATS = [3, 4, 8]


def names(n: int) -> list[str]:
    return [f"s{i}" for i in range(1, n + 1)]


def seed_order(match: Match) -> list[str]:
    return sorted(match.entrants, key=lambda e: int(e[1:]))


def shuffled(match: Match) -> list[str]:
    order = seed_order(match)
    random.Random(match.id).shuffle(order)
    return order


def play(t: Tournament, seeded: bool, steps: int | None = None) -> None:
    done = 0
    while t.pending_matches():
        for match in t.pending_matches():
            if steps is not None and done >= steps:
                return
            t.report(match.id, seed_order(match) if seeded else shuffled(match))
            done += 1
    assert t.is_finished


def check_rounds(t: Tournament, heat: int) -> None:
    for rnd in t.rounds:
        seen = [e for mid in rnd.matches for e in t.matches[mid].entrants]
        assert len(seen) == len(set(seen)), rnd.name
        for mid in rnd.matches:
            assert 1 <= len(t.matches[mid].entrants) <= heat
    standings = [s.entrant for s in t.standings()]
    assert sorted(standings) == sorted(t.entrants)


def met_pairs(t: Tournament) -> set[frozenset[str]]:
    return {frozenset(p) for m in t.matches.values() for p in itertools.combinations(m.entrants, 2)}


@pytest.mark.parametrize("heat", HEATS)
@pytest.mark.parametrize("n", SIZES)
def test_round_robin_heats_cover_every_pair(n: int, heat: int) -> None:
    t = Tournament.create("round_robin", names(n), heat_size=heat)
    play(t, seeded=n % 2 == 0)
    check_rounds(t, heat)
    assert met_pairs(t) == {frozenset(p) for p in itertools.combinations(t.entrants, 2)}
    total = sum(s.points for s in t.standings())
    heats = [m for m in t.matches.values() if m.status == "done"]
    assert total == sum(len(m.entrants) * (len(m.entrants) - 1) / 2 for m in heats)


@pytest.mark.parametrize("heat", HEATS)
@pytest.mark.parametrize("n", SIZES)
def test_swiss_heats_finish(n: int, heat: int) -> None:
    t = Tournament.create("swiss", names(n), heat_size=heat)
    play(t, seeded=n % 2 == 1)
    check_rounds(t, heat)
    assert len(t.rounds) == t.config.swiss_rounds
    for rnd in t.rounds:
        sizes = sorted(len(t.matches[mid].entrants) for mid in rnd.matches)
        if n > heat:
            assert sizes.count(1) == (1 if n % heat == 1 else 0)
        if n >= heat:
            assert all(s == heat for s in sizes[-(n // heat) :]), sizes
        else:
            assert sizes == [n]
    standings = t.standings()
    assert all(
        (a.points, a.buchholz) >= (b.points, b.buchholz) for a, b in itertools.pairwise(standings)
    )
    assert t.champion == standings[0].entrant


@pytest.mark.parametrize(
    ("n", "heat", "rounds"), [(9, 3, 4), (8, 4, 1), (12, 3, 3), (16, 4, 3), (15, 3, 3)]
)
def test_swiss_heats_avoid_repeats_when_possible(n: int, heat: int, rounds: int) -> None:
    for seeded in (True, False):
        t = Tournament.create("swiss", names(n), heat_size=heat, rounds=rounds)
        play(t, seeded=seeded)
        pairs = [
            frozenset(p) for m in t.matches.values() for p in itertools.combinations(m.entrants, 2)
        ]
        assert len(pairs) == len(set(pairs))


def test_heat_points_share_ties() -> None:
    t = Tournament.create("round_robin", names(4), heat_size=4)
    (match,) = t.pending_matches()
    t.report(match.id, ["s3", ("s1", "s4"), "s2"])
    points = {s.entrant: s.points for s in t.standings()}
    assert points == {"s3": 3, "s1": 1.5, "s4": 1.5, "s2": 0}
    assert [s.entrant for s in t.standings()] == ["s3", "s1", "s4", "s2"]
    assert t.is_finished and t.champion == "s3"


def test_best_of_heat_is_decided_by_game_wins() -> None:
    t = Tournament.create("swiss", names(4), heat_size=4, best_of=3, rounds=1)
    (match,) = t.pending_matches()
    t.report(match.id, ["s4", "s1", "s2", "s3"], ["s1", "s4", "s2", "s3"])
    assert match.status == "pending"
    t.report(match.id, ["s4", "s3", "s2", "s1"])
    assert match.order[0] == "s4"
    # s4 two wins, s1 one; s2 and s3 none, s2 ahead on placement points (1 + 1 + 1 vs 0 + 0 + 2).
    assert match.order == ["s4", "s1", "s2", "s3"]
    assert {s.entrant: s.points for s in t.standings()}["s4"] == 3


@pytest.mark.parametrize("fmt", ["swiss", "round_robin"])
@pytest.mark.parametrize(("n", "heat"), [(7, 3), (13, 4), (20, 8), (32, 3)])
def test_heats_round_trip_mid_tournament(fmt: str, n: int, heat: int) -> None:
    t = Tournament.create(fmt, names(n), heat_size=heat, best_of=3, seed=5)
    play(t, seeded=False, steps=7)
    copy = Tournament.from_dict(json.loads(json.dumps(t.to_dict())))
    assert copy.to_dict() == t.to_dict()
    play(t, seeded=False)
    play(copy, seeded=False)
    assert copy.to_dict() == t.to_dict()
    assert t.is_finished
