"""Ladder and tournament runs with several servers on one database, and crashes.

Every run a server plays is a row of ``arena_runs`` (:mod:`snakewar.storage.runs`) on
which it holds a lease, renewed every third of the lease (the ``--game-lease`` time, as
for games).  A :class:`RunKeeper` is one server's part:

* **One server per run.** A run starts only once its row is claimed (one conditional
  update: of two servers, one wins; the other answers 409).  A server that died stops
  renewing; once its lease ran out the run is *resumed* by the first server whose claim
  wins, at its start or on its next round (with ``resume``, the default).  A server that
  stops cleanly lets its runs go at once, for the next server.
* **Idempotent.** A tournament resumes from its recorded games and records a match's
  game once (a unique index); a ladder run resumes with the games it still owed
  (``base + games - games_played``), each game number recorded once.
* **Never fatal.** A run that cannot be resumed (its tournament cannot be loaded, its
  ladder has too few entrants, the arena is full) is marked ``failed`` with the reason
  (shown by the API) and reported on stderr, or waits for room; the server starts anyway.
* **Stoppable.** An admin's stop reaches the server that plays the run (now, or when it
  next renews its lease): the run's games in flight are cancelled and it ends
  ``stopped``; it is played on only when asked.  A run nobody plays is stopped at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from snakewar.errors import ConflictError
from snakewar.server.arena import (
    ArenaBusyError,
    ArenaWorker,
    LiveExecutor,
    RunProgress,
    RunSlot,
    RunState,
    StopReason,
)
from snakewar.storage import ArenaRun, ArenaRunState, AsyncStore
from snakewar.storage.runs import MAX_RUN_ERROR_LENGTH

__all__ = [
    "RUN_STATES_SHOWN",
    "Resumer",
    "RunKeeper",
    "RunNotRunningError",
    "RunState",
    "RunView",
    "report_failed",
]

log = logging.getLogger("snakewar.server")

RUN_STATES_SHOWN: Final[tuple[RunState, ...]] = tuple(RunState)
"""Every :class:`~snakewar.server.arena.RunState` (a run's state as the API shows it)."""

DRAIN_S: Final = 15.0
"""How long a stopping server waits for its runs to end before it lets them go."""

Resumer = Callable[[RunSlot, ArenaRun], Awaitable[None]]
"""Plays on a run this server just took over (:meth:`RunKeeper.launch` with ``resumed``),
or ends it (:meth:`RunKeeper.finish`); raising marks the run failed."""


def report_failed(kind: str, target: str, reason: str) -> None:
    """Say on stderr that a run cannot be played on (it is marked ``failed``)."""
    log.warning(
        "snakewar: %s %r %s; it is marked failed (an admin plays it on with POST .../run "
        "once that is fixed)",
        kind,
        target,
        reason,
    )


class RunNotRunningError(ConflictError):
    """Raised when a run that is not going on is asked to stop."""


@dataclass(frozen=True, slots=True)
class RunView:
    """A run as the API shows it: this server's, or the database's word on another's.

    Attributes:
        games: games asked for (``None``: a tournament, to its end).
        done: games played (as its server last said, for another server's run).
        running: whether a server plays it now.
        error: why it failed, or was interrupted.
        state: its :class:`~snakewar.server.arena.RunState` (``interrupted``: its server
            stopped or died, and a server plays it on when it starts).
    """

    games: int | None
    done: int
    running: bool
    error: str
    state: RunState


def _view(progress: RunProgress) -> RunView:
    return RunView(progress.games, progress.done, progress.running, progress.error, progress.state)


def _row_view(row: ArenaRun) -> RunView:
    running = row.state is ArenaRunState.RUNNING and row.held()
    state: RunState
    if running:
        state = RunState.STOPPING if row.stop_requested else RunState.RUNNING
    elif row.state is ArenaRunState.RUNNING:
        state = RunState.INTERRUPTED
    else:
        # Every stored state but running is shown as it is stored.
        state = RunState(row.state.value)
    error = row.error
    if state is RunState.INTERRUPTED and not error:
        error = "its server stopped mid-run; a server plays it on when it starts"
    return RunView(row.games, row.done, running, error, state)


class RunKeeper:
    """This server's runs in a shared database: claims, leases, resumes and stops.

    Args:
        store: the database.
        arena: where this server plays its runs.
        server_id: this server (the id its game leases use too).
        lease_s: how long it vouches for a run; renewed every third of that.
        resume: take over, at start and on each round, the runs whose server is gone.
    """

    def __init__(
        self,
        store: AsyncStore,
        arena: ArenaWorker,
        server_id: str,
        lease_s: float = 30.0,
        *,
        resume: bool = True,
    ) -> None:
        self.store = store
        self.arena = arena
        self.server_id = server_id
        self.lease_s = lease_s
        self.resume = resume
        self._resumers: dict[str, Resumer] = {}
        self._mine: set[str] = set()
        self._loop: asyncio.Task[None] | None = None
        self._closing = False

    def _until(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC) + dt.timedelta(seconds=self.lease_s)

    def on_resume(self, kind: str, resumer: Resumer) -> None:
        """Play on runs of ``kind`` (``ladder``, ``tournament``) with ``resumer``."""
        self._resumers[kind] = resumer

    # -- starting and ending runs --------------------------------------------------------

    def reserve(self, key: str) -> contextlib.AbstractContextManager[RunSlot]:
        """Hold ``key``'s place in this server's arena (:meth:`ArenaWorker.reserve`).

        Raises:
            ArenaBusyError: if ``key`` is running here already.
            ArenaFullError: if the arena is full (nothing is stored then).
        """
        return self.arena.reserve(key)

    async def launch(
        self,
        slot: RunSlot,
        kind: str,
        target: str,
        run: Callable[[], object],
        progress: RunProgress,
        executor: LiveExecutor,
        *,
        games: int | None = None,
        base: int | None = None,
        resumed: bool = False,
    ) -> RunProgress:
        """Play ``run`` as the run ``slot.key``, once this server holds it.

        Args:
            slot: the place :meth:`reserve` holds.
            kind: ``ladder`` or ``tournament``.
            target: the ladder's name or the tournament's id.
            run: plays the games (as :meth:`ArenaWorker.submit` takes it).
            progress: the run's progress.
            executor: plays its games (cancelled when the run is stopped).
            games: the games a ladder run plays.
            base: the ladder's games played when the run started.
            resumed: this server took the run over already (:meth:`sweep`).

        Raises:
            ArenaBusyError: if another server plays it now.
        """
        key = slot.key
        store = self.store
        if not resumed:
            claimed = await store.run(
                store.store.runs.claim,
                key,
                kind,
                target,
                self.server_id,
                self._until(),
                games=games,
                base=base,
            )
            if not claimed:
                raise ArenaBusyError(
                    f"{kind} {target!r} is running on another server; stop it there, or "
                    "wait for it to end"
                )
        self._mine.add(key)
        try:
            return self.arena.submit(
                key,
                run,
                progress,
                slot=slot,
                on_stop=executor.stop,
                on_end=functools.partial(self._on_end, key),
            )
        except BaseException:
            self._mine.discard(key)
            await store.run(store.store.runs.release, self.server_id, [key])
            raise

    def _on_end(self, key: str, progress: RunProgress) -> None:
        """Record how a run ended (on its own thread): done, stopped or failed."""
        self._mine.discard(key)
        if progress.stopping in (StopReason.LOST, StopReason.CLOSING):
            # Not ended for good: another server plays it, or the next one will.
            return
        shown = progress.state
        state = ArenaRunState.FAILED
        if shown in (RunState.DONE, RunState.STOPPED, RunState.FAILED):
            state = ArenaRunState(shown.value)
        self.store.store.runs.finish(key, self.server_id, state, progress.done, progress.error)

    async def finish(self, key: str, state: ArenaRunState, done: int = 0, error: str = "") -> None:
        """End the run ``key`` that this server holds (without playing it)."""
        store = self.store
        await store.run(store.store.runs.finish, key, self.server_id, state, done, error)

    async def stop(self, key: str) -> RunState:
        """Stop the run ``key``, wherever it is played.

        Returns:
            ``"stopping"``: its server cancels its games and ends it (now, if it is
            this one); ``"stopped"``: nobody played it, and it is stopped now.

        Raises:
            RunNotRunningError: if it is not running.
        """
        store = self.store
        if self.arena.is_running(key):
            await store.run(store.store.runs.request_stop, key)
            await self.arena.stop(key, StopReason.STOP)
            return RunState.STOPPING
        outcome = await store.run(store.store.runs.request_stop, key)
        if outcome is None:
            raise RunNotRunningError(f"{key.replace(':', ' ', 1)!r} is not running")
        return RunState(outcome)

    async def is_running(self, key: str) -> bool:
        """Whether a server (this one or another) plays ``key`` now."""
        if self.arena.is_running(key):
            return True
        store = self.store
        row = await store.run(store.store.runs.get, key)
        return row is not None and row.state is ArenaRunState.RUNNING and row.held()

    async def view(self, key: str) -> RunView | None:
        """The latest run of ``key`` as the API shows it (``None``: none recorded)."""
        progress = self.arena.progress(key)
        if progress is not None and self.arena.is_running(key):
            return _view(progress)
        store = self.store
        row = await store.run(store.store.runs.get, key)
        if row is not None:
            return _row_view(row)
        return None if progress is None else _view(progress)

    async def views(self, keys: list[str]) -> dict[str, RunView]:
        """:meth:`view` of many runs at once (one query)."""
        store = self.store
        rows = {row.key: row for row in await store.run(store.store.runs.runs)}
        found: dict[str, RunView] = {}
        for key in keys:
            progress = self.arena.progress(key)
            if progress is not None and self.arena.is_running(key):
                found[key] = _view(progress)
            elif key in rows:
                found[key] = _row_view(rows[key])
            elif progress is not None:
                found[key] = _view(progress)
        return found

    # -- leases, resumes ------------------------------------------------------------------

    async def start(self, legacy: Callable[[], Awaitable[object]] | None = None) -> None:
        """Resume what this server should (never raising), then keep leases.

        Args:
            legacy: records the runs made before runs were recorded (unfinished
                tournaments without a row), before the first round.
        """
        if self.resume:
            try:
                if legacy is not None:
                    await legacy()
                await self.sweep()
            except Exception as exc:  # a database hiccup must not stop the server starting
                log.warning("snakewar: runs not resumed at start (%s); trying again soon", exc)
        self._loop = asyncio.create_task(self._keep(), name="run leases")

    async def _keep(self) -> None:
        while True:
            await asyncio.sleep(self.lease_s / 3)
            try:
                await self.renew()
                if self.resume:
                    await self.sweep()
            except Exception as exc:  # a database hiccup: next round
                log.warning("snakewar: run leases not renewed (%s); trying again", exc)

    async def renew(self) -> None:
        """Renew this server's leases; stop runs an admin stopped or another server took."""
        mine = {key: p.done for key, p in self.arena.running().items() if key in self._mine}
        if not mine:
            return
        store = self.store
        held = await store.run(store.store.runs.renew, self.server_id, mine, self._until())
        for key in mine:
            if key not in held:
                await self.arena.stop(key, StopReason.LOST)
            elif held[key]:
                await self.arena.stop(key, StopReason.STOP)

    async def sweep(self) -> list[str]:
        """Take over and play on every run whose server is gone; the keys taken.

        A run this server cannot take now (the arena is full) waits for a later round.
        A run that cannot be played on is marked ``failed`` and reported on stderr.
        """
        store = self.store
        taken: list[str] = []
        for row in await store.run(store.store.runs.runs, ArenaRunState.RUNNING):
            if self._closing:
                break
            if row.held() or self.arena.is_running(row.key):
                continue
            if not self.arena.has_room():
                break  # the rest wait for room (here or on another server)
            with self.arena.reserve(row.key) as slot:
                got = await store.run(
                    store.store.runs.resume, row.key, self.server_id, self._until()
                )
                if got is None:
                    continue  # another server was first
                taken.append(got.key)
                await self._resume(slot, got)
        return taken

    async def _resume(self, slot: RunSlot, run: ArenaRun) -> None:
        if run.stop_requested:  # stopped while nobody played it
            await self.finish(run.key, ArenaRunState.STOPPED, run.done)
            return
        resumer = self._resumers.get(run.kind)
        try:
            if resumer is None:
                raise ValueError(f"this server cannot play {run.kind} runs")
            await resumer(slot, run)
        except Exception as exc:
            reason = f"cannot be played on: {exc}"[:MAX_RUN_ERROR_LENGTH]
            report_failed(run.kind, run.target, reason)
            self._mine.discard(run.key)
            with contextlib.suppress(Exception):
                await self.finish(run.key, ArenaRunState.FAILED, run.done, reason)

    async def close(self) -> None:
        """Stop keeping leases; end this server's runs and let them go for the next server.

        Their games in flight are cancelled; the runs stay ``running`` in the database,
        so that the next server to look plays them on (at once: no lease to wait for).
        """
        self._closing = True
        if self._loop is not None:
            self._loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop
        for key in list(self._mine):
            with contextlib.suppress(Exception):
                await self.arena.stop(key, StopReason.CLOSING)
        await self.arena.drain(DRAIN_S)
        store = self.store
        with contextlib.suppress(Exception):
            await store.run(store.store.runs.release, self.server_id)
