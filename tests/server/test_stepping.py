"""Step mode: the turn gate, the pause/step/resume routes and the calls route."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from snakewar.server import ServerConfig, create_app
from snakewar.server.stepping import NotPausedError, PauseExpiredError, TurnGate
from tests.games.battlesnake.referee.snake_servers import BANKED_S, SnakeServers
from tests.server.accounts import make_user, public_client
from tests.waiting import wait_finished

# -- the gate ----------------------------------------------------------------------------


async def _turns_through(gate: TurnGate, passed: list[int], start: int = 0) -> None:
    turn = start
    while True:
        await gate.wait(turn)
        passed.append(turn)
        turn += 1
        await asyncio.sleep(0)


async def _until(check: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.001)


def test_a_paused_gate_lets_exactly_one_turn_through_per_step() -> None:
    async def scenario() -> None:
        gate = TurnGate(paused=True)
        passed: list[int] = []
        task = asyncio.create_task(_turns_through(gate, passed))
        await _until(lambda: gate.parked_at == 0)
        assert passed == [] and gate.paused
        for expected in (1, 2, 3):
            await gate.step()
            await gate.settled(2)
            assert passed == list(range(expected)) and gate.parked_at == expected
        await gate.resume()
        await _until(lambda: len(passed) > 50)
        assert not gate.paused and gate.parked_at is None
        await gate.pause()
        await gate.settled(2)
        held = len(passed)
        assert gate.parked_at == held
        await asyncio.sleep(0.02)
        assert len(passed) == held  # it stays held
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())


def test_stepping_an_open_gate_is_refused_and_steps_ahead_are_kept() -> None:
    async def scenario() -> None:
        gate = TurnGate()
        with pytest.raises(NotPausedError, match="not paused"):
            await gate.step()
        await gate.pause()
        await gate.step()
        await gate.step()  # two steps before the game reaches the gate: two turns
        passed: list[int] = []
        task = asyncio.create_task(_turns_through(gate, passed))
        await gate.settled(2)
        assert passed == [0, 1] and gate.parked_at == 2
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())


def test_cancelling_a_paused_game_ends_its_wait() -> None:
    async def scenario() -> None:
        gate = TurnGate(paused=True)
        waiter = asyncio.create_task(gate.wait(4))
        await _until(lambda: gate.parked_at == 4)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        assert gate.parked_at is None
        await gate.finish()
        await asyncio.wait_for(gate.settled(60), 1)  # a finished game is calm at once

    asyncio.run(scenario())


def test_a_pause_is_bounded() -> None:
    async def scenario() -> None:
        gate = TurnGate(paused=True, max_pause_s=1.0)
        started = time.monotonic()
        with pytest.raises(PauseExpiredError, match=r"paused before turn 3 for more than 1 s"):
            await gate.wait(3)
        # Its own bound, not the default's 600 s (a busy machine adds a moment).
        assert 1.0 <= time.monotonic() - started < 30
        # Each wait gets the whole bound afresh: the gate has been closed for over a
        # second now, and a step in time (well within the next second) keeps it going.
        waiter = asyncio.create_task(gate.wait(4))
        await _until(lambda: gate.parked_at == 4)
        await gate.step()
        await waiter

    asyncio.run(scenario())


# -- the routes ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def servers() -> Iterator[SnakeServers]:
    with SnakeServers() as running:
        yield running


AMPLE_MS = 10_000
"""The games' timeout: the tests here are about stepping, not speed; on a busy machine a
snake in this process may take longer than the usual 500 ms to answer."""


def local_client(**config: Any) -> TestClient:
    config.setdefault("max_timeout_ms", AMPLE_MS)
    app = create_app(ServerConfig(database_url="memory", **config))
    return TestClient(app, base_url="http://localhost", raise_server_exceptions=False)


def step_game(servers: SnakeServers, **extra: Any) -> dict[str, Any]:
    return {
        "snakes": [servers.url("good"), "builtin:random"],
        "names": ["good", "bot"],
        "seed": 3,
        "width": 7,
        "height": 7,
        "timeout": AMPLE_MS,
        "step": True,
        **extra,
    }


def test_a_step_mode_game_waits_at_turn_0_and_steps_one_turn_at_a_time(
    servers: SnakeServers,
) -> None:
    with local_client() as client:
        created = client.post("/api/games", json=step_game(servers))
        assert created.status_code == 201, created.text
        game = created.json()
        gid = game["id"]
        assert (game["status"], game["turn"], game["paused"]) == ("running", 0, True)
        assert game["records_calls"] is True
        time.sleep(0.3)
        assert client.get(f"/api/games/{gid}").json()["turn"] == 0  # it really waits
        for turn in (1, 2):
            stepped = client.post(f"/api/games/{gid}/step")
            assert stepped.status_code == 200, stepped.text
            assert (stepped.json()["turn"], stepped.json()["paused"]) == (turn, True)
        frames = client.get(f"/games/{gid}/frames").json()
        assert [f["Turn"] for f in frames["Frames"]] == [0, 1, 2]
        # The inspector's data: turn 0 has the /start and /move calls, bodies included.
        calls = client.get(f"/api/games/{gid}/calls", params={"turn": 0}).json()
        assert calls["records_calls"] is True
        kinds = [(c["kind"], c["name"]) for c in calls["calls"]]
        assert kinds == [("start", "good"), ("start", "bot"), ("move", "good"), ("move", "bot")]
        moves = {c["name"]: c for c in calls["calls"] if c["kind"] == "move"}
        assert json.loads(moves["good"]["request"]) == servers.bodies("good", "move")[-2]
        assert json.loads(moves["good"]["reply"])["shout"] == "good says 0"
        assert moves["good"]["status"] == "ok" and moves["good"]["http_status"] == 200
        turn1 = client.get(f"/api/games/{gid}/calls", params={"turn": 1}).json()["calls"]
        assert all(json.loads(c["request"])["turn"] == 1 for c in turn1) and len(turn1) == 2
        # Not asked yet: nothing for the turn it waits before.
        assert client.get(f"/api/games/{gid}/calls", params={"turn": 2}).json()["calls"] == []
        # Resume lets it run to its end; pausing a finished game is a conflict.
        resumed = client.post(f"/api/games/{gid}/resume")
        assert resumed.status_code == 200 and resumed.json()["paused"] is False
        final = wait_finished(client, gid)
        assert final["status"] == "complete" and final["turn"] > 2
        ends = client.get(f"/api/games/{gid}/calls", params={"turn": final["turn"]}).json()
        assert {c["kind"] for c in ends["calls"]} >= {"end"}
        assert client.post(f"/api/games/{gid}/pause").status_code == 409


def test_pause_holds_a_running_game_and_step_needs_a_pause(servers: SnakeServers) -> None:
    # The slow snake takes 0.4 s a turn: the game is surely running when it is paused.
    slow = {"snakes": [servers.url("slow"), servers.url("good")], "timeout": 1000}
    with local_client() as client:
        game = client.post("/api/games", json=step_game(servers, step=False, **slow)).json()
        gid = game["id"]
        assert game["paused"] is False
        refused = client.post(f"/api/games/{gid}/step")
        assert refused.status_code == 409 and "not paused" in refused.json()["detail"]
        held = client.post(f"/api/games/{gid}/pause").json()
        assert held["paused"] is True and held["status"] == "running"
        time.sleep(0.6)
        assert client.get(f"/api/games/{gid}").json()["turn"] == held["turn"]
        assert client.post(f"/api/games/{gid}/step").json()["turn"] == held["turn"] + 1
        assert client.post(f"/api/games/{gid}/cancel").json()["status"] == "cancelled"


def test_a_pause_waits_for_a_move_that_draws_on_its_time_bank(servers: SnakeServers) -> None:
    # The banked snake takes BANKED_S over turn 0: far past the 2 s timeout, so it draws
    # on its 20 s bank, and past the 14 s a pause once waited (two timeouts and 10 s).
    body = step_game(
        servers,
        step=False,
        snakes=[servers.url("banked"), servers.url("good")],
        names=["banked", "good"],
        timeout=2000,
        params={"timeBank": 20_000},
    )
    with local_client() as client:
        created = client.post("/api/games", json=body)
        assert created.status_code == 201, created.text
        gid = created.json()["id"]

        def moves() -> list[Any]:
            return [b for b in servers.bodies("banked", "move") if b["game"]["id"] == gid]

        deadline = time.monotonic() + 60
        while not moves():  # its slow move is in flight: the game cannot hold before it
            assert time.monotonic() < deadline, "the banked snake was never asked to move"
            time.sleep(0.01)
        held = client.post(f"/api/games/{gid}/pause")
        assert held.status_code == 200, held.text
        # Answered once the game holds: after the turn under way, before the next one.
        assert (held.json()["turn"], held.json()["paused"]) == (1, True), held.text
        frames = client.get(f"/games/{gid}/frames").json()["Frames"]
        assert [f["Turn"] for f in frames] == [0, 1]
        banked = next(s for s in frames[1]["Snakes"] if s["Name"] == "banked")
        assert int(banked["Latency"]) >= BANKED_S * 1000 and banked["TimeBank"] < 20_000
        # It holds: no turn moves, no snake is asked again, until it is stepped.
        time.sleep(1)
        assert client.get(f"/api/games/{gid}").json()["turn"] == 1
        assert [b["turn"] for b in moves()] == [0]
        stepped = client.post(f"/api/games/{gid}/step")
        assert (stepped.json()["turn"], stepped.json()["paused"]) == (2, True), stepped.text
        assert client.post(f"/api/games/{gid}/cancel").json()["status"] == "cancelled"


def test_a_paused_game_keeps_its_slot_and_is_cancelled_after_the_longest_pause(
    servers: SnakeServers,
) -> None:
    with local_client(max_concurrent_games=1, max_pause_s=1.0) as client:
        gid = client.post("/api/games", json=step_game(servers)).json()["id"]
        second = client.post("/api/games", json=step_game(servers))
        assert second.status_code == 429 and "max_concurrent_games=1" in second.text
        game = wait_finished(client, gid)
        assert game["status"] == "cancelled" and "for more than 1 s" in game["error"]
        assert client.post("/api/games", json=step_game(servers)).status_code == 201


def test_unknown_games_and_bad_turns() -> None:
    with local_client() as client:
        for action in ("pause", "step", "resume"):
            assert client.post(f"/api/games/nope/{action}").status_code == 404
        assert client.get("/api/games/nope/calls", params={"turn": 0}).status_code == 404
        bad = client.get("/api/games/nope/calls", params={"turn": -1})
        assert bad.status_code == 422 and "turn" in bad.text
        assert client.get("/api/games/nope/calls").status_code == 422


def test_a_public_server_keeps_no_bodies_and_only_owners_step() -> None:
    with public_client(max_pause_s=30.0) as admin:
        ann, bob = make_user(admin.store, "ann"), make_user(admin.store, "bob")
        body = {"snakes": ["builtin:random", "builtin:random"], "seed": 4, "step": True}
        game = admin.post("/api/games", json=body, headers=ann).json()
        gid = game["id"]
        assert game["paused"] is True and game["records_calls"] is False
        for action in ("pause", "step", "resume"):
            refused = admin.post(f"/api/games/{gid}/{action}", headers=bob)
            assert refused.status_code == 403 and "not yours" in refused.text
        visitor = TestClient(admin.app, base_url="http://localhost")  # the app runs already
        assert visitor.post(f"/api/games/{gid}/step").status_code == 401
        stepped = admin.post(f"/api/games/{gid}/step", headers=ann)
        assert stepped.status_code == 200 and stepped.json()["turn"] == 1
        calls = admin.get(f"/api/games/{gid}/calls", params={"turn": 0}).json()
        assert calls == {"game_id": gid, "turn": 0, "records_calls": False, "calls": []}
        assert admin.post(f"/api/games/{gid}/cancel", headers=ann).status_code == 200


DRIVER = """
import json, sys
import httpx

url = sys.argv[1]
base, _, game_id = url.partition("/view/")
game = httpx.get(f"{base}/api/games/{game_id}", timeout=60).json()
seen = [(game["turn"], game["paused"])]
for _ in range(2):
    game = httpx.post(f"{base}/api/games/{game_id}/step", timeout=60).json()
    seen.append((game["turn"], game["paused"]))
calls = httpx.get(f"{base}/api/games/{game_id}/calls", params={"turn": 1}, timeout=60)
calls = calls.json()
seen.append([json.loads(c["request"])["turn"] for c in calls["calls"]])
httpx.post(f"{base}/api/games/{game_id}/resume", timeout=60)
with open(sys.argv[2], "w") as out:
    json.dump(seen, out)
"""


def test_play_browser_step_opens_a_paused_game(tmp_path: Any) -> None:
    import os
    import subprocess
    import sys

    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    seen = tmp_path / "seen.json"
    env = {
        **os.environ,
        "SNAKEWAR_DATABASE_URL": f"sqlite:///{tmp_path / 'games.db'}",
        # The "browser" is a script that steps the game through the API it was opened on.
        "BROWSER": f"{sys.executable} {driver} %s {seen}",
    }
    command = [sys.executable, "-m", "snakewar", "play", "random", "random", "-r", "4"]
    out = subprocess.run(
        [*command, "-W", "7", "-H", "7", "--browser", "--step", "--exit-at-end"],
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "Game completed after" in out.stdout
    assert json.loads(seen.read_text()) == [[0, True], [1, True], [2, True], [1, 1]]
    refused = subprocess.run(
        [*command, "--step"], env=env, capture_output=True, text=True, timeout=60
    )
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        "error: Invalid value for '--step': pauses a game in the browser; add --browser"
    )
