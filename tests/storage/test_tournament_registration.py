"""Tournaments people enter, stored: settings, registration caps, deadlines, the scheduler's notes.

On SQLite and PostgreSQL (the ``store`` fixture): settings round-trip (a tournament made
before them reads as closed and unscheduled); a snake is entered once, as the last seed;
registration closed or past its deadline refuses users (an admin enters anyway); of many
entering at once none passes the cap, in all or per owner; once started, nothing changes;
the scheduler finds the tournaments whose start time came, until it marks them finished.
"""

from __future__ import annotations

import concurrent.futures
import datetime as dt
import threading

import pytest

from snakewar.arena.config import MatchConfig
from snakewar.arena.tournament_runner import (
    TournamentExistsError,
    TournamentNotFoundError,
    TournamentRun,
    TournamentRunError,
)
from snakewar.storage import Store
from snakewar.storage.tournaments import (
    Qualifier,
    RegistrationClosedError,
    TournamentFullError,
    TournamentSettings,
    TournamentStartedError,
)

SMALL = MatchConfig.create("battlesnake", {"width": 7, "height": 7}, max_turns=50)


def new_run(tid: str, entrants: int = 2) -> TournamentRun:
    bots = [("builtin:random", f"bot{i}") for i in range(entrants)]
    run = TournamentRun.create(tid, "single_elimination", bots, config=SMALL, tid=tid)
    run.started = False
    return run


def test_settings_round_trip_and_old_tournaments_read_as_closed(store: Store) -> None:
    store.tournaments.create(new_run("plain"))
    assert store.tournaments.settings("plain") == TournamentSettings()
    assert store.tournaments.all_settings() == {}
    creator = store.accounts.create_user("maker", "!", role="admin", allow_reserved=True)
    closes = dt.datetime(2030, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    wanted = TournamentSettings(
        registration="owner",
        closes_at=closes,
        max_entrants=8,
        per_owner=2,
        starts_at=closes + dt.timedelta(hours=1),
        round_gap_s=90,
        creator_id=creator.id,
        qualifier=Qualifier("main", 4, 1),
    )
    store.tournaments.create(new_run("cup"), wanted)
    got = store.tournaments.settings("cup")
    assert got == wanted
    assert got.creator == "maker"  # read back by a join, never written
    assert got.closes_at is not None and got.closes_at.tzinfo is not None
    assert set(store.tournaments.all_settings()) == {"cup"}
    with pytest.raises(TournamentNotFoundError):
        store.tournaments.settings("nope")


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"registration": "everyone"}, "registration"),
        ({"max_entrants": 0}, "max_entrants"),
        ({"per_owner": -1}, "per_owner"),
        ({"round_gap_s": -5}, "round_gap_s"),
        ({"starts_at": dt.datetime(2030, 1, 1)}, "starts_at"),  # naive: the point
    ],
)
def test_bad_settings_are_refused_naming_the_field(fields: dict[str, object], named: str) -> None:
    with pytest.raises(TournamentRunError, match=named):
        TournamentSettings(**fields)  # type: ignore[arg-type]


def test_a_user_registers_as_the_last_seed_once_and_withdraws(store: Store) -> None:
    store.tournaments.create(new_run("open"), TournamentSettings(registration="open"))
    assert store.tournaments.register("open", "@amy/fast", "http://a", owner="amy") == 3
    run = store.tournaments.get("open")
    assert run is not None and list(run.snakes) == ["bot0", "bot1", "@amy/fast"]
    assert run.tournament.entrants[-1] == "@amy/fast"
    with pytest.raises(TournamentExistsError, match="entered already"):
        store.tournaments.register("open", "@amy/fast", "http://a", owner="amy")
    assert store.tournaments.withdraw("open", "@amy/fast")
    assert not store.tournaments.withdraw("open", "@amy/fast")
    again = store.tournaments.get("open")
    assert again is not None and list(again.snakes) == ["bot0", "bot1"]


def test_closed_registration_and_a_past_deadline_refuse_users_not_admins(store: Store) -> None:
    store.tournaments.create(new_run("closed"))
    with pytest.raises(RegistrationClosedError, match="closed"):
        store.tournaments.register("closed", "@amy/a", "http://a", owner="amy")
    past = store.tournaments.now() - dt.timedelta(seconds=1)
    store.tournaments.create(
        new_run("late"), TournamentSettings(registration="open", closes_at=past)
    )
    with pytest.raises(RegistrationClosedError, match="closed at"):
        store.tournaments.register("late", "@amy/a", "http://a", owner="amy")
    # An admin enters a snake whatever the registration says.
    store.tournaments.register("late", "@amy/a", "http://a", owner="amy", anytime=True)
    future = store.tournaments.now() + dt.timedelta(hours=1)
    store.tournaments.set_settings(
        "late", TournamentSettings(registration="open", closes_at=future)
    )
    store.tournaments.register("late", "@bob/b", "http://b", owner="bob")
    run = store.tournaments.get("late")
    assert run is not None and list(run.snakes)[-2:] == ["@amy/a", "@bob/b"]


def test_many_entering_at_once_never_pass_the_caps(store: Store) -> None:
    store.tournaments.create(
        new_run("capped", entrants=0 + 2),
        TournamentSettings(registration="open", max_entrants=6, per_owner=2),
    )
    start = threading.Barrier(8)

    def enter(i: int) -> str:
        owner = "amy" if i < 4 else f"u{i}"
        start.wait()
        try:
            store.tournaments.register("capped", f"@{owner}/s{i}", "http://x", owner=owner)
        except TournamentFullError as exc:
            return str(exc)
        return "in"

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(enter, range(8)))
    run = store.tournaments.get("capped")
    assert run is not None
    names = list(run.snakes)
    assert len(names) == 6, outcomes  # 2 bots + 4 entered: the cap, never more
    assert sum(1 for n in names if n.startswith("@amy/")) <= 2
    assert outcomes.count("in") == 4
    refusals = [o for o in outcomes if o != "in"]
    assert all("full" in o or "per_owner 2" in o for o in refusals), refusals


def test_nothing_changes_once_a_tournament_started(store: Store) -> None:
    store.tournaments.create(new_run("going"), TournamentSettings(registration="open"))
    store.tournaments.mark_started("going")
    with pytest.raises(TournamentStartedError, match="has started"):
        store.tournaments.register("going", "@amy/a", "http://a", owner="amy", anytime=True)
    with pytest.raises(TournamentStartedError):
        store.tournaments.withdraw("going", "bot0")
    with pytest.raises(TournamentStartedError):
        store.tournaments.set_settings("going", TournamentSettings(registration="closed"))
    with pytest.raises(TournamentStartedError):
        store.tournaments.replace_unstarted(new_run("going", entrants=3))
    assert store.tournaments.settings("going").registration == "open"


def test_the_scheduler_finds_what_is_due_until_it_is_finished(store: Store) -> None:
    now = store.tournaments.now()
    store.tournaments.create(
        new_run("later"), TournamentSettings(starts_at=now + dt.timedelta(days=1))
    )
    store.tournaments.create(
        new_run("soon"), TournamentSettings(starts_at=now - dt.timedelta(minutes=1))
    )
    store.tournaments.create(
        new_run("first"), TournamentSettings(starts_at=now - dt.timedelta(hours=1))
    )
    store.tournaments.create(new_run("manual"))
    due, when = store.tournaments.due()
    assert [tid for tid, _ in due] == ["first", "soon"]
    assert when >= now
    gap = when + dt.timedelta(seconds=30)
    store.tournaments.set_next_round("soon", gap)
    assert store.tournaments.settings("soon").next_round_at == gap
    store.tournaments.mark_finished("first")
    finished = store.tournaments.settings("first")
    assert finished.finished_at is not None and finished.next_round_at is None
    assert [tid for tid, _ in store.tournaments.due()[0]] == ["soon"]
    store.tournaments.delete("soon")
    assert store.tournaments.due()[0] == []


def test_a_swiss_tournaments_rounds_follow_its_field_as_people_enter(store: Store) -> None:
    run = TournamentRun.create(
        "swiss", "swiss", [("builtin:random", "a"), ("builtin:random", "b")], config=SMALL,
        tid="swiss",
    )  # fmt: skip
    run.started = False
    store.tournaments.create(run, TournamentSettings(registration="open"))
    for i in range(6):
        store.tournaments.register("swiss", f"@u{i}/s", "builtin:random", owner=f"u{i}")
    grown = store.tournaments.get("swiss")
    assert grown is not None and grown.tournament.config.swiss_rounds == 3  # 8 entrants
    for i in range(5):
        assert store.tournaments.withdraw("swiss", f"@u{i}/s")
    shrunk = store.tournaments.get("swiss")
    assert shrunk is not None and shrunk.tournament.config.swiss_rounds == 2  # 3 entrants
