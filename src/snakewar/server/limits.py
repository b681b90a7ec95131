"""A public server's rate limits, counted where every server that shares its clients sees them.

A server whose database is its own (SQLite in memory) counts in memory
(:class:`~snakewar.server.safety.RateLimiter`, :class:`~snakewar.server.safety.UsageBudget`).
Every other database, a SQLite file or PostgreSQL, may be shared: by a second
``snakewar serve`` on the same file, by ``--workers N``, by replicas behind a proxy.
Nothing tells a server it has company (another may start at any time), so on those the
counters are rows of the database (:mod:`snakewar.storage.limits`) and every server
enforces one limit per client, not one each.  The cost is a small write per limited
request, on the store's threads (never the event loop), and only on a public server:
a local server limits nothing.

:class:`RateBook` makes each limit of an app, the one kind or the other.
"""

from __future__ import annotations

import time
from typing import Final

from snakewar.server.safety import (
    ClientBudget,
    ClientRate,
    RateLimiter,
    RateLimitError,
    UsageBudget,
    Use,
)
from snakewar.storage import AsyncStore

__all__ = ["PRUNE_EVERY_S", "USE_LEASE_S", "RateBook", "SharedRateLimiter", "SharedUsageBudget"]

PRUNE_EVERY_S: Final = 600.0
"""How often a server deletes the rate rows that limit nothing any more."""

USE_LEASE_S: Final = 900.0
"""How long a use going on (a tester run) counts as going on without being ended.

A server that dies mid-use never ends it: its client may begin another once this ran
out.  A tester run takes a minute or two; a longer one just stops counting at once.
"""


class _Pruner:
    """Prunes the shared rate rows now and then, from whichever limit is used."""

    def __init__(self, store: AsyncStore) -> None:
        self.store = store
        self.last = time.time()

    async def maybe(self, now: float) -> None:
        if now - self.last < PRUNE_EVERY_S:
            return
        self.last = now
        await self.store.run(self.store.store.limits.prune, now)


class SharedRateLimiter(ClientRate):
    """A token bucket per client counted in the database (every server sharing it).

    Args:
        store: the server's store.
        name: the limit's key in the database (``games``, ``logins``...).
        per_minute: tokens per minute, sustained.
        burst: tokens at once.
    """

    def __init__(
        self,
        store: AsyncStore,
        name: str,
        per_minute: float,
        burst: int = 10,
        *,
        pruner: _Pruner | None = None,
    ) -> None:
        self.store = store
        self.name = name
        self.per_minute = per_minute
        self.burst = burst
        self._pruner = pruner or _Pruner(store)

    async def take(self, client: str) -> bool:
        """Take a token for ``client``; False if it has none left."""
        now = time.time()
        await self._pruner.maybe(now)
        limits = self.store.store.limits
        return await self.store.run(
            limits.take_token, self.name, client, self.per_minute, self.burst, now
        )

    async def give_back(self, client: str) -> None:
        """Give back the token ``client`` took for a request refused after all."""
        limits = self.store.store.limits
        await self.store.run(limits.refund_token, self.name, client, self.per_minute)


class SharedUsageBudget(ClientBudget):
    """A budget of uses per client counted in the database (every server sharing it).

    Args:
        store: the server's store.
        name: the limit's name (its key in the database and its setting in refusals).
        per_window: uses per window per client.
        window_s: the window, in seconds.
        at_once: uses going on at once per client (``None``: no bound).
        lease_s: how long a use counts as going on if its server never ends it.
    """

    def __init__(
        self,
        store: AsyncStore,
        name: str,
        per_window: int,
        window_s: float = 3600.0,
        *,
        at_once: int | None = None,
        lease_s: float = USE_LEASE_S,
        pruner: _Pruner | None = None,
    ) -> None:
        self.store = store
        self.name = name
        self.per_window = per_window
        self.window_s = window_s
        self.at_once = at_once
        self.lease_s = lease_s
        self._pruner = pruner or _Pruner(store)

    async def begin(self, client: str, what: str) -> Use:
        """Count one use by ``client`` that starts now.

        Raises:
            RateLimitError: past the window's budget or the uses at once.
        """
        now = time.time()
        await self._pruner.maybe(now)
        outcome = await self.store.run(
            self.store.store.limits.take_use,
            self.name,
            client,
            per_window=self.per_window,
            window_s=self.window_s,
            at_once=self.at_once,
            lease_s=self.lease_s,
            now=now,
        )
        if outcome.use_id is None:
            refused = self.refusal(what, outcome.going_on, outcome.recent, outcome.oldest, now)
            raise refused or RateLimitError(f"{what}: refused by {self.name}")
        return Use(client, outcome.use_id)

    async def end(self, use: Use) -> None:
        """The use ended (it stays counted in its window)."""
        if use.row is not None:
            await self.store.run(self.store.store.limits.end_use, use.row)

    async def cancel(self, use: Use) -> None:
        """The use was refused after all: it counts for nothing."""
        if use.row is not None:
            await self.store.run(self.store.store.limits.drop_use, use.row)

    async def going_on_now(self, client: str) -> int:
        """``client``'s uses going on now, on every server."""
        limits = self.store.store.limits
        return await self.store.run(limits.going_on, self.name, client, time.time())


class RateBook:
    """Makes an app's limits: in the database when it may be shared, else in memory.

    Args:
        store: the server's store; ``None``, or a store whose database is in memory
            (this process's alone): the limits are counted in memory.
    """

    def __init__(self, store: AsyncStore | None = None) -> None:
        self.store = store if store is not None and not store.store.memory else None
        self._pruner = _Pruner(self.store) if self.store is not None else None

    @property
    def shared(self) -> bool:
        """Whether the limits are counted in the database."""
        return self.store is not None

    def rate(self, name: str, per_minute: float, burst: int = 10) -> ClientRate:
        """A token bucket per client: ``burst`` at once, ``per_minute`` sustained."""
        if self.store is None:
            return RateLimiter(per_minute=per_minute, burst=burst)
        return SharedRateLimiter(self.store, name, per_minute, burst, pruner=self._pruner)

    def budget(
        self, name: str, per_window: int, window_s: float = 3600.0, *, at_once: int | None = None
    ) -> ClientBudget:
        """A budget of ``per_window`` uses per client in any ``window_s``, ``at_once`` at once."""
        if self.store is None:
            return UsageBudget(per_window, window_s, at_once=at_once, name=name)
        return SharedUsageBudget(
            self.store, name, per_window, window_s, at_once=at_once, pruner=self._pruner
        )
