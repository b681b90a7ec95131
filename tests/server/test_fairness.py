"""Per-user fairness: one user's games cannot take every slot or every built-in worker.

The probe: one user's paused step games took all 32 game slots for 10 minutes, and two
requests of 8 built-ins each in step mode bound all 16 built-in bot workers, so every
other built-in game failed.  Now a public server caps each user's live games, paused
games and built-in workers, and every server counts a game's built-in seats when it is
made: a game whose built-ins would not all get a worker is refused up front (429
naming the limit), not failed later.  The arena's games wait their turn instead.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx
from fastapi.testclient import TestClient

from snakewar.adapters import get_game
from snakewar.engine.protocol import Entrant, MatchSpec
from snakewar.errors import BusyError
from snakewar.server import ServerConfig, create_app
from snakewar.server.manager import BuiltinWorkersBusyError, GameManager, UserCaps
from snakewar.storage import AsyncStore, Store
from tests.referee.test_workers import worker_children
from tests.server.accounts import BASE_URL, make_user, public_client
from tests.waiting import wait_finished

BOARD = {"width": 11, "height": 11}
# A game that runs for minutes: one snake thinking 100 ms a turn on a big board.
SLOW = {"snakes": ["hunter?budget=100"], "width": 19, "height": 19, "maxTurns": 5000}


def builtins(count: int, **extra: Any) -> dict[str, Any]:
    """A step-mode game of ``count`` built-in random snakes (it waits at turn 0)."""
    return {"snakes": ["random"] * count, "step": True, **BOARD, **extra}


def detail(response: httpx.Response) -> str:
    return str(response.json()["detail"])


def wait_for(check: Callable[[], bool], what: str, timeout: float = 120) -> None:
    """Poll ``check`` until it holds (generous: the suite may run on a loaded machine)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


# -- live and paused games per user ------------------------------------------------------


def test_one_users_live_and_paused_games_are_capped_and_others_still_play() -> None:
    with public_client(
        as_user="ann", admin=False, games_per_user=3, paused_games_per_user=2
    ) as ann:
        bob = make_user(ann.store, "bob")
        paused = [ann.post("/api/games", json=builtins(2)) for _ in range(2)]
        assert [r.status_code for r in paused] == [201, 201], [r.text for r in paused]
        third = ann.post("/api/games", json=builtins(2))
        assert third.status_code == 429, third.text
        assert "paused_games_per_user=2" in detail(third)
        # A game that runs is her third live game; a fourth is one too many.
        running = ann.post("/api/games", json=SLOW)
        assert running.status_code == 201, running.text
        fourth = ann.post("/api/games", json=SLOW)
        assert fourth.status_code == 429 and "games_per_user=3" in detail(fourth), fourth.text
        rematch = ann.post(f"/api/games/{running.json()['id']}/rematch")
        assert rematch.status_code == 429 and "games_per_user=3" in detail(rematch)
        # Pausing the running game would make a third paused one.
        gid = running.json()["id"]
        refused = ann.post(f"/api/games/{gid}/pause")
        assert refused.status_code == 429 and "paused_games_per_user=2" in detail(refused)
        assert ann.get(f"/api/games/{gid}").json()["paused"] is False
        # Another user is not held back by hers.
        other = ann.post("/api/games", json=builtins(2), headers=bob)
        assert other.status_code == 201, other.text
        # Once one of her paused games ends, she may pause another.
        assert ann.post(f"/api/games/{paused[0].json()['id']}/cancel").status_code == 200
        held = ann.post(f"/api/games/{gid}/pause")
        assert held.status_code == 200 and held.json()["paused"] is True, held.text
        # Pausing a paused game again is no new pause.
        assert ann.post(f"/api/games/{gid}/pause").status_code == 200
        for game in ann.get("/api/games").json()["live"]:
            ann.post(f"/api/games/{game['id']}/cancel", headers=bob)
            ann.post(f"/api/games/{game['id']}/cancel")


def test_a_local_servers_one_user_has_no_per_user_cap() -> None:
    app = create_app(ServerConfig(database_url="memory", max_concurrent_games=12))
    with TestClient(app, base_url=BASE_URL) as client:
        made = [client.post("/api/games", json=builtins(1)) for _ in range(10)]
        assert [r.status_code for r in made] == [201] * 10, [r.text for r in made]
        for game in made:
            assert client.post(f"/api/games/{game.json()['id']}/cancel").status_code == 200


# -- built-in bot workers ----------------------------------------------------------------


def test_a_users_games_cannot_take_every_built_in_worker_and_no_game_fails_for_want_of_one() -> (
    None
):
    # The probe's two requests of 8 built-ins each in step mode, now from one user.
    with public_client(as_user="ann", admin=False, games_per_user=8) as ann:
        bob, carol = make_user(ann.store, "bob"), make_user(ann.store, "carol")
        first = ann.post("/api/games", json=builtins(8))
        assert first.status_code == 201, first.text
        second = ann.post("/api/games", json=builtins(8))
        assert second.status_code == 429, second.text
        assert "builtin_workers_per_user=8" in detail(second)
        # Another user has a share of his own.
        bobs = ann.post("/api/games", json=builtins(8), headers=bob)
        assert bobs.status_code == 201, bobs.text
        # Every worker is held now: a third user's built-in game is refused when it is
        # made, naming the limit, rather than started and failed for want of a worker.
        refused = ann.post("/api/games", json=builtins(2, step=False), headers=carol)
        assert refused.status_code == 429, refused.text
        assert "builtin_workers=16" in detail(refused) and "16 of" in detail(refused)
        assert len(worker_children()) <= 16
        assert ann.post(f"/api/games/{first.json()['id']}/cancel").status_code == 200
        # Her workers are free again: Carol's game plays to its end, every snake moving.
        played = ann.post("/api/games", json=builtins(2, step=False, seed=5), headers=carol)
        assert played.status_code == 201, played.text
        gid = played.json()["id"]
        game = wait_finished(ann, gid)
        assert game["status"] == "complete" and game["turn"] > 1, game
        assert all(e["failure"] == "" for e in game["entrants"]), game["entrants"]
        assert ann.post(f"/api/games/{bobs.json()['id']}/cancel", headers=bob).status_code == 200


def test_a_game_with_more_built_ins_than_one_user_may_hold_is_a_422_naming_the_cap() -> None:
    with public_client(as_user="ann", admin=False, builtin_workers_per_user=3) as ann:
        refused = ann.post("/api/games", json=builtins(4))
        assert refused.status_code == 422, refused.text
        assert "builtin_workers_per_user=3" in detail(refused)
        assert ann.get("/api/games").json()["live"] == []


def test_the_arenas_games_wait_their_turn_for_workers_and_users_do_not_jump_it() -> None:
    app = create_app(ServerConfig(database_url="memory", builtin_workers=2))
    with TestClient(app, base_url=BASE_URL) as client:
        held = client.post("/api/games", json=builtins(2))
        assert held.status_code == 201, held.text
        busy = client.post("/api/games", json=builtins(1, step=False))
        assert busy.status_code == 429 and "builtin_workers=2" in detail(busy), busy.text
        made = client.post(
            "/api/ladders", json={"name": "lad", "width": 7, "height": 7, "maxTurns": 30}
        )
        assert made.status_code == 201, made.text
        for bot in ("random", "greedy"):
            joined = client.post("/api/ladders/lad/snakes", json={"snake": f"builtin:{bot}"})
            assert joined.status_code == 201, joined.text
        run = client.post("/api/ladders/lad/run", json={"games": 2})
        assert run.status_code == 202, run.text
        manager: GameManager = app.state.manager
        wait_for(lambda: len(manager._builtin_queue) >= 1, "the ladder's games to wait")
        # A user's game does not take the workers the waiting ladder game is owed.
        queued = client.post("/api/games", json=builtins(1, step=False))
        assert queued.status_code == 429 and "wait for them" in detail(queued), queued.text
        assert client.post(f"/api/games/{held.json()['id']}/cancel").status_code == 200

        def done() -> bool:
            ladder = client.get("/api/ladders/lad").json()
            return not ladder["running"] and ladder["run"] is not None

        wait_for(done, "the ladder run to end")
        ladder = client.get("/api/ladders/lad").json()
        assert ladder["run"]["error"] == "" and ladder["games_played"] == 2, ladder["run"]
        assert manager.builtin_in_use() == 0 and manager._builtin_promised == 0


def test_a_cancelled_wait_gives_its_turn_to_the_next_game() -> None:
    async def scenario() -> None:
        with Store("sqlite://") as opened:
            store = AsyncStore(opened)
            manager = GameManager(store, builtin_workers=2, user_caps=UserCaps())
            await manager.start()
            try:
                two = MatchSpec(
                    "battlesnake",
                    (Entrant("builtin:random", "a"), Entrant("builtin:random", "b")),
                    get_game("battlesnake").parse_params({"width": 7, "height": 7}),
                )
                held = await manager.create(two, 1, step=True)
                first = asyncio.create_task(manager.create(two, 2, capped=False, step=True))
                second = asyncio.create_task(manager.create(two, 3, capped=False, step=True))
                while len(manager._builtin_queue) < 2:
                    await asyncio.sleep(0.01)
                try:
                    await manager.create(two, 4, step=True)
                except BuiltinWorkersBusyError as exc:
                    assert "2 of the server's 2" in str(exc) and "2 games wait" in str(exc)
                else:
                    raise AssertionError("a user's game jumped the queue")
                first.cancel()
                await asyncio.gather(first, return_exceptions=True)
                assert await manager.cancel(held.id)
                game = await asyncio.wait_for(second, 120)
                assert game.builtin_seats == 2 and manager.builtin_in_use() == 2
                assert manager._builtin_promised == 0 and not manager._builtin_queue
                await manager.cancel(game.id)
                assert manager.builtin_in_use() == 0
            finally:
                await manager.close()
                store.close()

    asyncio.run(scenario())


def test_a_game_waiting_for_workers_when_the_server_stops_is_refused_not_started() -> None:
    async def scenario() -> None:
        with Store("sqlite://") as opened:
            store = AsyncStore(opened)
            manager = GameManager(store, builtin_workers=2, user_caps=UserCaps())
            await manager.start()
            two = MatchSpec(
                "battlesnake",
                (Entrant("builtin:random", "a"), Entrant("builtin:random", "b")),
                get_game("battlesnake").parse_params({"width": 7, "height": 7}),
            )
            try:
                await manager.create(two, 1, step=True)
                waiting = asyncio.create_task(manager.create(two, 2, capped=False, step=True))
                while not manager._builtin_queue:
                    await asyncio.sleep(0.01)
            finally:
                await manager.close()
                store.close()
            try:
                await asyncio.wait_for(waiting, 120)
            except BusyError as exc:
                assert "stopping" in str(exc)
            else:
                raise AssertionError("a game started on a stopping server")
            assert manager.builtin_in_use() == 0 and not manager._builtin_queue

    asyncio.run(scenario())
