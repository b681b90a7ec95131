"""Built-in bots in killable worker processes (:mod:`snakewar.referee.workers`), for real.

Every test starts real worker processes.  The misbehaving bots come from
:mod:`tests.referee.runaway_bots`, which the workers import too.

No test here depends on the machine's speed: a call that must answer gets an ample
timeout (:data:`AMPLE_MS`), a call that must time out runs a bot that never answers
(so a timeout of :data:`RUNAWAY_MS` is a timeout at any load), waits are polled or
bounded generously, and the event loop's stalls are bounded by what a blocked loop
would show (half a runaway's timeout).  The costs themselves are figures:
``benchmarks/bot_workers.py`` prints them.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

import httpx
import pytest

from snakewar.games.battlesnake import GameConfig, Settings, bots
from snakewar.games.battlesnake.bots import make_bot
from snakewar.games.battlesnake.records import CallStatus, GameRecord
from snakewar.games.battlesnake.referee.clients import InProcessClient, SnakeUnreachableError
from snakewar.games.battlesnake.referee.runner import close_clients, connect, play_game
from snakewar.games.battlesnake.referee.workers import WorkerClient
from snakewar.games.halite3.bots import HALITE_BOTS
from snakewar.games.halite3.referee.runner import HaliteMatch, play_halite
from snakewar.referee.workers import BotPool, BotPoolError, WorkerBusyError
from tests.games.battlesnake.bots.test_builtin_bots import _crowded_request
from tests.referee import runaway_bots

T = TypeVar("T")
PLUGIN = [runaway_bots.PLUGIN]

AMPLE_MS = 30_000
"""The timeout of calls that must answer: ample on the busiest machine."""
RUNAWAY_MS = 3_000
"""The timeout of games with a runaway bot: each of its calls costs that much, and every
other call (a trivial move) answers well within it even on a busy machine."""
RUNAWAY_S = RUNAWAY_MS / 1000
SLACK_S = 2.0
"""How late a timeout may be reported: killing and reaping the runaway take a moment,
longer on a busy machine (the runaway itself never ends, so waiting for it would hang)."""
WAIT_S = 60
"""How long a test waits for a worker to start: generous on a busy machine."""


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    # This process knows the runaway bots during a test only (a WorkerClient checks
    # its spec here before a worker builds it).
    bots.bot_names()  # the built-ins first
    for name, factory in runaway_bots.SNAKE_BOTS.items():
        monkeypatch.setitem(bots._BOTS, name, factory)
    monkeypatch.setitem(HALITE_BOTS, runaway_bots.HALITE_SPIN, runaway_bots.HaliteSpinBot)


def run(factory: Callable[[], Awaitable[T]]) -> T:
    async def main() -> T:
        return await factory()

    return asyncio.run(main())


def alive(pid: int) -> bool:
    """Whether a process with this id exists (a reaped child does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def worker_children() -> list[int]:
    """This process's children that are bot workers (by their command line)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rpartition(")")[2].split()[1])
        if ppid == os.getpid() and b"snakewar.bots.host" in cmdline:
            found.append(int(entry.name))
    return found


class Ticker:
    """A task that wakes every 10 ms and records the largest gap: the loop's worst stall."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.010)
            now = time.perf_counter()
            self.worst = max(self.worst, now - last - 0.010)
            last = now

    async def __aenter__(self) -> Ticker:
        self._task = asyncio.create_task(self._tick())
        return self

    async def __aexit__(self, *_exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


@pytest.fixture
def no_stray_workers() -> Iterator[None]:
    # Every test must leave no worker behind, whatever it did.
    yield None
    assert worker_children() == []


# -- Battlesnake --------------------------------------------------------------------


def test_a_runaway_bot_times_out_on_time_is_killed_and_the_game_goes_on(
    no_stray_workers: None,
) -> None:
    async def main() -> tuple[GameRecord, int, int, list[int]]:
        async with BotPool(4, imports=PLUGIN) as pool, httpx.AsyncClient() as http:
            snakes = await connect(["builtin:spin", "builtin:random"], [], http, RUNAWAY_MS, pool)
            first = snakes[0].client
            assert isinstance(first, WorkerClient) and first.seat is not None
            pid = first.seat.pid
            assert pid is not None and alive(pid)
            config = GameConfig(width=7, height=7, settings=Settings.defaults(seed=5))
            record = await play_game(config, snakes, timeout_ms=RUNAWAY_MS, max_turns=4)
            await close_clients(snakes)
        return record, pid, pool.killed, pool.pids

    record, pid, killed, pids = run(main)
    turns = record.turns
    spin_id = record.snakes[0].id
    statuses = [t.calls[spin_id].status for t in turns if spin_id in t.calls]
    # Answered on turns 0 and 1, then no answer from turn 2 on: a timeout each turn.
    assert statuses[:2] == [CallStatus.OK, CallStatus.OK]
    assert statuses[2] is CallStatus.TIMEOUT and turns[2].calls[spin_id].latency_ms == RUNAWAY_MS
    assert "the worker was killed" in turns[2].calls[spin_id].error
    # The game went on after the timeout (the runaway never ends: a referee that waited
    # for it would never get here), and the timed-out worker is gone (reaped).
    assert len(turns) > 3
    assert not alive(pid)
    assert killed >= 1
    assert pids == []


def test_after_a_timeout_the_next_call_gets_a_fresh_bot_and_the_loop_never_stalls(
    no_stray_workers: None,
) -> None:
    async def main() -> tuple[list[tuple[CallStatus, int | None, float]], float]:
        async with BotPool(2, imports=PLUGIN) as pool:
            client = WorkerClient(pool, "spin", RUNAWAY_MS)
            await client.info()
            request = _crowded_request(RUNAWAY_MS)
            seen: list[tuple[CallStatus, int | None, float]] = []
            # The loop is measured through runaway calls, kills and replacements.
            async with Ticker() as ticker:
                for turn in (0, runaway_bots.SPIN_FROM_TURN, 1, 1, 5, 1):
                    began = time.perf_counter()
                    outcome = await client.move(replace(request, turn=turn))
                    took = time.perf_counter() - began
                    assert client.seat is not None
                    seen.append((outcome.status, client.seat.pid, took))
            await client.aclose()
        return seen, ticker.worst

    seen, worst = run(main)
    ok, timeout = CallStatus.OK, CallStatus.TIMEOUT
    assert [s for s, _, _ in seen] == [ok, timeout, ok, ok, timeout, ok]
    pids = [pid for _, pid, _ in seen]
    assert pids[0] is not None and not alive(pids[0])
    assert pids[2] is not None and pids[2] != pids[0] and pids[2] == pids[3]
    assert pids[5] not in pids[:4]
    # A timeout is reported on time, not when the runaway would end (it never does).
    assert all(took < RUNAWAY_S + SLACK_S for status, _, took in seen if status is timeout)
    # The event loop kept serving meanwhile: a loop blocked by the runaway calls would
    # stall for a whole timeout; a busy machine delays the ticks by far less.
    print(f"event-loop max stall through runaway calls: {worst * 1000:.1f} ms")
    assert worst < RUNAWAY_S / 2, f"event loop stalled {worst * 1000:.1f} ms"


def test_a_bot_exception_is_a_bot_error_and_the_worker_lives_on(no_stray_workers: None) -> None:
    async def main() -> tuple[list[CallStatus], list[int | None], str]:
        async with BotPool(2, imports=PLUGIN) as pool:
            client = WorkerClient(pool, "crash", AMPLE_MS)
            await client.info()
            assert client.seat is not None
            outcomes = [await client.move(_crowded_request(AMPLE_MS)) for _ in range(2)]
            pids = [client.seat.pid, client.seat.pid]
            await client.aclose()
            return [o.status for o in outcomes], pids, outcomes[0].error

    statuses, pids, error = run(main)
    assert statuses == [CallStatus.BOT_ERROR, CallStatus.BOT_ERROR]
    assert error == "RuntimeError: crashed on turn 0"
    assert pids[0] == pids[1]


def test_workers_answer_as_the_in_process_bots_do(no_stray_workers: None) -> None:
    # The same fixed-depth hunter, in a worker and in a thread, picks the same moves
    # (ample timeouts: a search cut short by its clock could pick another).
    async def main() -> tuple[list[str], list[str]]:
        async with BotPool(2) as pool:
            worker = WorkerClient(pool, "hunter?depth=2", AMPLE_MS)
            await worker.info()
            spec = "hunter?depth=2"
            local = InProcessClient(make_bot(spec), f"builtin:{spec}", AMPLE_MS)
            requests = [replace(_crowded_request(AMPLE_MS), turn=t) for t in range(3)]
            remote = [(await worker.move(r)).move for r in requests]
            here = [(await local.move(r)).move for r in requests]
            await worker.aclose()
            return remote, here

    remote, here = run(main)
    assert remote == here and all(remote)


def test_a_full_pool_makes_a_seat_wait_then_fail_as_busy(no_stray_workers: None) -> None:
    async def main() -> tuple[str, float, int | None]:
        async with BotPool(1, spares=0) as pool:
            first = await pool.bind("battlesnake", "random", wait_s=WAIT_S)
            with pytest.raises(WorkerBusyError) as busy:
                await pool.bind("battlesnake", "random", wait_s=0.2)
            # A seat released meanwhile is taken by the waiting one: at once, not when
            # its own wait runs out (it would fail then).
            waiting = asyncio.create_task(pool.bind("battlesnake", "greedy", wait_s=WAIT_S))
            await asyncio.sleep(0.05)
            assert not waiting.done()
            began = time.perf_counter()
            pid = first.pid
            await first.release()
            second = await waiting
            waited = time.perf_counter() - began
            reused = second.pid
            assert reused == pid  # the worker went back to the pool and was reused
            await second.release()
            return str(busy.value), waited, reused

    message, waited, _ = run(main)
    assert message == "no bot worker ready within 200 ms (1 of 1 in use)"
    assert waited < WAIT_S / 6  # woken by the release (a few ms here), not by a poll


def test_an_unreachable_pool_is_an_unreachable_snake_before_the_game(
    no_stray_workers: None,
) -> None:
    async def main() -> str:
        async with BotPool(1, spares=0) as pool, httpx.AsyncClient() as http:
            held = await pool.bind("battlesnake", "random", wait_s=WAIT_S)
            try:
                await connect(["builtin:greedy", "builtin:random"], [], http, 100, pool)
            except SnakeUnreachableError as exc:
                return str(exc)
            finally:
                await held.release()
            raise AssertionError("connect succeeded with no worker free")

    message = run(main)
    assert message.startswith("snake builtin:greedy: no bot worker ready within 2000 ms")


def test_closing_the_pool_leaves_no_process_behind(no_stray_workers: None) -> None:
    async def main() -> tuple[list[int], list[int], list[int]]:
        pool = BotPool(4, imports=PLUGIN)
        seats = [await pool.bind("battlesnake", "random", wait_s=WAIT_S) for _ in range(3)]
        spinning = await pool.bind("battlesnake", "spin", wait_s=WAIT_S)
        # One worker busy in a runaway call while the pool closes.
        call = asyncio.create_task(
            spinning.call("move", replace(_crowded_request(500), turn=5), None)
        )
        await asyncio.sleep(0.1)
        before = pool.pids
        children = worker_children()
        await pool.aclose()
        reply = await call
        assert reply.status == "gone"
        for seat in [*seats, spinning]:
            await seat.release()
        return before, children, pool.pids

    before, children, after = run(main)
    assert len(before) >= 4 and sorted(children) == before
    assert after == []
    assert not any(alive(pid) for pid in before)


def test_starts_cancelled_half_way_are_reaped_when_the_pool_closes(
    no_stray_workers: None,
) -> None:
    # A game cancelled while its worker starts (a server stopping) leaves the process
    # being made on the pool's thread; the pool's close must reap it before its event
    # loop ends, or it waits on its pipe for a setup that never comes.
    async def main() -> None:
        pool = BotPool(4, spares=0)
        starts = [asyncio.create_task(pool.warm(4)) for _ in range(2)]
        await asyncio.sleep(0)  # the starts are under way
        for start in starts:
            start.cancel()
        await pool.aclose()

    for _ in range(5):
        run(main)
        assert worker_children() == []


def test_pool_settings_and_plugins_are_checked(no_stray_workers: None) -> None:
    with pytest.raises(BotPoolError, match="max_workers=0"):
        BotPool(0)
    with pytest.raises(BotPoolError, match=r"spares=3: expected 0\.\.2"):
        BotPool(2, spares=3)

    async def main() -> str:
        async with BotPool(1, imports=["tests.referee.no_such_module"]) as pool:
            with pytest.raises(BotPoolError) as info:
                await pool.bind("battlesnake", "random", wait_s=WAIT_S)
            return str(info.value)

    assert "ModuleNotFoundError" in run(main)


# -- Halite III ----------------------------------------------------------------------


def test_a_runaway_halite_bot_is_killed_on_time_and_the_game_goes_on(
    no_stray_workers: None,
) -> None:
    async def main() -> tuple[HaliteMatch, list[int], list[int], float]:
        async with BotPool(4, imports=PLUGIN) as pool, Ticker() as ticker:
            match = await play_halite(
                ["builtin:spin", "builtin:greedy", "builtin:random", "builtin:greedy"],
                seed=7,
                width=32,
                height=32,
                turn_limit=12,
                turn_timeout=RUNAWAY_S,
                bots=pool,
            )
        return match, pool.pids, worker_children(), ticker.worst

    match, pids, children, worst = run(main)
    assert match.failures == {0: f"timed out after {RUNAWAY_MS} ms (when reading string)"}
    assert match.failed_on == {0: runaway_bots.SPIN_FROM_TURN}
    game = match.game
    assert game.turn == 12 and game.players[0].terminated
    assert not any(p.terminated for p in game.players[1:])
    assert match.names == ["spinner", "greedy", "random", "greedy"]
    # After the pool closed, nothing is left.
    assert pids == [] and children == []
    assert worst < RUNAWAY_S / 2, f"event loop stalled {worst * 1000:.1f} ms"


# -- warming up -----------------------------------------------------------------------


def test_a_warmed_pool_starts_its_workers_before_the_first_game(no_stray_workers: None) -> None:
    # (What a start-up and a call cost is a figure: benchmarks/bot_workers.py.)
    async def main() -> tuple[int, int, list[int], int | None, int, str | None]:
        async with BotPool(2, spares=0) as pool:
            await pool.warm(1)
            idle, started, pids = pool.idle, pool.started, pool.pids
            client = WorkerClient(pool, "random", AMPLE_MS)
            await client.info()  # takes the warm worker: nothing starts
            assert client.seat is not None
            pid = client.seat.pid
            outcome = await client.move(_crowded_request(AMPLE_MS))
            await client.aclose()
            return idle, started, pids, pid, pool.started, outcome.move

    idle, started, pids, pid, started_after, move = run(main)
    assert (idle, started) == (1, 1) and len(pids) == 1
    assert pid == pids[0] and started_after == 1
    assert move in ("up", "down", "left", "right")


def test_the_old_worker_client_name_warns_and_is_the_moved_class() -> None:
    import snakewar.referee.workers as old_home

    vars(old_home).pop("WorkerClient", None)  # asked afresh: the first use warns
    with pytest.warns(DeprecationWarning, match="games.battlesnake.referee.workers"):
        moved = old_home.WorkerClient
    assert moved is WorkerClient
    with pytest.raises(AttributeError):
        _ = old_home.NoSuchName


def test_a_worker_finds_a_game_s_bots_through_its_adapter() -> None:
    from snakewar.adapters import get_game
    from snakewar.referee.workers import worker_host

    # Battlesnake names a light module for its bots; Halite's adapter is the default.
    assert worker_host("battlesnake") == get_game("battlesnake").worker_host()
    assert worker_host("halite3") == ""
