from __future__ import annotations

import hashlib
import itertools
import json
from collections import Counter
from collections.abc import Callable

import pytest

from snakewar.arena.ratings import Rating
from snakewar.arena.tournaments import Match, Tournament, TournamentError, seed_by_rating
from snakewar.errors import SnakewarError


def names(n: int) -> list[str]:
    return [f"s{i}" for i in range(1, n + 1)]


def seed_of(name: str) -> int:
    return int(name[1:])


def favourite_first(match: Match) -> list[str]:
    return sorted(match.entrants, key=seed_of)


def with_upsets(match: Match) -> list[str]:
    """Favourites win, except where a hash of the match id says the order is reversed."""
    order = favourite_first(match)
    if int(hashlib.sha256(match.id.encode()).hexdigest(), 16) % 3 == 0:
        order.reverse()
    return order


def play(
    t: Tournament, result: Callable[[Match], list[str]] = favourite_first, limit: int = 10_000
) -> None:
    for _ in range(limit):
        pending = t.pending_matches()
        if not pending:
            break
        for match in pending:
            t.report(match.id, result(match))
    assert t.is_finished


def round_matches(t: Tournament, index: int) -> list[Match]:
    return [t.matches[mid] for mid in t.rounds[index].matches]


# ------------------------------------------------------------------ single elimination


def test_eight_seeds_are_standard_bracket() -> None:
    t = Tournament.create("single_elimination", names(8))
    assert [m.entrants for m in t.pending_matches()] == [
        ["s1", "s8"],
        ["s4", "s5"],
        ["s2", "s7"],
        ["s3", "s6"],
    ]


@pytest.mark.parametrize("n", range(2, 65))
def test_single_elimination_every_size(n: int) -> None:
    t = Tournament.create("single_elimination", names(n))
    size = 1
    while size < n:
        size *= 2
    first = round_matches(t, 0)
    assert len(first) == size // 2
    byes = sorted((m.entrants[0] for m in first if m.status == "bye"), key=seed_of)
    assert byes == names(size - n)  # the top seeds get the byes
    play(t, with_upsets)
    for index in range(len(t.rounds)):
        seen = [e for m in round_matches(t, index) for e in m.entrants]
        assert len(seen) == len(set(seen))
    assert len([e for m in first for e in m.entrants]) == n
    for match in t.matches.values():
        if {"s1", "s2"} <= set(match.entrants):
            assert match.id == t.rounds[-1].matches[0]
    standings = t.standings()
    assert standings[0].entrant == t.champion
    assert standings[0].place == 1 and standings[1].place == 2
    assert sorted(s.entrant for s in standings) == sorted(names(n))
    favourites = Tournament.create("single_elimination", names(n))
    play(favourites)
    final = round_matches(favourites, len(favourites.rounds) - 1)[0]
    assert final.entrants == ["s1", "s2"]
    assert favourites.champion == "s1"


def test_semifinal_losers_share_third_place() -> None:
    t = Tournament.create("single_elimination", names(4))
    play(t)
    assert [(s.place, s.entrant) for s in t.standings()] == [
        (1, "s1"),
        (2, "s2"),
        (3, "s3"),
        (3, "s4"),
    ]
    assert t.standings()[2].eliminated_in == "R1-2"


def test_four_snake_heats_two_advance() -> None:
    t = Tournament.create("single_elimination", names(16), heat_size=4)
    assert [len(m.entrants) for m in t.pending_matches()] == [4, 4, 4, 4]
    assert sorted(e for m in t.pending_matches() for e in m.entrants) == sorted(names(16))
    # Seeds 1 to 4 start in different heats.
    assert [sorted(set(m.entrants) & {"s1", "s2", "s3", "s4"}) for m in t.pending_matches()] == [
        ["s1"],
        ["s4"],
        ["s2"],
        ["s3"],
    ]
    play(t)
    assert len(t.rounds) == 3
    semis = round_matches(t, 1)
    assert sorted(e for m in semis for e in m.entrants) == names(8)
    final = round_matches(t, 2)[0]
    assert sorted(final.entrants, key=seed_of) == names(4)
    assert final.advance == 1
    assert t.champion == "s1"
    assert [(s.place, s.entrant) for s in t.standings()[:4]] == [
        (1, "s1"),
        (2, "s2"),
        (3, "s3"),
        (4, "s4"),
    ]


def test_heat_tie_across_the_advance_line_is_not_decisive() -> None:
    t = Tournament.create("single_elimination", names(8), heat_size=4)
    match = t.pending_matches()[0]
    a, b, c, d = favourite_first(match)
    t.report(match.id, [a, (b, c), d])
    assert match.status == "pending" and match.wins == {a: 1, b: 0, c: 0, d: 0}
    t.report(match.id, [c, a, b, d])
    assert match.status == "done"
    assert set(match.advanced) == {a, c} and set(match.lost) == {b, d}


@pytest.mark.parametrize("n", [2, 3, 5, 7, 13, 31, 33, 64])
def test_four_snake_heats_any_size(n: int) -> None:
    t = Tournament.create("single_elimination", names(n), heat_size=4, advance=2)
    assert all(len(m.entrants) <= 4 for m in t.matches.values())
    play(t, with_upsets)
    assert t.champion is not None
    assert sum(len(m.entrants) for m in round_matches(t, 0)) == n


def test_eight_snake_heats() -> None:
    t = Tournament.create("single_elimination", names(20), heat_size=8, advance=4)
    play(t)
    assert t.champion == "s1"
    assert max(len(m.entrants) for m in t.matches.values()) <= 8


def test_best_of_three_ends_at_two_wins() -> None:
    t = Tournament.create("single_elimination", names(2), best_of=3)
    final = t.pending_matches()[0]
    t.report(final.id, ["s2", "s1"])
    t.report(final.id, [("s1", "s2")])  # a draw counts for no one
    assert final.status == "pending"
    t.report(final.id, ["s1", "s2"])
    assert final.status == "pending" and final.wins == {"s1": 1, "s2": 1}
    t.report(final.id, ["s2", "s1"])
    assert final.status == "done" and t.champion == "s2"
    assert len(final.games) == 4


def test_best_of_five_stops_accepting_games_once_decided() -> None:
    t = Tournament.create("single_elimination", names(2), best_of=5)
    final = t.pending_matches()[0]
    with pytest.raises(TournamentError, match="decided before game 4"):
        t.report(final.id, ["s1", "s2"], ["s1", "s2"], ["s1", "s2"], ["s2", "s1"])
    assert final.games == []  # nothing recorded from a rejected report
    t.report(final.id, ["s1", "s2"], ["s1", "s2"], ["s1", "s2"])
    assert final.status == "done" and final.wins == {"s1": 3, "s2": 0}
    with pytest.raises(TournamentError, match="is done, not pending"):
        t.report(final.id, ["s1", "s2"])


# ------------------------------------------------------------------ double elimination


def test_double_elimination_drops_losers_to_the_right_place() -> None:
    t = Tournament.create("double_elimination", names(8))
    play(t)
    l1 = round_matches(t, [r.name for r in t.rounds].index("Losers round 1"))
    assert [m.entrants for m in l1] == [["s8", "s5"], ["s7", "s6"]]
    w2 = round_matches(t, 1)
    l2 = round_matches(t, [r.name for r in t.rounds].index("Losers round 2"))
    # The first drop-in round is reversed, so W2-1's loser meets the other half's survivor.
    assert w2[0].lost[0] in l2[1].entrants and w2[1].lost[0] in l2[0].entrants
    assert t.matches["GF1"].entrants == ["s1", "s2"]
    assert t.matches["GF2"].status == "skipped"
    assert t.champion == "s1"
    standings = t.standings()
    assert [s.entrant for s in standings[:3]] == ["s1", "s2", "s3"]


@pytest.mark.parametrize("n", range(2, 65))
def test_double_elimination_every_size_losing_twice_is_out(n: int) -> None:
    t = Tournament.create("double_elimination", names(n))
    play(t, with_upsets)
    losses = Counter(e for m in t.matches.values() if m.status == "done" for e in m.lost)
    champion = t.champion
    assert champion is not None and losses[champion] <= 1
    for entrant in names(n):
        if entrant != champion:
            assert losses[entrant] == 2, entrant
    for match in t.matches.values():
        if match.id.startswith("L"):
            for entrant in match.entrants:
                played = [m for m in t.matches.values() if m.status == "done" and entrant in m.lost]
                assert played and played[0].id.startswith("W")  # came down from the winners
    assert t.standings()[0].entrant == champion


def test_grand_final_reset() -> None:
    t = Tournament.create("double_elimination", names(4))
    for _ in range(10):
        pending = [m for m in t.pending_matches() if not m.id.startswith("GF")]
        if not pending:
            break
        for match in pending:
            t.report(match.id, favourite_first(match))
    gf1 = t.matches["GF1"]
    assert gf1.entrants == ["s1", "s2"]
    t.report("GF1", ["s2", "s1"])  # the losers' bracket champion wins: reset
    assert not t.is_finished and t.champion is None
    assert [m.id for m in t.pending_matches()] == ["GF2"]
    assert t.matches["GF2"].entrants == ["s2", "s1"]
    t.report("GF2", ["s2", "s1"])
    assert t.is_finished and t.champion == "s2"
    assert [s.entrant for s in t.standings()[:2]] == ["s2", "s1"]


def test_grand_final_without_reset() -> None:
    t = Tournament.create("double_elimination", names(4), grand_final_reset=False)
    for _ in range(10):
        for match in t.pending_matches():
            t.report(match.id, ["s2", "s1"] if match.id == "GF1" else favourite_first(match))
    assert "GF2" not in t.matches
    assert t.is_finished and t.champion == "s2"


# ------------------------------------------------------------------ round robin and swiss


@pytest.mark.parametrize("n", [*range(2, 18), 31, 32])
def test_round_robin_every_pair_once(n: int) -> None:
    t = Tournament.create("round_robin", names(n))
    pairs = Counter(frozenset(m.entrants) for m in t.matches.values())
    assert set(pairs) == {frozenset(p) for p in itertools.combinations(names(n), 2)}
    assert set(pairs.values()) == {1}
    for index in range(len(t.rounds)):
        seen = [e for m in round_matches(t, index) for e in m.entrants]
        assert len(seen) == len(set(seen))
    play(t)
    standings = t.standings()
    assert [s.entrant for s in standings] == names(n)
    assert [s.points for s in standings] == list(range(n - 1, -1, -1))
    assert t.champion == "s1"


def test_round_robin_standings_by_points_then_game_difference() -> None:
    t = Tournament.create("round_robin", names(3), best_of=3)
    results = {("s1", "s2"): "s2", ("s1", "s3"): "s1", ("s2", "s3"): "s3"}
    for match in t.pending_matches():
        a, b = match.entrants
        winner = results[(a, b)]
        loser = b if winner == a else a
        if winner == "s3":
            t.report(match.id, [winner, loser], [winner, loser])
        else:
            t.report(match.id, [winner, loser], [loser, winner], [winner, loser])
    # Everyone has one point; game differences: s3 3-2, s1 3-3, s2 2-3.
    standings = t.standings()
    assert [s.points for s in standings] == [1, 1, 1]
    assert [(s.entrant, s.game_wins, s.game_losses) for s in standings] == [
        ("s3", 3, 2),
        ("s1", 3, 3),
        ("s2", 2, 3),
    ]
    assert [s.place for s in standings] == [1, 2, 3]
    assert t.champion == "s3"


@pytest.mark.parametrize("n", [2, 3, 7, 8, 16, 33, 64])
def test_swiss_no_rematches_and_pairs_by_score(n: int) -> None:
    t = Tournament.create("swiss", names(n))
    while not t.is_finished:
        pending = t.pending_matches()
        points = {s.entrant: s.points for s in t.standings()}
        # Pairing by score: at most one pair per score boundary mixes scores.
        mixed = sum(1 for m in pending if points[m.entrants[0]] != points[m.entrants[1]])
        assert mixed <= len(set(points.values()))
        for match in pending:
            t.report(match.id, with_upsets(match))
    pairs = Counter(frozenset(m.entrants) for m in t.matches.values() if len(m.entrants) == 2)
    assert set(pairs.values()) <= {1}
    byes = Counter(m.entrants[0] for m in t.matches.values() if m.status == "bye")
    assert sum(byes.values()) == (len(t.rounds) if n % 2 else 0)
    assert set(byes.values()) <= {1}
    expected_rounds = max(1, (n - 1).bit_length())
    assert len(t.rounds) == expected_rounds
    standings = t.standings()
    assert standings[0].entrant == t.champion
    assert all(
        (a.points, a.buchholz) >= (b.points, b.buchholz) for a, b in itertools.pairwise(standings)
    )


def test_swiss_seed_changes_tie_breaks_deterministically() -> None:
    def first_round(seed: int | None) -> list[list[str]]:
        t = Tournament.create("swiss", names(16), rounds=4, seed=seed)
        return [m.entrants for m in t.pending_matches()]

    assert first_round(None) == [[f"s{i}", f"s{i + 8}"] for i in range(1, 9)]
    assert first_round(7) == first_round(7)
    assert first_round(7) != first_round(8)


def test_swiss_avoids_a_rematch_when_it_can() -> None:
    t = Tournament.create("swiss", names(4), rounds=3)
    for _ in range(3):
        for match in t.pending_matches():
            t.report(match.id, favourite_first(match))
    met = [frozenset(m.entrants) for m in t.matches.values()]
    assert len(met) == len(set(met)) == 6  # all three rounds of 4 without a rematch


# ------------------------------------------------------------------ seeding, storage, errors


def test_seed_by_rating() -> None:
    ratings = {"a": Rating(20.0, 1.0), "b": Rating(30.0, 1.0), "c": Rating(40.0, 8.0)}
    # By display (mu - 3 sigma): b 27, a 17, c 16 (highest mu, but uncertain), d unrated.
    assert seed_by_rating(["a", "b", "c", "d"], ratings) == ["b", "a", "c", "d"]


@pytest.mark.parametrize(
    "fmt", ["single_elimination", "double_elimination", "round_robin", "swiss"]
)
def test_round_trip_through_json(fmt: str) -> None:
    t = Tournament.create(fmt, names(6), best_of=3)
    for match in t.pending_matches()[:2]:
        t.report(match.id, favourite_first(match))
        t.report(match.id, [tuple(match.entrants)])  # a drawn game
    data = json.loads(json.dumps(t.to_dict()))
    again = Tournament.from_dict(data)
    assert again.to_dict() == t.to_dict()
    assert data["rounds"][0]["matches"][0]["entrants"]
    play(again)
    play(t)
    assert again.to_dict() == t.to_dict()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"format": "ladder"}, "unknown tournament format 'ladder'"),
        ({"entrants": names(65)}, "2 to 64 entrants, not 65"),
        ({"entrants": ["a", "b", "a"]}, "entrant 'a' appears more than once"),
        ({"entrants": ["a", ""]}, "entrant '' is not a non-empty string"),
        ({"heat_size": 9}, "heat size must be 2 to 8, not 9"),
        ({"heat_size": 1}, "heat size must be 2 to 8, not 1"),
        ({"best_of": 2}, "best of must be a positive odd number, not 2"),
        ({"best_of": 0}, "best of must be a positive odd number, not 0"),
        ({"heat_size": 4, "advance": 3}, "advance must divide heat size 4"),
        ({"heat_size": 4, "advance": 4}, "advance must divide heat size 4"),
        ({"format": "double_elimination", "heat_size": 9}, "heat size must be 2 to 8, not 9"),
        ({"format": "swiss", "rounds": 8}, "swiss rounds must be 1 to 7 for 8 entrants, not 8"),
    ],
)
def test_invalid_setups_raise(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"format": "single_elimination", "entrants": names(8), **kwargs}
    with pytest.raises(TournamentError, match=message):
        Tournament.create(**args)  # type: ignore[arg-type]
    assert issubclass(TournamentError, SnakewarError)


@pytest.mark.parametrize(
    "format", ["single_elimination", "double_elimination", "round_robin", "swiss"]
)
@pytest.mark.parametrize("count", [0, 1])
def test_fewer_than_two_entrants_wait_for_more_with_no_bracket(format: str, count: int) -> None:
    # A tournament still taking entrants (registration open): nothing to play, never
    # finished, no champion; its entrants stand in seed order.
    t = Tournament.create(format, names(count))
    assert not t.playable
    assert t.matches == {} and t.rounds == [] and t.pending_matches() == []
    assert not t.is_finished and t.champion is None
    assert [s.entrant for s in t.standings()] == names(count)
    assert Tournament.create(format, names(2)).playable


def test_invalid_reports_raise() -> None:
    t = Tournament.create("single_elimination", names(4))
    with pytest.raises(TournamentError, match="no match 'R9-9'"):
        t.report("R9-9", ["s1", "s4"])
    with pytest.raises(TournamentError, match="'R2-1' is waiting, not pending"):
        t.report("R2-1", ["s1", "s2"])
    with pytest.raises(TournamentError, match="must rank exactly"):
        t.report("R1-1", ["s1", "s2"])
    with pytest.raises(TournamentError, match="appears twice"):
        t.report("R1-1", ["s1", "s1"])
    with pytest.raises(TournamentError, match="has no game"):
        t.report("R1-1")
    assert t.matches["R1-1"].games == []
