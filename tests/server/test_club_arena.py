"""Ladders and tournaments run from the web: edit, start later, progress, live games.

A run's games are the server's live games (watchable while played), the API shows a
run's progress and why it stopped, a ladder's settings change between runs, and a
tournament made to start later waits for its admin (its name and entrants may change
until then), across server restarts too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from snakewar.arena.tournaments import FORMAT_TITLES, FORMATS
from snakewar.server import ServerConfig, create_app
from snakewar.server.schemas import TournamentFormat
from tests.games.battlesnake.referee.snake_servers import SnakeServers
from tests.server.accounts import BASE_URL, make_user, public_client

ANONYMOUS = {"Authorization": ""}
BOARD = {"width": 7, "height": 7}


def detail(response: httpx.Response) -> str:
    return str(response.json()["detail"])


def field(response: httpx.Response) -> str:
    return str(response.json()["detail"][0]["loc"][-1])


def wait_for(
    client: TestClient, path: str, done: Callable[[dict[str, Any]], bool], timeout: float = 120
) -> dict[str, Any]:
    """GET ``path`` until ``done`` says so (generous: the suite may run on a loaded machine)."""
    deadline = time.monotonic() + timeout
    while True:
        data: dict[str, Any] = client.get(path).json()
        if done(data):
            return data
        assert time.monotonic() < deadline, data
        time.sleep(0.05)


def cancel_until_stopped(client: TestClient, path: str, timeout: float = 120) -> dict[str, Any]:
    """Cancel every live game until the run at ``path`` stops; its last answer.

    A round's games start one by one: cancelling once could miss the latest.
    """
    deadline = time.monotonic() + timeout
    while (data := client.get(path).json())["running"]:
        assert time.monotonic() < deadline, data
        for game in client.get("/api/games").json()["live"]:
            client.post(f"/api/games/{game['id']}/cancel")
        time.sleep(0.05)
    result: dict[str, Any] = data
    return result


@pytest.fixture
def local(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(ServerConfig(database_url=f"sqlite:///{tmp_path / 'games.db'}"))
    with TestClient(app, base_url=BASE_URL, raise_server_exceptions=False) as client:
        yield client


@pytest.fixture(scope="module")
def servers() -> Iterator[SnakeServers]:
    with SnakeServers() as running:
        yield running


# -- ladders ------------------------------------------------------------------------------


def test_an_admin_changes_a_ladders_settings_for_its_future_games() -> None:
    with public_client() as admin:
        made = admin.post("/api/ladders", json={"name": "lad", **BOARD, "timeout": 300})
        assert made.status_code == 201, made.text
        changed = admin.patch(
            "/api/ladders/lad",
            json={"timeout": 700, "max_turns": 50, "params": {"foodSpawnChance": 40}},
        )
        assert changed.status_code == 200, changed.text
        config = changed.json()["config"]
        assert config["timeout_ms"] == 700 and config["max_turns"] == 50
        # Given parameters change; the others keep their values.
        assert config["params"]["foodSpawnChance"] == 40
        assert (config["params"]["width"], config["params"]["height"]) == (7, 7)
        assert admin.get("/api/ladders/lad").json()["config"] == config
        # Left out: unchanged; null: the game's own timeout, the server's longest game.
        kept = admin.patch("/api/ladders/lad", json={"params": {"minimumFood": 2}}).json()
        assert kept["config"]["timeout_ms"] == 700 and kept["config"]["max_turns"] == 50
        reset = admin.patch("/api/ladders/lad", json={"timeout": None, "max_turns": None}).json()
        assert reset["config"]["timeout_ms"] is None
        assert reset["config"]["max_turns"] == ServerConfig().max_turns
        assert reset["config"]["params"]["minimumFood"] == 2


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"timeout": 0}, "timeout"),
        ({"timeout": "soon"}, "timeout"),
        ({"max_turns": -1}, "max_turns"),
        ({"maxTurns": 0}, "maxTurns"),
        ({"maxTurns": 5, "max_turns": 5}, "maxTurns"),
        ({"params": {"foodSpawnChance": 500}}, "foodSpawnChance"),
        ({"params": {"nonsense": 1}}, "nonsense"),
        ({"game": "halite3"}, "game"),
        ({"game_size": 4}, "game_size"),
    ],
)
def test_a_bad_ladder_change_is_a_422_naming_the_field(body: dict[str, Any], named: str) -> None:
    with public_client() as admin:
        admin.post("/api/ladders", json={"name": "lad", **BOARD})
        before = admin.get("/api/ladders/lad").json()["config"]
        refused = admin.patch("/api/ladders/lad", json=body)
        assert refused.status_code == 422, refused.text
        assert named in str(refused.json()["detail"]), refused.text
        assert admin.get("/api/ladders/lad").json()["config"] == before


@pytest.mark.parametrize("spelling", ["maxTurns", "max_turns"])
def test_ladders_and_tournaments_take_maxturns_as_games_do(spelling: str) -> None:
    # The probe: a tournament took max_turns where a game takes maxTurns (and refused
    # maxTurns as an unknown game parameter).  maxTurns is the spelling everywhere;
    # max_turns still works.
    with public_client() as admin:
        ladder = admin.post("/api/ladders", json={"name": "lad", **BOARD, spelling: 40})
        assert ladder.status_code == 201, ladder.text
        assert ladder.json()["config"]["max_turns"] == 40
        changed = admin.patch("/api/ladders/lad", json={spelling: 30})
        assert changed.status_code == 200, changed.text
        assert changed.json()["config"]["max_turns"] == 30
        cup = admin.post(
            "/api/tournaments",
            json={"name": "Cup", "snakes": ["random", "greedy"], "start": False, **BOARD,
                  spelling: 20},
        )  # fmt: skip
        assert cup.status_code == 201, cup.text
        assert cup.json()["config"]["max_turns"] == 20
        game = admin.post("/api/games", json={"snakes": ["random"], **BOARD, spelling: 3})
        assert game.status_code == 201, game.text
        ended = wait_for(admin, f"/api/games/{game.json()['id']}", lambda g: g["turn"] >= 3)
        assert ended["params"]["width"] == 7 and ended["turn"] == 3
        # Both spellings at once: which one was meant is unclear, so neither is taken.
        both = admin.post(
            "/api/tournaments",
            json={"name": "Two", "snakes": ["random", "greedy"], "maxTurns": 5, "max_turns": 6},
        )
        assert both.status_code == 422 and "maxTurns" in str(both.json()["detail"]), both.text
        # The API's schema documents one spelling.
        schemas = admin.get("/openapi.json").json()["components"]["schemas"]
        for name in ("CreateGame", "CreateLadder", "UpdateLadder", "CreateTournament"):
            assert "maxTurns" in schemas[name]["properties"], name
            assert "max_turns" not in schemas[name]["properties"], name


def test_ladder_changes_meet_the_servers_caps_and_are_for_admins() -> None:
    with public_client() as admin:
        admin.post("/api/ladders", json={"name": "lad", **BOARD})
        big = admin.patch("/api/ladders/lad", json={"params": {"width": 30, "height": 30}})
        assert big.status_code == 422 and "larger than this server's 25" in detail(big)
        slow = admin.patch("/api/ladders/lad", json={"timeout": 60_000})
        assert slow.status_code == 422 and "timeout" in detail(slow)
        ann = make_user(admin.store, "ann")
        member = admin.patch("/api/ladders/lad", json={"timeout": 100}, headers=ann)
        assert member.status_code == 403
        anonymous = admin.patch("/api/ladders/lad", json={"timeout": 100}, headers=ANONYMOUS)
        assert anonymous.status_code == 401
        missing = admin.patch("/api/ladders/nowhere", json={"timeout": 100})
        assert missing.status_code == 404 and "nowhere" in detail(missing)
        # A member cannot create ladders either.
        assert admin.post("/api/ladders", json={"name": "x"}, headers=ann).status_code == 403


def test_a_ladder_run_shows_its_progress_and_plays_live_games(
    local: TestClient, servers: SnakeServers
) -> None:
    # Slow snakes (0.4 s a move) on a big board keep the run going while the test looks.
    slow = servers.url("slow")
    local.post("/api/ladders", json={"name": "live", "timeout": 2000})
    for name in ("a", "b"):
        joined = local.post("/api/ladders/live/snakes", json={"snake": slow, "name": name})
        assert joined.status_code == 201, joined.text
    assert local.get("/api/ladders/live").json()["run"] is None
    assert local.post("/api/ladders/live/run", json={"games": 3}).status_code == 202
    running = local.get("/api/ladders/live").json()
    assert running["running"] is True
    assert running["run"] == {
        "games": 3,
        "done": 0,
        "running": True,
        "error": "",
        "state": "running",
    }
    # Its games are the server's live games: listed, and watched like any game.
    live = wait_for(
        local, "/api/games", lambda d: any(g["source"] == "ladder:live" for g in d["live"])
    )["live"]
    game = next(g for g in live if g["source"] == "ladder:live")
    assert local.get(game["viewer"]).status_code == 200
    assert local.get(f"/games/{game['id']}").json()["Game"]["Status"] == "running"
    # Nothing changes under a run.
    busy = local.patch("/api/ladders/live", json={"timeout": 100})
    assert busy.status_code == 409 and "running" in detail(busy)
    # A round whose games are all cancelled fails: the run stops and says why.
    stopped = cancel_until_stopped(local, "/api/ladders/live")
    assert stopped["run"]["running"] is False and stopped["run"]["done"] < 3
    assert "no game of the round could be played" in stopped["run"]["error"]
    assert local.patch("/api/ladders/live", json={"timeout": 1500}).status_code == 200


def test_a_finished_ladder_run_counts_every_game(local: TestClient) -> None:
    local.post("/api/ladders", json={"name": "quick", **BOARD})
    for snake in ("random", "greedy"):
        local.post("/api/ladders/quick/snakes", json={"snake": snake})
    assert local.post("/api/ladders/quick/run", json={"games": 5}).status_code == 202
    done = wait_for(local, "/api/ladders/quick", lambda d: not d["running"])
    assert done["run"] == {"games": 5, "done": 5, "running": False, "error": "", "state": "done"}
    assert done["games_played"] == 5
    for game in done["recent_games"]:
        stored = local.get(f"/api/games/{game['game_id']}").json()
        assert stored["status"] == "complete" and stored["source"] == "ladder:quick"
    # A deleted ladder forgets its runs: a new one of that name starts afresh.
    assert local.delete("/api/ladders/quick").status_code == 204
    local.post("/api/ladders", json={"name": "quick", **BOARD})
    assert local.get("/api/ladders/quick").json()["run"] is None


# -- tournaments --------------------------------------------------------------------------


def test_the_formats_have_names_for_people() -> None:
    assert set(FORMAT_TITLES) == set(FORMATS) == {f.value for f in TournamentFormat}
    assert FORMAT_TITLES["single_elimination"] == "Single elimination"


def test_a_tournament_made_to_start_later_is_edited_then_started(local: TestClient) -> None:
    made = local.post(
        "/api/tournaments",
        json={
            "name": "Cup",
            "format": "round_robin",
            "snakes": ["random", "greedy", "random"],
            "start": False,
            **BOARD,
        },
    )
    assert made.status_code == 201, made.text
    cup = made.json()
    tid = cup["id"]
    assert cup["started"] is False and cup["running"] is False and cup["run"] is None
    assert cup["format_title"] == "Round robin"
    assert [s["name"] for s in cup["snakes"]] == ["random", "greedy", "random-2"]
    (listed,) = local.get("/api/tournaments").json()
    assert listed == {
        "id": tid,
        "name": "Cup",
        "page": f"/tournaments/{tid}",
        "running": False,
        "game": "battlesnake",
        "format": "round_robin",
        "format_title": "Round robin",
        "entrants": 3,
        "started": False,
        "finished": False,
        "champion": None,
        "error": "",
        "phase": "upcoming",
        "registration": "closed",
        "registration_open": False,
        "registration_closes_at": None,
        "starts_at": None,
    }
    time.sleep(0.2)  # nothing plays it meanwhile
    assert local.get(f"/api/tournaments/{tid}").json()["matches"][0]["games"] == []

    edited = local.patch(
        f"/api/tournaments/{tid}",
        json={"name": "Spring cup", "remove": ["random-2"], "add": ["hunter?depth=1"]},
    )
    assert edited.status_code == 200, edited.text
    cup = edited.json()
    assert cup["name"] == "Spring cup" and cup["started"] is False
    assert [s["name"] for s in cup["snakes"]] == ["random", "greedy", "hunter"]
    assert len(cup["matches"]) == 3  # a round robin of three: three matches
    assert local.get(f"/api/tournaments/{tid}").json()["snakes"] == cup["snakes"]

    started = local.post(f"/api/tournaments/{tid}/run")
    assert started.status_code == 202, started.text
    assert started.json()["started"] is True and started.json()["running"] is True
    done = wait_for(local, f"/api/tournaments/{tid}", lambda d: d["finished"] and not d["running"])
    played = sum(len(m["games"]) for m in done["matches"])
    assert done["run"] == {
        "games": None,
        "done": played,
        "running": False,
        "error": "",
        "state": "done",
    }
    assert done["champion"] == done["standings"][0]["entrant"]
    assert all(m["playing"] is None for m in done["matches"])
    # Started, it is what it is: no edits, and a finished one has nothing to play.
    fixed = local.patch(f"/api/tournaments/{tid}", json={"name": "Late"})
    assert fixed.status_code == 409 and "has started" in detail(fixed)
    over = local.post(f"/api/tournaments/{tid}/run")
    assert over.status_code == 400 and "finished" in detail(over)
    (listed,) = local.get("/api/tournaments").json()
    assert listed["finished"] is True and listed["champion"] == done["champion"]


def test_bad_tournament_edits_name_what_is_wrong(local: TestClient) -> None:
    tid = local.post(
        "/api/tournaments",
        json={"name": "t", "snakes": ["random", "greedy"], "start": False, **BOARD},
    ).json()["id"]
    path = f"/api/tournaments/{tid}"
    unknown = local.patch(path, json={"remove": ["nobody"]})
    assert unknown.status_code == 400 and "remove[0]" in detail(unknown)
    too_many = local.patch(path, json={"max_entrants": 1})
    assert too_many.status_code == 422 and field(too_many) == "max_entrants"
    few = local.patch(path, json={"max_entrants": 2})
    assert few.status_code == 200 and few.json()["registration"]["max_entrants"] == 2
    over_cap = local.patch(path, json={"add": ["builtin:hunter"]})
    assert over_cap.status_code == 422 and "max_entrants: 2" in detail(over_cap)
    bad_name = local.patch(path, json={"name": ""})
    assert bad_name.status_code == 422 and field(bad_name) == "name"
    extra = local.patch(path, json={"format": "swiss"})
    assert extra.status_code == 422 and field(extra) == "format"
    names = local.patch(path, json={"add_names": ["x"]})
    assert names.status_code == 422 and "add_names" in detail(names)
    bot = local.patch(path, json={"add": ["builtin:nobody"]})
    assert bot.status_code == 400 and "nobody" in detail(bot)
    assert local.patch("/api/tournaments/nope", json={"name": "x"}).status_code == 404
    # Nothing changed.
    assert [s["name"] for s in local.get(path).json()["snakes"]] == ["random", "greedy"]


def test_a_bad_format_is_a_422_naming_it(local: TestClient) -> None:
    bad = local.post(
        "/api/tournaments", json={"name": "t", "format": "knockout", "snakes": ["random"] * 2}
    )
    assert bad.status_code == 422 and field(bad) == "format"


def test_a_tournament_not_started_waits_across_restarts(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    body = {"name": "later", "snakes": ["random", "greedy"], "start": False, **BOARD}
    with TestClient(create_app(ServerConfig(database_url=url)), base_url=BASE_URL) as client:
        tid = client.post("/api/tournaments", json=body).json()["id"]
    # A restart plays on the tournaments a crash stopped, not those nobody started.
    with TestClient(create_app(ServerConfig(database_url=url)), base_url=BASE_URL) as client:
        cup = client.get(f"/api/tournaments/{tid}").json()
        assert cup["started"] is False and cup["running"] is False
        assert client.post(f"/api/tournaments/{tid}/run").status_code == 202
        wait_for(client, f"/api/tournaments/{tid}", lambda d: d["finished"] and not d["running"])


def test_tournaments_are_made_edited_and_started_by_admins_only() -> None:
    with public_client() as admin:
        ann = make_user(admin.store, "ann")
        body = {"name": "t", "snakes": ["builtin:random", "builtin:greedy"], "start": False}
        for headers, status in ((ann, 403), (ANONYMOUS, 401)):
            assert admin.post("/api/tournaments", json=body, headers=headers).status_code == status
        tid = admin.post("/api/tournaments", json={**body, **BOARD}).json()["id"]
        for method, path, payload in (
            ("PATCH", f"/api/tournaments/{tid}", {"name": "mine"}),
            ("POST", f"/api/tournaments/{tid}/run", None),
            ("DELETE", f"/api/tournaments/{tid}", None),
        ):
            for headers, status in ((ann, 403), (ANONYMOUS, 401)):
                response = admin.request(method, path, json=payload, headers=headers)
                assert response.status_code == status, (method, path, response.text)
        cup = admin.get(f"/api/tournaments/{tid}").json()
        assert cup["name"] == "t" and cup["started"] is False
        # On a public server entrants added later are built-ins and registered snakes too.
        raw = admin.patch(f"/api/tournaments/{tid}", json={"add": ["http://8.8.8.8/"]})
        assert raw.status_code == 403 and "register" in detail(raw)


def test_a_tournament_links_its_live_game_and_a_stopped_run_goes_on(
    local: TestClient, servers: SnakeServers
) -> None:
    slow = servers.url("slow")
    made = local.post(
        "/api/tournaments",
        json={"name": "slow", "snakes": [slow, slow], "timeout": 2000, **BOARD},
    )
    assert made.status_code == 201, made.text
    tid = made.json()["id"]
    path = f"/api/tournaments/{tid}"
    (final,) = wait_for(local, path, lambda d: any(m["playing"] for m in d["matches"]))["matches"]
    live = final["playing"]
    assert local.get(live["viewer"]).status_code == 200
    game = local.get(f"/api/games/{live['game_id']}").json()
    assert game["status"] == "running" and game["source"] == f"tournament:{tid}"
    # Watched live from memory; stored once, whole, if it ends (a transaction a game).
    stored = local.app.state.store.store  # type: ignore[attr-defined]
    assert stored.games.get(live["game_id"]) is None
    # Its game cancelled, the run stops and says why; the match waits for its game.
    assert local.post(f"/api/games/{live['game_id']}/cancel").status_code == 200
    stopped = wait_for(local, path, lambda d: not d["running"])
    assert "could not be played" in stopped["run"]["error"]
    assert stopped["matches"][0]["games"] == [] and stopped["matches"][0]["playing"] is None
    # Played on, the same game is played again from its start, under the same id.
    assert local.post(f"{path}/run").status_code == 202
    again = wait_for(local, path, lambda d: any(m["playing"] for m in d["matches"]))
    assert again["matches"][0]["playing"] == live
    assert again["run"]["error"] == ""
    replayed = local.get(f"/api/games/{live['game_id']}").json()
    assert replayed["status"] == "running"
    assert stored.games.get(live["game_id"]) is None  # the cancelled try was never stored
    local.post(f"/api/games/{live['game_id']}/cancel")
    wait_for(local, path, lambda d: not d["running"])


def test_members_join_and_leave_ladders_with_their_own_snakes() -> None:
    with public_client() as admin:
        ann, bob = make_user(admin.store, "ann"), make_user(admin.store, "bob")
        admin.post("/api/ladders", json={"name": "club", **BOARD})
        for user in (ann, bob):
            made = admin.post(
                "/api/snakes", json={"name": "viper", "url": "http://8.8.8.8/"}, headers=user
            )
            assert made.status_code == 201, made.text
        joined = admin.post("/api/ladders/club/snakes", json={"snake": "@ann/viper"}, headers=ann)
        assert joined.status_code == 201, joined.text
        assert [s["snake"] for s in joined.json()["standings"]] == ["@ann/viper"]
        # Its entry is named after the snake: a user cannot pick another name.
        renamed = admin.post(
            "/api/ladders/club/snakes",
            json={"snake": "@bob/viper", "name": "ann/other"},
            headers=bob,
        )
        assert renamed.status_code == 403 and "name" in detail(renamed)
        admin.post("/api/ladders/club/snakes", json={"snake": "@bob/viper"}, headers=bob)
        # The entry's slash is part of the path, encoded or not.
        for path in (
            "/api/ladders/club/snakes/%40ann%2Fviper",
            "/api/ladders/club/snakes/@ann/viper",
        ):
            refused = admin.delete(path, headers=bob)
            assert refused.status_code == 403 and "not yours" in detail(refused)
            assert admin.delete(path, headers=ANONYMOUS).status_code == 401
        gone = admin.delete("/api/ladders/club/snakes/%40ann%2Fviper", headers=ann)
        assert gone.status_code == 204
        gone = admin.delete("/api/ladders/club/snakes/@ann/viper", headers=ann)
        assert gone.status_code == 404 and "@ann/viper" in detail(gone)
        # An admin may take anyone off.
        assert admin.delete("/api/ladders/club/snakes/@bob/viper").status_code == 204
        assert admin.get("/api/ladders/club").json()["standings"] == []
