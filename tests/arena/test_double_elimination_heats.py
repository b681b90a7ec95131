"""Double elimination with heats of 3 to 8 snakes."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable

import pytest

from snakewar.arena.tournaments import Match, Tournament

SIZES = [*range(2, 21), 32, 64]


def names(n: int) -> list[str]:
    return [f"s{i}" for i in range(1, n + 1)]


def seed_order(match: Match) -> list[str]:
    return sorted(match.entrants, key=lambda e: int(e[1:]))


def shuffled(seed: int) -> Callable[[Match], list[str]]:
    rng = random.Random(seed)

    def result(match: Match) -> list[str]:
        order = list(match.entrants)
        rng.shuffle(order)
        return order

    return result


def play(t: Tournament, result: Callable[[Match], list[str]]) -> None:
    for _ in range(1000):
        pending = t.pending_matches()
        if not pending:
            break
        for match in pending:
            t.report(match.id, result(match))
    assert t.is_finished


def check(t: Tournament, n: int) -> None:
    champion = t.champion
    assert champion is not None
    losses = Counter(e for m in t.matches.values() if m.status == "done" for e in m.lost)
    assert losses[champion] <= 1
    gf_entrants = {e for m in t.matches.values() if m.id.startswith("GF") for e in m.entrants}
    for entrant in names(n):
        if entrant == champion:
            continue
        if entrant in gf_entrants:
            assert 1 <= losses[entrant] <= 2, entrant
        else:
            assert losses[entrant] == 2, entrant
        lost_in = [m.id for m in t.matches.values() if m.status == "done" and entrant in m.lost]
        if lost_in[0].startswith("GF"):
            # Out in the grand final only (twice when it was reset).
            assert all(mid.startswith("GF") for mid in lost_in)
        else:
            assert lost_in[0].startswith("W")  # dropped from the winners' bracket first
    for rnd in t.rounds:
        seen = [e for mid in rnd.matches for e in t.matches[mid].entrants]
        assert len(seen) == len(set(seen)), rnd.name
    for m in t.matches.values():
        assert len(m.entrants) <= t.config.heat_size
    standings = t.standings()
    assert sorted(s.entrant for s in standings) == sorted(names(n))
    assert standings[0].entrant == champion and standings[0].place == 1


@pytest.mark.parametrize("heat", [3, 4, 8])
@pytest.mark.parametrize("n", SIZES)
def test_every_size_finishes_in_seed_order(n: int, heat: int) -> None:
    t = Tournament.create("double_elimination", names(n), heat_size=heat)
    play(t, seed_order)
    check(t, n)
    assert t.champion == "s1"


@pytest.mark.parametrize("heat", [3, 4, 8])
@pytest.mark.parametrize("n", SIZES)
def test_every_size_finishes_with_upsets(n: int, heat: int) -> None:
    t = Tournament.create("double_elimination", names(n), heat_size=heat)
    play(t, shuffled(n * 10 + heat))
    check(t, n)


def test_heats_of_four_drop_two_and_meet_in_a_final_of_four() -> None:
    t = Tournament.create("double_elimination", names(16), heat_size=4)
    first = [t.matches[mid] for mid in t.rounds[0].matches]
    assert [len(m.entrants) for m in first] == [4, 4, 4, 4]
    play(t, seed_order)
    l1 = t.matches["L1-1"]
    assert len(l1.entrants) == 4 and all(
        e in {x for m in first for x in m.lost} for e in l1.entrants
    )
    gf = t.matches["GF1"]
    assert gf.entrants[:2] == ["s1", "s2"] and len(gf.entrants) == 4
    assert "GF2" not in t.matches
    assert t.champion == "s1"


def test_advance_one_has_a_one_v_one_grand_final_with_reset() -> None:
    t = Tournament.create("double_elimination", names(9), heat_size=3)
    assert t.config.advance == 1
    for _ in range(20):
        pending = [m for m in t.pending_matches() if not m.id.startswith("GF")]
        if not pending:
            break
        for match in pending:
            t.report(match.id, seed_order(match))
    gf = t.matches["GF1"]
    assert gf.status == "pending" and len(gf.entrants) == 2
    winner, loser = gf.entrants
    t.report("GF1", [loser, winner])
    assert t.matches["GF2"].status == "pending"
    t.report("GF2", [loser, winner])
    assert t.champion == loser


@pytest.mark.parametrize("heat", [3, 4, 8])
@pytest.mark.parametrize("n", [5, 13, 32])
def test_round_trip_mid_tournament(n: int, heat: int) -> None:
    t = Tournament.create("double_elimination", names(n), heat_size=heat, best_of=3)
    rng = random.Random(n + heat)
    for _ in range(3):
        for match in t.pending_matches():
            order = list(match.entrants)
            rng.shuffle(order)
            t.report(match.id, order, order)
    assert not t.is_finished or n <= heat
    data = json.loads(json.dumps(t.to_dict()))
    again = Tournament.from_dict(data)
    assert again.to_dict() == t.to_dict()
    play(again, shuffled(7))
    play(t, shuffled(7))
    assert again.to_dict() == t.to_dict()
    check(t, n)
