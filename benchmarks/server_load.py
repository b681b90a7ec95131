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

``--stored-followers 1000`` measures followers of a *stored* game instead: a server plays
one game of ``--stored-turns`` turns (a built-in hunter alone on a 25x25 board) into a
SQLite file, then a fresh server on that file (so the game is read from the store) gets
that many websocket followers at once, from ``--addresses`` loopback addresses (127.0.x.y,
the followers spread evenly: the server caps followers per address), while another
process (so that the followers' parsing does not delay its clock) times a request every
50 ms (``GET /api/games/{id}`` and ``GET /api/bots`` in turn): it prints the frames
delivered, whether every follower got every frame in order, and that client's latency
p50/p95/max; ``--compare-src`` runs the old code on the same file first.

    python3 benchmarks/server_load.py --stored-followers 1000 --compare-src /tmp/base/src
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event as EventType
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

from snakewar.cli.bench import free_port as _free_port
from snakewar.games.battlesnake.cli.bench import start_bot_servers


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
    work (on the same cores) weighs as little as it can on the delays measured.  A
    stored game's frames have no ``Time``: ``timed=False`` reads the ``Turn`` only."""

    def __init__(self, path: str, delays: list[float], timed: bool = True) -> None:
        self.path = path
        self.delays = delays
        self.timed = timed
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
        buffer = self.buffer + data if self.buffer else data
        if not self.handshaken:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                self.buffer = buffer
                return
            if not buffer.startswith(b"HTTP/1.1 101"):
                self.finish(f"refused: {buffer[:40]!r}")
                return
            self.handshaken = True
            self.connected = now
            buffer = buffer[end + 4 :]
        # An offset into the buffer, cut once at the end: slicing the rest off after each
        # message would copy a large read once per message.
        at = 0
        while len(buffer) - at >= 2:
            opcode, length, start = buffer[at] & 0x0F, buffer[at + 1] & 0x7F, at + 2
            if length == 126:
                length, start = int.from_bytes(buffer[at + 2 : at + 4]), at + 4
            elif length == 127:
                length, start = int.from_bytes(buffer[at + 2 : at + 10]), at + 10
            if len(buffer) < start + length:
                break
            self.message(opcode, buffer[start : start + length], now)
            at = start + length
        self.buffer = buffer[at:]

    def message(self, opcode: int, payload: bytes, now: float) -> None:
        if opcode == 9:  # ping: a masked pong (a zero mask)
            assert self.transport is not None
            self.transport.write(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
        elif opcode == 8:
            code = int.from_bytes(payload[:2]) if len(payload) >= 2 else None
            self.finish(f"closed ({code}: {payload[2:].decode(errors='replace')})")
        elif opcode == 1 and payload.startswith(b'{"Type":"game_end"'):
            self.finish(None)
        elif opcode == 1:
            turn_at = payload.index(b'"Turn":') + 7
            self.turns.append(int(payload[turn_at : payload.index(b",", turn_at)]))
            if self.timed:
                at = payload.rfind(b'"Time":') + 7
                produced = float(payload[at : payload.index(b"}", at)])
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
def server(args: argparse.Namespace, src: str | None, database: str | None = None) -> Iterator[int]:
    with server_process(args, src, database) as (port, _):
        yield port


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def server_process(
    args: argparse.Namespace, src: str | None, database: str | None = None
) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    port = _free_port()
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    process = subprocess.Popen(
        [sys.executable, "-m", "snakewar", "serve", "--port", str(port),
         "--database", database or args.database, "--max-games", str(args.games)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )  # fmt: skip
    try:
        yield port, process
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


def stored_game(args: argparse.Namespace, database: str) -> tuple[str, int]:
    """Play one long game into ``database`` on a server of its own: (its id, its frames)."""
    with server(args, None, database) as port:
        base = f"http://127.0.0.1:{port}"
        asyncio.run(wait_up(httpx.AsyncClient(timeout=5), base))
        with httpx.Client(base_url=base, timeout=60) as http:
            body = {"snakes": ["hunter"], "seed": 1, "width": 25, "height": 25,
                    "maxTurns": args.stored_turns}  # fmt: skip
            response = http.post("/api/games", json=body)
            if response.status_code != 201:
                raise SystemExit(f"game creation failed: {response.json()['detail']}")
            game_id = response.json()["id"]
            while (game := http.get(f"/api/games/{game_id}").json())["status"] == "running":
                time.sleep(0.5)
            if game["status"] != "complete":
                raise SystemExit(f"the stored game ended {game['status']}")
            count = http.get(f"/games/{game_id}/frames", params={"limit": 1}).json()["Count"]
    return game_id, int(count)


def probe_requests(port: int, game_id: str, stop: EventType, results: Connection) -> None:
    """Another client: a request every 50 ms until ``stop``; sends back, for each, when it
    started (Unix time), its latency (s) and its path."""
    timed: list[tuple[float, float, str]] = []
    paths = [f"/api/games/{game_id}", "/api/bots"]
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=300) as http:
        while not stop.is_set():
            path = paths[len(timed) % 2]
            when, started = time.time(), time.perf_counter()
            response = http.get(path)
            timed.append((when, time.perf_counter() - started, path))
            if response.status_code != 200:
                raise SystemExit(f"the probe got {response.status_code}")
            stop.wait(0.05)
    results.send(timed)


def latency_line(latencies: list[float]) -> str:
    if not latencies:
        return "no requests"
    return (
        f"{len(latencies)} requests: p50 {statistics.median(latencies) * 1000:.1f} ms, "
        f"p95 {percentile(latencies, 95) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms"
    )


async def stored_fan_out(
    args: argparse.Namespace, database: str, game_id: str, frames: int, src: str | None
) -> str:
    """``--stored-followers`` websockets on a stored game while another client times requests."""
    followers = args.stored_followers
    with server_process(args, src, database) as (port, process):
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(timeout=60) as http:
            await wait_up(http, base)
        spawn = multiprocessing.get_context("spawn")
        stop = spawn.Event()
        receiving, sending = spawn.Pipe(duplex=False)
        prober = spawn.Process(target=probe_requests, args=(port, game_id, stop, sending))
        prober.start()
        await asyncio.sleep(1.0)  # the prober's first requests: an idle server's figure
        loop = asyncio.get_running_loop()
        clients: list[Follower] = []
        before = load()
        cpu_before = cpu_seconds(process.pid)
        began, started = time.time(), time.perf_counter()
        for i in range(followers):
            # One at a time (the listen backlog is finite), each address its share.
            address = i % args.addresses
            source = f"127.0.{address // 250}.{address % 250 + 1}"
            _, client = await loop.create_connection(
                lambda: Follower(f"/games/{game_id}/events", [], timed=False),
                "127.0.0.1",
                port,
                local_addr=(source, 0),
            )
            clients.append(client)
        errors = await asyncio.wait_for(asyncio.gather(*(c.done for c in clients)), 1800)
        elapsed = time.perf_counter() - started
        cpu = cpu_seconds(process.pid) - cpu_before
        stop.set()
        timed: list[tuple[float, float, str]] = receiving.recv()
        prober.join(30)
    # The requests made while the followers streamed (not the idle ones before), split at
    # the moment the last follower's handshake was answered: the first part is the burst of
    # connections, whose parsing (uvicorn's, before any route) no route can spread out.
    joined = max((c.connected for c in clients), default=began)
    during = [(when, took, path) for when, took, path in timed if when >= began]
    connecting = [took for when, took, _ in during if when < joined]
    streaming = [took for when, took, _ in during if when >= joined]
    worst = max(during, key=lambda t: t[1], default=None)
    worst_text = "" if worst is None else f"; worst: {worst[2]} at +{worst[0] - began:.1f} s"
    refused = [e for e in errors if e]
    delivered = sum(len(c.turns) for c in clients)
    whole = list(range(frames))
    in_order = all(c.turns == whole for c, e in zip(clients, errors, strict=True) if not e)
    refusals = f"; {len(refused)} refused ({refused[0]})" if refused else ""
    return (
        f"{followers:5d} followers of {frames} frames: {delivered} frames in {elapsed:.1f} s "
        f"(server CPU {cpu:.1f} s), "
        f"all in order: {in_order}{refusals}; other client: "
        f"all {latency_line(connecting + streaming)}{worst_text}; "
        f"while {len(clients)} connected (in {joined - began:.1f} s) {latency_line(connecting)}; "
        f"once connected {latency_line(streaming)}; "
        f"{before}, after {load()}"
    )


def stored(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = args.stored_database or os.path.join(folder, "games.db")
        database = f"sqlite:///{path}"
        # The game takes minutes to play: --stored-database keeps it for the next runs.
        made = path + ".game"
        if os.path.exists(made):
            game_id, count = Path(made).read_text().split()
            frames = int(count)
        else:
            game_id, frames = stored_game(args, database)
            Path(made).write_text(f"{game_id} {frames}\n")
        print(
            f"one stored game of {frames} frames (builtin:hunter alone, 25x25), "
            f"followers from {args.addresses} loopback addresses",
            flush=True,
        )
        for _ in range(args.repeat):
            if args.compare_src:
                old = stored_fan_out(args, database, game_id, frames, args.compare_src)
                print(f"before {asyncio.run(old)}", flush=True)
            line = asyncio.run(stored_fan_out(args, database, game_id, frames, None))
            print(f"after  {line}" if args.compare_src else line, flush=True)


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
    parser.add_argument("--stored-followers", type=int, help="followers of one stored game")
    parser.add_argument("--stored-turns", type=int, default=1500, help="its turns (at most)")
    parser.add_argument("--addresses", type=int, default=125, help="their source addresses")
    parser.add_argument("--stored-database", help="a SQLite file kept for the next runs")
    args = parser.parse_args()
    if args.stored_followers:
        stored(args)
        return
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
