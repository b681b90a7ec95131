"""Figures for a public server: upload memory, event-loop stalls, arena throughput, sandbox cost.

Starts ``snakewar serve`` (in-memory database) as a child process and prints:

* the server's resident memory before and at its peak while it stores the largest
  Halite replay the test data has, and while it refuses a decompression bomb;
* the worst delay a 10 ms probe (``GET /api/catalogue``) sees during the upload, and
  while S websocket spectators follow G live games (the event loop's stall, from outside);
* games per minute through the bounded arena worker (a ladder of built-ins);
* the cost of starting a bot in the bubblewrap sandbox, next to a bare start.

    python3 benchmarks/hosting.py [--games 60] [--spectators 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import zstandard
from websockets.asyncio.client import connect

from snakewar.cli.bench import free_port as _free_port
from snakewar.referee.process import ProcessBot, Program
from snakewar.referee.sandbox import SandboxPolicy

SNAKEWAR = [sys.executable, "-c", "import sys; from snakewar.command import main; sys.exit(main())"]
REPLAYS = Path(__file__).resolve().parents[1] / "tests" / "data" / "halite3" / "public" / "replays"


def memory(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of ``pid`` in MiB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024


async def probe(base: str, stop: asyncio.Event) -> float:
    """The worst latency (ms) of a request every 10 ms until ``stop``."""
    worst = 0.0
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        while not stop.is_set():
            started = time.perf_counter()
            await http.get("/api/catalogue")
            worst = max(worst, (time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.01)
    return worst


async def during(base: str, work: object) -> float:
    stop = asyncio.Event()
    prober = asyncio.create_task(probe(base, stop))
    await asyncio.sleep(0.2)
    await work  # type: ignore[misc]
    stop.set()
    return await prober


def bomb() -> bytes:
    """A few KB of zstd that decompress to 64 MiB of JSON (one long player name)."""
    text = json.dumps({"players": [{"name": "x" * (64 * 1024 * 1024)}]})
    return zstandard.ZstdCompressor(level=19).compress(text.encode())


async def uploads(base: str, pid: int) -> None:
    largest = max(REPLAYS.glob("*.hlt"), key=lambda p: p.stat().st_size)
    before = memory(pid)[0]
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:

        async def send(data: bytes) -> int:
            reply = await http.post("/api/halite/games", content=data)
            return reply.status_code

        status: list[int] = []

        async def both() -> None:
            status.append(await send(largest.read_bytes()))

        stall = await during(base, both())
        rss, peak = memory(pid)
        print(
            f"upload {largest.name} ({largest.stat().st_size} B): status {status[0]}, "
            f"RSS {before} -> {rss} MiB (peak {peak} MiB), worst probe {stall:.0f} ms"
        )
        data = bomb()
        status.clear()

        async def refused() -> None:
            status.append(await send(data))

        stall = await during(base, refused())
        rss, peak = memory(pid)
        print(
            f"bomb ({len(data)} B -> 64 MiB JSON): status {status[0]}, RSS {rss} MiB "
            f"(peak {peak} MiB), worst probe {stall:.0f} ms"
        )


async def followers(base: str, games: int, spectators: int) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        ids = []
        for _ in range(games):
            body = {"snakes": ["greedy", "greedy"], "width": 11, "height": 11, "timeout": 100}
            ids.append((await http.post("/api/games", json=body)).json()["id"])
    port = base.rsplit(":", 1)[1]
    frames = 0

    async def follow(game_id: str) -> None:
        nonlocal frames
        async with connect(f"ws://127.0.0.1:{port}/games/{game_id}/events") as ws:
            async for raw in ws:
                frames += 1
                if json.loads(raw)["Type"] == "game_end":
                    return

    async def everyone() -> None:
        await asyncio.gather(*(follow(g) for g in ids for _ in range(spectators)))

    stall = await during(base, everyone())
    print(
        f"{games} live games x {spectators} spectators: {frames} frames delivered, "
        f"worst probe {stall:.0f} ms"
    )


async def arena(base: str, games: int) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        await http.post("/api/ladders", json={"name": "bench", "width": 11, "height": 11})
        for bot in ("builtin:random", "builtin:greedy", "builtin:random"):
            await http.post("/api/ladders/bench/snakes", json={"snake": bot})
        started = time.perf_counter()
        await http.post("/api/ladders/bench/run", json={"games": games})
        while True:
            ladder = (await http.get("/api/ladders/bench")).json()
            if not ladder["running"]:
                break
            await asyncio.sleep(0.2)
        minutes = (time.perf_counter() - started) / 60
        print(
            f"arena: {ladder['games_played']} ladder games in {minutes * 60:.1f} s = "
            f"{ladder['games_played'] / minutes:.0f} games/min (11x11, built-ins)"
        )


async def sandbox_cost(starts: int = 20) -> tuple[float, float]:
    """Median ms from a bot's start to its first line: (bare, sandboxed); printed too."""
    folder = Path(tempfile.mkdtemp())
    folder.chmod(0o755)
    (folder / "bot.py").write_text("print('ready', flush=True)\n")
    (folder / "bot.py").chmod(0o644)

    async def once(program: Program) -> float:
        started = time.perf_counter()
        bot = await ProcessBot.start(program)
        await bot.read_line(30)
        elapsed = (time.perf_counter() - started) * 1000
        await bot.kill()
        return elapsed

    bare = Program(("/usr/bin/python3", "bot.py"), cwd=str(folder))
    boxed = Program(("python3", "bot.py"), sandbox=SandboxPolicy(), files=str(folder))
    plain = [await once(bare) for _ in range(starts)]
    sandboxed = [await once(boxed) for _ in range(starts)]
    print(
        f"bot start to first line: bare {statistics.median(plain):.0f} ms, "
        f"sandboxed {statistics.median(sandboxed):.0f} ms (median of {starts})"
    )
    return statistics.median(plain), statistics.median(sandboxed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60, help="ladder games to play")
    parser.add_argument("--live", type=int, default=8, help="live games to follow")
    parser.add_argument("--spectators", type=int, default=25, help="spectators per live game")
    args = parser.parse_args()
    port = _free_port()
    server = subprocess.Popen(
        [*SNAKEWAR, "serve", "--database", "memory", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(base + "/api/catalogue", timeout=1)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        asyncio.run(uploads(base, server.pid))
        asyncio.run(followers(base, args.live, args.spectators))
        asyncio.run(arena(base, args.games))
        asyncio.run(sandbox_cost())
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
