"""Many games between the same snakes: batch evaluation on worker processes.

A :class:`SnakeMatch` is everything about a game except its seed; it is small and
picklable, so worker processes receive it and play games ``seed, seed + 1, ...``
each with its own event loop and HTTP client.  Only a :class:`GameSummary` comes
back (and, when asked, the worker writes the game's replay file itself).

Built-in bots play in bot worker processes (:func:`builtin_pool`), never in the
process that referees: a bot's search holding the interpreter would otherwise delay
reading an HTTP snake's reply, and inflate its measured latency.  The bot workers
are started once (per batch, or per batch process) and reused from game to game.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import multiprocessing
import multiprocessing.util
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from snakewar.errors import MapSetupError, ParamsError, SnakewarError
from snakewar.games.battlesnake.position import Position, seated_state
from snakewar.games.battlesnake.records import GameRecord, TimingRules, derive_ids
from snakewar.games.battlesnake.referee.clients import new_http_client
from snakewar.games.battlesnake.referee.runner import (
    TurnCallback,
    close_clients,
    connect,
    play_game,
    snake_kind,
)
from snakewar.games.battlesnake.referee.stats import BatchStats, GameSummary, summarize
from snakewar.games.battlesnake.replay.format import write_replay
from snakewar.games.battlesnake.rules.game import Game, GameConfig
from snakewar.games.battlesnake.rules.settings import CLI_DEFAULTS, Settings
from snakewar.games.battlesnake.rules.types import BoardState
from snakewar.referee.workers import BotPool

__all__ = ["SnakeMatch", "builtin_pool", "check_setup", "play_match", "run_batch"]


@contextlib.asynccontextmanager
async def builtin_pool(specs: Sequence[str]) -> AsyncIterator[BotPool | None]:
    """Worker processes for the built-in bots among ``specs``; ``None`` if there are none.

    One worker per built-in, all started before the first game (no ``GET /`` waits for
    an interpreter to start), none spare: a worker killed after a timeout is replaced.
    Closed, every worker killed, when the block ends.

    Raises:
        SnakeSpecError: for an argument that is no snake.
        BotPoolError: if a worker cannot start.
    """
    count = sum(snake_kind(spec)[0] == "builtin" for spec in specs)
    if not count:
        yield None
        return
    async with BotPool(max_workers=count, spares=0) as pool:
        await pool.warm(count)
        yield pool


def check_setup(config: GameConfig, snakes: int) -> None:
    """Set a board up once, so impossible settings fail before any snake is called.

    Raises:
        RulesError: an unknown ruleset or map, a bad size; a map that cannot place
            ``snakes`` snakes says so with the board and map named.
    """
    try:
        Game(config, derive_ids(config.seed, snakes)[1])
    except MapSetupError as exc:
        raise MapSetupError(
            f"cannot set up {snakes} snakes on a {config.width}x{config.height} board "
            f"with map {config.map!r}: {exc}"
        ) from None


@dataclass(frozen=True, slots=True)
class SnakeMatch:
    """A game without its seed: the snakes (in placement order) and the settings.

    ``params`` are raw rules settings (``Settings.params``); the default is the
    official CLI's (food spawn chance 15, minimum food 1, hazard damage 14, ...).
    ``time_bank_ms`` and ``retry_timeout`` are the referee's unofficial timing rules
    (:class:`~snakewar.games.battlesnake.records.TimingRules`; off by default).
    """

    snakes: tuple[str, ...]
    names: tuple[str, ...] = ()
    ruleset: str = "standard"
    map: str = "standard"
    width: int = 11
    height: int = 11
    params: Mapping[str, str] = field(default_factory=lambda: dict(CLI_DEFAULTS))
    timeout_ms: int = 500
    sequential: bool = False
    max_turns: int | None = None
    source: str = ""
    time_bank_ms: int = 0
    retry_timeout: bool = False

    @property
    def timing(self) -> TimingRules:
        """The unofficial timing rules of this match (official: no bank, no retry)."""
        return TimingRules(self.time_bank_ms, self.retry_timeout)

    position: Position | None = None
    """The board the game starts from (a fork, a drawn position); ``None``: the seed's."""

    def check(self, seed: int = 1) -> None:
        """Fail now, naming the problem, if this match cannot be set up (:func:`check_setup`).

        With a position: one snake per seat of it, on a board of its size.
        """
        if self.position is not None:
            seats = len(self.position.state.snakes)
            if len(self.snakes) != seats:
                raise ParamsError(
                    "snakes",
                    f"snakes: the position has {seats} seats, {len(self.snakes)} snakes given",
                )
            Game(self.config(seed), derive_ids(seed, seats)[1], self.start_state(seed))
            return
        check_setup(self.config(seed), len(self.snakes))

    def start_state(self, seed: int) -> BoardState | None:
        """The board the game of ``seed`` starts from, its snakes carrying the game's ids."""
        if self.position is None:
            return None
        _, ids = derive_ids(seed, len(self.position.state.snakes))
        return seated_state(self.position.state, ids)

    @property
    def forked_from(self) -> dict[str, Any] | None:
        """What the record says about where the game came from (``None``: its seed)."""
        if self.position is None:
            return None
        return dict(self.position.forked_from or {})

    def config(self, seed: int) -> GameConfig:
        """The game config for ``seed``."""
        return GameConfig(
            ruleset=self.ruleset,
            map=self.map,
            width=self.width,
            height=self.height,
            settings=Settings(dict(self.params), seed),
        )


async def play_match(
    spec: SnakeMatch,
    seed: int,
    http: httpx.AsyncClient | None = None,
    on_turn: TurnCallback | None = None,
    bots: BotPool | None = None,
) -> GameRecord:
    """Connect to the snakes and play one game with ``seed``.

    Built-in bots play in workers of ``bots`` if given (see :func:`builtin_pool`), else
    in this process.

    Raises:
        SnakeUnreachableError, SnakeSpecError, UnknownBotError, RulesError: as
        :func:`~snakewar.games.battlesnake.referee.runner.connect` and
        :func:`~snakewar.games.battlesnake.referee.runner.play_game`.
    """
    if http is None:
        async with new_http_client() as own:
            return await play_match(spec, seed, own, on_turn, bots)
    snakes = await connect(spec.snakes, spec.names, http, spec.timeout_ms, bots)
    try:
        return await play_game(
            spec.config(seed),
            snakes,
            timeout_ms=spec.timeout_ms,
            sequential=spec.sequential,
            max_turns=spec.max_turns,
            source=spec.source,
            on_turn=on_turn,
            timing=spec.timing,
            initial_state=spec.start_state(seed),
            forked_from=spec.forked_from,
        )
    finally:
        await close_clients(snakes)


def _replay_path(directory: Path, seed: int) -> Path:
    return directory / f"game-{seed}.jsonl"


def _save(record: GameRecord, replay_dir: str | None) -> None:
    if replay_dir is not None:
        write_replay(record, _replay_path(Path(replay_dir), record.config.seed))


class _ProcessLoop:
    """A batch process's event loop and bot workers, kept from one game to the next."""

    def __init__(self, snakes: tuple[str, ...], bot_processes: bool) -> None:
        self.snakes = snakes
        self.bot_processes = bot_processes
        self.runner = asyncio.Runner()
        self.pool = self.runner.run(self._open())
        # A batch process ends through multiprocessing, which runs these, not atexit's.
        multiprocessing.util.Finalize(self, self.close, exitpriority=10)

    async def _open(self) -> BotPool | None:
        self._pools = contextlib.AsyncExitStack()
        if not self.bot_processes:
            return None
        return await self._pools.enter_async_context(builtin_pool(self.snakes))

    def close(self) -> None:
        """Stop the bot workers and close the loop."""
        with contextlib.suppress(Exception):
            self.runner.run(self._pools.aclose())
        self.runner.close()


_PROCESS_LOOP: _ProcessLoop | None = None


def _worker_game(
    spec: SnakeMatch, seed: int, replay_dir: str | None, bot_processes: bool
) -> GameSummary:
    """Run in a batch process: one whole game, on the process's loop and bot workers."""
    global _PROCESS_LOOP  # one per process: the batch's processes play one match
    key = (spec.snakes, bot_processes)
    if _PROCESS_LOOP is None or (_PROCESS_LOOP.snakes, _PROCESS_LOOP.bot_processes) != key:
        if _PROCESS_LOOP is not None:
            _PROCESS_LOOP.close()
        _PROCESS_LOOP = _ProcessLoop(spec.snakes, bot_processes)
    loop = _PROCESS_LOOP
    record = loop.runner.run(play_match(spec, seed, bots=loop.pool))
    _save(record, replay_dir)
    return summarize(record)


def run_batch(
    spec: SnakeMatch,
    seeds: Sequence[int],
    *,
    workers: int = 1,
    replay_dir: str | None = None,
    on_game: Callable[[GameSummary], None] | None = None,
    bot_processes: bool = True,
    before_game: Callable[[int], None] | None = None,
    stop: Callable[[], bool] | None = None,
    retry: Callable[[int, BaseException], bool] | None = None,
) -> BatchStats:
    """Play one game per seed and add them up.

    ``workers=1`` plays the games one after the other in this process; more use a
    pool of that many processes, each playing one game at a time.  Results are
    counted in completion order; the totals do not depend on it.  Built-in bots play
    in bot worker processes (:func:`builtin_pool`), or with ``bot_processes=False``
    in the refereeing process (faster for quick bots, but their thinking delays the
    other snakes' replies).

    Hooks (for bots this process watches, such as launched servers): ``before_game(seed)``
    runs before each game played here (``workers=1`` only); once ``stop()`` is true no
    more games start (the batch's totals are those played); ``retry(seed, error)`` true
    plays a game that raised once more instead of raising.

    Raises:
        SnakewarError: the first error a game raised (an unreachable snake, a bad
            setting) that ``retry`` did not take; nothing a snake does *during* a game
            raises.
    """
    # Seat names are filled in from the first game (unnamed snakes get default names).
    stats = BatchStats.empty([""] * len(spec.snakes), spec.snakes)
    if workers <= 1:

        async def serial() -> None:
            snakes = spec.snakes if bot_processes else ()
            async with new_http_client() as http, builtin_pool(snakes) as bots:
                for seed in seeds:
                    if stop is not None and stop():
                        break
                    if before_game is not None:
                        # Off the loop: it may wait for a bot to restart.
                        await asyncio.to_thread(before_game, seed)
                    try:
                        record = await play_match(spec, seed, http, bots=bots)
                    except SnakewarError as exc:
                        if retry is None or not await asyncio.to_thread(retry, seed, exc):
                            raise
                        record = await play_match(spec, seed, http, bots=bots)
                    _save(record, replay_dir)
                    summary = summarize(record)
                    _name_seats(stats, summary)
                    stats.add(summary)
                    if on_game is not None:
                        on_game(summary)

        asyncio.run(serial())
        return stats
    # "spawn" gives each worker a clean interpreter: no inherited event loop,
    # sockets or threads from the parent.
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:

        def submit(seed: int) -> concurrent.futures.Future[GameSummary]:
            return pool.submit(_worker_game, spec, seed, replay_dir, bot_processes)

        pending = {submit(seed): seed for seed in seeds}
        try:
            while pending:
                done, _ = concurrent.futures.wait(
                    pending, return_when=concurrent.futures.FIRST_COMPLETED
                )
                for future in done:
                    seed = pending.pop(future)
                    if future.cancelled():
                        continue
                    try:
                        summary = future.result()
                    except SnakewarError as exc:
                        if stop is not None and stop():
                            continue  # the batch is over: games cut short are not counted
                        if retry is None or not retry(seed, exc):
                            raise
                        pending[submit(seed)] = seed
                        continue
                    _name_seats(stats, summary)
                    stats.add(summary)
                    if on_game is not None:
                        on_game(summary)
                if stop is not None and stop():
                    for f in pending:
                        f.cancel()
        except BaseException:
            for f in pending:
                f.cancel()
            raise
    return stats


def _name_seats(stats: BatchStats, summary: GameSummary) -> None:
    # Seat names are only known once the snakes are connected (default names).
    for outcome in summary.snakes:
        stats.seats[outcome.seat].name = outcome.name
