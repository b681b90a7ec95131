"""Web games on a Ray cluster: played by actors, controlled from any replica, faults survived.

One Ray cluster of this machine serves the whole module (``ray.cluster_utils.Cluster``:
a head node of 2 CPUs, and a second node that can sandbox, added by the program bots'
test).  Two app instances on one database (an SQLite file, or the scratch PostgreSQL)
stand for two web replicas: a game is created through replica A's API, played by a
named actor on a Ray worker that writes its frames to the database, and paused,
stepped, resumed and cancelled through replica B.  Killing the actor's worker process,
or removing its node, mid-game makes the game play again from turn 0 (or, with no
retries left, end aborted with the reason, its frames kept).

Nothing here depends on speed: step mode holds the games where the tests need them,
and every wait polls the database or the API with a generous deadline.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import os
import signal
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from snakewar.adapters import get_game
from snakewar.arena.remote import (
    ACTOR_NAMESPACE,
    SANDBOX_RESOURCE,
    ProgramRef,
    RemoteJob,
    actor_name,
)
from snakewar.engine.protocol import Entrant, MatchSpec
from snakewar.games.halite3.replay.hlt import read_hlt
from snakewar.referee.uploads import UploadCache, UploadedBotError
from snakewar.server.app import create_app
from snakewar.server.command import worker_argv
from snakewar.server.config import ServerConfig
from snakewar.server.runners import (
    DatabaseKit,
    LocalRunner,
    _RayGame,
    program_from_archive,
    without_password,
    worker_database_url,
)
from snakewar.storage import DATABASE_URL_ENV, GameStatus, Store
from snakewar.storage.models import SnakeModel
from tests.games.battlesnake.referee.snake_servers import SnakeServers
from tests.server.test_metrics import value as metric
from tests.system_tools import RAY_HEAD_SETTINGS, fresh_schema, postgres_url
from tests.waiting import wait_built

ray = pytest.importorskip("ray")

PATIENCE_S = 240.0
"""How long a state the test waits for may take to come (a loaded machine is slow)."""

STEPPED: dict[str, Any] = {
    "snakes": ["builtin:random", "builtin:random"],
    "seed": 7,
    "width": 7,
    "height": 7,
    "max_turns": 30,
    "step": True,
}
"""A short game that starts paused before turn 0: the tests move it turn by turn."""

SLOW: dict[str, Any] = {
    "snakes": ["hunter?budget=100"],
    "width": 19,
    "height": 19,
    "max_turns": 5000,
    # The server's longest: a loaded machine must not make the bot's 100 ms a timeout,
    # whose repeated move may end a solo game in a wall before the test cancels it.
    "timeout": 2000,
    "step": True,
}
"""A game that lasts minutes once resumed (its bot thinks 100 ms a turn): it is surely
still running whenever the test pauses or cancels it."""

KIT = Path(__file__).resolve().parents[1] / "games" / "halite3" / "starter_kit"


pytestmark = pytest.mark.ray


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """One Ray cluster for the module: its head node (2 CPUs, no sandbox resource).

    A test adds a second node, one that declares ``snakewar_sandbox``; every node is
    a process tree of this machine (``ray.cluster_utils.Cluster``).
    """
    from ray.cluster_utils import Cluster

    nodes = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 2, **RAY_HEAD_SETTINGS},
    )
    try:
        ray.init(address=nodes.address, log_to_driver=False)
        yield nodes
    finally:
        ray.shutdown()
        nodes.shutdown()  # type: ignore[no-untyped-call]


@pytest.fixture(scope="module")
def address(cluster: Any) -> str:
    """The cluster's address, as ``--ray-address`` names it."""
    return str(cluster.address)


@contextlib.contextmanager
def replica(url: str, address: str, **config: Any) -> Iterator[TestClient]:
    """A web replica on the database ``url`` whose games play on the cluster."""
    app = create_app(ServerConfig(database_url=url, ray_address=address, **config))
    with TestClient(app, base_url="http://localhost") as client:
        yield client


def wait_for(what: str, ready: Callable[[], bool], seconds: float = PATIENCE_S) -> None:
    """Poll ``ready`` until it is true; fail naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > deadline:
            pytest.fail(f"waited {seconds:g} s for {what}")
        time.sleep(0.1)


def turns_stored(store: Store, game_id: str) -> list[int]:
    """The turns of the frames stored for a game, in order."""
    if store.games.get(game_id) is None:
        return []
    return [frame.turn for frame in store.games.data(game_id).frames]


def status_of(store: Store, game_id: str) -> str:
    row = store.games.get(game_id)
    assert row is not None, game_id
    return str(row.status)


def actor_pid(game_id: str) -> int | None:
    """The worker process of the game's actor (``None``: no live actor of that name)."""
    try:
        handle = ray.get_actor(actor_name(game_id), namespace=ACTOR_NAMESPACE)
        return int(ray.get(handle.pid.remote(), timeout=60))
    except (ValueError, ray.exceptions.RayError):
        return None


def test_a_web_game_plays_on_ray_and_any_replica_controls_it(address: str, db_url: str) -> None:
    url = db_url
    with replica(url, address) as a, replica(url, address) as b, Store(url) as store:
        made = a.post("/api/games", json=SLOW)
        assert made.status_code == 201, made.text
        game_id = made.json()["id"]
        # Played by a named actor on a worker, not in this process: A holds no live copy.
        assert game_id not in a.app.state.manager.games  # type: ignore[attr-defined]
        pid = actor_pid(game_id)
        assert pid is not None and pid != os.getpid()
        assert status_of(store, game_id) == GameStatus.RUNNING
        assert turns_stored(store, game_id) == [0]  # paused before turn 1

        # Replica B steps it: each step is one more frame in the database.
        for expected in ([0, 1], [0, 1, 2]):
            stepped = b.post(f"/api/games/{game_id}/step")
            assert stepped.status_code == 200, stepped.text
            assert stepped.json()["paused"] is True
            assert stepped.json()["turn"] == expected[-1]
            assert turns_stored(store, game_id) == expected
        # B's frames API reads them from the database.
        page = b.get(f"/api/games/{game_id}/frames").json()
        assert [f["Turn"] for f in page["frames"]] == [0, 1, 2]

        # Resumed from B, it plays on; stepping it now is refused (it is not paused).
        resumed = b.post(f"/api/games/{game_id}/resume")
        assert resumed.status_code == 200 and resumed.json()["paused"] is False
        wait_for("turn 5", lambda: len(turns_stored(store, game_id)) > 5)
        refused = b.post(f"/api/games/{game_id}/step")
        assert refused.status_code == 409 and "not paused" in refused.text
        # Paused from B, it holds, however long we look.
        paused = b.post(f"/api/games/{game_id}/pause")
        assert paused.status_code == 200, paused.text
        assert paused.json()["paused"] is True
        held = turns_stored(store, game_id)
        time.sleep(1.0)
        assert turns_stored(store, game_id) == held
        assert held == list(range(len(held)))  # no gap: every turn, in order

        # B cancels it; A, which started it, sees it end; the actor goes.
        cancelled = b.post(f"/api/games/{game_id}/cancel")
        assert cancelled.status_code == 200, cancelled.text
        assert cancelled.json()["status"] == GameStatus.CANCELLED
        assert status_of(store, game_id) == GameStatus.CANCELLED
        assert turns_stored(store, game_id) == held  # its frames are kept
        live = a.app.state.manager.remote_games[game_id]  # type: ignore[attr-defined]
        wait_for("A's game to end", lambda: live.finished)
        assert live.status == GameStatus.CANCELLED
        assert b.post(f"/api/games/{game_id}/cancel").status_code == 409
        wait_for("the actor to go", lambda: actor_pid(game_id) is None)


def test_a_ray_games_turns_and_calls_are_in_the_metrics_of_its_server(
    address: str, tmp_path: Path
) -> None:
    # Played by an actor on a worker: its turns and calls happened there, and reach the
    # metrics of the server that started it once it ends.
    url = f"sqlite:///{tmp_path / 'metrics.db'}"
    short = {**STEPPED, "step": False, "max_turns": 20}
    with replica(url, address) as a:
        made = a.post("/api/games", json=short)
        assert made.status_code == 201, made.text
        game_id = made.json()["id"]
        manager = a.app.state.manager  # type: ignore[attr-defined]
        assert game_id not in manager.games
        live = manager.remote_games[game_id]
        wait_for("the game to end", lambda: live.finished)
        shown = a.get(f"/api/games/{game_id}").json()
        assert shown["status"] == GameStatus.COMPLETE, shown
        turns = shown["turn"]
        assert turns > 0
        # The calls the actor recorded (a local server keeps them): one observation each.
        calls = 0
        for turn in range(turns + 1):
            answer = a.get(f"/api/games/{game_id}/calls", params={"turn": turn})
            assert answer.status_code == 200, answer.text
            calls += len(answer.json()["calls"])
        text = a.get("/metrics").text
    assert metric(text, "snakewar_games_finished_total", game="battlesnake") == 1
    assert metric(text, "snakewar_turns_total", game="battlesnake") == turns
    observed = metric(text, "snakewar_bot_call_seconds_count", game="battlesnake")
    assert observed >= 2 * turns  # two snakes asked each turn
    assert observed == calls
    assert metric(text, "snakewar_bot_call_seconds_sum", game="battlesnake") > 0


def test_a_ray_game_plays_on_when_the_replica_that_started_it_stops(
    address: str, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    with replica(url, address) as b, Store(url) as store:
        with replica(url, address) as a:
            game_id = a.post("/api/games", json=SLOW).json()["id"]
        # A stopped: its game is no more cancelled than it would be if A had crashed.
        assert status_of(store, game_id) == GameStatus.RUNNING
        stepped = b.post(f"/api/games/{game_id}/step")
        assert stepped.status_code == 200, stepped.text
        assert turns_stored(store, game_id) == [0, 1]
        assert b.post(f"/api/games/{game_id}/cancel").status_code == 200
        assert status_of(store, game_id) == GameStatus.CANCELLED
        assert turns_stored(store, game_id) == [0, 1]
        wait_for("the actor to go", lambda: actor_pid(game_id) is None)


def test_a_killed_worker_plays_the_game_again_from_turn_0(address: str, db_url: str) -> None:
    url = db_url
    with replica(url, address) as a, replica(url, address) as b, Store(url) as store:
        made = a.post("/api/games", json=STEPPED)
        assert made.status_code == 201, made.text
        game_id = made.json()["id"]
        for _ in range(3):
            assert a.post(f"/api/games/{game_id}/step").status_code == 200
        assert turns_stored(store, game_id) == [0, 1, 2, 3]
        first = actor_pid(game_id)
        assert first is not None
        # A spectator on replica B holds the four frames played so far; once the game
        # starts over it is told so (a "restart" message) before its connection closes.
        with b.websocket_connect(f"ws://localhost/games/{game_id}/events") as follower:
            held = [follower.receive_json() for _ in range(4)]
            assert [m["Data"]["Turn"] for m in held] == [0, 1, 2, 3]
            os.kill(first, signal.SIGKILL)
            told = follower.receive_json()
            assert told["Type"] == "restart", told
            assert "turn 0" in told["Data"]["Reason"]
        # A fresh actor on another worker process starts the game again, paused at turn 0.
        wait_for(
            "a new actor to replay the game",
            lambda: (actor_pid(game_id) or first) != first and turns_stored(store, game_id) == [0],
        )
        assert status_of(store, game_id) == GameStatus.RUNNING
        assert a.post(f"/api/games/{game_id}/resume").status_code == 200
        wait_for("the game to end", lambda: status_of(store, game_id) != GameStatus.RUNNING)
        assert status_of(store, game_id) == GameStatus.COMPLETE
        frames = turns_stored(store, game_id)
        row = store.games.get(game_id)
        assert row is not None and frames == list(range(row.turns + 1))


def test_a_game_whose_worker_keeps_dying_ends_aborted_with_its_reason_and_frames(
    address: str, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    with replica(url, address, ray_game_retries=0) as a, Store(url) as store:
        game_id = a.post("/api/games", json=STEPPED).json()["id"]
        for _ in range(2):
            assert a.post(f"/api/games/{game_id}/step").status_code == 200
        pid = actor_pid(game_id)
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        wait_for("the game to be aborted", lambda: status_of(store, game_id) != "running")
        shown = a.get(f"/api/games/{game_id}").json()
        assert shown["status"] == GameStatus.ABORTED
        assert "its Ray worker died 1 times; gave up" in shown["error"]
        assert "ActorDiedError" in shown["error"]
        assert turns_stored(store, game_id) == [0, 1, 2]  # what it played is kept


def test_a_node_removed_mid_game_has_its_game_played_again_on_another_node(
    cluster: Any, address: str, tmp_path: Path
) -> None:
    # The game may only go to nodes declaring "games" (ray_game_resources): the first
    # such node is removed mid-game (its raylet and workers killed), a second one joins,
    # and the game starts again there from turn 0.
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    pool = {"ray_game_resources": (("games", 0.001),)}
    first = cluster.add_node(num_cpus=1, resources={"games": 1})
    cluster.wait_for_nodes()
    with replica(url, address, **pool) as a, Store(url) as store:
        made = a.post("/api/games", json=STEPPED)
        assert made.status_code == 201, made.text
        game_id = made.json()["id"]
        for _ in range(2):
            assert a.post(f"/api/games/{game_id}/step").status_code == 200
        assert turns_stored(store, game_id) == [0, 1, 2]
        cluster.remove_node(first, allow_graceful=False)
        second = cluster.add_node(num_cpus=1, resources={"games": 1})
        try:
            wait_for(
                "the game to start again on the new node",
                lambda: turns_stored(store, game_id) == [0] and actor_pid(game_id) is not None,
            )
            assert status_of(store, game_id) == GameStatus.RUNNING
            assert a.post(f"/api/games/{game_id}/resume").status_code == 200
            wait_for("the game to end", lambda: status_of(store, game_id) != GameStatus.RUNNING)
            assert status_of(store, game_id) == GameStatus.COMPLETE
            row = store.games.get(game_id)
            assert row is not None and turns_stored(store, game_id) == list(range(row.turns + 1))
        finally:
            cluster.remove_node(second)


def test_a_game_the_cluster_does_not_start_in_time_is_refused_and_leaves_no_actor(
    address: str, tmp_path: Path
) -> None:
    # No node declares "nowhere": the game's actor waits for a node with room, past the
    # server's start timeout.  The request is answered 429 naming why, and the waiting
    # actor is gone (it would take the first node that ever declared the resource).
    def named() -> set[str]:
        every = ray.util.list_named_actors(all_namespaces=True)
        return {actor["name"] for actor in every if actor["namespace"] == ACTOR_NAMESPACE}

    url = f"sqlite:///{tmp_path / 'arena.db'}"
    pool = {"ray_game_resources": (("nowhere", 1.0),), "ray_start_timeout_s": 2.0}
    before = named()
    with replica(url, address, **pool) as a:
        refused = a.post("/api/games", json=STEPPED)
        assert refused.status_code == 429, refused.text
        detail = refused.json()["detail"]
        assert "did not start this game within 2 s" in detail
        assert "no node had room for it, or its node was too busy to start it" in detail
        assert a.get("/api/games").json()["games"] == []
    wait_for("the waiting actor to be gone", lambda: named() <= before)


def test_a_ray_games_actor_is_given_no_database_password(
    cluster: Any, address: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The server's URL has a password (the scratch server trusts loopback, so any
    # password connects).  The node that plays the game has the URL, password and all,
    # in the environment it started with, as compose.yaml starts every Ray node; what
    # the server hands Ray for the game's actor holds no password.
    password = "ray-args-must-not-hold-this"
    with fresh_schema(postgres_url()) as scoped:
        url = sa.make_url(scoped).set(password=password).render_as_string(hide_password=False)
        given: list[bytes] = []
        new_actor = _RayGame._new_actor

        async def recorded(game: _RayGame, job: RemoteJob) -> Any:
            # Exactly what _new_actor passes to the actor class's .remote(...).
            given.append(ray.cloudpickle.dumps((job, game.runner.kit)))
            return await new_actor(game, job)

        monkeypatch.setattr(_RayGame, "_new_actor", recorded)
        node = cluster.add_node(
            num_cpus=1, resources={"secret_db": 1}, env_vars={DATABASE_URL_ENV: url}
        )
        try:
            cluster.wait_for_nodes()
            wait_for("the node", lambda: "secret_db" in ray.cluster_resources())
            pool = {"ray_game_resources": (("secret_db", 0.001),)}
            with replica(url, address, **pool) as a, Store(url) as store:
                made = a.post("/api/games", json={**STEPPED, "step": False})
                assert made.status_code == 201, made.text
                game_id = made.json()["id"]
                wait_for("the game to end", lambda: status_of(store, game_id) != "running")
                assert status_of(store, game_id) == GameStatus.COMPLETE
                row = store.games.get(game_id)
                assert row is not None
                assert turns_stored(store, game_id) == list(range(row.turns + 1))
            assert given, "no actor was made"
            for arguments in given:
                assert password.encode() not in arguments
                assert b"@127.0.0.1" in arguments  # the database is named, without it
            # A worker of that node opens the job's URL with its own environment's password.
            job_url = without_password(url)
            assert password not in job_url
            probe = ray.remote(num_cpus=0, resources={"secret_db": 0.001})(worker_database_url)
            assert ray.get(probe.remote(job_url), timeout=PATIENCE_S) == url
        finally:
            cluster.remove_node(node)


def test_an_arena_game_on_ray_is_stored_whole_and_handed_back(address: str, tmp_path: Path) -> None:
    # Ladders and tournaments start their games uncapped, stored once when complete:
    # on the cluster too, and their caller gets the played game back.
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    with replica(url, address) as a, Store(url) as store:
        manager = a.app.state.manager  # type: ignore[attr-defined]
        adapter = get_game("battlesnake")
        spec = MatchSpec(
            "battlesnake",
            (Entrant("builtin:random", "a"), Entrant("builtin:random", "b")),
            adapter.parse_params({"width": 7, "height": 7}),
            max_turns=20,
            source="ladder:test",
        )
        create = functools.partial(
            manager.create, spec, 11, game_id="ladder-g1", capped=False, store_frames=False
        )
        assert a.portal is not None
        live = a.portal.call(create)
        wait_for("the game to end", lambda: live.finished)
        assert live.status == GameStatus.COMPLETE and live.played is not None
        row = store.games.get("ladder-g1")
        assert row is not None and row.status == GameStatus.COMPLETE
        assert row.turns == live.played.turns
        assert turns_stored(store, "ladder-g1") == list(range(row.turns + 1))


def test_a_tournament_game_on_ray_is_followed_live_on_another_replica(
    address: str, tmp_path: Path
) -> None:
    # A tournament's games are played on the cluster like any game: stored turn by turn
    # there, so that replica B shows one live (a snake that takes 0.4 s a move keeps it
    # going), and the tournament records it when it ends.
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    with SnakeServers() as snakes, replica(url, address) as a, replica(url, address) as b:
        body = {
            "name": "Cup",
            "format": "round_robin",
            "snakes": [snakes.url("slow"), "builtin:greedy"],
            "width": 7,
            "height": 7,
            "max_turns": 12,
        }
        made = a.post("/api/tournaments", json=body)
        assert made.status_code == 201, made.text
        tid = made.json()["id"]

        def running() -> list[str]:
            listed = b.get("/api/games").json()["games"]  # B plays none: all are stored
            return [
                g["id"]
                for g in listed
                if g["source"] == f"tournament:{tid}" and g["status"] == GameStatus.RUNNING
            ]

        wait_for("the tournament's game to run", lambda: bool(running()))
        (game_id,) = running()
        with b.websocket_connect(f"ws://localhost/games/{game_id}/events") as follower:
            first = follower.receive_json()
            assert first["Type"] == "frame" and first["Data"]["Turn"] == 0
            seen = [first]
            while seen[-1]["Type"] != "game_end":
                seen.append(follower.receive_json())
        turns = [m["Data"]["Turn"] for m in seen if m["Type"] == "frame"]
        assert turns == list(range(len(turns))) and len(turns) > 1
        wait_for(
            "the tournament to finish", lambda: a.get(f"/api/tournaments/{tid}").json()["finished"]
        )
        assert b.get(f"/api/games/{game_id}").json()["status"] == GameStatus.COMPLETE


def kit_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in KIT.rglob("*.py"):
            archive.write(path, f"starter/{path.relative_to(KIT)}")
    return buffer.getvalue()


def test_program_bots_play_only_on_a_node_that_can_sandbox_them(
    cluster: Any, address: str, tmp_path: Path, bubblewrap: None
) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    assert SANDBOX_RESOURCE not in ray.cluster_resources()
    halite = {"game": "halite3", "width": 32, "height": 32, "maxTurns": 15}
    with replica(url, address) as a, Store(url) as store:
        made = a.post(
            "/api/snakes/upload",
            params={"name": "kit", "language": "python3", "game": "halite3"},
            content=kit_zip(),
            headers={"Content-Type": "application/zip"},
        )
        assert made.status_code == 201, made.text
        assert wait_built(a, made.json()["id"])["build_status"] == "ready"
        body = {**halite, "snakes": [made.json()["ref"], "builtin:greedy"]}
        # No node declares the sandbox: the game is refused, naming why, and nothing starts.
        refused = a.post("/api/games", json=body)
        assert refused.status_code == 403, refused.text
        detail = refused.json()["detail"]
        assert "no node of the Ray cluster can run them in a sandbox" in detail
        assert SANDBOX_RESOURCE in detail
        assert a.get("/api/games").json()["games"] == []

        # A second node that can sandbox joins (as 'snakewar cluster worker' makes one):
        # the game is placed there, fetches the archive by its hash, runs it sandboxed.
        assert worker_argv("127.0.0.1:6379", True)[-2:] == [
            "--resources",
            '{"snakewar_sandbox": 1}',
        ]
        # Two CPUs: the game's referee holds one, and its program bot another.
        cluster.add_node(num_cpus=2, resources={SANDBOX_RESOURCE: 1})
        cluster.wait_for_nodes()
        wait_for("the sandbox node", lambda: SANDBOX_RESOURCE in ray.cluster_resources())
        game = a.post("/api/games", json=body)
        assert game.status_code == 201, game.text
        game_id = game.json()["id"]
        wait_for("the game to end", lambda: status_of(store, game_id) != GameStatus.RUNNING)
        shown = a.get(f"/api/games/{game_id}").json()
        assert shown["status"] == GameStatus.COMPLETE, shown
        assert [e["name"] for e in shown["entrants"]] == ["@local/kit", "greedy"]
        row = store.games.get(game_id)
        assert row is not None and row.result is not None and row.result["killed"] == {}
        replay = read_hlt(store.games.data(game_id).replay or b"")
        assert replay.statistics[0]["ships_spawned"] > 0  # the uploaded bot played


def _uploaded(store: Store, data: bytes) -> ProgramRef:
    owner = store.accounts.create_user("ann", "x" * 20, allow_reserved=True)
    snake = store.snakes.register(
        owner.id, "kit", "halite3", "upload", language="python3", archive=data
    )
    assert snake.archive_sha256 == hashlib.sha256(data).hexdigest()
    return ProgramRef(snake.archive_sha256, "python3")


def _tamper(store: Store, ref: ProgramRef, data: bytes) -> None:
    """Change the stored archive's bytes, its hash column left as it was."""
    with store.db.session() as session:
        row = session.scalars(
            sa.select(SnakeModel).where(SnakeModel.archive_sha256 == ref.sha256)
        ).one()
        row.archive = data[:-1] + bytes([data[-1] ^ 1])


def test_the_archive_hash_check_refuses_a_tampered_archive(tmp_path: Path) -> None:
    data = kit_zip()
    cache = UploadCache()
    try:
        ref = ProgramRef(hashlib.sha256(data).hexdigest(), "python3")
        program = program_from_archive(data, ref, cache)
        assert program.sha256 == ref.sha256 and program.files is not None
        assert Path(program.files, "MyBot.py").is_file()
        tampered = data[:-1] + bytes([data[-1] ^ 1])
        with pytest.raises(UploadedBotError, match=r"refused \(damaged or tampered\)"):
            program_from_archive(tampered, ref, cache)
    finally:
        cache.close()


def test_a_worker_fetches_an_archive_by_its_hash_and_refuses_a_tampered_one(
    tmp_path: Path, bubblewrap: None
) -> None:
    data = kit_zip()
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    with Store(url) as store:
        ref = _uploaded(store, data)
        program = DatabaseKit().program(ref, url)
        assert program.sha256 == ref.sha256 and program.sandbox is not None
        assert program.files is not None and Path(program.files, "MyBot.py").is_file()
        _tamper(store, ref, data)
        with pytest.raises(UploadedBotError, match=r"refused \(damaged or tampered\)"):
            DatabaseKit().program(ref, url)
        missing = ProgramRef("0" * 64, "python3")
        with pytest.raises(UploadedBotError, match="no uploaded bot archive with SHA-256"):
            DatabaseKit().program(missing, url)


def test_the_embedded_default_plays_in_process_and_ray_settings_are_checked() -> None:
    # No --ray-address: today's in-process games (nothing to install).
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost"):
        runner = app.state.manager.runner
        assert isinstance(runner, LocalRunner) and not runner.remote
    with pytest.raises(ValueError, match="'memory' is this process's own"):
        create_app(ServerConfig(database_url="memory", ray_address="auto"))
    for bad in ({"ray_game_retries": -1}, {"ray_game_cpus": 0.0}):
        with pytest.raises(ValueError, match="expected at least 0 and more than 0"):
            create_app(ServerConfig(database_url="sqlite:///x.db", ray_address="auto", **bad))
    for timeout in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match=r"ray_start_timeout_s .*: expected more than 0"):
            create_app(
                ServerConfig(
                    database_url="sqlite:///x.db", ray_address="auto", ray_start_timeout_s=timeout
                )
            )
