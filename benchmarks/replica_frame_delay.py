"""Live frame delay across replicas: a game played by server A, followed on server B.

Starts two ``snakewar serve`` processes on one PostgreSQL database (a fresh schema of
``--database``, default ``$SNAKEWAR_TEST_POSTGRES_URL``; dropped at the end), starts a
game between built-in bots on A in step mode, attaches ``--followers-b`` websocket
followers to B (and ``--followers-a`` to A, the game's own server), then plays a turn
every ``--turn-ms`` (stepped by this script, as bots that think that long would pace
it; 0: as fast as the bots answer).  Every frame a follower on A receives carries A's
production time; a frame on B arrives through the database (stored by A, notified,
read by B's one mirror of the game), and its delay is B's receipt minus A's production
time of the same turn (one clock: every process runs on this machine).  Prints the
p50/p95/max delay on each replica and whether every follower saw every frame in order.

    python3 benchmarks/replica_frame_delay.py --followers-b 200
    python3 benchmarks/replica_frame_delay.py --followers-a 500 --followers-b 500
    python3 benchmarks/replica_frame_delay.py --ray --followers-a 200 --followers-b 200

``--ray``: a Ray cluster on this machine (a head with no CPUs and one worker node), both
servers joined to it (``--ray-address``): the game plays on the worker node, and every
follower, on A as on B, gets its frames through the database.  No server makes the
frames then, so the reference time of a turn is when this script, itself listening on
PostgreSQL (``LISTEN snakewar_games``), is notified that the frame is stored; the
delay is the replicas' own part: the wake-up, their one read of the frame, the fan-out.

The followers are the lean raw-socket clients of ``server_load.py`` (the clients run on
the same cores as both servers and PostgreSQL: the figures include their load).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server_load import Follower, load, percentile, wait_up
from tests.system_tools import fresh_schema

from snakewar.cli.bench import free_port


class TimedFollower(Follower):
    """A lean follower that keeps, per turn, when it received the frame and its ``Time``."""

    def __init__(self, path: str) -> None:
        super().__init__(path, [], timed=False)
        self.received: dict[int, tuple[float, float]] = {}

    def message(self, opcode: int, payload: bytes, now: float) -> None:
        super().message(opcode, payload, now)
        if opcode == 1 and not payload.startswith(b'{"Type":"game_end"'):
            at = payload.rfind(b'"Time":') + 7
            produced = float(payload[at : payload.index(b"}", at)])
            self.received[self.turns[-1]] = (now, produced)


@contextlib.contextmanager
def serve(database: str, ray_address: str | None = None) -> Iterator[int]:
    port = free_port()
    argv = [sys.executable, "-m", "snakewar", "serve", "--port", str(port), "--database", database]
    if ray_address is not None:
        argv += ["--ray-address", ray_address]
    process = subprocess.Popen(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield port
    finally:
        process.terminate()
        process.wait(30)


def delays_line(name: str, delays: list[float]) -> str:
    if not delays:
        return f"{name}: no live frames"
    return (
        f"{name}: {len(delays)} frames, delay p50 {statistics.median(delays) * 1000:.1f} ms, "
        f"p95 {percentile(delays, 95) * 1000:.1f} ms, max {max(delays) * 1000:.1f} ms"
    )


async def attach(port: int, path: str, count: int) -> list[TimedFollower]:
    loop = asyncio.get_running_loop()
    clients: list[TimedFollower] = []
    for _ in range(count):
        # One at a time: the server's listen backlog is finite.
        _, client = await loop.create_connection(lambda: TimedFollower(path), "127.0.0.1", port)
        clients.append(client)
    return clients


@contextlib.contextmanager
def ray_cluster() -> Iterator[str]:
    """A Ray cluster on this machine: a head that plays nothing and one worker node."""
    import ray
    from ray.cluster_utils import Cluster

    nodes = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False}
    )
    try:
        nodes.add_node(num_cpus=2)
        ray.init(address=nodes.address, log_to_driver=False)
        nodes.wait_for_nodes()
        yield str(nodes.address)
    finally:
        ray.shutdown()
        nodes.shutdown()  # type: ignore[no-untyped-call]  # ray is untyped


class Stored:
    """When this process was told each frame of a game was stored (PostgreSQL NOTIFY)."""

    def __init__(self, database: str) -> None:
        import sqlalchemy as sa

        url = sa.make_url(database)
        self.conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
        self.game_id = ""
        self.at: dict[int, float] = {}
        self.task: asyncio.Task[None] | None = None
        self.listening = asyncio.Event()

    async def listen(self) -> None:
        import psycopg

        async with await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True) as conn:
            await conn.execute("LISTEN snakewar_games")
            self.listening.set()
            async for note in conn.notifies():
                now = time.time()
                game_id, _, event = note.payload.partition(":")
                if game_id == self.game_id and event.isdigit():
                    self.at.setdefault(int(event), now)


async def run(args: argparse.Namespace, port_a: int, port_b: int) -> None:
    a, b = f"http://127.0.0.1:{port_a}", f"http://127.0.0.1:{port_b}"
    stored = Stored(args.database_url)
    stored.task = asyncio.create_task(stored.listen())
    await asyncio.wait_for(stored.listening.wait(), 60)
    async with httpx.AsyncClient(timeout=60) as http:
        await wait_up(http, a)
        await wait_up(http, b)
        body = {"snakes": args.snakes.split(","), "seed": 1, "maxTurns": args.max_turns}
        response = await http.post(f"{a}/api/games", json={**body, "step": True})
        if response.status_code != 201:
            raise SystemExit(f"game creation failed: {response.json()['detail']}")
        game_id = response.json()["id"]
        stored.game_id = game_id
        path = f"/games/{game_id}/events"
        # A's first follower is the reference: A's production time of every turn.
        on_a = await attach(port_a, path, 1 + args.followers_a)
        on_b = await attach(port_b, path, args.followers_b)
        everyone = on_a + on_b
        await asyncio.wait_for(asyncio.gather(*(c.joined.wait() for c in everyone)), 300)
        before = load()
        started = time.perf_counter()
        if args.turn_ms <= 0:
            await http.post(f"{a}/api/games/{game_id}/resume")
        else:
            while not all(c.done.done() for c in everyone):
                turn_start = time.perf_counter()
                stepped = await http.post(f"{a}/api/games/{game_id}/step")
                if stepped.status_code != 200 or stepped.json()["status"] != "running":
                    break
                pause = args.turn_ms / 1000 - (time.perf_counter() - turn_start)
                await asyncio.sleep(max(pause, 0))
        errors = await asyncio.wait_for(asyncio.gather(*(c.done for c in everyone)), 600)
        elapsed = time.perf_counter() - started
    stored.task.cancel()
    if any(errors):
        raise SystemExit(f"a follower failed: {next(e for e in errors if e)}")
    if args.ray:  # no server made the frames: they are dated when stored
        produced = dict(stored.at)
    else:
        produced = {turn: times[1] for turn, times in on_a[0].received.items()}
    joined = min(c.connected for c in everyone)

    def delays(clients: list[TimedFollower]) -> list[float]:
        return [
            received - produced[turn]
            for c in clients
            for turn, (received, _) in c.received.items()
            if produced.get(turn, 0.0) >= joined  # live frames only, not the history
        ]

    turns = len(on_a[0].turns)
    in_order = all(c.turns == list(range(turns)) for c in everyone)
    where = "on a Ray worker node, created on A" if args.ray else "on A"
    print(
        f"game of {turns} frames {where} ({args.snakes}), a turn every {args.turn_ms} ms, "
        f"{elapsed:.1f} s; {args.followers_a} followers on A, {args.followers_b} on B"
    )
    if args.ray:
        print("delays from the frame's NOTIFY (stored by the worker) to each follower:")
        print(delays_line("followers on A (through PostgreSQL)", delays(on_a)))
    elif args.followers_a:
        print(delays_line("followers on A (the game's server)", delays(on_a[1:])))
    print(delays_line("followers on B (through PostgreSQL)", delays(on_b)))
    print(f"every follower saw every frame in order: {in_order}; {before}, after {load()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default=os.environ.get("SNAKEWAR_TEST_POSTGRES_URL"))
    parser.add_argument("--followers-a", type=int, default=0)
    parser.add_argument("--followers-b", type=int, default=200)
    parser.add_argument("--turn-ms", type=int, default=100)
    parser.add_argument("--max-turns", type=int, default=150)
    parser.add_argument("--snakes", default="greedy,greedy,greedy,greedy")
    parser.add_argument(
        "--ray", action="store_true", help="play the game on a Ray worker node of this machine"
    )
    args = parser.parse_args()
    if not args.database:
        raise SystemExit("error: give --database (a PostgreSQL URL) or $SNAKEWAR_TEST_POSTGRES_URL")
    with contextlib.ExitStack() as stack:
        database = stack.enter_context(fresh_schema(args.database, "snakewar_bench"))
        args.database_url = database
        address = stack.enter_context(ray_cluster()) if args.ray else None
        port_a = stack.enter_context(serve(database, address))
        port_b = stack.enter_context(serve(database, address))
        asyncio.run(run(args, port_a, port_b))


if __name__ == "__main__":
    main()
