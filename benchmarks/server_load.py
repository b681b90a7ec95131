"""How many live games and spectators one ``snakewar serve`` process sustains.

Starts the server (``--database memory`` unless ``--database`` is given) and
built-in HTTP bots (``snakewar bot serve``) on loopback as separate processes,
then creates G concurrent games between the bots and attaches S websocket
spectators to each.  Every frame a spectator receives carries the server's
production time, so the delivery delay (production to receipt) is measured per
frame.  Prints games, spectators, frames delivered, frames/s and the p50/p95/max
delivery delay, and whether every spectator saw every frame in order.

    python3 benchmarks/server_load.py --games 16 --spectators 8
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time

import httpx
from websockets.asyncio.client import connect

from snakewar.cli.bench import _free_port, start_bot_servers


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))] if ordered else 0.0


async def spectate(port: int, game_id: str, delays: list[float]) -> tuple[int, bool]:
    turns: list[int] = []
    async with connect(f"ws://127.0.0.1:{port}/games/{game_id}/events", max_size=None) as ws:
        connected = time.time()
        async for raw in ws:
            message = json.loads(raw)
            if message["Type"] == "game_end":
                break
            # Frames made before we connected are history replayed on connect, not live delay.
            if message["Time"] >= connected:
                delays.append(time.time() - message["Time"])
            turns.append(message["Data"]["Turn"])
    return len(turns), turns == list(range(len(turns)))


async def run(args: argparse.Namespace) -> None:
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "snakewar", "serve", "--port", str(port),
         "--database", args.database, "--max-games", str(args.games)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    urls, bots = start_bot_servers([args.bot] * args.snakes)
    try:
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(timeout=30) as http:
            for _ in range(300):
                try:
                    await http.get(base + "/api/bots")
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.1)
            started = time.perf_counter()
            created = await asyncio.gather(
                *(
                    http.post(
                        base + "/api/games",
                        json={"snakes": urls, "seed": i + 1, "maxTurns": args.max_turns},
                    )
                    for i in range(args.games)
                )
            )
            ids = []
            for response in created:
                if response.status_code != 201:
                    raise SystemExit(f"game creation failed: {response.json()['detail']}")
                ids.append(response.json()["id"])
            delays: list[float] = []
            results = await asyncio.gather(
                *(spectate(port, gid, delays) for gid in ids for _ in range(args.spectators))
            )
            elapsed = time.perf_counter() - started
        frames = sum(n for n, _ in results)
        in_order = all(ok for _, ok in results)
        print(
            f"{args.games} concurrent games x {args.snakes} HTTP snakes (builtin:{args.bot}), "
            f"{args.spectators} spectators each ({args.games * args.spectators} websockets)"
        )
        print(f"{frames} frames delivered in {elapsed:.1f} s ({frames / elapsed:.0f} frames/s)")
        print(
            f"delivery delay: p50 {statistics.median(delays) * 1000:.1f} ms, "
            f"p95 {percentile(delays, 95) * 1000:.1f} ms, max {max(delays) * 1000:.1f} ms"
        )
        print(f"every spectator saw every frame in order: {in_order}")
    finally:
        server.terminate()
        for bot in bots:
            bot.terminate()
        server.wait(10)
        for bot in bots:
            bot.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--spectators", type=int, default=8)
    parser.add_argument("--snakes", type=int, default=4)
    parser.add_argument("--bot", default="random")
    parser.add_argument("--max-turns", type=int, default=150)
    parser.add_argument("--database", default="memory")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
