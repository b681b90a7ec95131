"""Named leases (one holder at a time) and continuous ladders' games settled once.

On SQLite and PostgreSQL (the ``store`` fixture): a lease is taken by one holder of
many trying at once (threads, each its own connection), renewed by it only, taken
over once it ran out, released for the next; a scheduled ladder game is rated once
however many settle it at once, and an aborted one is voided, not rated.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import threading
import time

import pytest
import sqlalchemy as sa

from snakewar.arena.config import MatchConfig
from snakewar.arena.ladder import Ladder, LadderSettings, LadderSettingsError
from snakewar.storage import GameStatus, Store, StoreError
from tests.server.multi_server import wait_until
from tests.storage.test_games import played

BOARD = {"width": 7, "height": 7}


def test_one_of_many_takes_a_lease_and_only_it_renews_it(store: Store) -> None:
    leases = store.leases
    start = threading.Barrier(8)

    def take(i: int) -> bool:
        start.wait()
        return leases.acquire("job", f"holder-{i}", 60) is not None

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        won = list(pool.map(take, range(8)))
    assert won.count(True) == 1, won
    winner = f"holder-{won.index(True)}"
    lease = leases.get("job")
    assert lease is not None and lease.held_by(winner) and lease.term == 1
    assert lease.until is not None and lease.until.tzinfo is not None
    assert 50 < lease.left_s <= 60
    other = "holder-x"
    assert leases.renew("job", other, 60) is None
    assert leases.acquire("job", other, 60) is None
    renewed = leases.renew("job", winner, 120)
    assert renewed is not None and renewed.term == 1 and renewed.left_s > 100
    # Acquiring what one holds renews it: same term, same start.
    again = leases.acquire("job", winner, 60)
    assert again is not None and again.term == 1 and again.since == lease.since
    assert not leases.release("job", other)
    assert leases.release("job", winner)
    freed = leases.get("job")
    assert freed is not None and not freed.held and freed.holder is None
    taken = leases.acquire("job", other, 60)
    assert taken is not None and taken.held_by(other) and taken.term == 2


def test_a_lease_that_ran_out_is_taken_over_and_its_old_holder_cannot_renew(
    store: Store,
) -> None:
    leases = store.leases
    assert leases.acquire("job", "a", 0.3) is not None
    assert leases.acquire("job", "b", 60) is None  # still a's
    wait_until("a's lease to run out", lambda: not leases.get("job").held, 60)  # type: ignore[union-attr]
    taken = leases.acquire("job", "b", 60)
    assert taken is not None and taken.holder == "b" and taken.term == 2
    assert leases.renew("job", "a", 60) is None
    assert leases.get("job").held_by("b")  # type: ignore[union-attr]
    # A holder whose lease ran out but that nobody took gets it back, same term.
    assert leases.acquire("solo", "a", 0.2) is not None
    time.sleep(0.3)
    back = leases.renew("solo", "a", 60)
    assert back is not None and back.held_by("a") and back.term == 1


def test_bad_lease_arguments_are_refused(store: Store) -> None:
    for name, holder, seconds in (("", "a", 1), ("x" * 65, "a", 1), ("j", "", 1), ("j", "a", 0)):
        with pytest.raises(StoreError):
            store.leases.acquire(name, holder, seconds)
    assert store.leases.get("x" * 65) is None
    assert not store.leases.release("", "a")


def test_ladder_settings_are_checked_and_stored(store: Store) -> None:
    for field, value in (
        ("games_in_flight", 0),
        ("games_in_flight", 65),
        ("games_per_hour", 0),
        ("games_per_hour", 3601),
        ("daily_cap", 0),
    ):
        with pytest.raises(LadderSettingsError) as raised:
            LadderSettings(**{field: value})  # type: ignore[arg-type]
        assert raised.value.field == field and field in str(raised.value)
    ladder = Ladder("lad", MatchConfig.create(None, BOARD))
    store.ladders.create(ladder)
    loaded = store.ladders.get("lad")
    assert loaded is not None and loaded.settings == LadderSettings()
    settings = LadderSettings(True, False, 3, 120, 10)
    store.ladders.save_settings("lad", settings)
    loaded = store.ladders.get("lad")
    assert loaded is not None and loaded.settings == settings
    assert store.ladders.playing_ladders() == ["lad"]
    # Saving a ladder loaded before does not undo the settings.
    ladder.add("builtin:random", "r")
    store.ladders.save(ladder)
    assert store.ladders.get("lad").settings == settings  # type: ignore[union-attr]
    store.ladders.save_settings("lad", LadderSettings(True, True, 3, 120, None))
    assert store.ladders.playing_ladders() == []


def _running_game(store: Store, game_id: str, seed: int) -> None:
    """Store a two-player game as running (as a server begins one)."""
    store.games.save_played(dataclasses.replace(played(seed), id=game_id))
    _set_status(store, game_id, GameStatus.RUNNING)


def _set_status(store: Store, game_id: str, status: str) -> None:
    with store.db.session() as session:
        session.execute(
            sa.text("UPDATE games SET status = :s WHERE id = :g"), {"s": status, "g": game_id}
        )


def test_a_scheduled_game_is_rated_once_however_many_settle_it(store: Store) -> None:
    ladder = Ladder("lad", MatchConfig.create(None, BOARD))
    for name in ("a", "b", "c"):
        ladder.add("builtin:random", name)
    store.ladders.create(ladder)
    ids = [f"00000000-0000-4000-8000-00000000000{i}" for i in range(4)]
    seats = [["a", "b"], ["b", "c"], ["c", "a"], ["a", "c"]]
    for seed, (game_id, names) in enumerate(zip(ids, seats, strict=True)):
        _running_game(store, game_id, seed + 1)
        store.ladders.add_match("lad", game_id, names, 5, "me")
    counts = store.ladders.counts("lad")
    assert counts.in_flight == 4 and counts.last_hour == 4
    assert counts.today == {"a": 3, "b": 2, "c": 3} and counts.playing == counts.today
    assert store.ladders.settle(ids[0]) == "playing"  # still running: left as it is
    for game_id in ids[:3]:
        _set_status(store, game_id, GameStatus.COMPLETE)
    _set_status(store, ids[3], GameStatus.ABORTED)
    start = threading.Barrier(8)

    def settle(i: int) -> str:
        start.wait()
        return store.ladders.settle(ids[i % 4])

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(settle, range(8)))
    assert sorted(outcomes) == ["rated"] * 3 + ["settled"] * 4 + ["void"], outcomes
    for game_id in ids:
        assert store.ladders.settle(game_id) == "settled"
    loaded = store.ladders.get("lad")
    assert loaded is not None and loaded.games_played == 3
    assert sorted(g.number for g in loaded.recent) == [0, 1, 2]
    assert sorted(g.game_id for g in loaded.recent) == sorted(ids[:3])
    assert {e: loaded.board.games[e] for e in "abc"} == {"a": 2, "b": 2, "c": 2}
    with store.db.session() as session:
        ratings = session.execute(sa.text("SELECT count(*) FROM ladder_ratings")).scalar()
    assert ratings == 6  # two players a game, each game once
    counts = store.ladders.counts("lad")
    assert counts.in_flight == 0 and counts.last_hour == 3  # the void game is not counted
    assert counts.today == {"a": 2, "b": 2, "c": 2} and not counts.playing
    assert store.ladders.unsettled() == []
