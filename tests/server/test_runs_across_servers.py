"""Ladder and tournament runs that survive crashes, restarts and several servers (issue 31).

* H4: servers started at once on one database resume a tournament once, and a run
  killed (``SIGKILL``) twice still plays exactly a straight run's games, each once;
* H5: a tournament refused because the arena is full is never stored; a server always
  starts, marking (and reporting) what it cannot play on;
* runs can be stopped (by an admin, on whichever server plays them), and a crashed
  ladder run is played on with the games it still owed.

The crashes are real: ``snakewar serve`` child processes killed with ``SIGKILL``
(:mod:`tests.server.multi_server`).  Every wait polls with a generous deadline.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from snakewar.arena.config import MatchConfig
from snakewar.arena.tournament_runner import TournamentRun
from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.games.battlesnake.referee.snake_servers import SnakeServers
from tests.server.accounts import BASE_URL, make_user, public_client
from tests.server.multi_server import scenario, servers, wait_until

BOARD = {"width": 7, "height": 7}


@pytest.fixture(scope="module")
def snakes() -> Iterator[SnakeServers]:
    with SnakeServers() as running:
        yield running


def client(url: str, **config: Any) -> TestClient:
    app = create_app(ServerConfig(database_url=url, **config))
    return TestClient(app, base_url=BASE_URL, raise_server_exceptions=False)


def poll(http: TestClient, path: str, done: Any, timeout: float = 180) -> dict[str, Any]:
    """GET ``path`` until ``done(answer)``; the answer."""
    found: dict[str, Any] = {}

    def check() -> bool:
        nonlocal found
        found = http.get(path).json()
        return bool(done(found))

    wait_until(f"{path} to change", check, timeout)
    return found


def slow_cup(http: TestClient, snakes: SnakeServers, **body: Any) -> str:
    """Start a tournament of two slow snakes (0.4 s a move): it plays for minutes."""
    slow = snakes.url("slow")
    made = http.post(
        "/api/tournaments",
        json={"name": "slow", "snakes": [slow, slow], "timeout": 2000, **BOARD, **body},
    )
    assert made.status_code == 201, made.text
    tid: str = made.json()["id"]
    return tid


def playing(http: TestClient, tid: str) -> str:
    """Wait until this server plays the tournament's game; its id."""
    found = poll(http, f"/api/tournaments/{tid}", lambda d: any(m["playing"] for m in d["matches"]))
    game: str = next(m["playing"]["game_id"] for m in found["matches"] if m["playing"])
    return game


def run_row(url: str, key: str) -> Any:
    with Store(url) as store:
        return store.runs.get(key)


# -- H4: several servers, crashes ---------------------------------------------------------


def test_servers_resuming_at_once_play_each_game_once_and_a_straight_runs_games(
    db_url: str, tmp_path: Path
) -> None:
    outcome, expected = scenario(db_url, tmp_path)
    assert outcome.problems == [], outcome
    assert outcome.finished and outcome.restarted and outcome.api_status == 200, outcome
    assert outcome.duplicates == 0 and outcome.games == len(expected), outcome
    assert outcome.same_as_straight, outcome


def test_a_crashed_ladder_run_is_played_on_with_the_games_it_owed(
    db_url: str, tmp_path: Path
) -> None:
    with servers(db_url, tmp_path) as make:
        first = make("a").start().wait_ready()
        assert first.post("/api/ladders", {"name": "lad", **BOARD}).status_code == 201
        for snake in ("greedy", "random", "hunter?depth=1"):
            joined = first.post("/api/ladders/lad/snakes", {"snake": snake})
            assert joined.status_code == 201, joined.text
        assert first.post("/api/ladders/lad/run", {"games": 12}).status_code == 202

        def games_played(server: Any) -> int:
            return int(server.get("/api/ladders/lad").json()["games_played"])

        wait_until("the first games", lambda: games_played(first) >= 1)
        first.kill()  # mid-run: 12 games asked, fewer played
        # Two servers at once: one plays on what the run still owes.
        pair = [make("b").start(), make("c").start()]
        for server in pair:
            server.wait_ready()

        def ended() -> bool:
            run = pair[0].get("/api/ladders/lad").json()["run"]
            return run is not None and run["state"] in ("done", "failed", "stopped")

        wait_until("the run to end", ended)
        ladder = pair[1].get("/api/ladders/lad").json()
        assert ladder["run"]["state"] == "done" and ladder["run"]["error"] == "", ladder["run"]
        assert ladder["games_played"] == 12, ladder["games_played"]  # no more, no fewer
        assert ladder["run"]["games"] == 12 and ladder["run"]["done"] == 12
        for server in pair:
            assert server.stop() in (0, 130)
    with Store(db_url) as store:
        ratings = store.db.engine.connect()
        with ratings:
            numbers = ratings.execute(sa.text("SELECT number FROM ladder_games")).scalars().all()
        assert sorted(numbers) == list(range(12))


def test_a_server_stopping_cleanly_lets_its_runs_go_for_the_next(
    tmp_path: Path, snakes: SnakeServers
) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    with client(url) as first:
        tid = slow_cup(first, snakes)
        playing(first, tid)
    # Still running in the database, played by nobody: no lease to wait for.
    row = run_row(url, f"tournament:{tid}")
    assert row.state == "running" and row.server_id is None
    with client(url) as second:
        # Taken over as the server starts (the default lease is 30 s: not waited for).
        assert second.app.state.arena.is_running(f"tournament:{tid}")  # type: ignore[attr-defined]
        cup = second.get(f"/api/tournaments/{tid}").json()
        assert cup["running"] is True and cup["run"]["state"] == "running"
        second.post(f"/api/tournaments/{tid}/stop")
        poll(second, f"/api/tournaments/{tid}", lambda d: not d["running"])


def test_a_run_whose_lease_another_server_took_stops_here_and_leaves_the_row(
    tmp_path: Path, snakes: SnakeServers
) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    key = None
    with client(url, game_lease_s=1.5) as first:
        tid = slow_cup(first, snakes)
        key = f"tournament:{tid}"
        game = playing(first, tid)
        # This server's lease ran out (say, the database was unreachable) and another
        # took the run: this one stops playing it, and writes nothing more.
        until = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=600)
        with Store(url) as other, other.db.session() as session:
            session.execute(
                sa.text(
                    "UPDATE arena_runs SET server_id = 'another', lease_until = :until "
                    "WHERE key = :key"
                ),
                {"until": until, "key": key},
            )
        arena = first.app.state.arena  # type: ignore[attr-defined]
        wait_until("the run to stop here", lambda: not arena.is_running(key))
        progress = arena.progress(key)
        assert progress.state == "interrupted" and "another server" in progress.error
        assert first.get(f"/api/games/{game}").json()["status"] == "cancelled"
        # The other server's word stands: running, by it.
        row = run_row(url, key)
        assert (row.state, row.server_id) == ("running", "another")
        seen = first.get(f"/api/tournaments/{tid}").json()
        assert seen["running"] is True and seen["run"]["state"] == "running"


# -- stopping -------------------------------------------------------------------------------


def test_an_admin_stops_a_tournament_and_plays_it_on_later(
    tmp_path: Path, snakes: SnakeServers
) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    with client(url) as http:
        tid = slow_cup(http, snakes)
        path = f"/api/tournaments/{tid}"
        game = playing(http, tid)
        asked = http.post(f"{path}/stop")
        assert asked.status_code == 202, asked.text
        assert asked.json()["run"]["state"] in ("stopping", "stopped")
        stopped = poll(http, path, lambda d: not d["running"])
        assert stopped["run"]["state"] == "stopped" and stopped["run"]["error"] == ""
        # Its game in flight was cancelled, and not recorded.
        assert http.get(f"/api/games/{game}").json()["status"] == "cancelled"
        assert stopped["matches"][0]["games"] == [] and stopped["finished"] is False
        again = http.post(f"{path}/stop")
        assert again.status_code == 409 and "is not running" in again.json()["detail"]
    # A stopped tournament is not resumed when a server starts: it waits for its admin.
    with client(url) as http:
        assert not http.app.state.arena.is_running(f"tournament:{tid}")  # type: ignore[attr-defined]
        cup = http.get(f"/api/tournaments/{tid}").json()
        assert cup["running"] is False and cup["run"]["state"] == "stopped"
        assert http.post(f"/api/tournaments/{tid}/run").status_code == 202
        assert playing(http, tid) == game  # the same game, again from its start
        http.post(f"/api/tournaments/{tid}/stop")
        poll(http, f"/api/tournaments/{tid}", lambda d: not d["running"])


def test_a_stop_reaches_the_server_that_plays_the_run(tmp_path: Path, snakes: SnakeServers) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    # A lease long enough that the second server never takes the run over on a loaded
    # machine (the stop reaches the first when it renews, every third of it).
    with client(url, game_lease_s=4) as first, client(url, game_lease_s=4) as second:
        tid = slow_cup(first, snakes)
        path = f"/api/tournaments/{tid}"
        playing(first, tid)
        # The second server knows it runs (the database says so) without playing it.
        seen = second.get(path).json()
        assert seen["running"] is True and seen["run"]["state"] == "running"
        assert all(m["playing"] is None for m in seen["matches"])
        assert second.patch(path, json={"name": "x"}).status_code == 409
        assert second.delete(path).status_code == 409
        busy = second.post(f"{path}/run")
        assert busy.status_code == 409 and "another server" in busy.json()["detail"]
        asked = second.post(f"{path}/stop")
        assert asked.status_code == 202 and asked.json()["run"]["state"] == "stopping"
        stopped = poll(second, path, lambda d: d["run"]["state"] == "stopped")
        assert stopped["running"] is False
        arena = first.app.state.arena  # type: ignore[attr-defined]
        assert not arena.is_running(f"tournament:{tid}")
        assert first.get(path).json()["run"]["state"] == "stopped"


def test_an_admin_stops_a_ladder_run(tmp_path: Path, snakes: SnakeServers) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    slow = snakes.url("slow")
    with client(url) as http:
        http.post("/api/ladders", json={"name": "lad", "timeout": 2000, **BOARD})
        for name in ("a", "b"):
            http.post("/api/ladders/lad/snakes", json={"snake": slow, "name": name})
        assert http.post("/api/ladders/lad/stop").status_code == 409  # nothing runs
        assert http.post("/api/ladders/lad/run", json={"games": 3}).status_code == 202
        poll(http, "/api/games", lambda d: any(g["source"] == "ladder:lad" for g in d["live"]))
        asked = http.post("/api/ladders/lad/stop")
        assert asked.status_code == 202, asked.text
        stopped = poll(http, "/api/ladders/lad", lambda d: not d["running"])
        assert stopped["run"]["state"] == "stopped" and stopped["run"]["error"] == ""
        assert stopped["games_played"] == 0
        live = http.get("/api/games").json()["live"]
        assert not [g for g in live if g["source"] == "ladder:lad" and g["status"] == "running"]
    with client(url) as http:  # not resumed: stopped on purpose
        assert http.get("/api/ladders/lad").json()["run"]["state"] == "stopped"
        assert not http.app.state.arena.is_running("ladder:lad")  # type: ignore[attr-defined]


def test_a_run_nobody_plays_is_stopped_at_once_and_not_resumed(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    with Store(url) as store:
        run = TournamentRun.create(
            "cup",
            "single_elimination",
            [("builtin:random", f"s{i}") for i in range(4)],
            config=MatchConfig.create(None, BOARD),
            tid="cup",
        )
        store.tournaments.create(run)
        store.runs.ensure("tournament:cup", "tournament", "cup")  # its server died
    with client(url, resume_tournaments=False) as http:
        cup = http.get("/api/tournaments/cup").json()
        assert cup["running"] is False and cup["run"]["state"] == "interrupted"
        asked = http.post("/api/tournaments/cup/stop")
        assert asked.status_code == 202 and asked.json()["run"]["state"] == "stopped"
    with client(url) as http:
        assert not http.app.state.arena.is_running("tournament:cup")  # type: ignore[attr-defined]
        assert http.get("/api/tournaments/cup").json()["matches"][0]["games"] == []


def test_only_admins_stop_runs() -> None:
    with public_client() as admin:
        ann = make_user(admin.store, "ann")
        tid = admin.post(
            "/api/tournaments",
            json={"name": "t", "snakes": ["random", "greedy"], "start": False, **BOARD},
        ).json()["id"]
        admin.post("/api/ladders", json={"name": "lad", **BOARD})
        for path in (f"/api/tournaments/{tid}/stop", "/api/ladders/lad/stop"):
            assert admin.post(path, headers=ann).status_code == 403
            assert admin.post(path, headers={"Authorization": ""}).status_code == 401
            refused = admin.post(path)
            assert refused.status_code == 409 and "not running" in refused.json()["detail"]
        assert admin.post("/api/tournaments/nope/stop").status_code == 404
        assert admin.post("/api/ladders/nope/stop").status_code == 404


# -- H5: refused means not stored; a server always starts --------------------------------


def test_a_tournament_refused_for_a_full_arena_is_never_stored(
    tmp_path: Path, snakes: SnakeServers
) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    with client(url, max_queued_runs=1) as http:
        first = slow_cup(http, snakes)
        refused = http.post(
            "/api/tournaments", json={"name": "more", "snakes": ["random", "greedy"], **BOARD}
        )
        assert refused.status_code == 429, refused.text
        assert "the most this server takes" in refused.json()["detail"]
        assert [t["id"] for t in http.get("/api/tournaments").json()] == [first]
        # One made to start later is stored; starting it now is refused, and it stays
        # as it was (not started).
        later = http.post(
            "/api/tournaments",
            json={"name": "later", "snakes": ["random", "greedy"], "start": False, **BOARD},
        ).json()["id"]
        busy = http.post(f"/api/tournaments/{later}/run")
        assert busy.status_code == 429, busy.text
        assert http.get(f"/api/tournaments/{later}").json()["started"] is False
    with Store(url) as store:
        assert [tid for tid, _ in store.tournaments.list_all()] == [first, later]
    # After a crash (the first run left running), the server starts and plays it on.
    with client(url, max_queued_runs=1) as http:
        assert http.get(f"/api/tournaments/{first}").json()["running"] is True
        http.post(f"/api/tournaments/{first}/stop")
        poll(http, f"/api/tournaments/{first}", lambda d: not d["running"])


def broken_cup(store: Store, tid: str) -> None:
    """A started tournament whose stored games do not fit its bracket."""
    run = TournamentRun.create(
        tid,
        "single_elimination",
        [("builtin:random", f"s{i}") for i in range(4)],
        config=MatchConfig.create(None, BOARD),
        tid=tid,
    )
    store.tournaments.create(run)
    with store.db.session() as session:
        session.execute(
            sa.text(
                "INSERT INTO tournament_games (tournament_id, ordinal, match_id, number, "
                "game_id, seed, seats, placement, turns, played_at) VALUES (:t, 0, 'R9-9', 0, "
                '\'g\', 1, \'["s0", "s1"]\', \'[["s0"], ["s1"]]\', 3, :at)'
            ),
            {"t": tid, "at": dt.datetime.now(dt.UTC)},
        )


def test_a_server_always_starts_marking_what_it_cannot_play_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    with Store(url) as store:
        # Three tournaments a crash stopped (more than the arena takes at once), one
        # whose bracket cannot be loaded, and one of those with its run recorded.
        for tid in ("one", "two", "three"):
            store.tournaments.create(
                TournamentRun.create(
                    tid,
                    "single_elimination",
                    [("builtin:random", f"s{i}") for i in range(4)],
                    config=MatchConfig.create(None, BOARD),
                    tid=tid,
                )
            )
        broken_cup(store, "broken")
        broken_cup(store, "recorded")
        store.runs.ensure("tournament:recorded", "tournament", "recorded")
    with (
        caplog.at_level(logging.WARNING, logger="snakewar.server"),
        client(url, max_queued_runs=1, arena_workers=1, game_lease_s=1.5) as http,
    ):
        listed = {t["id"]: t for t in http.get("/api/tournaments").json()}
        assert set(listed) == {"one", "two", "three", "broken", "recorded"}
        assert "R9-9" in listed["broken"]["error"] and listed["broken"]["running"] is False
        # One at a time (the arena takes one run): the others wait for room, then play.
        for tid in ("one", "two", "three"):
            done = poll(
                http, f"/api/tournaments/{tid}", lambda d: d["finished"] and not d["running"]
            )
            assert done["run"]["state"] == "done"
        wait_until(
            "the recorded run to be marked",
            lambda: run_row(url, "tournament:recorded").state == "failed",
        )
        for tid in ("broken", "recorded"):
            assert f"tournament {tid!r} cannot be" in caplog.text
            row = run_row(url, f"tournament:{tid}")
            assert row.state == "failed" and "R9-9" in row.error, row
    with client(url) as http:  # and it starts again, with nothing left to play on
        assert http.get("/api/tournaments/one").json()["running"] is False
