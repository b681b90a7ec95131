"""One game played by a Ray actor on a cluster's worker: the actor's side.

A server with ``--ray-address`` (:class:`snakewar.server.runners.RayRunner`) starts one
named, detached actor per game (:data:`ACTOR_NAMESPACE`, :func:`actor_name`), an async
actor made from :class:`GameActor`.  The actor plays the game with the game's adapter
and its own play session (its own built-in bot pool, its own HTTP connections), writes
the game to the database as a server does (begun, each frame as it is played, how it
ended), and renews the game's lease itself: any server sharing the database sees the
game running, and none aborts it while the actor lives.  Its turn gate is its own, so
pause, step, resume and cancel reach it by the actor's name from any server.

The arena knows no database and no sandbox (it is under both in the layers): what the
actor needs of them comes with it as a :class:`WorkerKit`, which the server gives
(:class:`snakewar.server.runners.DatabaseKit`): opening the database from its URL, and
turning a :class:`ProgramRef` (an uploaded bot, by its archive's SHA-256) into the
program that runs it in this worker's sandbox.

An actor that played its game exits :data:`EXIT_GRACE_S` after it ended, if the server
that started it (which kills it once it has the outcome) did not.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import os
import pickle
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, cast

from snakewar.adapters import get_game
from snakewar.arena.stepping import PauseExpiredError, TurnGate, settle_s
from snakewar.engine.protocol import (
    JSON,
    Entrant,
    Frame,
    GameData,
    MatchHooks,
    MatchSpec,
    OutboundPolicy,
    PlayedGame,
    PlaySession,
    StoredGame,
)

__all__ = [
    "ACTOR_NAMESPACE",
    "EXIT_GRACE_S",
    "MAX_LATENCIES",
    "SANDBOX_RESOURCE",
    "ActorState",
    "GameActor",
    "GameStorePort",
    "ProgramRef",
    "RemoteJob",
    "RemoteOutcome",
    "WorkerKit",
    "actor_name",
]

ACTOR_NAMESPACE: Final = "snakewar"
"""The Ray namespace of the games' actors (every server of a cluster uses it)."""

SANDBOX_RESOURCE: Final = "snakewar_sandbox"
"""The custom Ray resource a node declares when it can run bots in a sandbox
(``snakewar cluster worker``); games with program bots ask for it."""

EXIT_GRACE_S: Final = 10.0
"""How long an actor whose game ended waits for its server to kill it (it has the outcome
at once: the result is the caller's once returned), before it exits by itself: a server
that stopped, or a game cancelled from another server, leaves no actor behind."""

MAX_LATENCIES: Final = 100_000
"""The most call latencies one game sends back to its server (the first ones): bounds
what a long game with many bots carries back, far past what a real game makes."""

MAX_CALL_BYTES: Final = 32 * 1024 * 1024
"""The most body text one game stores for the request inspector (as a server's games)."""

_STARTING: Final = "starting"
_RUNNING: Final = "running"


def actor_name(game_id: str) -> str:
    """The Ray actor name of the game ``game_id``."""
    return f"game-{game_id}"


@dataclass(frozen=True, slots=True)
class ProgramRef:
    """An uploaded bot as it travels to a worker: its archive's SHA-256 and language.

    The worker fetches the archive from the database by the hash, checks the hash of
    what it got, unpacks it into its own cache and runs it in its sandbox.
    """

    sha256: str
    language: str


class GameStorePort(Protocol):
    """What the actor writes and reads in the database (a server's game repository)."""

    def begin(
        self,
        listing: StoredGame,
        data: GameData,
        *,
        spec: MatchSpec | None = None,
        owner_id: int | None = None,
        lease: tuple[str, dt.datetime] | None = None,
        again: bool = False,
    ) -> object:
        """Store a game that starts now (``again``: once more from turn 0)."""

    def add_frame(self, game_id: str, frame: Frame) -> None:
        """Store one more frame."""

    def add_calls(self, game_id: str, turn: int, calls: Sequence[Mapping[str, Any]]) -> None:
        """Store a turn's calls."""

    def finish(self, game_id: str, status: str, played: PlayedGame | None = None) -> object:
        """Mark a game finished."""

    def abort(self, game_id: str, reason: str) -> None:
        """Mark a game aborted, keeping why."""

    def save_played(self, played: PlayedGame, *, owner_id: int | None = None) -> bool:
        """Store a whole finished game at once."""

    def renew_leases(self, server_id: str, game_ids: Sequence[str], until: dt.datetime) -> int:
        """Vouch for running games until ``until``."""

    def close(self) -> None:
        """Close the database."""


class WorkerKit(Protocol):
    """What a worker needs beyond the arena: the database and the sandbox (picklable)."""

    def open(self, database_url: str) -> GameStorePort:
        """The games of the database at ``database_url``."""

    def program(self, ref: ProgramRef, database_url: str) -> Any:
        """The sandboxed program of the uploaded bot ``ref`` (fetched, checked, unpacked).

        Raises:
            SnakewarError: the archive is missing, its hash differs, or it cannot run.
        """


@dataclass(frozen=True, slots=True)
class RemoteJob:
    """One game for an actor to play, and how (everything picklable).

    Attributes:
        game_id: the game's id (its row in the database).
        spec: the match; an uploaded bot's entrant carries a :class:`ProgramRef` as
            its ``program``.
        seed: its seed.
        database_url: where the game is stored, without its password (the worker has
            its own: a task's arguments are shown by the cluster's dashboard).
        owner_id: the user who started it.
        outbound: the address policy of its connections.
        steps: whether its referee waits at the turn gate each turn.
        start_paused: start paused before turn 0 (step mode).
        max_pause_s: the longest wait at a closed gate (then it is cancelled).
        record_calls: store each call's bodies (a local server's games).
        store_frames: store it as it runs (else once, whole, when complete).
        lease_s: how long the actor vouches for the game at a time.
        again: an earlier try of this game is stored: it starts again from turn 0.
    """

    game_id: str
    spec: MatchSpec
    seed: int
    database_url: str
    owner_id: int | None = None
    outbound: OutboundPolicy | None = None
    steps: bool = True
    start_paused: bool = False
    max_pause_s: float = 600.0
    record_calls: bool = False
    store_frames: bool = True
    lease_s: float = 30.0
    again: bool = False


@dataclass(frozen=True, slots=True)
class RemoteOutcome:
    """How an actor's game ended.

    Attributes:
        status: ``complete``, ``cancelled`` or ``error`` (it could not be played).
        played: the finished game (``complete``).
        error: why it did not complete ("" when it did).
        failure: the exception of a game that could not be played (for the server to
            raise where it was asked for, e.g. an unreachable bot).
        begun: whether the game was stored as started.
        turns: the turns it played (turn 0, the start, is no turn), however it ended.
        latencies_ms: each call to a bot, from request to reply, in milliseconds
            (games that step only; at most :data:`MAX_LATENCIES`, the first ones): the
            server that started the game counts them in its metrics.
    """

    status: str
    played: PlayedGame | None = None
    error: str = ""
    failure: BaseException | None = None
    begun: bool = False
    turns: int = 0
    latencies_ms: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class ActorState:
    """What a control call (pause, step, resume, cancel) answers.

    Attributes:
        status: ``starting``, ``running``, or how it ended.
        paused: whether it holds, or will, before its next turn.
        done: whether the action was done.
        refusal: why not ("" when done).
    """

    status: str
    paused: bool
    done: bool = True
    refusal: str = ""


class GameActor:
    """Plays one game on a Ray worker (made into an async actor by the server's runner).

    Args:
        job: the game.
        kit: the database and the sandbox, as the server gives them.
    """

    def __init__(self, job: RemoteJob, kit: WorkerKit) -> None:
        self.job = job
        self.kit = kit
        self.gate = TurnGate(paused=job.start_paused, max_pause_s=job.max_pause_s)
        self.holder = f"ray-{uuid.uuid4().hex[:24]}"
        self.status = _STARTING
        self._started = asyncio.Event()
        self._begun = False
        self._listing: StoredGame | None = None
        self._task: asyncio.Task[RemoteOutcome] | None = None
        self._store: GameStorePort | None = None
        self._call_bytes = 0
        self._turns = 0
        self._latencies_ms: list[float] = []
        self._latest: Mapping[str, JSON] | None = None
        """The newest frame's view: how long a pause waits depends on it (a time bank)."""

    def pid(self) -> int:
        """The worker process's id (what a test kills to see the game survive)."""
        return os.getpid()

    async def play(self) -> RemoteOutcome:
        """Play the game to its end; how it ended (cancelled games included)."""
        if self._task is None:
            self._task = asyncio.create_task(self._play())
        await asyncio.wait({self._task})
        outcome = self._task.result()
        asyncio.get_running_loop().call_later(EXIT_GRACE_S, _exit_actor)
        return outcome

    async def started(self) -> tuple[StoredGame | None, RemoteOutcome | None]:
        """Wait until the game runs: its listing, or how it ended before it ran."""
        await self._started.wait()
        if self._listing is not None:
            return self._listing, None
        if self._task is not None:
            await asyncio.wait({self._task})
            return None, self._task.result()
        return None, RemoteOutcome("error", error="the game was never played")

    def state(self, *, done: bool = True, refusal: str = "") -> ActorState:
        """What the game is doing now."""
        ended = self.status not in (_STARTING, _RUNNING)
        return ActorState(self.status, self.gate.paused and not ended, done, refusal)

    def _settle_s(self) -> float:
        spec = self.job.spec
        return settle_s(get_game(spec.game), spec, self._latest)

    async def pause(self) -> ActorState:
        """Close the gate; returns once the game holds there (or ended)."""
        await self.gate.pause()
        await self.gate.settled(self._settle_s())
        return self.state()

    async def step(self) -> ActorState:
        """Play one turn of a paused game; returns once it is played (or ended)."""
        if not self.gate.paused:
            return self.state(
                done=False, refusal="the game is not paused; pause it before stepping"
            )
        await self.gate.step()
        await self.gate.settled(self._settle_s())
        return self.state()

    async def resume(self) -> ActorState:
        """Open the gate."""
        await self.gate.resume()
        return self.state()

    async def cancel(self) -> ActorState:
        """Stop the game (stored as cancelled); not done if it already ended."""
        task = self._task
        if task is None or task.done() or self.status not in (_STARTING, _RUNNING):
            return self.state(done=False, refusal="the game is not running")
        task.cancel()
        await asyncio.wait({task})
        return self.state()

    # -- playing ---------------------------------------------------------------------

    async def _db(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(fn, *args, **kwargs)

    def _lease(self) -> tuple[str, dt.datetime]:
        return self.holder, dt.datetime.now(dt.UTC) + dt.timedelta(seconds=self.job.lease_s)

    async def _keep_lease(self, store: GameStorePort) -> None:
        while True:
            await asyncio.sleep(self.job.lease_s / 3)
            with contextlib.suppress(Exception):  # a database hiccup: retry next round
                holder, until = self._lease()
                await self._db(store.renew_leases, holder, [self.job.game_id], until)

    async def _resolved(self, spec: MatchSpec) -> MatchSpec:
        """``spec`` with each uploaded bot's :class:`ProgramRef` made into its program."""
        entrants: list[Entrant] = []
        for entrant in spec.entrants:
            if isinstance(entrant.program, ProgramRef):
                program = await asyncio.to_thread(
                    self.kit.program, entrant.program, self.job.database_url
                )
                entrant = dataclasses.replace(entrant, program=program)
            entrants.append(entrant)
        return dataclasses.replace(spec, entrants=tuple(entrants))

    async def _play(self) -> RemoteOutcome:
        job = self.job
        store: GameStorePort | None = None
        lease: asyncio.Task[None] | None = None
        session = PlaySession(job.outbound)
        try:
            store = self._store = await self._db(self.kit.open, job.database_url)
            lease = asyncio.create_task(self._keep_lease(store))
            spec = await self._resolved(job.spec)
            hooks = MatchHooks(
                game_id=job.game_id,
                on_start=self._on_start,
                on_frame=self._on_frame,
                before_turn=self.gate.wait if job.steps else None,
                # The calls' latencies go back to the server's metrics, recorded or not.
                on_calls=self._on_calls if job.steps else None,
            )
            played = await get_game(spec.game).play(spec, job.seed, session, hooks)
            if self._begun and job.store_frames:
                await self._db(store.finish, job.game_id, "complete", played)
            else:
                await self._db(store.save_played, played, owner_id=job.owner_id)
            self.status = "complete"
            return self._outcome("complete", played)
        except asyncio.CancelledError:
            self.status = "cancelled"
            if store is not None and self._begun and job.store_frames:
                await self._db(store.finish, job.game_id, "cancelled")
            return self._outcome("cancelled")
        except PauseExpiredError as exc:  # paused too long: the bound of step mode
            self.status = "cancelled"
            if store is not None and self._begun and job.store_frames:
                await self._db(store.finish, job.game_id, "cancelled")
            return self._outcome("cancelled", error=str(exc))
        except Exception as exc:  # reported to the server, which shows it
            self.status = "error"
            reason = f"{type(exc).__name__}: {exc}"
            if store is not None and self._begun and job.store_frames:
                with contextlib.suppress(Exception):
                    await self._db(store.abort, job.game_id, reason)
            return self._outcome("error", error=reason, failure=_portable(exc))
        finally:
            self._started.set()
            if lease is not None:
                lease.cancel()
            with contextlib.suppress(Exception):
                await session.aclose()
            await self.gate.finish()
            if store is not None:
                with contextlib.suppress(Exception):
                    await self._db(store.close)

    def _outcome(
        self,
        status: str,
        played: PlayedGame | None = None,
        *,
        error: str = "",
        failure: BaseException | None = None,
    ) -> RemoteOutcome:
        return RemoteOutcome(
            status,
            played,
            error=error,
            failure=failure,
            begun=self._begun,
            turns=self._turns,
            latencies_ms=tuple(self._latencies_ms),
        )

    async def _on_start(self, listing: StoredGame, data: GameData) -> None:
        job, store = self.job, self._store
        assert store is not None
        if job.store_frames:
            await self._db(
                store.begin,
                listing,
                data,
                spec=job.spec,
                owner_id=job.owner_id,
                lease=self._lease(),
                again=job.again,
            )
            self._begun = True
        self.status = _RUNNING
        self._listing = listing
        self._started.set()

    async def _on_frame(self, frame: Frame) -> None:
        if frame.turn > 0:
            self._turns += 1
        self._latest = frame.view
        if self.job.store_frames and self._store is not None:
            await self._db(self._store.add_frame, self.job.game_id, frame)

    async def _on_calls(self, turn: int, records: Sequence[Mapping[str, JSON]]) -> None:
        for record in records:
            latency = record.get("latency_ms")
            number = isinstance(latency, int | float) and not isinstance(latency, bool)
            if number and len(self._latencies_ms) < MAX_LATENCIES:
                self._latencies_ms.append(max(float(cast(float, latency)), 0.0))
        if not self.job.record_calls:
            return
        kept: list[Mapping[str, JSON]] = []
        for record in records:
            size = len(str(record.get("request", ""))) + len(str(record.get("reply", "")))
            if self._call_bytes + size > MAX_CALL_BYTES:
                record = {**record, "request": "", "reply": "", "omitted": True}
            else:
                self._call_bytes += size
            kept.append(record)
        if self._store is not None:
            await self._db(self._store.add_calls, self.job.game_id, turn, kept)


def _portable(exc: BaseException) -> BaseException | None:
    """``exc`` if it survives pickling (it travels back to the server), else ``None``."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return None
    return exc


def _exit_actor() -> None:
    """End this actor's worker process: its game is over and nobody collected it."""
    os._exit(0)
