"""What built-in bots in worker processes cost: a worker's start-up and a call's overhead.

Starts a :class:`~snakewar.referee.workers.BotPool`, times warming one worker (an
interpreter started and ready), then times N move calls of the random bot on a crowded
19x19 board in the worker and in a thread of this process (as ``--bots-in-process``
plays it), and prints the medians and their difference: the cost of the pipe and the
other process, per call.

These are figures for a quiet machine (``tests/referee/test_workers.py`` checks the
behaviour, at any load).

    python3 benchmarks/bot_workers.py [--calls 200]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

from snakewar.games.battlesnake import Game, GameConfig, Settings
from snakewar.games.battlesnake.bots import make_bot
from snakewar.games.battlesnake.referee.clients import InProcessClient
from snakewar.games.battlesnake.referee.workers import WorkerClient
from snakewar.games.battlesnake.rules.wire import GameInfo, SnakeRequest
from snakewar.referee.workers import BotPool

TIMEOUT_MS = 500


def crowded_request() -> SnakeRequest:
    """8 snakes on a 19x19 board, as the referee would send it."""
    settings = Settings.defaults(seed=3)
    config = GameConfig(ruleset="standard", width=19, height=19, settings=settings)
    game = Game(config, [f"s{i}" for i in range(8)])
    info = GameInfo(id="bench", ruleset_name="standard", settings=settings, timeout=TIMEOUT_MS)
    state = game.state
    return SnakeRequest(info, state.turn, state, state.snakes[0])


async def median_ms(calls: int, move: Callable[[], Awaitable[object]]) -> float:
    """The median time of ``calls`` awaits of ``move()``, in ms."""
    times = []
    for _ in range(calls):
        began = time.perf_counter()
        await move()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


async def measure(calls: int) -> None:
    async with BotPool(2, spares=0) as pool:
        began = time.perf_counter()
        await pool.warm(1)
        start_ms = (time.perf_counter() - began) * 1000
        client = WorkerClient(pool, "random", TIMEOUT_MS)
        await client.info()
        local = InProcessClient(make_bot("random"), "builtin:random", TIMEOUT_MS)
        request = crowded_request()
        in_worker = await median_ms(calls, lambda: client.move(request))
        in_thread = await median_ms(calls, lambda: local.move(request))
        await client.aclose()
    print(f"worker start-up: {start_ms:.0f} ms")
    print(
        f"move call median over {calls}: {in_worker:.2f} ms in a worker, {in_thread:.2f} ms "
        f"in a thread (overhead {in_worker - in_thread:.2f} ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200, help="move calls each way")
    asyncio.run(measure(parser.parse_args().calls))


if __name__ == "__main__":
    main()
