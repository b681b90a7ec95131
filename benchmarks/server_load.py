"""How many live games and spectators one ``snakewar serve`` process sustains.

Starts the server (``--database memory`` unless ``--database`` is given) and
built-in HTTP bots (``snakewar bot serve``) on loopback as separate processes,
then creates G concurrent games between the bots and attaches S websocket
spectators to each.  Every frame a spectator receives carries the server's
production time, so the delivery delay (production to receipt) is measured per
frame.  Prints games, spectators, frames delivered, frames/s and the p50/p95/max
delivery delay, and whether every spectator saw every frame in order.

    python3 benchmarks/server_load.py --games 16 --spectators 8

``--followers 100,500,1000`` measures the fan-out of one live game instead: the game
starts paused (step mode) until every follower holds turn 0, then plays a turn every
``--turn-ms`` (stepped by this script, as bots that think that long would pace it; 0:
as fast as the bots answer), and the delay of each later frame is measured; one line
per follower count, with the load average.  ``--compare-src DIR`` runs the same counts
against the server code in ``DIR`` (a ``src`` folder of another checkout, e.g.
``main``'s) first, side by side.  The followers are lean raw-socket clients (the
client runs on the same cores) that ask for no compression, so an old server's
per-spectator compression, which browsers would ask for, is not in its figures.

    git archive main src | tar -x -C /tmp/base
    python3 benchmarks/server_load.py --followers 100,500,1000 --compare-src /tmp/base/src
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
from websockets.asyncio.client import connect

from snakewar.cli.bench import _free_port, start_bot_servers


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))] if ordered else 0.0


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def delay_line(delays: list[float]) -> str:
    if not delays:
        return "delivery delay: no live frames"
    return (
        f"delivery delay: p50 {statistics.median(delays) * 1000:.1f} ms, "
        f"p95 {percentile(delays, 95) * 1000:.1f} ms, max {max(delays) * 1000:.1f} ms"
    )


async def spectate(
    port: int, game_id: str, delays: list[float], joined: asyncio.Event | None = None
) -> tuple[int, bool]:
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
            if joined is not None and not joined.is_set():
                joined.set()
    return len(turns), turns == list(range(len(turns)))


class Follower(asyncio.Protocol):
    """A lean websocket client for many followers in one process: it reads each frame's
    ``Turn`` and ``Time`` without decoding the whole message, so that the client's own
    work (on the same cores) weighs as little as it can on the delays measured."""

    def __init__(self, path: str, delays: list[float]) -> None:
        self.path = path
        self.delays = delays
        self.buffer = b""
        self.handshaken = False
        self.connected = 0.0
        self.turns: list[int] = []
        self.joined = asyncio.Event()
        self.done = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write(
            f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )

    def data_received(self, data: bytes) -> None:
        now = time.time()
        self.buffer += data
        if not self.handshaken:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            if not self.buffer.startswith(b"HTTP/1.1 101"):
                self.finish(f"refused: {self.buffer[:40]!r}")
                return
            self.handshaken = True
            self.connected = now
            self.buffer = self.buffer[end + 4 :]
        while len(self.buffer) >= 2:
            opcode, length, start = self.buffer[0] & 0x0F, self.buffer[1] & 0x7F, 2
            if length == 126:
                length, start = int.from_bytes(self.buffer[2:4]), 4
            elif length == 127:
                length, start = int.from_bytes(self.buffer[2:10]), 10
            if len(self.buffer) < start + length:
                return
            payload = self.buffer[start : start + length]
            self.buffer = self.buffer[start + length :]
            self.message(opcode, payload, now)

    def message(self, opcode: int, payload: bytes, now: float) -> None:
        if opcode == 9:  # ping: a masked pong (a zero mask)
            assert self.transport is not None
            self.transport.write(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
        elif opcode == 8:
            self.finish("closed")
        elif opcode == 1 and payload.startswith(b'{"Type":"game_end"'):
            self.finish(None)
        elif opcode == 1:
            at = payload.rfind(b'"Time":') + 7
            produced = float(payload[at : payload.index(b"}", at)])
            turn_at = payload.index(b'"Turn":') + 7
            self.turns.append(int(payload[turn_at : payload.index(b",", turn_at)]))
            if produced >= self.connected:  # history replayed on connect is not live delay
                self.delays.append(now - produced)
            self.joined.set()

    def finish(self, error: str | None) -> None:
        if not self.done.done():
            self.done.set_result(error)
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.finish("connection lost")


@contextmanager
def server(args: argparse.Namespace, src: str | None) -> Iterator[int]:
    port = _free_port()
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    process = subprocess.Popen(
        [sys.executable, "-m", "snakewar", "serve", "--port", str(port),
         "--database", args.database, "--max-games", str(args.games)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )  # fmt: skip
    try:
        yield port
    finally:
        process.terminate()
        process.wait(10)


async def wait_up(http: httpx.AsyncClient, base: str) -> None:
    for _ in range(300):
        try:
            await http.get(base + "/api/bots")
            return
        except httpx.TransportError:
            await asyncio.sleep(0.1)


async def run(args: argparse.Namespace, urls: list[str]) -> None:
    with server(args, None) as port:
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(timeout=30) as http:
            await wait_up(http, base)
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
    print(delay_line(delays))
    print(f"every spectator saw every frame in order: {in_order}")


async def fan_out(
    args: argparse.Namespace, urls: list[str], followers: int, src: str | None
) -> str:
    """One paused game, ``followers`` websockets on it, then the game plays on."""
    with server(args, src) as port:
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(timeout=60) as http:
            await wait_up(http, base)
            body = {"snakes": urls, "seed": 1, "maxTurns": args.max_turns, "step": True}
            response = await http.post(base + "/api/games", json=body)
            if response.status_code != 201:
                raise SystemExit(f"game creation failed: {response.json()['detail']}")
            game_id = response.json()["id"]
            delays: list[float] = []
            loop = asyncio.get_running_loop()
            clients: list[Follower] = []
            for _ in range(followers):
                # One at a time: the server's listen backlog is finite.
                _, client = await loop.create_connection(
                    lambda: Follower(f"/games/{game_id}/events", delays), "127.0.0.1", port
                )
                clients.append(client)
            await asyncio.wait_for(asyncio.gather(*(c.joined.wait() for c in clients)), 120)
            tasks = [c.done for c in clients]
            before = load()
            started = time.perf_counter()
            if args.turn_ms <= 0:
                await http.post(f"{base}/api/games/{game_id}/resume")
            else:
                while not all(t.done() for t in tasks):
                    turn_start = time.perf_counter()
                    stepped = await http.post(f"{base}/api/games/{game_id}/step")
                    if stepped.status_code != 200 or stepped.json()["status"] != "running":
                        break
                    pause = args.turn_ms / 1000 - (time.perf_counter() - turn_start)
                    await asyncio.sleep(max(pause, 0))
            errors = await asyncio.gather(*tasks)
            elapsed = time.perf_counter() - started
    if any(errors):
        raise SystemExit(f"a follower failed: {next(e for e in errors if e)}")
    frames = sum(len(c.turns) for c in clients)
    counts = {len(c.turns) for c in clients}
    in_order = all(c.turns == list(range(len(c.turns))) for c in clients) and len(counts) == 1
    return (
        f"{followers:5d} followers: {frames} frames in {elapsed:.1f} s, {delay_line(delays)}; "
        f"all in order: {in_order}; {before}, after {load()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--spectators", type=int, default=8)
    parser.add_argument("--snakes", type=int, default=4)
    parser.add_argument("--bot", default="random")
    parser.add_argument("--max-turns", type=int, default=150)
    parser.add_argument("--database", default="memory")
    parser.add_argument("--followers", help="comma-separated follower counts of one game")
    parser.add_argument("--compare-src", help="also measure the server code in this src folder")
    parser.add_argument("--turn-ms", type=int, default=100, help="--followers: a turn every")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each follower count")
    args = parser.parse_args()
    urls, bots = start_bot_servers([args.bot] * args.snakes)
    try:
        if not args.followers:
            asyncio.run(run(args, urls))
            return
        counts = [int(n) for n in args.followers.split(",")]
        print(
            f"one game x {args.snakes} HTTP snakes (builtin:{args.bot}), at most "
            f"{args.max_turns} turns, a turn every {args.turn_ms} ms"
        )
        for count in counts:
            for _ in range(args.repeat):
                if args.compare_src:
                    line = asyncio.run(fan_out(args, urls, count, args.compare_src))
                    print(f"before {line}", flush=True)
                line = asyncio.run(fan_out(args, urls, count, None))
                print(f"after  {line}" if args.compare_src else line, flush=True)
    finally:
        for bot in bots:
            bot.terminate()
        for bot in bots:
            bot.wait(10)


if __name__ == "__main__":
    main()
