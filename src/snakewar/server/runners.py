"""Where a server's games are played: runners behind one interface.

A :class:`~snakewar.server.manager.GameManager` decides whether a game may start (its
slots, users' caps, built-in workers) and keeps the games it started; a
:class:`GameRunner` plays them:

* :class:`LocalRunner` (the embedded default): each game is an asyncio task on the
  server's own event loop, played by the game's adapter with the server's play session
  (its built-in bot pool, its HTTP connections), stored as it runs and fanned out to
  spectators from memory.  Nothing to install: the README's first command.
* :class:`RayRunner` (``snakewar serve --ray-address``):
  each game is played by a named Ray actor on the cluster, which writes the game to
  the database itself; pause, step, resume and cancel reach it by name from any
  replica.

A runner's :meth:`GameRunner.launch` starts one game and sets its
:attr:`~snakewar.server.manager.LiveGame.task` (what the manager cancels, and what
callers wait on for its end); the returned :class:`Launch` says when the game runs
(its first frame stored) or why it could not start.
"""

from __future__ import annotations

import asyncio
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from snakewar.engine.protocol import (
    JSON,
    Frame,
    GameAdapter,
    GameData,
    MatchHooks,
    PlayedGame,
    PlaySession,
    StoredGame,
)
from snakewar.referee.workers import session_pool
from snakewar.server.stepping import PauseExpiredError
from snakewar.storage import GameStatus

if TYPE_CHECKING:
    from snakewar.server.manager import GameManager, LiveGame

__all__ = ["Action", "GameRunner", "Launch", "LocalRunner", "RemoteState"]

Action = Literal["pause", "step", "resume", "cancel"]
"""What a user may ask of a running game."""


@dataclass(frozen=True, slots=True)
class RemoteState:
    """A game played elsewhere, as its player answered a control call.

    Attributes:
        status: its status now (``running`` until it ended).
        paused: whether it holds (or will, before its next turn) at its gate.
        done: whether the action was done (a cancel of a game that already ended
            was not).
    """

    status: GameStatus
    paused: bool
    done: bool = True


class Launch:
    """One game being started by a runner.

    :attr:`started` is set once the game runs (its first frame stored) or failed to;
    :attr:`failure` is the error of a game that could not be played.
    """

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.failure: BaseException | None = None


class GameRunner(ABC):
    """Plays a :class:`~snakewar.server.manager.GameManager`'s games somewhere.

    Attributes:
        remote: its games are played outside this process (their frames reach this
            process through the database, not through memory).
        session: the play session of games played in this process (``None``: none).
    """

    remote: ClassVar[bool] = False

    def __init__(self) -> None:
        self.session: PlaySession | None = None
        self._manager: GameManager | None = None

    @property
    def manager(self) -> GameManager:
        """The manager whose games this runner plays (set by :meth:`start`)."""
        assert self._manager is not None, "GameRunner.start() was not awaited"
        return self._manager

    async def start(self, manager: GameManager) -> None:
        """Get ready to play ``manager``'s games (called by :meth:`GameManager.start`)."""
        self._manager = manager

    async def close(self) -> None:  # noqa: B027 - a runner with nothing to release
        """Release what the runner holds (its games were cancelled before)."""

    @abstractmethod
    def launch(self, live: LiveGame, adapter: GameAdapter, steps: bool) -> Launch:
        """Start playing ``live``'s game (sets ``live.task``); call on the event loop.

        Args:
            live: the game, registered by the manager.
            adapter: its game's adapter.
            steps: whether its referee waits at a turn gate (pause, step).
        """

    async def control(self, game_id: str, action: Action) -> RemoteState | None:
        """Ask a game this process does not hold (one played elsewhere) to ``action``.

        Returns ``None`` when no such game is being played (the default: a runner
        whose games are all in this process has none elsewhere).

        Raises:
            NotPausedError: ``step`` for a game that is not paused.
        """
        return None


class LocalRunner(GameRunner):
    """Games as asyncio tasks on the server's event loop (the embedded default).

    The runner's play session is opened by :meth:`start`, its built-in bot pool sized
    by the manager's ``builtin_workers``, and closed by :meth:`close`.
    """

    async def start(self, manager: GameManager) -> None:
        """Open the shared play session and its bot pool."""
        await super().start(manager)
        self.session = PlaySession(manager.outbound)
        # The session's bot pool is made now, with this server's size: games count
        # their built-in seats against that size (the manager's _check_builtin).
        session_pool(self.session, max_workers=manager.builtin_workers)

    async def close(self) -> None:
        """Close the play session (its bot workers, its connections)."""
        if self.session is not None:
            await self.session.aclose()

    def launch(self, live: LiveGame, adapter: GameAdapter, steps: bool) -> Launch:
        """Play the game as an asyncio task of this process."""
        run = _GameRun(self.manager, self, live, adapter, steps)
        live.task = asyncio.create_task(run.play(), name=f"game {live.id}")
        return run


class _GameRun(Launch):
    """One game played in this process: the referee's hooks and the ending."""

    def __init__(
        self,
        manager: GameManager,
        runner: LocalRunner,
        live: LiveGame,
        adapter: GameAdapter,
        steps: bool,
    ):
        super().__init__()
        self.manager = manager
        self.runner = runner
        self.live = live
        self.adapter = adapter
        self.steps = steps
        self.games = manager.store.store.games

    async def on_start(self, listing: StoredGame, data: GameData) -> None:
        live = self.live
        live.listing = listing
        live.header = data.header
        live.status = GameStatus.RUNNING
        if live.store_frames:
            lease = (self.manager.server_id, self.manager._lease_end())
            await self.manager._db(
                self.games.begin,
                listing,
                data,
                spec=live.spec,
                owner_id=live.owner_id,
                lease=lease,
            )
        for frame in data.frames:
            live.feed.publish(frame.view, time.time())
        self.started.set()

    async def on_frame(self, frame: Frame) -> None:
        # Followers first: they need not wait for the database.
        self.live.feed.publish(frame.view, time.time())
        if self.live.store_frames:
            await self.manager._db(self.games.add_frame, self.live.id, frame)

    async def on_calls(self, turn: int, records: Sequence[Mapping[str, JSON]]) -> None:
        kept = [self.manager._within_budget(self.live, r) for r in records]
        await self.manager._db(self.games.add_calls, self.live.id, turn, kept)

    async def play(self) -> None:
        """Play the game to its end and store how it ended, whatever happens."""
        manager, live, games = self.manager, self.live, self.games
        session = self.runner.session
        assert session is not None
        hooks = MatchHooks(
            game_id=live.id,
            on_start=self.on_start,
            on_frame=self.on_frame,
            before_turn=live.gate.wait if self.steps else None,
            on_calls=self.on_calls if live.record_calls else None,
        )
        try:
            played = await self.adapter.play(live.spec, live.seed, session, hooks)
            live.played = played
            await self._store_played(played)
            # Complete once stored: whoever sees it complete can read its replay.
            live.status = GameStatus.COMPLETE
        except asyncio.CancelledError:
            live.status = GameStatus.CANCELLED
            if live.in_store:
                await asyncio.shield(manager._db(games.finish, live.id, GameStatus.CANCELLED))
            raise
        except PauseExpiredError as exc:  # paused too long: the bound of step mode
            live.status = GameStatus.CANCELLED
            live.error = str(exc)
            if live.in_store:
                await manager._db(games.finish, live.id, GameStatus.CANCELLED)
        except Exception as exc:  # a bug must not take the server down
            live.status = GameStatus.ERROR
            live.error = f"{type(exc).__name__}: {exc}"
            self.failure = exc
            if live.in_store:
                await manager._db(games.set_status, live.id, GameStatus.ABORTED)
        finally:
            self.started.set()
            # Its bots' workers are back in the pool (adapter.play released them).
            manager._wake_builtin()
            live.feed.finish()
            await live.gate.finish()

    async def _store_played(self, played: PlayedGame) -> None:
        live = self.live
        if not live.in_store:  # a game that streams no frames, or kept whole
            await self.manager._db(self.games.save_played, played, owner_id=live.owner_id)
        else:
            await self.manager._db(self.games.finish, live.id, GameStatus.COMPLETE, played)
