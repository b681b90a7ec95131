"""Profiles' queries on SQLite and PostgreSQL: games search, latency, ladder entry reports.

Games are real games between built-in bots, stored as the server stores them, renamed
where a test needs registered snakes' names (``@owner/name``) in their seats.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import math
import statistics
from functools import cache

import pytest

from snakewar.arena.config import MatchConfig
from snakewar.arena.ladder import Ladder, LadderNotFoundError, LadderSettings
from snakewar.engine.protocol import PlayedGame
from snakewar.games.battlesnake.adapter import LATENCY_STATS, match_spec, played_game
from snakewar.games.battlesnake.records import GameRecord
from snakewar.games.battlesnake.referee.batch import SnakeMatch, play_match
from snakewar.storage import GameFilter, Store, StoreError

MATCH = SnakeMatch(snakes=("random", "greedy"))
SPEC = match_spec(MATCH)
T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


@cache
def record(seed: int) -> GameRecord:
    return asyncio.run(play_match(MATCH, seed))


def game(seed: int, game_id: str, names: tuple[str, str], source: str = "custom") -> PlayedGame:
    """A real finished game, its seats renamed ``names``."""
    played = played_game(record(seed), spec=SPEC)
    results = tuple(
        dataclasses.replace(r, name=n) for r, n in zip(played.results, names, strict=True)
    )
    return dataclasses.replace(played, id=game_id, results=results, source=source)


def user(store: Store, name: str) -> int:
    return store.accounts.create_user(name, "x" * 20).id


def test_games_are_found_by_entrant_owner_source_status_and_date(store: Store) -> None:
    alice = user(store, "alice")
    bob = user(store, "bob")
    games = [
        ("g0", ("@alice/fang", "builtin:random"), "custom", alice, 0),
        ("g1", ("@bob/coil", "@alice/fang"), "ladder:club", None, 1),
        ("g2", ("@bob/coil", "builtin:greedy"), "tournament:cup", bob, 2),
        ("g3", ("@alice/fangs", "builtin:greedy"), "custom", bob, 3),
    ]
    for gid, names, source, owner, day in games:
        created = T0 + dt.timedelta(days=day)
        played = game(1 + day, gid, names, source)
        assert store.games.save_played(played, created_at=created, owner_id=owner)
    search = store.profiles.search

    def ids(where: GameFilter, limit: int = 50, offset: int = 0) -> list[str]:
        return [g.id for g in search(where, limit, offset).games]

    # By entrant: its exact name only ("@alice/fangs" is another snake).
    assert ids(GameFilter(entrant="@alice/fang")) == ["g1", "g0"]
    assert ids(GameFilter(entrant="@nobody/x")) == []
    # A user's games: started by them, or played by one of their snakes.
    assert ids(GameFilter(owner_id=alice, owner_entrants=("@alice/fang", "@alice/fangs"))) == [
        "g3",
        "g1",
        "g0",
    ]
    assert ids(GameFilter(owner_id=bob)) == ["g3", "g2"]
    assert ids(GameFilter(source="ladder:club")) == ["g1"]
    assert ids(GameFilter(source="tournament:cup")) == ["g2"]
    assert ids(GameFilter(status="complete")) == ["g3", "g2", "g1", "g0"]
    assert ids(GameFilter(status="aborted")) == []
    # Dates: from (inclusive) to (exclusive).
    since, until = T0 + dt.timedelta(days=1), T0 + dt.timedelta(days=3)
    assert ids(GameFilter(since=since, until=until)) == ["g2", "g1"]
    assert ids(GameFilter(entrant="@bob/coil", since=since, until=until)) == ["g2", "g1"]
    # Paging: total and the next page's offset.
    first = search(GameFilter(), 3, 0)
    assert [g.id for g in first.games] == ["g3", "g2", "g1"]
    assert (first.total, first.next_offset) == (4, 3)
    last = search(GameFilter(), 3, 3)
    assert ([g.id for g in last.games], last.total, last.next_offset) == (["g0"], 4, None)
    for bad in ({"status": "won"}, {"entrant": ""}, {"since": dt.datetime(2026, 1, 1)}):
        with pytest.raises(StoreError):
            search(GameFilter(**bad))
    with pytest.raises(StoreError):
        search(GameFilter(), 0)


def test_a_snakes_latency_is_read_from_the_calls_its_games_kept(store: Store) -> None:
    for i, latencies in enumerate(([10, 20, 30], [40, 50], [1000])):
        played = game(10 + i, f"l{i}", ("@alice/fang", "builtin:random"))
        store.games.save_played(played, created_at=T0 + dt.timedelta(minutes=i))
        calls = [
            {"kind": "move", "name": "@alice/fang", "latency_ms": ms, "status": "ok"}
            for ms in latencies
        ]
        calls.append({"kind": "move", "name": "builtin:random", "latency_ms": 1, "status": "ok"})
        if i == 2:
            calls[0]["status"] = "timeout"
        store.games.add_calls(f"l{i}", 1, calls)
    over_all = store.profiles.latencies("@alice/fang")
    assert (over_all.games, over_all.calls, over_all.timeouts) == (3, 6, 1)
    # Nearest rank: the 3rd of 6 sorted (10 20 30 40 50 1000) and the 6th.
    assert (over_all.p50, over_all.p95) == (30.0, 1000.0)
    recent = store.profiles.latencies("@alice/fang", games=1)
    assert (recent.games, recent.calls, recent.p50) == (1, 1, 1000.0)
    none = store.profiles.latencies("@bob/coil")
    assert (none.games, none.calls, none.p50, none.p95) == (0, 0, None, None)


SMALL = MatchConfig.create("battlesnake", {"width": 7, "height": 7}, max_turns=60)


def test_a_ladder_entry_report_has_its_history_deltas_placements_and_stats(store: Store) -> None:
    ladder = Ladder("club", SMALL, seed=5)
    for name in ("random", "greedy", "hunter"):
        ladder.add(f"builtin:{name}", name)
    ladder.settings = LadderSettings(placement_games=3)
    store.ladders.create(ladder)
    assert ladder.run(6, store) == 6
    scores = store.profiles.ladder_scores("club")
    stored = store.ladders.get("club")
    assert stored is not None and stored.settings.placement_games == 3
    assert sum(line.games for line in scores.values()) == 6 * 2
    for name, line in scores.items():
        report = store.profiles.entry_report("club", name)
        assert report.scores == line
        assert report.games == line.games == len(report.history)
        assert report.in_placement == (line.games < 3)
        # Each step's delta is the change of the shown rating from the step before.
        shown = [step.rating for step in report.history]
        assert report.history[0].delta is None
        for before, step in zip(shown, report.history[1:], strict=False):
            assert step.delta == pytest.approx(step.rating - before)
        assert report.history[-1].mu == pytest.approx(report.mu or 0.0)
        assert sum(line.placements.values()) == line.games
        assert line.wins == sum(1 for step in report.history if step.won)
        assert line.wins <= line.placements.get(1, 0)
        # The game's own statistics, through its adapter: food eaten and the rest (and the
        # figures of its snakes' calls, which the pages do not show as scorers).
        assert set(line.stats) == {"food", "length", "turns_alive", *LATENCY_STATS}
        assert line.stats["food"] == pytest.approx(
            sum(step.stats["food"] for step in report.history) / line.games
        )
        assert line.stats["length"] >= 1.0
    ranked = [store.profiles.entry_report("club", n) for n in scores]
    placed = sorted(r.rank for r in ranked if r.rank is not None)
    assert placed == list(range(1, len(placed) + 1))
    assert all((r.rank is None) == r.in_placement for r in ranked)
    assert store.profiles.entrant_ladders("random") == ["club"]
    with pytest.raises(LadderNotFoundError):
        store.profiles.entry_report("club", "nobody")
    with pytest.raises(LadderNotFoundError):
        store.profiles.ladder_scores("nope")


def test_the_directory_searches_names_owners_languages_and_tags(store: Store) -> None:
    alice = user(store, "alice")
    bob = user(store, "bob")
    store.snakes.register(alice, "Fang", "battlesnake", "url", url="http://a", tags=["python"])
    store.snakes.register(
        alice, "hidden", "battlesnake", "url", url="http://b", visibility="private"
    )
    store.snakes.register(bob, "coil_1", "battlesnake", "url", url="http://c", tags=["c++"])
    store.snakes.register(bob, "miner", "halite3", "upload", language="python3", archive=b"x")

    def names(viewer: int | None, text: str = "", **kw: object) -> list[str]:
        found, total = store.snakes.directory(viewer, text=text, **kw)  # type: ignore[arg-type]
        assert total == len(found)
        return [s.ref for s in found]

    assert names(None) == ["@bob/coil_1", "@alice/Fang", "@bob/miner"]
    assert names(alice) == ["@bob/coil_1", "@alice/Fang", "@alice/hidden", "@bob/miner"]
    assert names(None, "fang") == ["@alice/Fang"]
    assert names(None, "PYTHON") == ["@alice/Fang", "@bob/miner"]  # a tag, a language
    assert names(None, "c++") == ["@bob/coil_1"]
    assert names(None, "bob python") == ["@bob/miner"]  # every word matches
    assert names(None, "%") == []  # a wildcard is a plain character
    assert names(None, "_") == ["@bob/coil_1"]
    assert names(None, game="halite3") == ["@bob/miner"]
    assert names(None, owner="alice") == ["@alice/Fang"]
    found, total = store.snakes.directory(None, limit=1, offset=1)
    assert [s.ref for s in found] == ["@alice/Fang"] and total == 3
    with pytest.raises(StoreError):
        store.snakes.register(alice, "tagged", "battlesnake", "url", url="http://d", tags=["A B"])
    with pytest.raises(StoreError):
        store.snakes.directory(None, limit=0)


def test_latency_comes_from_each_games_own_figures_where_no_call_was_kept(store: Store) -> None:
    bob = user(store, "bob")
    seeds = (1, 2, 3)
    for n, seed in enumerate(seeds):
        created = T0 + dt.timedelta(hours=n)
        played = game(seed, f"g{n}", ("@bob/coil", "builtin:random"))
        assert store.games.save_played(played, created_at=created, owner_id=bob)
    # Each game's move calls of the snake in seat 0, read from the game itself.
    medians, highs, calls, timeouts = [], [], 0, 0
    for seed in seeds:
        rec = record(seed)
        coil = rec.snakes[0].id
        moves = [turn.calls[coil] for turn in rec.turns if coil in turn.calls]
        ms = [call.latency_ms for call in moves]
        medians.append(statistics.median(ms))
        highs.append(statistics.quantiles(ms, n=100, method="inclusive")[94])
        calls += len(ms)
        timeouts += sum(str(call.status) == "timeout" for call in moves)

    def nearest_rank(values: list[float], q: float) -> float:
        return sorted(values)[math.ceil(len(values) * q) - 1]

    latency = store.profiles.latencies("@bob/coil")
    assert latency.games == 3 and latency.calls == calls > 0
    assert latency.timeouts == timeouts
    assert latency.p50 == pytest.approx(nearest_rank(medians, 0.5))
    assert latency.p95 == pytest.approx(nearest_rank(highs, 0.95))
    # A snake with no game has none.
    assert store.profiles.latencies("@bob/nobody").games == 0
