"""The web server: REST API, engine API and live websockets (ASGI and real HTTP)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from snakewar.server import RateLimiter, ServerConfig, check_public_url, create_app
from snakewar.server.safety import ForbiddenSnakeError
from tests.asgi_server import free_port, serve
from tests.server.accounts import make_user, public_client
from tests.waiting import wait_finished

GAME = {"snakes": ["builtin:random", "builtin:random"], "seed": 7, "width": 7, "height": 7}


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(
        create_app(ServerConfig(database_url="memory")), base_url="http://localhost"
    ) as test_client:
        yield test_client


def read_until_game_end(ws: Any, most: int = 5000) -> list[dict[str, Any]]:
    """Every message up to and including ``game_end``; a stream that never ends fails."""
    messages: list[dict[str, Any]] = []
    for _ in range(most):
        message = ws.receive_json()
        messages.append(message)
        if message["Type"] == "game_end":
            return messages
    raise AssertionError(f"no game_end in {most} messages")


def test_create_watch_and_list_a_game(client: TestClient) -> None:
    created = client.post("/api/games", json=GAME)
    assert created.status_code == 201, created.text
    game = created.json()
    assert game["status"] in ("running", "complete") and game["seed"] == "7"
    assert game["game"] == "battlesnake" and game["viewer"] == f"/view/{game['id']}"
    assert [s["name"] for s in game["entrants"]] == ["random", "random-2"]
    finished = wait_finished(client, game["id"])
    assert finished["status"] == "complete"
    info = client.get(f"/games/{game['id']}").json()
    assert info["Game"]["ID"] == game["id"] and info["Game"]["Width"] == 7
    assert info["LastFrame"]["Turn"] == finished["turn"]
    page = client.get(f"/games/{game['id']}/frames", params={"offset": 2, "limit": 3}).json()
    assert page["Count"] == finished["turn"] + 1
    assert [f["Turn"] for f in page["Frames"]] == [2, 3, 4]
    snake = page["Frames"][0]["Snakes"][0]
    engine_keys = "ID Name Body Health Death Color HeadType TailType Latency Shout Author"
    assert set(snake) >= {*engine_keys.split(), "StatusCode", "Error"}
    listed = client.get("/api/games").json()
    assert [g["id"] for g in listed["games"]] == [game["id"]] and listed["live"] == []


def test_many_spectators_get_every_frame_then_game_end(client: TestClient) -> None:
    game = client.post("/api/games", json={**GAME, "timeout": 500}).json()
    streams = []
    for _ in range(3):
        with client.websocket_connect(f"ws://localhost/games/{game['id']}/events") as ws:
            streams.append(read_until_game_end(ws))
    turns = [[m["Data"]["Turn"] for m in s if m["Type"] == "frame"] for s in streams]
    assert turns[0] == list(range(len(turns[0]))) and len(turns[0]) > 2
    assert turns[0] == turns[1] == turns[2]
    assert streams[0][-1]["Data"]["Status"] == "complete"


def test_validation_errors_name_the_field(client: TestClient) -> None:
    bad = client.post("/api/games", json={"snakes": ["random"], "width": "wide"})
    assert bad.status_code == 422
    assert any(d["loc"][-1] == "width" for d in bad.json()["detail"])
    unknown = client.post("/api/games", json={"snakes": ["random"], "colour": "red"})
    assert unknown.status_code == 422 and unknown.json()["detail"][0]["loc"][-1] == "colour"
    too_big = client.post("/api/games", json={"snakes": ["random"], "width": 40})
    assert too_big.status_code == 422 and "width: 40" in too_big.json()["detail"]
    no_bot = client.post("/api/games", json={"snakes": ["builtin:nobody"]})
    assert no_bot.status_code == 400 and "nobody" in no_bot.json()["detail"]
    bad_map = client.post("/api/games", json={"snakes": ["random"], "map": "arcade_maze"})
    assert bad_map.status_code == 400 and "19x21" in bad_map.json()["detail"]
    assert client.get("/games/nope").status_code == 404


BIG_SEED = 2618439174457646105  # above 2**53: a JavaScript number rounds it to ...6000


@pytest.mark.parametrize("sent", [BIG_SEED, str(BIG_SEED)], ids=["int", "string"])
def test_seeds_travel_exactly_as_strings(client: TestClient, sent: int | str) -> None:
    created = client.post("/api/games", json={**GAME, "seed": sent})
    assert created.status_code == 201, created.text
    game = created.json()
    assert game["seed"] == str(BIG_SEED)
    assert client.get(f"/api/games/{game['id']}").json()["seed"] == str(BIG_SEED)
    wait_finished(client, game["id"])
    listed = client.get("/api/games").json()["games"]
    assert [g["seed"] for g in listed] == [str(BIG_SEED)]
    # The engine API keeps the official board's number and adds the exact string.
    info = client.get(f"/games/{game['id']}").json()["Game"]
    assert info["Seed"] == BIG_SEED and info["SeedString"] == str(BIG_SEED)


@pytest.mark.parametrize(
    "seed",
    [
        pytest.param("9223372036854775808", id="over-int64"),
        pytest.param(-(2**63) - 1, id="under-int64"),
        pytest.param("12x", id="not-digits"),
        pytest.param(" 12", id="space"),
        pytest.param("1e5", id="exponent"),
        pytest.param(5.5, id="float"),
        pytest.param(True, id="bool"),
        pytest.param([], id="list"),
    ],
)
def test_a_bad_seed_is_a_422_naming_the_field(client: TestClient, seed: Any) -> None:
    response = client.post("/api/games", json={**GAME, "seed": seed})
    assert response.status_code == 422
    assert [d["loc"] for d in response.json()["detail"]] == [["body", "seed"]]


def test_the_extreme_seeds_are_accepted(client: TestClient) -> None:
    for seed in (str(-(2**63)), 2**63 - 1, "0"):
        created = client.post("/api/games", json={**GAME, "seed": seed})
        assert created.status_code == 201, created.text
        assert created.json()["seed"] == str(int(seed))


def test_cancel_and_rematch(client: TestClient) -> None:
    slow = {**GAME, "snakes": ["builtin:random"] * 2, "width": 11, "height": 11}
    game = client.post("/api/games", json=slow).json()
    cancelled = client.post(f"/api/games/{game['id']}/cancel")
    assert cancelled.status_code in (200, 409)
    if cancelled.status_code == 200:
        assert cancelled.json()["status"] == "cancelled"
    again = client.post(f"/api/games/{game['id']}/rematch")
    assert again.status_code == 201
    assert again.json()["id"] != game["id"] and again.json()["params"]["ruleset"] == "standard"


def test_openapi_describes_the_api(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    for path in ("/api/games", "/api/games/{game_id}", "/api/games/{game_id}/cancel",
                 "/api/games/{game_id}/rematch", "/api/games/{game_id}/replay",
                 "/games/{game_id}", "/games/{game_id}/frames"):  # fmt: skip
        assert path in spec["paths"], path


def test_openapi_has_a_response_schema_for_every_route(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    operations = [(m, p, op) for p, ops in spec["paths"].items() for m, op in ops.items()]
    assert len(operations) >= 25
    for method, path, op in operations:
        success = [r for code, r in op["responses"].items() if code.startswith("2")]
        assert success, (method, path)
        for response in success:
            if response.get("description") == "No Content":
                continue
            content = response.get("content", {})
            assert content, (method, path, "no media type")
            for media_type, body in content.items():
                # A JSON answer names its model; a file names its media type as binary.
                schema = body.get("schema", {})
                assert schema, (method, path, media_type)
                if media_type != "application/json":
                    assert schema == {"type": "string", "format": "binary"}, (method, path)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000",
        "http://localhost:8000",
        "http://10.1.2.3/",
        "http://192.168.0.10/",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]:8000/",
        "http://[::ffff:127.0.0.1]/",
        "http://100.100.100.200/",
    ],
)
def test_public_mode_refuses_private_addresses(url: str) -> None:
    with pytest.raises(ForbiddenSnakeError, match="address"):
        asyncio.run(check_public_url(url))
    with public_client() as admin:
        # An admin may name a snake by URL in a game, but not a private address...
        response = admin.post("/api/games", json={"snakes": [url, "random"]})
        assert response.status_code == 403 and "public server" in response.json()["detail"]
        # ...and nobody may register one.
        response = admin.post("/api/snakes", json={"name": "s", "url": url})
        assert response.status_code == 403 and "public server" in response.json()["detail"]
        assert admin.get("/api/snakes").json() == []


def test_public_mode_allows_public_addresses() -> None:
    asyncio.run(check_public_url("http://8.8.8.8/"))


def test_rate_limit_per_client() -> None:
    limiter = RateLimiter(per_minute=60, burst=3)
    assert [limiter.allow("a", now=0.0) for _ in range(4)] == [True, True, True, False]
    assert limiter.allow("b", now=0.0)
    assert limiter.allow("a", now=1.0)  # one token back after a second at 60/min
    assert not limiter.allow("a", now=1.0)


def test_public_mode_rate_limits_game_creation() -> None:
    # Her games may all be live at once, each with its built-in bot's worker: the caps on
    # a user's live games and workers are not tested here (tests/server/test_fairness.py).
    with public_client(
        as_user="ann",
        admin=False,
        games_per_minute=1,
        games_per_user=20,
        builtin_workers=20,
        builtin_workers_per_user=20,
    ) as client:
        # Refused requests do not use up the rate: only games that start count.
        for _ in range(5):
            bad = client.post("/api/games", json={**GAME, "snakes": ["nosuchbot"]})
            assert bad.status_code == 400, bad.text
        codes = [
            client.post("/api/games", json={**GAME, "snakes": ["random"]}).status_code
            for _ in range(12)
        ]
        assert codes[:10] == [201] * 10 and codes[10:] == [429, 429]
        # The rate is the user's, not the address's: another user has their own.
        other = make_user(client.store, "bob")
        again = client.post("/api/games", json={**GAME, "snakes": ["random"]}, headers=other)
        assert again.status_code == 201


def test_over_real_http_with_a_websocket() -> None:
    with serve(create_app(ServerConfig(database_url="memory"))) as base:
        port = base.rsplit(":", 1)[1]
        # Spectators connect before the game starts moving: hunter thinks ~250 ms a turn.
        game = httpx.post(
            f"{base}/api/games",
            json={**GAME, "snakes": ["hunter", "random"], "maxTurns": 12},
            timeout=60,
        ).json()

        async def watch() -> list[int]:
            import json

            from websockets.asyncio.client import connect as ws_connect

            turns = []
            async with ws_connect(f"ws://127.0.0.1:{port}/games/{game['id']}/events") as ws:
                async for raw in ws:
                    message = json.loads(raw)
                    if message["Type"] == "game_end":
                        break
                    turns.append(message["Data"]["Turn"])
            return turns

        async def watch_all() -> list[list[int]]:
            return list(await asyncio.gather(*(watch() for _ in range(6))))

        streams = asyncio.run(watch_all())
        for turns in streams:
            assert turns == list(range(len(turns))) and len(turns) > 2
        assert len({len(t) for t in streams}) == 1
        assert (
            httpx.get(f"{base}/games/{game['id']}", timeout=60).json()["Game"]["Status"]
            == "complete"
        )


# -- with storage ---------------------------------------------------------------------


def test_stored_games_survive_the_server(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    with TestClient(
        create_app(ServerConfig(database_url=url)), base_url="http://localhost"
    ) as first:
        game = first.post("/api/games", json=GAME).json()
        finished = wait_finished(first, game["id"])
    # A new server process on the same database serves the finished game.
    with TestClient(
        create_app(ServerConfig(database_url=url)), base_url="http://localhost"
    ) as second:
        listed = second.get("/api/games").json()
        assert [g["id"] for g in listed["games"]] == [game["id"]]
        assert listed["games"][0]["status"] == "complete"
        info = second.get(f"/games/{game['id']}").json()
        assert info["Game"]["Status"] == "complete" and info["Game"]["Seed"] == 7
        assert info["Game"]["SeedString"] == "7"
        assert info["LastFrame"]["Turn"] == finished["turn"]
        frames = second.get(f"/games/{game['id']}/frames", params={"limit": 1000}).json()
        assert frames["Count"] == finished["turn"] + 1
        with second.websocket_connect(f"ws://localhost/games/{game['id']}/events") as ws:
            kinds = [m["Type"] for m in read_until_game_end(ws)]
        assert kinds.count("frame") == finished["turn"] + 1
        replay = second.get(f"/api/games/{game['id']}/replay")
        assert replay.status_code == 200
        # A rematch of a game from an earlier server process: same snakes and settings.
        again = second.post(f"/api/games/{game['id']}/rematch")
        assert again.status_code == 201, again.text
        assert [s["name"] for s in again.json()["entrants"]] == ["random", "random-2"]
        assert again.json()["width"] == 7 and again.json()["seed"] != "7"

    from snakewar.games.battlesnake.replay.format import read_replay
    from snakewar.games.battlesnake.replay.verify import verify_replay

    record = read_replay(replay.text.splitlines())
    assert verify_replay(record).ok and record.id == game["id"]


@pytest.mark.slow
def test_a_killed_server_leaves_its_running_game_aborted_with_frames(tmp_path: Any) -> None:
    import os
    import signal
    import subprocess
    import sys

    db = tmp_path / "games.db"
    port = free_port()
    env = {**os.environ, "SNAKEWAR_DATABASE_URL": f"sqlite:///{db}"}
    server = subprocess.Popen(
        [sys.executable, "-m", "snakewar", "serve", "--port", str(port), "--game-lease", "2"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120  # an interpreter starts slowly on a busy machine
        while True:
            try:
                httpx.get(base + "/api/bots", timeout=60)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, "no server"
                time.sleep(0.05)
        # The hunter thinks ~250 ms a turn: the game is still running when the server dies.
        game = httpx.post(
            base + "/api/games", json={"snakes": ["hunter", "hunter"], "seed": 3}, timeout=30
        ).json()
        deadline = time.monotonic() + 60
        while httpx.get(f"{base}/api/games/{game['id']}", timeout=60).json()["turn"] < 3:
            assert time.monotonic() < deadline, "the game did not reach turn 3 in a minute"
            time.sleep(0.1)
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(10)
    with TestClient(
        create_app(ServerConfig(database_url=f"sqlite:///{db}")), base_url="http://localhost"
    ) as client:
        # Its lease (2 s) runs out: the next server's sweep aborts it.
        stored = wait_finished(client, game["id"])
        assert stored["status"] == "aborted"
        frames = client.get(f"/games/{game['id']}/frames").json()
        assert frames["Count"] >= 4
        assert [f["Turn"] for f in frames["Frames"]] == list(range(frames["Count"]))
        assert client.get(f"/games/{game['id']}").json()["Game"]["Status"] == "aborted"


def test_local_mode_plays_loopback_snakes() -> None:
    from tests.games.battlesnake.referee.snake_servers import SnakeServers

    with (
        SnakeServers() as servers,
        TestClient(
            create_app(ServerConfig(database_url="memory")), base_url="http://localhost"
        ) as client,
    ):
        game = client.post(
            "/api/games", json={**GAME, "snakes": [servers.url("good"), "random"]}
        ).json()
        finished = wait_finished(client, game["id"])
        assert finished["status"] == "complete"
        assert servers.bodies("good", "move")


def test_play_browser_runs_the_game_on_a_local_server(tmp_path: Any) -> None:
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "SNAKEWAR_DATABASE_URL": f"sqlite:///{tmp_path / 'games.db'}",
        "BROWSER": "true",  # webbrowser runs `true URL`: nothing opens
    }
    play = [sys.executable, "-m", "snakewar", "play", "random", "random", "-r", "4"]
    out = subprocess.run(
        [*play, "--browser", "--exit-at-end"],
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "watching at http://127.0.0.1:" in out.stderr
    assert "Game completed after" in out.stdout and "Seed 4" in out.stdout
    # The game is stored: a server on the same database lists it.
    with TestClient(
        create_app(ServerConfig(database_url=env["SNAKEWAR_DATABASE_URL"])),
        base_url="http://localhost",
    ) as client:
        assert client.get("/api/games").json()["games"][0]["status"] == "complete"


def test_concurrent_game_limit_is_a_clear_429() -> None:
    app = create_app(ServerConfig(database_url="memory", max_concurrent_games=1))
    with TestClient(app, base_url="http://localhost") as client:
        first = client.post("/api/games", json={**GAME, "snakes": ["hunter", "hunter"]})
        assert first.status_code == 201
        second = client.post("/api/games", json=GAME)
        assert second.status_code == 429
        assert "max_concurrent_games=1" in second.json()["detail"]
        client.post(f"/api/games/{first.json()['id']}/cancel")


def test_ladders_over_the_api(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    with TestClient(
        create_app(ServerConfig(database_url=url)), base_url="http://localhost"
    ) as client:
        created = client.post("/api/ladders", json={"name": "web", "width": 7, "height": 7})
        assert created.status_code == 201, created.text
        assert client.post("/api/ladders", json={"name": "web"}).status_code == 409
        bad = client.post("/api/ladders", json={"name": "x y"})
        assert bad.status_code == 422 and bad.json()["detail"][0]["loc"][-1] == "name"
        for snake in ("random", "greedy"):
            assert client.post("/api/ladders/web/snakes", json={"snake": snake}).status_code == 201
        assert client.post("/api/ladders/web/run", json={"games": 6}).status_code == 202
        deadline = time.monotonic() + 30
        while True:
            data = client.get("/api/ladders/web").json()
            if not data["running"] and data["games_played"] == 6:
                break
            assert time.monotonic() < deadline, data
            time.sleep(0.1)
        assert [s["snake"] for s in data["standings"]] == ["greedy", "random"]
        assert set(data["history"]) == {"greedy", "random"}
        game = data["recent_games"][0]
        assert client.get(f"/games/{game['game_id']}").json()["Game"]["Status"] == "complete"
        # Game seeds reach 2**62: exact strings, as the engine API has them.
        engine = client.get(f"/games/{game['game_id']}").json()["Game"]
        assert game["seed"] == engine["SeedString"] == str(engine["Seed"])
        page = client.get("/ladders/web")
        assert page.status_code == 200 and "rating-chart" in page.text
        assert client.get("/ladders/nowhere").status_code == 404
        assert [x["name"] for x in client.get("/api/ladders").json()] == ["web"]


def test_public_ladders_refuse_private_snakes() -> None:
    with public_client() as client:
        client.post("/api/ladders", json={"name": "pub"})
        refused = client.post("/api/ladders/pub/snakes", json={"snake": "http://10.0.0.1/"})
        # A public ladder takes registered snakes only, and a private address never
        # registers.
        assert refused.status_code == 403 and "register" in refused.json()["detail"]
        registered = client.post("/api/snakes", json={"name": "s", "url": "http://10.0.0.1/"})
        assert registered.status_code == 403 and "public server" in registered.json()["detail"]
        assert client.get("/api/ladders/pub").json()["standings"] == []  # not added


def test_tournaments_over_the_api(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    with TestClient(
        create_app(ServerConfig(database_url=url)), base_url="http://localhost"
    ) as client:
        created = client.post(
            "/api/tournaments",
            json={
                "name": "cup",
                "format": "single_elimination",
                "snakes": ["hunter?depth=1", "greedy", "random", "random"],
                "width": 7,
                "height": 7,
            },
        )
        assert created.status_code == 201, created.text
        tid = created.json()["id"]
        deadline = time.monotonic() + 60
        while True:
            data = client.get(f"/api/tournaments/{tid}").json()
            if data["finished"] and not data["running"]:
                break
            assert time.monotonic() < deadline, data
            time.sleep(0.1)
        played = [m for m in data["matches"] if m["status"] == "done"]
        assert len(played) == 3 and all(m["games"] for m in played)
        # The champion is whoever advanced from the final, having won its last game,
        # and both finalists came through the semifinals.
        final = played[-1]
        assert final["advanced"] == [data["champion"]]
        assert final["wins"][data["champion"]] >= 1
        assert final["games"][-1]["placement"][0] == [data["champion"]]
        assert sorted(final["entrants"]) == sorted(a for m in played[:2] for a in m["advanced"])
        assert data["standings"][0]["entrant"] == data["champion"]
        game = played[-1]["games"][0]["game_id"]
        assert client.get(f"/games/{game}").json()["Game"]["Status"] == "complete"
        assert data["seed"] == "1"
        engine = client.get(f"/games/{game}").json()["Game"]
        assert played[-1]["games"][0]["seed"] == engine["SeedString"] == str(engine["Seed"])
        export = client.get(f"/api/tournaments/{tid}/export")
        assert export.status_code == 200 and "attachment" in export.headers["content-disposition"]
        assert client.get(f"/tournaments/{tid}").status_code == 200
        assert client.get("/api/tournaments/nope").status_code == 404
        bad = client.post("/api/tournaments", json={"name": "x", "snakes": ["random"]})
        assert bad.status_code == 422 and bad.json()["detail"][0]["loc"][-1] == "snakes"
