"""Tournaments played on by themselves: a start time, then round after round.

A tournament with a start time (``starts_at``) is played by the tournament scheduler.
Every server runs a :class:`TournamentScheduler`; of the servers sharing a database one
at a time holds the lease ``tournament-scheduler`` (:mod:`snakewar.storage.leases`, the
pattern of the continuous ladders' :mod:`snakewar.server.scheduler`: renewed every third
of the lease, counted from before it asked, let go when the server stops).  The holder,
each round (every second, and at once when woken), for each tournament whose start
time came and that is not finished:

* not started: qualifies its entrants again from its ladder, if it took them from one
  (the standings of the moment count), starts it once it has 2 entrants, tells the
  :attr:`~TournamentScheduler.on_started` callbacks, and plays its first round;
* started, no round being played: plays the next round once the last one ended (``done``)
  and ``round_gap_s`` passed (noted as ``next_round_at``, in the database's time); a
  round an admin stopped, or that failed, waits for its admins;
* finished: notes it, and looks at it no more.

Each round is a *run* of :class:`~snakewar.server.runs.RunKeeper` (one server plays it,
another takes it over if that server dies), exactly as an admin's "run the next round".
The functions that start runs (:func:`start_run`, :func:`start_round`) and qualify
entrants (:func:`qualified_run`) are the API's too.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

from snakewar.arena.ladder import load_ladder
from snakewar.arena.tournament_runner import (
    TournamentRun,
    TournamentRunError,
    load_tournament,
    qualifiers,
)
from snakewar.engine.protocol import Entrant
from snakewar.errors import EntrantError, OverLimitError, SnakewarError
from snakewar.referee.uploads import UploadCache
from snakewar.server.arena import LiveExecutor, RunProgress, RunSlot, RunState
from snakewar.server.config import ServerConfig
from snakewar.server.manager import GameManager
from snakewar.server.matches import check_caps, check_entrants, programs_for
from snakewar.server.runs import RunKeeper
from snakewar.server.scheduler import LeaseKeeper, holder_id
from snakewar.storage import AsyncStore, Store
from snakewar.storage.tournaments import Qualifier, TournamentSettings

__all__ = [
    "LEASE_NAME",
    "StartedCallback",
    "TournamentScheduler",
    "TournamentStarted",
    "check_run",
    "qualified_run",
    "run_key",
    "start_round",
    "start_run",
]

log = logging.getLogger("snakewar.server")

LEASE_NAME: Final = "tournament-scheduler"
"""The lease whose holder starts scheduled tournaments and plays their rounds."""

_MAX_STATUS: Final = 300


def run_key(tid: str) -> str:
    """The run key of tournament ``tid`` (:mod:`snakewar.server.runs`)."""
    return f"tournament:{tid}"


@dataclass(frozen=True, slots=True)
class TournamentStarted:
    """A tournament just started (what :attr:`TournamentScheduler.on_started` is told).

    Attributes:
        id: the tournament's id.
        name: its name.
        page: its page's path (``/tournaments/ID``).
        entrants: its entrants' names, by seed.
        creator: the user who made it (``None``: unknown).
        scheduled: whether the scheduler started it at its start time (else an admin).
    """

    id: str
    name: str
    page: str
    entrants: tuple[str, ...]
    creator: str | None
    scheduled: bool


StartedCallback = Callable[[TournamentStarted], Awaitable[None] | None]
"""Told of each tournament that starts (a plain or an async function)."""


# -- starting runs (the API's and the scheduler's) ---------------------------------------


def check_size(run: TournamentRun, config: ServerConfig) -> None:
    """Refuse a tournament that could play more games than this server allows."""
    t = run.tournament
    matches = len(t.matches)
    if t.config.swiss_rounds is not None:
        # Swiss pairs its rounds as it goes: the first round, as many times as rounds.
        matches *= t.config.swiss_rounds
    most = matches * t.config.best_of
    if most > config.max_tournament_games:
        raise OverLimitError(
            f"snakes: this tournament plays up to {most} games ({matches} matches, best of "
            f"{t.config.best_of}); this server allows {config.max_tournament_games}"
        )


async def check_run(run: TournamentRun, config: ServerConfig, programs: dict[str, Any]) -> None:
    """Refuse a tournament past this server's caps, or with entrants it never plays."""
    check_size(run, config)
    match = run.config
    check_caps(config, match.adapter, match.game_size, match.params, match.timeout_ms)
    entrants = [Entrant(s, name, programs.get(s)) for name, s in run.snakes.items()]
    await check_entrants(match.adapter, entrants, config)


async def start_run(
    run: TournamentRun,
    slot: RunSlot,
    store: AsyncStore,
    runs: RunKeeper,
    config: ServerConfig,
    uploads: UploadCache,
    manager: GameManager,
    *,
    resumed: bool = False,
    round_index: int | None = None,
) -> RunProgress:
    """Play ``run`` on the arena worker: to its end, or only round ``round_index``.

    Its program bots are resolved now; its games are ``manager``'s live games, counted
    in the run's progress.  A round's run is recorded as ``games`` 1 and ``base`` the
    round's index, so a server that takes it over plays that round only.

    Raises:
        ArenaBusyError: another server plays it (unless ``resumed``: taken over already).
        TournamentRunError: it has fewer than 2 entrants.
    """
    run.check_playable()
    programs = await programs_for(store, config, uploads, run.snakes.values())
    target: Store = store.store
    outbound = config.outbound()
    executor = LiveExecutor(manager, asyncio.get_running_loop())
    progress = RunProgress()

    def play() -> None:
        if round_index is None:
            run.run(
                target,
                executor,
                on_step=lambda _, played: progress.played(played),
                outbound=outbound,
                programs=programs,
                should_stop=progress.should_stop,
            )
            progress.complete = run.is_finished
            return
        run.run_round(
            target,
            executor,
            on_step=lambda _, played: progress.played(played),
            outbound=outbound,
            programs=programs,
            should_stop=progress.should_stop,
            index=round_index,
        )
        progress.complete = run.round_done(round_index)

    if round_index is None:
        return await runs.launch(
            slot, "tournament", run.id, play, progress, executor, resumed=resumed
        )
    return await runs.launch(
        slot,
        "tournament",
        run.id,
        play,
        progress,
        executor,
        games=1,
        base=round_index,
        resumed=resumed,
    )


async def start_round(
    run: TournamentRun,
    slot: RunSlot,
    store: AsyncStore,
    runs: RunKeeper,
    config: ServerConfig,
    uploads: UploadCache,
    manager: GameManager,
) -> int:
    """Play the next round of ``run`` (:meth:`TournamentRun.next_round`); its index.

    Raises:
        TournamentRunError: it is finished.
        ArenaBusyError: another server plays it.
    """
    found = run.next_round()
    if found is None:
        raise TournamentRunError(f"tournament {run.id!r} is finished; nothing to play")
    index = found[0]
    await start_run(run, slot, store, runs, config, uploads, manager, round_index=index)
    return index


async def qualified_run(
    run: TournamentRun,
    qualifier: Qualifier,
    store: AsyncStore,
    config: ServerConfig,
    uploads: UploadCache,
) -> TournamentRun:
    """``run`` with its entrants taken from a ladder's standings (not stored).

    The ladder's rated, unpaused entrants qualify best first, skipping those of a user
    who has ``per_owner`` in already, until ``top`` are in
    (:func:`~snakewar.arena.tournament_runner.qualifiers`); they are seeded in that order.

    Raises:
        LadderNotFoundError: no such ladder.
        EntrantError: a ladder of another game, or fewer than 2 qualifiers.
        OverLimitError: a field this server does not play.
    """
    ladder = await store.run(load_ladder, store.store, qualifier.ladder)
    if ladder.config.game != run.config.game:
        raise EntrantError(
            f"ladder: {ladder.name!r} plays {ladder.config.game}, this tournament {run.config.game}"
        )
    chosen = qualifiers(ladder, qualifier.top, qualifier.per_owner)
    taken: list[tuple[str, str | None]] = [(e.source, e.name) for e in chosen]
    workdirs = {e.name: e.workdir for e in chosen if e.workdir is not None}
    if len(taken) < 2:
        raise EntrantError(
            f"ladder: {ladder.name!r} has {len(taken)} rated entrant(s) that qualify; a "
            "tournament needs 2 (entrants qualify once they have played a game)"
        )
    t = run.tournament.config
    changed = TournamentRun.create(
        run.name,
        run.tournament.format,
        taken,
        config=run.config,
        seed=run.seed,
        heat_size=t.heat_size,
        best_of=t.best_of,
        advance=t.advance,
        grand_final_reset=t.grand_final_reset,
        tid=run.id,
    )
    changed.workdirs.update(workdirs)
    changed.started = False
    programs = await programs_for(store, config, uploads, changed.snakes.values())
    await check_run(changed, config, programs)
    return changed


# -- the scheduler -------------------------------------------------------------------------


class TournamentScheduler:
    """This server's part in playing scheduled tournaments (see the module docstring).

    It is also where a tournament that starts is announced (:meth:`announce`), however
    it started: the :attr:`on_started` callbacks are told.

    Args:
        store: the database.
        runs: plays the rounds (one server per run).
        manager: plays the games.
        config: the server's settings.
        uploads: where uploaded bots are unpacked.
        lease_s: how long the holder's lease lasts; renewed every third of it.
        holder: this scheduler's name (default: :func:`~snakewar.server.scheduler.holder_id`).
        tick_s: the most time between two rounds.
    """

    def __init__(
        self,
        store: AsyncStore,
        runs: RunKeeper,
        manager: GameManager,
        config: ServerConfig,
        uploads: UploadCache,
        *,
        lease_s: float = 30.0,
        holder: str | None = None,
        tick_s: float = 1.0,
    ) -> None:
        self.store = store
        self.runs = runs
        self.manager = manager
        self.config = config
        self.uploads = uploads
        self.lease_s = lease_s
        self.holder = holder or holder_id()
        self.tick_s = min(tick_s, lease_s / 3)
        self.on_started: list[StartedCallback] = []
        """Told of every tournament that starts, by an admin or at its start time."""
        self.status: dict[str, str] = {}
        """What the scheduler last did for each scheduled tournament, or why it waits."""
        self._lease = LeaseKeeper(
            LEASE_NAME, "the scheduled tournaments", self.holder, lease_s, self.tick_s
        )
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._closing = False

    # -- announcing ------------------------------------------------------------------------

    async def announce(self, event: TournamentStarted) -> None:
        """Tell every :attr:`on_started` callback; one that fails is logged, never raised."""
        for callback in list(self.on_started):
            try:
                outcome = callback(event)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception as exc:  # a listener's failure must not stop the tournament
                log.warning("snakewar: a tournament-started listener failed (%s)", exc)

    async def started(self, run: TournamentRun, *, scheduled: bool) -> None:
        """Announce ``run`` as started (:meth:`announce`)."""
        settings = await self.store.run(self.store.store.tournaments.settings, run.id)
        await self.announce(
            TournamentStarted(
                id=run.id,
                name=run.name,
                page=f"/tournaments/{run.id}",
                entrants=tuple(run.tournament.entrants),
                creator=settings.creator,
                scheduled=scheduled,
            )
        )

    # -- the lease and the loop ------------------------------------------------------------

    def holds(self) -> bool:
        """Whether this scheduler holds the lease now (by its own, cautious, count)."""
        return self._lease.holds()

    def wake(self) -> None:
        """Look at the scheduled tournaments now (one was made or changed)."""
        self._wake.set()

    async def start(self) -> None:
        """Start taking part (call from the running loop); never raises."""
        self._task = asyncio.create_task(self._run(), name="tournament scheduler")

    async def close(self, *, release: bool = True) -> None:
        """Stop scheduling; ``release``: let the lease go at once, for another server.

        Rounds being played are the run keeper's: it lets them go for the next server.
        """
        self._closing = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        held = self.holds()
        self._lease.drop()
        if release and held:
            with contextlib.suppress(Exception):  # it runs out by itself then
                await self.store.run(self.store.store.leases.release, LEASE_NAME, self.holder)

    async def _run(self) -> None:
        while not self._closing:
            try:
                await self.round()
            except Exception as exc:  # a database hiccup: the next round tries again
                log.warning("snakewar: the tournament scheduler's round failed (%s)", exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.tick_s)
            self._wake.clear()

    async def _keep_lease(self) -> None:
        await self._lease.keep(self.store)

    async def round(self) -> None:
        """One round: keep the lease; if held, move each due tournament on."""
        await self._keep_lease()
        if not self.holds():
            return
        tournaments = self.store.store.tournaments
        due, now = await self.store.run(tournaments.due)
        for tid, settings in due:
            if not self.holds() or self._closing:
                return  # lost the lease: not one more round
            try:
                self.status[tid] = (await self._advance(tid, settings, now))[:_MAX_STATUS]
            except SnakewarError as exc:  # too few entrants, a ladder gone, a full arena...
                self.status[tid] = f"waiting: {exc}"[:_MAX_STATUS]

    async def _advance(self, tid: str, settings: TournamentSettings, now: dt.datetime) -> str:
        store = self.store
        tournaments = store.store.tournaments
        key = run_key(tid)
        if await self.runs.is_running(key):
            return "playing a round"
        run = await store.run(load_tournament, store.store, tid)
        if run.is_finished:
            await store.run(tournaments.mark_finished, tid)
            return "finished"
        if not run.started:
            if settings.qualifier is not None:
                run = await qualified_run(run, settings.qualifier, store, self.config, self.uploads)
                await store.run(tournaments.replace_unstarted, run, settings)
            if not run.tournament.playable:
                return f"waiting: {len(run.snakes)} entrant(s); it needs 2 to start"
            with self.runs.reserve(key) as slot:
                await store.run(tournaments.mark_started, tid)
                run.started = True
                await start_round(
                    run, slot, store, self.runs, self.config, self.uploads, self.manager
                )
            await self.started(run, scheduled=True)
            return "started: playing its first round"
        view = await self.runs.view(key)
        if view is not None and view.state in (RunState.STOPPED, RunState.FAILED):
            return f"waiting for its admins: its last round {view.state.value}"
        if settings.round_gap_s > 0:
            if settings.next_round_at is None:
                when = now + dt.timedelta(seconds=settings.round_gap_s)
                await store.run(tournaments.set_next_round, tid, when)
                return f"next round at {when.isoformat(timespec='seconds')}"
            if now < settings.next_round_at:
                return f"next round at {settings.next_round_at.isoformat(timespec='seconds')}"
        with self.runs.reserve(key) as slot:
            index = await start_round(
                run, slot, store, self.runs, self.config, self.uploads, self.manager
            )
        await store.run(tournaments.set_next_round, tid, None)
        return f"playing {run.tournament.rounds[index].name}"
