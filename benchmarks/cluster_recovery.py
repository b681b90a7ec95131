"""Recovery times of the hosted arena on a cluster: a node dies, a web replica dies.

Two figures, each over ``--rounds`` rounds, on a Ray cluster of this machine
(``ray.cluster_utils.Cluster``, a head that plays nothing) and a fresh schema of the
scratch PostgreSQL database (``--database``, default ``$SNAKEWAR_TEST_POSTGRES_URL``):

* **node death**: ``--games`` games (held in step mode) are played by actors on one
  node, a spare node is up, and the first node is removed without warning (its raylet
  and workers killed).  The time is from the removal to every game running again on the
  spare node (its attempt counted, its turn 0 stored anew).  The web replica that
  started them is an app in this process; it is what notices and replays them.
* **replica death**: a game of two snakes that answer each move after 100 ms
  (``latency_snake.py``) is played on the cluster; ``--followers`` websocket followers
  watch it on replica A (a ``snakewar serve`` process), which is killed (``SIGKILL``).
  Each follower reconnects at once to replica B, from the next frame it needs
  (``?from=N``); the time is from the kill to its first frame from B.  (Snakewar's own
  viewer waits its backoff first, 0.5 s to 1 s, before it reconnects.)

    python3 benchmarks/cluster_recovery.py [--rounds 3] [--games 4] [--followers 50]

Run it from the repository root with ``PYTHONPATH=src:.``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cluster_throughput import latency_snakes
from tests.server.multi_server import Server, wait_until
from tests.system_tools import fresh_schema

from snakewar.storage import Store

STEPPED: dict[str, Any] = {
    "snakes": ["builtin:random", "builtin:random"],
    "seed": 5,
    "width": 7,
    "height": 7,
    "max_turns": 25,
    "step": True,
}


def describe(name: str, seconds: list[float]) -> None:
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    print(
        f"{name}: n={len(ordered)} p50 {statistics.median(ordered):.2f} s, "
        f"p95 {p95:.2f} s, max {ordered[-1]:.2f} s",
        flush=True,
    )


def _node_round(cluster: Any, app: Any, db: Store, node: Any, games: int) -> tuple[float, Any]:
    """One round of :func:`node_death`: (seconds, the node that plays the games now)."""
    ids = []
    for _ in range(games):
        made = app.post("/api/games", json=STEPPED)
        made.raise_for_status()
        ids.append(made.json()["id"])

    def frames(game_id: str) -> int:
        return len(db.games.data(game_id).frames)

    def attempts() -> list[int]:
        return [db.games.get(g).attempt for g in ids]  # type: ignore[union-attr]

    wait_until("every game's turn 0", lambda: all(frames(g) == 1 for g in ids), 300)
    before = attempts()
    spare = cluster.add_node(num_cpus=games, resources={"games": games})
    cluster.wait_for_nodes()
    started = time.perf_counter()
    cluster.remove_node(node, allow_graceful=False)
    wait_until(
        "every game to run again",
        lambda: (
            all(a > b for a, b in zip(attempts(), before, strict=True))
            and all(frames(g) == 1 for g in ids)
        ),
        300,
    )
    seconds = time.perf_counter() - started
    for game_id in ids:
        app.post(f"/api/games/{game_id}/cancel")
    return seconds, spare


def node_death(cluster: Any, database: str, rounds: int, games: int) -> list[float]:
    """Seconds from a node's removal to all its games running again elsewhere."""
    from fastapi.testclient import TestClient

    from snakewar.server.app import create_app
    from snakewar.server.config import ServerConfig

    config = ServerConfig(
        database_url=database,
        ray_address=str(cluster.address),
        ray_game_resources=(("games", 1.0),),
        ray_game_retries=rounds + 2,
    )
    times: list[float] = []
    node = cluster.add_node(num_cpus=games, resources={"games": games})
    cluster.wait_for_nodes()
    with TestClient(create_app(config), base_url="http://localhost") as app, Store(database) as db:
        for _ in range(rounds):
            seconds, node = _node_round(cluster, app, db, node, games)
            times.append(seconds)
    cluster.remove_node(node)
    return times


async def _follow_then_resume(a: Server, b: Server, game_id: str, followers: int) -> list[float]:
    ws_a = a.url.replace("http://", "ws://")
    ws_b = b.url.replace("http://", "ws://")
    killed = asyncio.Event()
    killed_at: list[float] = []

    async def follower() -> float:
        next_turn = 0
        async with connect(f"{ws_a}/games/{game_id}/events", open_timeout=120) as ws:
            with contextlib.suppress(Exception):
                async for raw in ws:
                    message = json.loads(raw)
                    if message["Type"] == "frame":
                        next_turn = message["Data"]["Turn"] + 1
        await killed.wait()
        async with connect(f"{ws_b}/games/{game_id}/events?from={next_turn}") as ws:
            await ws.recv()
            return time.perf_counter() - killed_at[0]

    tasks = [asyncio.create_task(follower()) for _ in range(followers)]
    await asyncio.sleep(3.0)  # every follower connected and receiving
    killed_at.append(time.perf_counter())
    a.kill()
    killed.set()
    return list(await asyncio.gather(*tasks))


def replica_death(cluster: Any, database: str, rounds: int, followers: int) -> list[float]:
    """Seconds from a replica's death to each of its followers' first frame elsewhere."""
    node = cluster.add_node(num_cpus=2)
    cluster.wait_for_nodes()
    env = {"SNAKEWAR_RAY_ADDRESS": str(cluster.address)}
    times: list[float] = []
    with tempfile.TemporaryDirectory() as folder, latency_snakes(100.0) as snakes:
        logs = Path(folder)
        b = Server(database, "b", logs, env=env).start().wait_ready()
        try:
            for number in range(rounds):
                a = Server(database, f"a{number}", logs, env=env).start().wait_ready()
                # One snake, alone: it lasts until it starves (some 100 turns, 10 s), not
                # until two of them meet, so the game is surely running when A dies.
                body = {"snakes": snakes[:1], "width": 11, "height": 11, "max_turns": 400}
                made = httpx.post(f"{a.url}/api/games", json=body, timeout=60)
                made.raise_for_status()
                game_id = made.json()["id"]
                times.extend(asyncio.run(_follow_then_resume(a, b, game_id, followers)))
                httpx.post(f"{b.url}/api/games/{game_id}/cancel", timeout=60)
        finally:
            b.stop()
    cluster.remove_node(node)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--followers", type=int, default=50)
    parser.add_argument("--database", default=os.environ.get("SNAKEWAR_TEST_POSTGRES_URL"))
    parser.add_argument("--parts", default="node,replica", help="which figures to measure")
    args = parser.parse_args()
    if not args.database:
        raise SystemExit("give --database (a PostgreSQL URL) or $SNAKEWAR_TEST_POSTGRES_URL")
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False}
    )
    try:
        ray.init(address=cluster.address, log_to_driver=False)
        parts = args.parts.split(",")
        if "node" in parts:
            with fresh_schema(args.database, "snakewar_recovery") as database:
                describe(
                    f"node death -> its {args.games} games running again",
                    node_death(cluster, database, args.rounds, args.games),
                )
        if "replica" not in parts:
            return
        with fresh_schema(args.database, "snakewar_recovery") as database:
            describe(
                f"replica death -> its {args.followers} followers' next frame from B",
                replica_death(cluster, database, args.rounds, args.followers),
            )
    finally:
        ray.shutdown()
        cluster.shutdown()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    main()
