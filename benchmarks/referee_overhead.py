"""The referee's own cost per call and per turn, against the raw round trip to the snake.

Builds and serves ``benchmarks/go_snake`` (a Go API v1 snake that answers in well under a
millisecond), captures a real mid-game ``/move`` body, then measures on one machine, in
one run:

* **raw round trip**: that body POSTed over one kept-alive connection with Python's
  plain ``http.client``, and with a bare ``httpx.AsyncClient``, N times each;
* **referee, reported**: the latency ``snakewar play`` reports for the snake (its
  ``--json`` summary) in solo games;
* **referee, per call and per turn**, in solo games played with
  :func:`~snakewar.games.battlesnake.referee.runner.play_game`: the time of each
  ``/move`` call as the referee makes it (request built and encoded, sent, reply read,
  decoded and checked), timed to the microsecond around the snake client's ``move``,
  and the wall time of each turn (that call, the rules stepped, the turn recorded).
  Once with the referee's HTTP transport (:mod:`snakewar.referee.http11`) and once with
  httpx's stock one, side by side.

Overhead = the referee's figure minus the raw round trip (``http.client``).  A figure
for a quiet machine (every figure grows with load).

    python3 benchmarks/referee_overhead.py [--calls 2000] [--games 5] [--turns 200]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import http.client
import io
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from snakewar.cli import main
from snakewar.cli.bench import free_port
from snakewar.games.battlesnake.records import GameRecord, TurnRecord
from snakewar.games.battlesnake.referee.clients import new_http_client
from snakewar.games.battlesnake.referee.runner import (
    ConnectedSnake,
    close_clients,
    connect,
    play_game,
)
from snakewar.games.battlesnake.rules.game import GameConfig
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.wire import SnakeRequest

HERE = Path(__file__).resolve().parent


def build_snake(out: Path) -> Path:
    """The Go snake's binary, built with the machine's ``go``."""
    go = shutil.which("go")
    if go is None:
        raise SystemExit("needs the go toolchain (Debian: apt-get install golang-go)")
    binary = out / "gosnake"
    subprocess.run(
        [go, "build", "-o", str(binary), "."], cwd=HERE / "go_snake", check=True, env=_go_env(out)
    )
    return binary


def _go_env(out: Path) -> dict[str, str]:
    import os

    env = dict(os.environ)
    env.setdefault("GOCACHE", str(out / "gocache"))
    env["GOFLAGS"] = "-mod=mod"
    env["GOPROXY"] = "off"
    return env


def wait_ready(url: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.TransportError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the Go snake did not start") from None
            time.sleep(0.05)


def ms(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    p50, mean = statistics.median(ordered), statistics.fmean(ordered)
    return f"p50 {p50:.3f} ms, p90 {p90:.3f} ms, mean {mean:.3f} ms"


async def captured_body(url: str, turns: int) -> bytes:
    """A real ``/move`` body of turn ``turns // 2`` of a solo game."""
    bodies: dict[int, str] = {}

    def on_calls(turn: int, records: list[dict[str, object]]) -> None:
        if records and records[0]["kind"] == "move":
            bodies[turn] = str(records[0]["request"])

    async with new_http_client() as client:
        snakes = await connect([url], [""], client, 500)
        try:
            await play_game(config(1), snakes, max_turns=turns, on_calls=on_calls)
        finally:
            await close_clients(snakes)
    return bodies[sorted(bodies)[len(bodies) // 2]].encode()


def config(seed: int) -> GameConfig:
    return GameConfig(ruleset="solo", settings=Settings.defaults(seed=seed))


def raw_http_client(port: int, body: bytes, calls: int) -> list[float]:
    connection = http.client.HTTPConnection("127.0.0.1", port)
    headers = {"Content-Type": "application/json"}
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        connection.request("POST", "/move", body=body, headers=headers)
        connection.getresponse().read()
        times.append((time.perf_counter() - started) * 1000)
    connection.close()
    return times


async def raw_httpx(url: str, body: bytes, calls: int) -> list[float]:
    times = []
    async with httpx.AsyncClient(trust_env=False) as client:
        for _ in range(calls):
            started = time.perf_counter()
            response = await client.post(url + "/move", content=body)
            response.read()
            times.append((time.perf_counter() - started) * 1000)
    return times


def reported(url: str, games: int, turns: int) -> list[float]:
    """The latencies ``snakewar play`` reports for the snake, over ``games`` solo games."""
    latencies: list[float] = []
    with tempfile.TemporaryDirectory() as scratch:
        for seed in range(1, games + 1):
            out = Path(scratch) / "summary.json"
            args = ["play", url, "-g", "solo", "-r", str(seed), "--no-live"]
            args += ["--max-turns", str(turns), "--json", str(out)]
            sink = io.StringIO()
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                code = main(args)
            if code != 0:
                raise SystemExit(f"snakewar play exited {code}: {sink.getvalue()[-400:]}")
            latencies += json.loads(out.read_text())["snakes"][0]["latencies"]
    return [float(v) for v in latencies]


class TimedClient:
    """A snake client whose ``move`` calls are timed (ms, to the microsecond)."""

    def __init__(self, client: Any, times: list[float]) -> None:
        self._client = client
        self._times = times

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    async def move(self, request: SnakeRequest) -> Any:
        started = time.perf_counter()
        outcome = await self._client.move(request)
        self._times.append((time.perf_counter() - started) * 1000)
        return outcome


def stock_client() -> httpx.AsyncClient:
    """The referee's client as it was, on httpx's own transport."""
    client: httpx.AsyncClient = new_http_client()
    client._transport = httpx.AsyncHTTPTransport()  # the stock transport, for comparison
    return client


async def turn_times(
    url: str, games: int, turns: int, stock: bool
) -> tuple[list[float], list[float]]:
    """Each turn's wall time and each ``/move`` call's time (ms)."""
    walls: list[float] = []
    calls: list[float] = []
    async with stock_client() if stock else new_http_client() as client:
        connected = await connect([url], [""], client, 500)
        snakes: list[ConnectedSnake] = [
            dataclasses.replace(s, client=TimedClient(s.client, calls)) for s in connected
        ]
        try:
            for seed in range(1, games + 1):
                mark = time.perf_counter()

                def on_turn(record: GameRecord, turn: TurnRecord) -> None:
                    nonlocal mark
                    now = time.perf_counter()
                    walls.append((now - mark) * 1000)
                    mark = now

                def on_start(record: GameRecord) -> None:
                    nonlocal mark
                    mark = time.perf_counter()

                await play_game(
                    config(seed), snakes, max_turns=turns, on_turn=on_turn, on_start=on_start
                )
        finally:
            await close_clients(connected)
    # Turn 0 also holds /start: keep the steady turns.
    return walls[1:], calls


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="raw round trips each way")
    parser.add_argument("--games", type=int, default=5, help="solo games each way")
    parser.add_argument("--turns", type=int, default=200, help="turn limit of a game")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        binary = build_snake(Path(scratch))
        port = free_port()
        server = subprocess.Popen([str(binary), "-port", str(port)], stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_ready(url, server)
            body = asyncio.run(captured_body(url, options.turns))
            raw_http_client(port, body, 200)  # warm up
            plain = raw_http_client(port, body, options.calls)
            via_httpx = asyncio.run(raw_httpx(url, body, options.calls))
            reported(url, 1, 20)  # warm up: imports
            shown = reported(url, options.games, options.turns)
            figures = {
                label: asyncio.run(turn_times(url, options.games, options.turns, stock))
                for label, stock in (("lean", False), ("stock", True), ("lean again", False))
            }
        finally:
            server.terminate()
            server.wait(10)
    base = statistics.median(plain)
    print(f"/move body: {len(body)} bytes; Python {sys.version.split()[0]}")
    print(f"raw round trip, http.client    {ms(plain)}  ({len(plain)} calls)")
    print(f"raw round trip, httpx          {ms(via_httpx)}  ({len(via_httpx)} calls)")
    print(f"snakewar play reports          {ms(shown)}  ({len(shown)} moves; whole ms)")
    for label, (walls, calls) in figures.items():
        transport = "httpx's stock transport" if label == "stock" else "snakewar.referee.http11"
        print(f"referee on {transport} ({label}):")
        print(f"  /move call                   {ms(calls)}  ({len(calls)} calls)")
        print(f"  turn (wall)                  {ms(walls)}  ({len(walls)} turns)")
        print(
            f"  overhead: per call {statistics.median(calls) - base:+.3f} ms, "
            f"per turn {statistics.median(walls) - base:+.3f} ms (p50 minus the raw p50)"
        )


if __name__ == "__main__":
    main_()
