"""Continuous ladders: one scheduler per database keeps their games going.

Every server runs a :class:`LadderScheduler`; of the servers sharing a database one at
a time holds the lease ``ladder-scheduler`` (:mod:`snakewar.storage.leases`) and
schedules.  The holder renews the lease every third of it; the others try to take it
as often (every two seconds at least), so when the holder dies another takes over once
its lease ran out, and at once when the holder let it go as it stopped.  A holder that
fails to renew in time stops scheduling at once: it counts its lease from *before* it
asked, so it never believes it holds the lease longer than the database does.

The holder, each round and for each continuous, unpaused ladder:

* keeps up to ``games_in_flight`` of its games going, starting one no sooner than
  ``3600 / games_per_hour`` seconds after the one before;
* picks each game's entrants with the ladder's own matchmaking
  (:meth:`~snakewar.arena.ladder.Ladder.matchmake`: the least-played entrant and its
  closest-rated rivals, spread over those already playing), among the entrants that are
  not paused, not failing (in a game whose bots are health-checked: those are checked
  every minute, and resume once they answer) and under the daily cap (games started in
  the last 24 hours, counted by the database);
* starts the game through the :class:`~snakewar.server.manager.GameManager` as an arena
  game (uncapped, stored as it runs, so it is watched live and its game lease covers
  it), then records it as a *match* of the ladder.

A game is rated exactly once, when it ends: the server that started it settles it
(:meth:`~snakewar.storage.ladders.SqlLadderRepository.settle`), and the holder settles
every match whose game ended elsewhere (a server that died or lost the lease).  A game
whose server died is aborted by the game leases and settled as void: not rated.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import secrets
import socket
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from snakewar.arena.ladder import Ladder, LadderEntry, LadderError, LadderNotFoundError
from snakewar.engine.protocol import Entrant, MatchSpec
from snakewar.referee.uploads import UploadCache
from snakewar.server.config import ServerConfig
from snakewar.server.manager import GameManager
from snakewar.server.matches import programs_for
from snakewar.storage import ArenaRunState, AsyncStore
from snakewar.storage.ladders import ScheduleCounts
from snakewar.storage.leases import MAX_HOLDER_LENGTH, Lease

__all__ = [
    "HEALTH_EVERY_S",
    "LEASE_NAME",
    "LadderScheduler",
    "LeaseKeeper",
    "SchedulerView",
    "holder_id",
]

log = logging.getLogger("snakewar.server")

LEASE_NAME: Final = "ladder-scheduler"
"""The lease whose holder schedules the continuous ladders."""

HEALTH_EVERY_S: Final = 60.0
"""How often the holder checks a ladder's entrants (games whose bots can be checked)."""

_MAX_STATUS: Final = 300

_RETRY_S: Final = 2.0
"""The most time between two tries of a server that does not hold the lease."""


def holder_id() -> str:
    """A scheduler's name among servers: its host, its process and a random part."""
    host = socket.gethostname()[:32] or "host"
    return f"{host}:{os.getpid()}:{uuid.uuid4().hex[:8]}"[:MAX_HOLDER_LENGTH]


@dataclass(frozen=True, slots=True)
class SchedulerView:
    """Who schedules the continuous ladders now, as the database says.

    Attributes:
        holder: the scheduler that holds the lease (``None``: none does now).
        here: whether it is this server's.
        left_s: seconds until its lease runs out (unless renewed).
    """

    holder: str | None
    here: bool
    left_s: float


class LeaseKeeper:
    """One server's hold on a named lease among the servers sharing a database.

    Both schedulers (continuous ladders; scheduled tournaments) are elected this way.
    The holder renews every third of its lease; the others ask as often, but at least
    every few seconds, so that a lease let go is taken up soon.  :meth:`holds` counts
    from before each question, so it never believes in a lease longer than it lasts.
    """

    def __init__(self, name: str, what: str, holder: str, lease_s: float, tick_s: float) -> None:
        self.name = name
        self.what = what
        """What holding it means, for the log ("the continuous ladders")."""
        self.holder = holder
        self.lease_s = lease_s
        self.tick_s = tick_s
        self.held_until = 0.0
        self.next_ask = 0.0

    def holds(self) -> bool:
        """Whether this server holds the lease now (by its own, cautious, count)."""
        return time.monotonic() < self.held_until

    def drop(self) -> None:
        """Hold it no more (by this server's count: the caller releases it if it wants)."""
        self.held_until = 0.0

    async def keep(self, store: AsyncStore) -> None:
        """Take or renew the lease when it is time to ask.

        Raises:
            Exception: the database's error (asked again a tick later).
        """
        if time.monotonic() < self.next_ask:
            return
        asked = time.monotonic()  # counted from before the question: never too long
        try:
            lease = await store.run(
                store.store.leases.acquire, self.name, self.holder, self.lease_s
            )
        except Exception:
            self.next_ask = time.monotonic() + self.tick_s
            raise
        was = self.holds()
        self.next_ask = asked + (
            self.lease_s / 3 if lease is not None else min(self.lease_s / 3, _RETRY_S)
        )
        if lease is None:
            if was:
                log.warning("snakewar: this server lost the lease of %s", self.what)
            self.held_until = 0.0
            return
        self.held_until = asked + self.lease_s
        if not was:
            log.info("snakewar: this server schedules %s (%s)", self.what, self.holder)


class LadderScheduler:
    """This server's part in scheduling the continuous ladders (see the module docstring).

    Args:
        store: the database.
        manager: starts the games.
        config: the server's settings (its address policy, its program bots).
        uploads: where uploaded bots are unpacked.
        lease_s: how long the holder's lease lasts; renewed every third of it.
        holder: this scheduler's name (default: :func:`holder_id`).
        tick_s: the most time between two rounds (sooner when a game ends).
    """

    def __init__(
        self,
        store: AsyncStore,
        manager: GameManager,
        config: ServerConfig,
        uploads: UploadCache,
        *,
        lease_s: float = 30.0,
        holder: str | None = None,
        tick_s: float = 1.0,
    ) -> None:
        self.store = store
        self.manager = manager
        self.config = config
        self.uploads = uploads
        self.lease_s = lease_s
        self.holder = holder or holder_id()
        self.tick_s = min(tick_s, lease_s / 3)
        self.status: dict[str, str] = {}
        """What the scheduler last did for each ladder, or why it waits (shown by the API)."""
        self._lease = LeaseKeeper(
            LEASE_NAME, "the continuous ladders", self.holder, lease_s, self.tick_s
        )
        self._task: asyncio.Task[None] | None = None
        self._games: dict[str, asyncio.Task[None]] = {}
        self._starting: Counter[str] = Counter()
        self._starting_entrants: dict[str, Counter[str]] = {}
        self._last_start: dict[str, float] = {}
        self._health_at: dict[str, float] = {}
        self._wake = asyncio.Event()
        self._closing = False
        self.on_paused: list[Callable[[str, LadderEntry], Awaitable[None]]] = []
        """Awaited with a ladder's name and an entry its health check just paused (the
        notifications); whatever one raises is logged."""

    def holds(self) -> bool:
        """Whether this scheduler holds the lease now (by its own, cautious, count)."""
        return self._lease.holds()

    def games(self) -> list[str]:
        """The games this server's scheduler started that are still going."""
        return list(self._games)

    async def start(self) -> None:
        """Start taking part (call from the running loop); never raises."""
        self._task = asyncio.create_task(self._run(), name="ladder scheduler")

    async def close(self, *, release: bool = True) -> None:
        """Stop scheduling; ``release``: let the lease go at once, for another server.

        The games started here are left to the game manager (which cancels them when
        it closes: they are then settled as void by the next holder).
        """
        self._closing = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for task in list(self._games.values()):
            task.cancel()
        for task in list(self._games.values()):
            with contextlib.suppress(BaseException):
                await task
        held = self.holds()
        self._lease.drop()
        if release and held:
            with contextlib.suppress(Exception):  # it runs out by itself then
                await self.store.run(self.store.store.leases.release, LEASE_NAME, self.holder)

    async def view(self) -> SchedulerView:
        """Who schedules now (the database's word)."""
        lease: Lease | None = await self.store.run(self.store.store.leases.get, LEASE_NAME)
        if lease is None or not lease.held:
            return SchedulerView(None, False, 0.0)
        return SchedulerView(lease.holder, lease.holder == self.holder, lease.left_s)

    def wake(self) -> None:
        """Run a round now (a setting changed, a game ended)."""
        self._wake.set()

    # -- the loop ---------------------------------------------------------------------

    async def _run(self) -> None:
        while not self._closing:
            try:
                await self._round()
            except Exception as exc:  # a database hiccup: the next round tries again
                log.warning("snakewar: the ladder scheduler's round failed (%s)", exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.tick_s)
            self._wake.clear()

    async def _round(self) -> None:
        await self._keep_lease()
        if not self.holds():
            return
        await self._settle_ended()
        names: list[str] = await self.store.run(self.store.store.ladders.playing_ladders)
        for name in set(self.status) - set(names):
            del self.status[name]
        for name in names:
            if not self.holds() or self._closing:
                return  # lost the lease: not one more game
            try:
                await self._fill(name)
            except LadderError as exc:  # deleted meanwhile, too few entrants...
                self.status[name] = str(exc)[:_MAX_STATUS]

    async def _keep_lease(self) -> None:
        await self._lease.keep(self.store)

    async def _settle_ended(self) -> None:
        """Settle every match whose game ended, but those this server waits for itself."""
        ladders = self.store.store.ladders
        for match in await self.store.run(ladders.unsettled):
            if match.game_id in self._games:
                continue
            await self.store.run(ladders.settle, match.game_id)

    # -- one ladder -------------------------------------------------------------------

    async def _fill(self, name: str) -> None:
        store = self.store
        counts: ScheduleCounts = await store.run(store.store.ladders.counts, name)
        settings = counts.settings
        in_flight = counts.in_flight + self._starting[name]
        if in_flight >= settings.games_in_flight:
            self.status[name] = f"{in_flight} games in flight, the most it plays at once"
            return
        waited = time.monotonic() - self._last_start.get(name, -1e18)
        since = (
            (counts.now - counts.last_start).total_seconds()
            if counts.last_start is not None
            else 1e18
        )
        if min(waited, since) < settings.spacing_s:
            return  # the next game starts once its time comes
        run = await store.run(store.store.runs.get, f"ladder:{name}")
        if run is not None and run.state is ArenaRunState.RUNNING:
            self.status[name] = "a run of a set number of games plays it: waiting for its end"
            return
        ladder = await store.run(store.store.ladders.for_matchmaking, name)
        if ladder is None:
            raise LadderNotFoundError(f"no ladder named {name!r}")
        await self._check_health(ladder)
        pending = counts.playing + self._starting_entrants.get(name, Counter())
        free = self._free(ladder, counts, pending)
        size = ladder.config.game_size
        if len(free) < size:
            self.status[name] = (
                f"waiting: {len(free)} entrants free to play (not paused, failing or at "
                f"the daily cap); a game needs {size}"
            )
            return
        names = ladder.matchmake(random.Random(secrets.randbits(64)), pending, among=free)
        await self._launch(ladder, names)

    def _free(self, ladder: Ladder, counts: ScheduleCounts, pending: Counter[str]) -> list[str]:
        """The entrants that may play now: not paused, not failing, under the daily cap."""
        cap = counts.settings.daily_cap
        checked = ladder.config.adapter.catalogue().health_checked
        starting = pending - counts.playing  # started here, not recorded yet
        free = []
        for entry in ladder.entries.values():
            if entry.paused or (checked and entry.failing):
                continue
            if cap is not None and counts.today[entry.name] + starting[entry.name] >= cap:
                continue
            free.append(entry.name)
        return free

    async def _check_health(self, ladder: Ladder) -> None:
        """Check the entrants every minute (games whose bots can be checked)."""
        if not ladder.config.adapter.catalogue().health_checked:
            return
        now = time.monotonic()
        if now - self._health_at.get(ladder.name, -1e18) < HEALTH_EVERY_S:
            return
        self._health_at[ladder.name] = now
        was_paused = {name: entry.paused for name, entry in ladder.entries.items()}
        changed = await asyncio.to_thread(ladder.check_health, self.config.outbound())
        for entry in changed:
            await self.store.run(self.store.store.ladders.save_entry, ladder.name, entry)
        for entry in changed:
            if entry.paused and not was_paused.get(entry.name, False):
                for hook in self.on_paused:
                    try:
                        await hook(ladder.name, entry)
                    except Exception as exc:  # a notification never stops the schedule
                        log.warning("snakewar: ladder %r: pause not told (%s)", ladder.name, exc)

    async def _launch(self, ladder: Ladder, names: list[str]) -> None:
        name = ladder.name
        entries = [ladder.entries[n] for n in names]
        programs = await programs_for(
            self.store, self.config, self.uploads, [e.source for e in entries]
        )
        entrants = [
            Entrant(e.source, e.name, programs.get(e.source), workdir=e.workdir) for e in entries
        ]
        spec = ladder.config.match_spec(entrants, ladder.source)
        if not self.holds() or self._closing:
            return  # the lease ran out while the game was prepared: no game
        seed = secrets.randbits(62) + 1
        game_id = str(uuid.uuid4())
        self._last_start[name] = time.monotonic()
        self._starting[name] += 1
        self._starting_entrants.setdefault(name, Counter()).update(names)
        self.status[name] = f"playing: started a game of {', '.join(names)}"[:_MAX_STATUS]
        task = asyncio.create_task(
            self._play(name, names, spec, seed, game_id), name=f"ladder game {game_id}"
        )
        self._games[game_id] = task

    async def _play(
        self, name: str, names: list[str], spec: MatchSpec, seed: int, game_id: str
    ) -> None:
        store = self.store
        ladders = store.store.ladders
        try:
            try:
                try:
                    live = await self.manager.create(
                        spec, seed, game_id=game_id, capped=False, store_frames=True
                    )
                except Exception as exc:  # an unreachable bot, a stopping server
                    self.status[name] = f"a game could not start: {exc}"[:_MAX_STATUS]
                    log.warning("snakewar: ladder %r: a game could not start (%s)", name, exc)
                    return
                try:
                    await store.run(ladders.add_match, name, game_id, names, seed, self.holder)
                except Exception as exc:  # the ladder was deleted: the game is not its
                    log.warning(
                        "snakewar: ladder %r: game %s not recorded (%s)", name, game_id, exc
                    )
                    await self.manager.cancel(game_id)
                    return
            finally:
                self._starting[name] -= 1
                self._starting_entrants[name].subtract(names)
                self._starting_entrants[name] = +self._starting_entrants[name]
            if live.task is not None:
                await asyncio.wait({live.task})
            # Its row is final once its task ended (but for a cancelled game's last
            # write, shielded: then the holder's next round settles it).
            await store.run(ladders.settle, game_id)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the holder's next round settles it
            log.warning("snakewar: ladder %r: game %s not settled yet (%s)", name, game_id, exc)
        finally:
            self._games.pop(game_id, None)
            self._wake.set()
