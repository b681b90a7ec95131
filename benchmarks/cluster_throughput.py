"""Games per minute through ``snakewar serve``: in its own process, and on a Ray cluster.

Side by side in one run: today's single-process server (every game an asyncio task of
the web process), then the same server handing its games to a Ray cluster started here
(``ray.cluster_utils.Cluster``: a head that runs no games, and worker nodes offering 1,
2 or 4 CPUs, on one node or two).  Every game is a duel of two HTTP snakes on this
machine that answer each move after a fixed delay (``benchmarks/latency_snake.py``), so
the figure is how many games the server keeps going at once, not how fast bots think.

Games are created through the API (``POST /api/games``) as a user would, ``--games`` of
them, as fast as the server accepts them (a 429 is retried); the clock runs from the
first request to the last game finished.

    python3 benchmarks/cluster_throughput.py [--games 24] [--delays 20,150] \\
        [--setups local,ray:1,ray:2,ray:4,ray:2+2] [--max-turns 40] [--game-cpus 1]

Run it from the repository root with ``PYTHONPATH=src:.``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.server.multi_server import Server, free_port, wait_until

HERE = Path(__file__).resolve().parent


@contextlib.contextmanager
def latency_snakes(delay_ms: float, count: int = 2) -> Iterator[list[str]]:
    """``count`` fixed-latency snake servers; yields their URLs."""
    ports = [free_port() for _ in range(count)]
    processes = [
        subprocess.Popen(
            [
                *(sys.executable, str(HERE / "latency_snake.py")),
                *("--port", str(port), "--delay-ms", str(delay_ms)),
            ],
        )
        for port in ports
    ]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for url in urls:

            def up(url: str = url) -> bool:
                try:
                    return httpx.get(url, timeout=2).status_code == 200
                except httpx.HTTPError:
                    return False

            wait_until(f"the snake at {url}", up, 60)
        yield urls
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(10)


@contextlib.contextmanager
def ray_cluster(nodes: list[int]) -> Iterator[str]:
    """A Ray cluster on this machine: a head with no CPUs, one worker node per entry of
    ``nodes`` (its CPUs); yields the address servers join."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False}
    )
    try:
        for cpus in nodes:
            cluster.add_node(num_cpus=cpus)
        cluster.wait_for_nodes()
        yield cluster.address
    finally:
        cluster.shutdown()  # type: ignore[no-untyped-call]


async def play_games(base: str, snakes: list[str], games: int, max_turns: int) -> tuple[float, int]:
    """Create ``games`` games and wait for all; (seconds, turns played in all)."""
    body = {"snakes": snakes, "width": 11, "height": 11, "timeout": 1000, "max_turns": max_turns}
    started = time.perf_counter()
    ids: list[str] = []
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        while len(ids) < games:
            reply = await http.post("/api/games", json=body)
            if reply.status_code == 429:  # every slot taken: wait for one
                await asyncio.sleep(0.2)
                continue
            reply.raise_for_status()
            ids.append(reply.json()["id"])
        turns = 0
        for game_id in ids:
            while True:
                game = (await http.get(f"/api/games/{game_id}")).json()
                if game["status"] not in ("starting", "running"):
                    break
                await asyncio.sleep(0.2)
            if game["status"] != "complete":
                raise SystemExit(f"game {game_id} ended {game['status']}: {game.get('error')}")
            turns += int(game.get("turn") or 0)
    return time.perf_counter() - started, turns


def setup_nodes(setup: str) -> list[int] | None:
    """``local`` -> None; ``ray:4`` -> [4]; ``ray:2+2`` -> [2, 2]."""
    if setup == "local":
        return None
    kind, _, spec = setup.partition(":")
    if kind != "ray" or not spec:
        raise SystemExit(f"setup {setup!r}: expected local or ray:N[+N...]")
    return [int(n) for n in spec.split("+")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--delays", default="20,150", help="snake latencies (ms)")
    parser.add_argument("--setups", default="local,ray:1,ray:2,ray:4,ray:2+2")
    parser.add_argument("--max-turns", type=int, default=40)
    parser.add_argument(
        "--game-cpus", type=float, default=1.0, help="--ray-game-cpus of the Ray setups"
    )
    args = parser.parse_args()
    print(f"{'setup':<10}{'delay':>7}{'games':>7}{'turns':>8}{'seconds':>9}{'games/min':>11}")
    with tempfile.TemporaryDirectory() as folder:
        for delay in [float(d) for d in args.delays.split(",")]:
            with latency_snakes(delay) as snakes:
                for setup in args.setups.split(","):
                    nodes = setup_nodes(setup)
                    with contextlib.ExitStack() as stack:
                        extra: list[str] = []
                        if nodes is not None:
                            address = stack.enter_context(ray_cluster(nodes))
                            extra = ["--ray-address", address]
                            extra += ["--ray-game-cpus", str(args.game_cpus)]
                        db = f"sqlite:///{folder}/{setup.replace(':', '_')}-{delay:g}.db"
                        server = Server(db, f"bench-{setup}", Path(folder), extra=extra)
                        server.start().wait_ready()
                        stack.callback(server.stop)
                        seconds, turns = asyncio.run(
                            play_games(server.url, snakes, args.games, args.max_turns)
                        )
                    rate = args.games * 60 / seconds
                    print(
                        f"{setup:<10}{delay:>5.0f}ms{args.games:>7}{turns:>8}"
                        f"{seconds:>9.1f}{rate:>11.1f}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
