"""Continuous ladders: one scheduler per database, games played on by themselves, rated once.

Two real apps (``create_app``, each with its own game manager, lease keeper and
scheduler) on one database, a SQLite file or a schema of the scratch PostgreSQL
(``db_url``), talked to over HTTP (the ASGI test client): exactly one of them holds the
scheduler's lease; a continuous ladder of built-in bots plays on by itself within its
games in flight and its daily cap; pause stops new games and resume starts them again;
the holder's scheduler dying without a word (its lease not released) or its app
stopping hands the scheduling to the other within a lease; and at the end every
finished game is rated exactly once, every game that did not finish not at all.

A server killed outright (``SIGKILL``, real ``snakewar serve`` processes) is the last
test: its games in flight are aborted by the game leases and never rated.

Every wait polls with a generous deadline: nothing depends on the machine's speed.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from snakewar.server import ServerConfig, create_app
from snakewar.server.scheduler import LEASE_NAME, LadderScheduler
from snakewar.storage import Store
from tests.games.battlesnake.referee.snake_servers import SnakeServers
from tests.server.accounts import BASE_URL, make_user, public_client
from tests.server.multi_server import servers, wait_until

BOARD = {"width": 7, "height": 7}
BOTS = ("builtin:random", "builtin:greedy", "builtin:hunter?depth=1")
LEASE_S = 5.0
"""The scheduler's lease in these tests: short, so that a takeover comes soon (and long
enough that a loaded machine's late renewal does not hand it over on its own)."""


@contextlib.contextmanager
def app_client(url: str, **config: Any) -> Iterator[TestClient]:
    """A local server on ``url`` (its user is the admin), with a short scheduler lease."""
    options: dict[str, Any] = {"scheduler_lease_s": LEASE_S, **config}
    app = create_app(ServerConfig(database_url=url, **options))
    with TestClient(app, base_url=BASE_URL, raise_server_exceptions=False) as client:
        yield client


def scheduler(client: TestClient) -> LadderScheduler:
    found: LadderScheduler = client.app.state.scheduler  # type: ignore[attr-defined]
    return found


def holders(*clients: TestClient) -> list[TestClient]:
    return [c for c in clients if scheduler(c).holds()]


def ladder(client: TestClient, name: str = "lad") -> dict[str, Any]:
    answer = client.get(f"/api/ladders/{name}")
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def make_ladder(client: TestClient, name: str = "lad") -> None:
    made = client.post("/api/ladders", json={"name": name, "timeout": 2000, **BOARD})
    assert made.status_code == 201, made.text
    for bot in BOTS:
        joined = client.post(f"/api/ladders/{name}/snakes", json={"snake": bot})
        assert joined.status_code == 201, joined.text


def rows(url: str, query: str) -> list[Any]:
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    try:
        with engine.connect() as connection:
            return list(connection.execute(sa.text(query)).all())
    finally:
        engine.dispose()


def started(url: str) -> int:
    """How many games the scheduler started (recorded matches, whatever became of them)."""
    return int(rows(url, "SELECT count(*) FROM ladder_matches")[0][0])


def check_rated_once(url: str) -> int:
    """Settle what is left, then check every finished game is rated once; games rated."""
    with Store(url) as store:
        for match in store.ladders.unsettled():
            assert store.ladders.settle(match.game_id) in ("rated", "void")
        assert store.ladders.unsettled() == []
    matches = rows(url, "SELECT game_id, state, number FROM ladder_matches")
    games = {
        game_id: status
        for game_id, status in rows(url, "SELECT id, status FROM games WHERE source = 'ladder:lad'")
    }
    rated = rows(url, "SELECT game_id, number FROM ladder_games")
    ratings = rows(url, "SELECT number, entrant FROM ladder_ratings")
    entries = rows(url, "SELECT name, games FROM ladder_entries")
    # Every scheduled game is stored, and rated if and only if it was played to its end.
    assert set(games) == {m[0] for m in matches}
    for game_id, state, number in matches:
        assert state == ("rated" if games[game_id] == "complete" else "void"), (game_id, state)
        assert (number is not None) == (state == "rated")
    assert sorted(g for g, _ in rated) == sorted(m[0] for m in matches if m[1] == "rated")
    # Each once: numbers 0..n-1, two ratings a game, entries' games adding up.
    assert sorted(n for _, n in rated) == list(range(len(rated)))
    assert len(ratings) == len(set(ratings)) == 2 * len(rated)
    assert sum(int(g) for _, g in entries) == 2 * len(rated)
    played = rows(url, "SELECT games_played FROM ladders WHERE name = 'lad'")[0][0]
    assert played == len(rated)
    return len(rated)


@pytest.mark.slow
def test_two_servers_elect_one_scheduler_that_plays_a_continuous_ladder_on(
    db_url: str,
) -> None:
    with app_client(db_url) as first, app_client(db_url) as second:
        wait_until("one scheduler to hold the lease", lambda: len(holders(first, second)) == 1)
        make_ladder(first)
        quiet = ladder(second)["schedule"]
        assert quiet["continuous"] is False and quiet["in_flight"] == 0
        assert quiet["status"].startswith("not continuous")
        # On by itself: two games at once, one a second at most, four a day per entrant.
        turned = first.patch(
            "/api/ladders/lad",
            json={"continuous": True, "gamesInFlight": 2, "gamesPerHour": 3600, "dailyCap": 4},
        )
        assert turned.status_code == 200, turned.text
        schedule = turned.json()["schedule"]
        assert (schedule["continuous"], schedule["games_in_flight"]) == (True, 2)
        assert (schedule["games_per_hour"], schedule["daily_cap"]) == (3600, 4)
        # Only one server holds the lease; both say which (to this admin).
        [holder] = holders(first, second)
        assert ladder(second)["schedule"]["scheduler"] == scheduler(holder).holder
        assert ladder(first)["schedule"]["scheduled"] is True
        assert rows(db_url, f"SELECT holder FROM leases WHERE name = '{LEASE_NAME}'") == [
            (scheduler(holder).holder,)
        ]
        # Never more than two in flight; the cap stops it: 3 entrants x 4 / 2 a game.
        most = 0

        def today() -> dict[str, int]:
            """Each entrant's games that count against the cap (void ones do not)."""
            counted = rows(
                db_url,
                "SELECT s.entrant, count(*) FROM ladder_match_seats s JOIN ladder_matches m "
                "ON m.game_id = s.game_id WHERE m.state <> 'void' GROUP BY s.entrant",
            )
            return {str(entrant): int(count) for entrant, count in counted}

        def capped() -> bool:
            nonlocal most
            # Nothing starting or playing on either server (whichever holds the lease)...
            idle = not any(scheduler(c).games() for c in (first, second))
            counts = today()
            data = ladder(first)["schedule"]
            most = max(
                most, data["in_flight"], *(len(scheduler(c).games()) for c in (first, second))
            )
            assert most <= 2, most
            assert all(count <= 4 for count in counts.values()), counts
            # Done once no two entrants are under the cap (no game can start any more)
            # and nothing is in flight: ...before the counts and after them.
            under = [n for n in ("random", "greedy", "hunter") if counts.get(n, 0) < 4]
            busy = any(scheduler(c).games() for c in (first, second))
            return len(under) < 2 and data["in_flight"] == 0 and idle and not busy

        wait_until("the daily cap to stop the ladder", capped, 300)
        data = ladder(first)
        games = {s["snake"]: s["games"] for s in data["standings"]}
        assert games == today() and sum(games.values()) == 2 * data["games_played"], games
        assert data["games_played"] >= 4
        wait_until(
            "the holder to say why it waits",
            lambda: any(
                "daily cap" in ladder(c)["schedule"]["status"] for c in holders(first, second)
            ),
        )
        assert started(db_url) == data["games_played"]  # and it started no more
        assert data["schedule"]["games_last_hour"] == data["games_played"]
        assert most >= 1

        # Pause: nothing new starts; resume (with no cap): games start again.
        assert first.patch("/api/ladders/lad", json={"dailyCap": None}).status_code == 200
        paused = second.post("/api/ladders/lad/pause")
        assert paused.status_code == 200, paused.text
        assert paused.json()["schedule"]["paused"] is True
        assert paused.json()["schedule"]["status"] == "paused by an admin"
        wait_until(
            "its games in flight to end",
            lambda: (
                ladder(first)["schedule"]["in_flight"] == 0
                and not any(scheduler(c).games() for c in (first, second))
            ),
        )
        before = started(db_url)
        # A few rounds of the holder (a round a second at most) start nothing.
        rounds = 0

        def some_rounds() -> bool:
            nonlocal rounds
            rounds += 1
            return rounds > 60

        wait_until("time to pass", some_rounds)
        assert started(db_url) == before
        resumed = first.post("/api/ladders/lad/resume")
        assert resumed.status_code == 200 and resumed.json()["schedule"]["paused"] is False
        wait_until("games to start again", lambda: started(db_url) >= before + 2)

        # The holder's scheduler dies without letting go of its lease: the other takes
        # over once the lease ran out, and the ladder goes on.
        [holder] = holders(first, second)
        other = second if holder is first else first
        portal = holder.portal
        assert portal is not None
        portal.call(functools.partial(scheduler(holder).close, release=False))
        assert not scheduler(holder).holds()
        wait_until("the other server to take over", lambda: scheduler(other).holds())
        assert ladder(other)["schedule"]["scheduler"] == scheduler(other).holder
        now = started(db_url)
        wait_until("the ladder to go on", lambda: started(db_url) >= now + 2)
    # Both stopped: the games they were playing were cancelled, and are never rated.
    assert check_rated_once(db_url) >= 7


def test_a_server_stopping_hands_the_scheduling_over_at_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    # A lease far longer than the test: only a release lets the other take over.
    with contextlib.ExitStack() as own:
        first = own.enter_context(app_client(url, scheduler_lease_s=600))
        wait_until("the first to hold the lease", lambda: scheduler(first).holds())
        make_ladder(first)
        first.patch("/api/ladders/lad", json={"continuous": True, "gamesPerHour": 3600})
        with app_client(url, scheduler_lease_s=600) as second:
            assert not scheduler(second).holds()
            wait_until("a game", lambda: started(url) >= 1)
            own.close()  # the first server stops cleanly
            wait_until("the second to take over", lambda: scheduler(second).holds())
            now = started(url)
            wait_until("the ladder to go on", lambda: started(url) >= now + 2)
    check_rated_once(url)


def test_a_holder_whose_lease_another_took_stops_scheduling(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    with app_client(url) as http:
        mine = scheduler(http)
        wait_until("the lease", mine.holds)
        make_ladder(http)
        http.patch("/api/ladders/lad", json={"continuous": True, "gamesPerHour": 3600})
        wait_until("a game", lambda: started(url) >= 1)
        # Say the database was out of reach long enough for another server to take over.
        with Store(url) as store, store.db.session() as session:
            session.execute(
                sa.text(
                    "UPDATE leases SET holder = 'another', until = :until, term = term + 1 "
                    "WHERE name = :name"
                ),
                {"until": dt.datetime.now(dt.UTC) + dt.timedelta(seconds=600), "name": LEASE_NAME},
            )
        wait_until("this server to stop scheduling", lambda: not mine.holds())
        # Its games in flight play on (and are rated): none starts after them.
        wait_until("its games to end", lambda: not mine.games())
        shown = ladder(http)["schedule"]
        assert shown["scheduler"] == "another" and shown["status"] == "scheduled by another server"
        before = started(url)
        rounds = 0

        def some_rounds() -> bool:
            nonlocal rounds
            rounds += 1
            return rounds > 60

        wait_until("time to pass", some_rounds)
        assert started(url) == before  # not one more game from the server that lost it
        # The other lets go: this one schedules again.
        with Store(url) as store:
            assert store.leases.release(LEASE_NAME, "another")
        wait_until("this server to take over again", mine.holds)
        wait_until("games again", lambda: started(url) > before)
    check_rated_once(url)


def test_games_per_hour_spaces_the_games_out(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    with app_client(url) as http:
        make_ladder(http)
        # Four may play at once, but one starts every 30 s at most.
        turned = http.patch(
            "/api/ladders/lad",
            json={"continuous": True, "gamesInFlight": 4, "gamesPerHour": 120},
        )
        assert turned.status_code == 200, turned.text
        wait_until("the first game", lambda: started(url) >= 1)
        rounds = 0

        def some_rounds() -> bool:
            nonlocal rounds
            rounds += 1
            return rounds > 60

        # Well under 30 s on any machine (a slow one only starts fewer games).
        wait_until("time to pass", some_rounds)
        assert started(url) == 1
        # A faster rate takes effect at once: the next game starts.
        http.patch("/api/ladders/lad", json={"gamesPerHour": 3600})
        wait_until("the next games", lambda: started(url) >= 3)
    check_rated_once(url)


def test_continuous_settings_are_checked_and_only_admins_change_them() -> None:
    with public_client() as admin:
        ann = make_user(admin.store, "ann")
        assert admin.post("/api/ladders", json={"name": "lad", **BOARD}).status_code == 201
        for body, field in (
            ({"gamesInFlight": 0}, "gamesInFlight"),
            ({"gamesInFlight": 65}, "gamesInFlight"),
            ({"gamesPerHour": 3601}, "gamesPerHour"),
            ({"dailyCap": 0}, "dailyCap"),
            ({"dailyCap": "many"}, "dailyCap"),
            ({"continuous": "yes please"}, "continuous"),
            ({"continuous": None}, "continuous"),
            ({"gamesPerHour": None}, "games_per_hour"),
        ):
            refused = admin.patch("/api/ladders/lad", json=body)
            assert refused.status_code == 422, (body, refused.text)
            assert field in str(refused.json()["detail"]), (body, refused.text)
        assert (
            admin.patch("/api/ladders/lad", json={"continuous": True}, headers=ann).status_code
            == 403
        )
        for action in ("pause", "resume"):
            assert admin.post(f"/api/ladders/lad/{action}", headers=ann).status_code == 403
            refused = admin.post(f"/api/ladders/lad/{action}")
            assert refused.status_code == 409 and "continuous" in refused.json()["detail"]
        assert admin.post("/api/ladders/nope/pause").status_code == 404
        turned = admin.patch("/api/ladders/lad", json={"continuous": True, "paused": True})
        assert turned.status_code == 200, turned.text
        shown = admin.get("/api/ladders/lad", headers=ann).json()["schedule"]
        assert shown["continuous"] is True and shown["paused"] is True
        assert shown["scheduler"] is None  # who schedules is the admins' to know
        run = admin.post("/api/ladders/lad/run", json={"games": 2})
        assert run.status_code == 409 and "continuous" in run.json()["detail"]


@pytest.mark.slow
def test_a_killed_scheduler_is_replaced_and_its_games_are_not_rated(
    db_url: str, tmp_path: Path
) -> None:
    with SnakeServers() as snakes, servers(db_url, tmp_path, lease_s=3.0) as make:
        # One after the other: two servers migrating one fresh database at once collide.
        pair = [make("a").start().wait_ready(), make("b").start().wait_ready()]
        first = pair[0]
        made = first.post("/api/ladders", {"name": "lad", "timeout": 2000, **BOARD})
        assert made.status_code == 201
        # Two quick built-ins (their games end in moments, and are rated) and a snake
        # that takes 0.4 s a move (its games last long enough to be cut off).
        entrants = [
            {"snake": "builtin:random"},
            {"snake": "builtin:greedy"},
            {"snake": snakes.url("slow"), "name": "slow"},
        ]
        for entrant in entrants:
            assert first.post("/api/ladders/lad/snakes", entrant).status_code == 201
        turned = httpx.patch(
            f"{first.url}/api/ladders/lad",
            json={"continuous": True, "gamesInFlight": 2, "gamesPerHour": 3600},
            timeout=60,
        )
        assert turned.status_code == 200, turned.text
        wait_until("a scheduler", lambda: holder_of(first) is not None)
        dead = holder_of(first)
        assert dead is not None
        # A game of the slow snake in flight, started by the holder: then the holder dies.
        slow_games = (
            "SELECT m.game_id FROM ladder_matches m JOIN ladder_match_seats s "
            "ON s.game_id = m.game_id WHERE m.state = 'playing' AND s.entrant = 'slow' "
            f"AND m.holder = '{dead}'"
        )
        wait_until("a slow game in flight", lambda: bool(rows(db_url, slow_games)))
        cut = [game_id for (game_id,) in rows(db_url, slow_games)]
        victim = next(s for s in pair if f":{s.process.pid}:" in dead)  # type: ignore[union-attr]
        survivor = pair[1] if victim is pair[0] else pair[0]
        victim.kill()
        wait_until("the survivor to take over", lambda: holder_of(survivor) not in (None, dead))
        now = started(db_url)
        wait_until("the ladder to go on", lambda: started(db_url) >= now + 2)
        # The dead server's games in flight: aborted by their game leases, void, not rated.
        wait_until(
            "the cut-off games to be settled",
            lambda: {state for (state,) in rows(db_url, _states(cut))} == {"void"},
        )
        for game_id in cut:
            assert survivor.get(f"/api/games/{game_id}").json()["status"] == "aborted"
        assert survivor.post("/api/ladders/lad/pause").status_code == 200
        assert survivor.stop() in (0, 130)
    check_rated_once(db_url)


def _states(game_ids: list[str]) -> str:
    listed = ", ".join(f"'{g}'" for g in game_ids)
    return f"SELECT state FROM ladder_matches WHERE game_id IN ({listed})"


def holder_of(server: Any) -> str | None:
    found: str | None = server.get("/api/ladders/lad").json()["schedule"]["scheduler"]
    return found
