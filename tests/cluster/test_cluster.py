"""The hosted arena on a real cluster of this machine, through everything that can go wrong.

A multi-node Ray cluster (``ray.cluster_utils.Cluster``: a head that plays nothing, and
worker nodes that come and go), two real ``snakewar serve`` processes joining it
(``--ray-address``) on one scratch PostgreSQL database, and a continuous ladder that
plays on by itself throughout:

1. a game is created on replica A and played by an actor on node 2; spectators follow it
   live on replica B (and on A);
2. node 2 is removed mid-game: the game is played again from turn 0 on node 3, and its
   spectators are told so (``{"Type": "restart"}``) and start over;
3. replica A is killed (``SIGKILL``): its spectator resumes on replica B from the next
   frame it needs, and B controls the game to its end;
4. the ladder went on through all of it (its scheduler may have been A: B takes over),
   and every game it finished is rated exactly once.

Nothing depends on speed: the game is played in step mode where the test needs it held,
and every wait polls with a generous deadline.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from websockets.sync.client import ClientConnection, connect

from snakewar.arena.remote import ACTOR_NAMESPACE, actor_name
from snakewar.storage import Store
from tests.server.multi_server import Server
from tests.system_tools import RAY_HEAD_SETTINGS, fresh_schema, postgres_url

ray = pytest.importorskip("ray")

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.ray]

PATIENCE_S = 240.0
"""The longest any one state the test waits for may take (a loaded machine is slow)."""

GAME: dict[str, Any] = {
    "snakes": ["builtin:random", "builtin:random"],
    "seed": 5,
    "width": 7,
    "height": 7,
    "max_turns": 25,
    "step": True,
}
"""A short game that starts paused before turn 0: the test plays it turn by turn."""


def wait_for(what: str, ready: Callable[[], bool], seconds: float = PATIENCE_S) -> None:
    """Poll ``ready`` until it holds; fail naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > deadline:
            pytest.fail(f"waited {seconds:g} s for {what}")
        time.sleep(0.1)


@pytest.fixture
def database() -> Iterator[str]:
    """A fresh schema of the scratch PostgreSQL database, as a URL the servers open."""
    with fresh_schema(postgres_url(), "snakewar_cluster") as scoped:
        yield scoped


@pytest.fixture
def cluster() -> Iterator[Any]:
    """A Ray cluster whose head plays nothing (no CPUs): games go to worker nodes."""
    from ray.cluster_utils import Cluster

    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, **RAY_HEAD_SETTINGS})
    try:
        ray.init(address=nodes.address, log_to_driver=False)
        yield nodes
    finally:
        ray.shutdown()
        nodes.shutdown()  # type: ignore[no-untyped-call]


def actor_pid(game_id: str) -> int | None:
    """The worker process of the game's actor (``None``: no live actor of that name)."""
    try:
        handle = ray.get_actor(actor_name(game_id), namespace=ACTOR_NAMESPACE)
        return int(ray.get(handle.pid.remote(), timeout=60))
    except (ValueError, ray.exceptions.RayError):
        return None


def raylet_pid(node: Any) -> int:
    """The raylet process of a node of the cluster (its workers are its children)."""
    return int(node.all_processes["raylet"][0].process.pid)


def parent_pids(pid: int) -> set[int]:
    """Every ancestor of ``pid`` (from /proc)."""
    found: set[int] = set()
    while pid > 1:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        pid = int(fields[1])
        found.add(pid)
    return found


def on_node(game_id: str, node: Any) -> bool:
    """Whether the game's actor runs on ``node`` now."""
    pid = actor_pid(game_id)
    if pid is None:
        return False
    try:
        return raylet_pid(node) in parent_pids(pid)
    except (FileNotFoundError, ProcessLookupError):
        return False


def messages(ws: ClientConnection, count: int) -> list[dict[str, Any]]:
    """The next ``count`` messages of a websocket, decoded."""
    got = []
    for _ in range(count):
        raw = ws.recv(timeout=PATIENCE_S)
        got.append(json.loads(raw))
    return got


def turns(found: list[dict[str, Any]]) -> list[int]:
    return [m["Data"]["Turn"] for m in found if m["Type"] == "frame"]


def events_url(server: Server, game_id: str, start: int | None = None) -> str:
    query = "" if start is None else f"?from={start}"
    return server.url.replace("http://", "ws://") + f"/games/{game_id}/events{query}"


def ladder_counts(url: str) -> tuple[int, int]:
    """(games the ladder's scheduler started, of them rated)."""
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    try:
        with engine.connect() as connection:
            started = connection.execute(sa.text("SELECT count(*) FROM ladder_matches")).scalar()
            rated = connection.execute(
                sa.text("SELECT count(*) FROM ladder_matches WHERE state = 'rated'")
            ).scalar()
        return int(started or 0), int(rated or 0)
    finally:
        engine.dispose()


def check_rated_once(url: str) -> None:
    """Every ladder game rated at most once, and every complete one rated."""
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    try:
        with engine.connect() as connection:
            twice = connection.execute(
                sa.text("SELECT game_id FROM ladder_games GROUP BY game_id HAVING count(*) > 1")
            ).all()
            complete_unrated = connection.execute(
                sa.text(
                    "SELECT g.id FROM games g JOIN ladder_matches m ON m.game_id = g.id "
                    "WHERE g.status = 'complete' AND m.state = 'void'"
                )
            ).all()
    finally:
        engine.dispose()
    assert twice == [] and complete_unrated == []


@pytest.mark.timeout(900)
def test_a_game_and_a_ladder_survive_a_node_and_a_replica_dying(
    cluster: Any, database: str, tmp_path: Path
) -> None:
    node2 = cluster.add_node(num_cpus=2)
    cluster.wait_for_nodes()
    env = {"SNAKEWAR_RAY_ADDRESS": str(cluster.address)}
    a = Server(database, "a", tmp_path, env=env).start().wait_ready()
    # One after the other: two servers migrating one fresh database at once collide.
    b = Server(database, "b", tmp_path, env=env).start().wait_ready()
    try:
        # The continuous ladder, set up on A: it plays on by itself from now on.
        assert a.post("/api/ladders", {"name": "lad", "width": 7, "height": 7}).status_code == 201
        for bot in ("builtin:random", "builtin:greedy", "builtin:hunter?depth=1"):
            assert a.post("/api/ladders/lad/snakes", {"snake": bot}).status_code == 201
        turned = httpx.patch(
            f"{a.url}/api/ladders/lad",
            json={"continuous": True, "gamesInFlight": 1, "gamesPerHour": 3600},
            timeout=60,
        )
        assert turned.status_code == 200, turned.text
        wait_for("the ladder's first game", lambda: ladder_counts(database)[0] >= 1)

        # 1. A game made on A, played on node 2, followed live on B and on A.
        made = a.post("/api/games", GAME)
        assert made.status_code == 201, made.text
        game_id = made.json()["id"]
        wait_for("the game's actor on node 2", lambda: on_node(game_id, node2))
        with connect(events_url(b, game_id), open_timeout=60) as on_b:
            assert turns(messages(on_b, 1)) == [0]
            for turn in (1, 2, 3):
                assert b.post(f"/api/games/{game_id}/step").status_code == 200
                # B's follower gets each turn live, before the next one is played.
                assert turns(messages(on_b, 1)) == [turn]

            # 2. Node 2 removed mid-game: played again from turn 0 on node 3.
            node3 = cluster.add_node(num_cpus=2)
            cluster.remove_node(node2, allow_graceful=False)
            told = messages(on_b, 1)[0]
            assert told["Type"] == "restart", told
        wait_for("the game to start again on node 3", lambda: on_node(game_id, node3))
        with Store(database) as store:
            wait_for(
                "the replayed game's turn 0",
                lambda: [f.turn for f in store.games.data(game_id).frames] == [0],
            )
            # Played again at least once (a replacement placed on node 2 before Ray saw
            # it dead dies with it, and is replaced in turn: the retries are bounded).
            assert store.games.get(game_id).attempt >= 1  # type: ignore[union-attr]
        started_before = ladder_counts(database)[0]

        # 3. A spectator on A, then A killed: it resumes on B from its next frame.
        with connect(events_url(a, game_id), open_timeout=60) as on_a:
            assert turns(messages(on_a, 1)) == [0]
            assert a.post(f"/api/games/{game_id}/step").status_code == 200
            assert turns(messages(on_a, 1)) == [1]
            a.kill()
        with connect(events_url(b, game_id, 2), open_timeout=60) as resumed:
            assert b.post(f"/api/games/{game_id}/resume").status_code == 200
            rest: list[dict[str, Any]] = []
            while not rest or rest[-1]["Type"] != "game_end":
                rest.extend(messages(resumed, 1))
        played = turns(rest)
        assert played == list(range(2, played[-1] + 1)), played
        final = b.get(f"/api/games/{game_id}").json()
        assert final["status"] == "complete" and final["turn"] == played[-1]

        # 4. The ladder went on through all of it, on B's scheduler if A's died.
        wait_for(
            "the ladder to go on after the faults",
            lambda: ladder_counts(database)[0] >= started_before + 2,
        )
        assert b.post("/api/ladders/lad/pause").status_code == 200
        assert ladder_counts(database)[1] >= 1
        assert b.stop() in (0, 130)
    finally:
        a.kill()
        b.kill()
    check_rated_once(database)
