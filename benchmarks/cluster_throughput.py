"""Games per minute through ``snakewar serve``: in its own process, and on a Ray cluster.

Side by side in one run: today's single-process server (every game an asyncio task of
the web process), then the same server handing its games to a Ray cluster started here
(``ray.cluster_utils.Cluster``: a head that runs no games, and worker nodes offering 1,
2 or 4 CPUs, on one node or two).  Every game is a duel of two HTTP snakes on this
machine that answer each move after a fixed delay (``benchmarks/latency_snake.py``), so
the figure is how many games the server keeps going at once, not how fast bots think.
The Halite workload is games of four uploads of the Python starter kit, each bot a
sandboxed process (bubblewrap), on nodes that declare the sandbox.

Games are created through the API (``POST /api/games``) as a user would, ``--games`` of
them, as fast as the server accepts them (a 429 is retried); the clock runs from the
first request to the last game finished.

    python3 benchmarks/cluster_throughput.py [--games 24] [--workloads http:20,http:150,halite:4] \\
        [--setups local,ray:1,ray:2,ray:4,ray:2+2] [--max-turns 40] [--game-cpus 1]

Run it from the repository root with ``PYTHONPATH=src:.``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.server.multi_server import Server, free_port, wait_until

HERE = Path(__file__).resolve().parent
KIT = HERE.parent / "tests" / "games" / "halite3" / "starter_kit"


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
    ``nodes`` (its CPUs, and the sandbox: program bots may play there); yields the address
    servers join."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False}
    )
    try:
        for cpus in nodes:
            cluster.add_node(num_cpus=cpus, resources={"snakewar_sandbox": 1})
        cluster.wait_for_nodes()
        yield cluster.address
    finally:
        cluster.shutdown()  # type: ignore[no-untyped-call]


async def play_games(base: str, body: dict[str, Any], games: int) -> tuple[float, int]:
    """Create ``games`` games of ``body`` and wait for all; (seconds, turns played in all)."""
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


def kit_archive() -> bytes:
    """The Python starter kit of Halite III (the tests' copy), as an upload."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in KIT.rglob("*.py"):
            archive.write(path, f"starter/{path.relative_to(KIT)}")
    return buffer.getvalue()


def halite_body(base: str, bots: int, turns: int) -> dict[str, Any]:
    """A Halite game of ``bots`` uploads of the starter kit (uploaded to ``base`` now).

    Each seat is an upload of its own name (a named bot plays under its name); they hold
    one archive, stored once (by its hash).
    """
    refs = []
    for seat in range(bots):
        made = httpx.post(
            f"{base}/api/snakes/upload",
            params={"name": f"kit{seat + 1}", "language": "python3", "game": "halite3"},
            content=kit_archive(),
            headers={"Content-Type": "application/zip"},
            timeout=120,
        )
        made.raise_for_status()
        refs.append(made.json()["ref"])
    return {"game": "halite3", "width": 32, "height": 32, "maxTurns": turns, "snakes": refs}


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
    parser.add_argument(
        "--workloads",
        default="http:20,http:150,halite:4",
        help="http:MS (duels of snakes answering after MS), halite:N (N sandboxed kit bots)",
    )
    parser.add_argument("--setups", default="local,ray:1,ray:2,ray:4,ray:2+2")
    parser.add_argument("--max-turns", type=int, default=40)
    parser.add_argument("--halite-turns", type=int, default=100)
    parser.add_argument(
        "--game-cpus", type=float, default=1.0, help="--ray-game-cpus of the Ray setups"
    )
    args = parser.parse_args()
    print(f"{'setup':<10}{'workload':>12}{'games':>7}{'turns':>8}{'seconds':>9}{'games/min':>11}")
    with tempfile.TemporaryDirectory() as folder:
        for workload in args.workloads.split(","):
            kind, _, value = workload.partition(":")
            with contextlib.ExitStack() as snakes_up:
                if kind == "http":
                    urls = snakes_up.enter_context(latency_snakes(float(value)))
                elif kind != "halite":
                    raise SystemExit(f"workload {workload!r}: expected http:MS or halite:N")
                for setup in args.setups.split(","):
                    nodes = setup_nodes(setup)
                    with contextlib.ExitStack() as stack:
                        extra: list[str] = []
                        if nodes is not None:
                            address = stack.enter_context(ray_cluster(nodes))
                            extra = ["--ray-address", address]
                            extra += ["--ray-game-cpus", str(args.game_cpus)]
                            # Each game holds its referee's CPUs: N CPUs, N games at once
                            # (its bots run besides, as they do in one process).
                            extra += ["--ray-bot-cpus", "0"]
                        name = f"{setup.replace(':', '_')}-{kind}-{value}"
                        db = f"sqlite:///{folder}/{name}.db"
                        server = Server(db, f"bench-{name}", Path(folder), extra=extra)
                        server.start().wait_ready()
                        stack.callback(server.stop)
                        if kind == "http":
                            body: dict[str, Any] = {"snakes": urls, "width": 11, "height": 11}
                            body |= {"timeout": 1000, "max_turns": args.max_turns}
                        else:
                            body = halite_body(server.url, int(value), args.halite_turns)
                        seconds, turns = asyncio.run(play_games(server.url, body, args.games))
                    rate = args.games * 60 / seconds
                    print(
                        f"{setup:<10}{workload:>12}{args.games:>7}{turns:>8}"
                        f"{seconds:>9.1f}{rate:>11.1f}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
