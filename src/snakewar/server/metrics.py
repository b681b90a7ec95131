"""Prometheus metrics of a server (``prometheus-client``), served at ``/metrics``.

What is counted:

* ``snakewar_games_started_total{game}``: games that began (their turn 0 was made);
* ``snakewar_games_finished_total{game}``: games played to their end (result stored);
* ``snakewar_games_failed_total{game}``: games ended by an error (aborted with a reason);
* ``snakewar_games_cancelled_total{game}``: games stopped by someone, or a stopping server;
* ``snakewar_turns_total{game}``: turns played;
* ``snakewar_bot_call_seconds{game}``: each call to a bot, from request to reply
  (a histogram; a timed-out call counts as its deadline);
* ``snakewar_followers{kind}``: websocket followers now (``live``: games played or
  mirrored here; ``stored``: finished games replayed);
* ``snakewar_queue_depth{queue}``: work waiting now (``builtin_workers``: arena games
  waiting for built-in bot workers; ``arena_runs``: ladder and tournament runs taken and
  not finished).

Games are counted by the server that plays them (or, on a Ray cluster, by the server
that started them).  A game played in the server's own process counts its turns and
calls as they happen; a game played on a Ray worker counts them when it ends: its actor
sends them back with how the game ended (:class:`snakewar.arena.remote.RemoteOutcome`'s
``turns`` and ``latencies_ms``), however it ended.  A Ray game whose starting server
stopped before its end (it plays on, followed by nobody) is not counted there.

**Several processes.**  ``snakewar serve --workers N`` runs N processes behind one
port; a scrape reaches one of them.  So that it sees all of them, the parent process
gives every worker one ``PROMETHEUS_MULTIPROC_DIR`` (a fresh folder, or the operator's)
and prometheus-client's multiprocess mode keeps each process's values in files there;
any worker's ``/metrics`` adds them up (counters and histograms summed over every worker
that ever ran, gauges over the live ones: ``livesum``).  A worker that dies is marked
dead by the parent (its gauges leave the sum; what it counted stays).  A lone process
keeps its values in memory (one registry per app).  **Several replicas** (servers on
other machines, or other ``serve`` commands) are scraped one by one at their own
address, as Prometheus does with its targets; its ``instance`` label tells them apart
and ``sum by (game)`` adds them up.  ``/metrics`` is exempt from the ``Host`` check
for that reason, as ``/health`` is.

**Who may read it** (:func:`may_read`): a public server's metrics are its own business
(how busy it is, which games it plays), so ``/metrics`` answers only a scraper that
sends the operator's token (``Authorization: Bearer <metrics token>``, ``serve
--metrics-token`` or ``$SNAKEWAR_METRICS_TOKEN``) or a logged-in admin; everyone else
gets 401/403.  Loopback is not trusted on its own: behind a reverse proxy on the same
machine, every visitor's request comes from loopback.  A local server's one user is its
admin, so there it is open to whoever reaches the server.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client import multiprocess as prometheus_multiprocess

from snakewar.engine.protocol import JSON, Frame
from snakewar.storage import GameStatus

if TYPE_CHECKING:
    from snakewar.server.manager import LiveGame

__all__ = [
    "CONTENT_TYPE",
    "GAUGES_EVERY_S",
    "LATENCY_BUCKETS_S",
    "MULTIPROC_ENV",
    "Metrics",
    "keep_gauges",
    "may_read",
    "multiprocess_dir",
    "observe_safely",
    "refresh_gauges",
]

log = logging.getLogger("snakewar.server")

MULTIPROC_ENV: Final = "PROMETHEUS_MULTIPROC_DIR"
"""prometheus-client's own variable: the folder of multiprocess mode's files."""

CONTENT_TYPE: Final = CONTENT_TYPE_LATEST
"""The text exposition format's content type."""

LATENCY_BUCKETS_S: Final = (
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.2,
    0.3,
    0.5,
    0.75,
    1.0,
    2.0,
    5.0,
)
"""Bot call latency buckets, seconds: from a fast bot on the same network to past a 2 s timeout."""


def multiprocess_dir() -> str | None:
    """The multiprocess folder this process writes to (``None``: values in memory)."""
    path = os.environ.get(MULTIPROC_ENV)
    return path or None


def may_read(token: str | None, sent: str | None, is_admin: bool) -> bool:
    """Whether a scrape may read the metrics: the operator's token, or an admin.

    Args:
        token: the server's metrics token (``None``: none set).
        sent: the bearer token the scrape sent (``None``: none).
        is_admin: whether the requester is an admin (a local server's user is one).
    """
    if token and sent is not None and hmac.compare_digest(sent.encode(), token.encode()):
        return True
    return is_admin


class Metrics:
    """A server's metrics (see the module docstring).

    Args:
        multiprocess: the multiprocess folder (default: :func:`multiprocess_dir`);
            ``None`` keeps the values in this object's own registry.
    """

    def __init__(self, multiprocess: str | None = None) -> None:
        self.multiprocess = multiprocess if multiprocess is not None else multiprocess_dir()
        # In multiprocess mode the values live in the folder's files, and a scrape reads
        # them through a registry of its own; otherwise each app has its registry, so two
        # apps in one process (tests, embedded servers) count apart.
        registry = None if self.multiprocess else CollectorRegistry()
        self.registry = registry
        self.games_started = Counter(
            "snakewar_games_started", "Games that began.", ["game"], registry=registry
        )
        self.games_finished = Counter(
            "snakewar_games_finished",
            "Games played to their end (their result stored).",
            ["game"],
            registry=registry,
        )
        self.games_failed = Counter(
            "snakewar_games_failed",
            "Games ended by an error (aborted with a reason).",
            ["game"],
            registry=registry,
        )
        self.games_cancelled = Counter(
            "snakewar_games_cancelled",
            "Games stopped before their end (by someone, or a stopping server).",
            ["game"],
            registry=registry,
        )
        self.turns = Counter("snakewar_turns", "Turns played.", ["game"], registry=registry)
        self.bot_calls = Histogram(
            "snakewar_bot_call_seconds",
            "Calls to bots, from request to reply (a timeout counts as its deadline).",
            ["game"],
            buckets=LATENCY_BUCKETS_S,
            registry=registry,
        )
        self.followers = Gauge(
            "snakewar_followers",
            "Websocket followers of games now.",
            ["kind"],
            registry=registry,
            multiprocess_mode="livesum",
        )
        self.queue_depth = Gauge(
            "snakewar_queue_depth",
            "Work waiting now.",
            ["queue"],
            registry=registry,
            multiprocess_mode="livesum",
        )
        # Every series exists from the start, at zero: a rate over a new series is right.
        for kind in ("live", "stored"):
            self.followers.labels(kind).set(0)
        for queue in ("builtin_workers", "arena_runs"):
            self.queue_depth.labels(queue).set(0)

    # -- a game's life (the game manager's observer) -----------------------------------

    def game_started(self, live: LiveGame) -> None:
        """A game began."""
        self.games_started.labels(live.game).inc()

    def game_turn(self, live: LiveGame, frame: Frame) -> None:
        """A game played a turn (turn 0, the start, is no turn)."""
        if frame.turn > 0:
            self.turns.labels(live.game).inc()

    def game_calls(self, live: LiveGame, records: Sequence[Mapping[str, JSON]]) -> None:
        """A turn's calls to the bots, each with its ``latency_ms``."""
        histogram = self.bot_calls.labels(live.game)
        for record in records:
            latency = record.get("latency_ms")
            if isinstance(latency, int | float) and not isinstance(latency, bool):
                histogram.observe(max(float(latency), 0.0) / 1000)

    def game_played_elsewhere(
        self, live: LiveGame, turns: int, latencies_ms: Sequence[float]
    ) -> None:
        """A Ray game ended: its turns and its calls' latencies, counted at once."""
        if turns > 0:
            self.turns.labels(live.game).inc(turns)
        histogram = self.bot_calls.labels(live.game)
        for latency in latencies_ms:
            histogram.observe(max(float(latency), 0.0) / 1000)

    def game_ended(self, live: LiveGame) -> None:
        """A game ended, however it did."""
        counter = {
            GameStatus.COMPLETE: self.games_finished,
            GameStatus.ERROR: self.games_failed,
            GameStatus.ABORTED: self.games_failed,
            GameStatus.CANCELLED: self.games_cancelled,
        }.get(live.status)
        if counter is not None:
            counter.labels(live.game).inc()

    # -- gauges and the scrape ---------------------------------------------------------

    def set_gauges(self, followers: Mapping[str, int], queues: Mapping[str, int]) -> None:
        """This process's followers and queues now."""
        for kind, count in followers.items():
            self.followers.labels(kind).set(count)
        for queue, depth in queues.items():
            self.queue_depth.labels(queue).set(depth)

    def render(self) -> bytes:
        """The text exposition of every metric (every worker's, in multiprocess mode)."""
        if self.multiprocess:
            registry = CollectorRegistry()
            prometheus_multiprocess.MultiProcessCollector(registry, path=self.multiprocess)  # type: ignore[no-untyped-call]
            return generate_latest(registry)
        assert self.registry is not None
        return generate_latest(self.registry)

    def close(self) -> None:
        """This process stops: its live gauges leave the sum (multiprocess mode)."""
        if self.multiprocess:
            try:
                prometheus_multiprocess.mark_process_dead(os.getpid(), path=self.multiprocess)  # type: ignore[no-untyped-call]
            except OSError as exc:  # the folder went first: nothing to take out
                log.debug("snakewar: metrics files not cleaned (%s)", exc)


GAUGES_EVERY_S: Final = 2.0
"""How often a process sets its gauges (and at each scrape it answers)."""


def refresh_gauges(
    metrics: Metrics, manager: Any, mirrors: Any, stored_following: Any, arena: Any
) -> None:
    """Set this process's gauges from its game manager, mirrors, followers and arena."""
    live = sum(g.feed.followers for g in manager.games.values()) + mirrors.followers()
    metrics.set_gauges(
        {"live": live, "stored": stored_following.limits.followers},
        {"builtin_workers": manager.builtin_waiting, "arena_runs": len(arena.running())},
    )


async def keep_gauges(refresh: Callable[[], None], every_s: float = GAUGES_EVERY_S) -> None:
    """Call ``refresh`` every ``every_s`` seconds until cancelled (never raises else).

    In multiprocess mode a scrape reads every worker's gauges from their files, so
    each worker keeps its own up to date, not only the one that answers.
    """
    while True:
        observe_safely(refresh)
        await asyncio.sleep(every_s)


def observe_safely(action: Any, *args: Any) -> None:
    """Call an observer's ``action``; whatever it raises is logged, never the game's."""
    try:
        action(*args)
    except Exception as exc:  # a metric must never fail a game
        log.warning("snakewar: a game observer failed (%s: %s)", type(exc).__name__, exc)
