"""Step mode: a live game's turn gate (pause, step one turn, resume).

Every game the server runs has a :class:`TurnGate`; its referee awaits
:meth:`TurnGate.wait` before asking the entrants for each turn.  An open gate lets
every turn through (a normal game); a closed one (paused) holds the game before its
next turn until the user resumes it, or steps it, which lets exactly one turn through.
A game created in step mode starts paused at turn 0.

A paused game stays bounded: it keeps its slot (it counts against the server's
concurrent games like any running game), and a game that waits at a closed gate
longer than ``max_pause_s`` (each wait, counted afresh after every step) ends with
:class:`PauseExpiredError`, which the manager stores as a cancelled game.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping

from snakewar.engine.protocol import JSON, GameAdapter, MatchSpec
from snakewar.errors import ConflictError, SnakewarError

__all__ = [
    "DEFAULT_MAX_PAUSE_S",
    "SETTLE_MARGIN_S",
    "NotPausedError",
    "PauseExpiredError",
    "TurnGate",
    "settle_s",
]

DEFAULT_MAX_PAUSE_S = 600.0
"""How long a game may wait at a closed gate before it is cancelled (10 minutes)."""
SETTLE_MARGIN_S = 10.0
"""What a pause or step waits beyond the game's own calls (storing the turn, a busy loop)."""


def settle_s(adapter: GameAdapter, spec: MatchSpec, latest: Mapping[str, JSON] | None) -> float:
    """How long a pause or step waits for its game to hold (:meth:`TurnGate.settled`).

    The turn under way may wait for its entrants as long as the game says
    (:meth:`~snakewar.engine.protocol.GameAdapter.longest_turn_ms`: a time bank, a
    retried call), the last turn's closing calls one timeout more, and
    :data:`SETTLE_MARGIN_S` for the rest.  ``latest``: the game's newest frame's view.
    """
    closing_ms = spec.timeout_ms or 2000
    return (adapter.longest_turn_ms(spec, latest) + closing_ms) / 1000 + SETTLE_MARGIN_S


class PauseExpiredError(SnakewarError):
    """Raised in a paused game's referee when it waited longer than its gate allows."""


class NotPausedError(ConflictError):
    """Raised when a game that is not paused is asked to step."""


class TurnGate:
    """What holds a live game between turns (see the module docstring).

    Args:
        paused: start closed (step mode: the game waits before turn 0).
        max_pause_s: the longest one wait at the closed gate.
    """

    def __init__(self, *, paused: bool = False, max_pause_s: float = DEFAULT_MAX_PAUSE_S) -> None:
        self.max_pause_s = max_pause_s
        self._open = not paused
        self._permits = 0
        self._parked_at: int | None = None
        self._done = False
        self._changed = asyncio.Condition()

    @property
    def paused(self) -> bool:
        """Whether the gate is closed (the game stops, or will, before its next turn)."""
        return not self._open

    @property
    def parked_at(self) -> int | None:
        """The turn the game waits before at the closed gate now (``None``: not waiting)."""
        return self._parked_at

    async def wait(self, turn: int) -> None:
        """Return when turn ``turn`` may be played (the referee calls this each turn).

        Raises:
            PauseExpiredError: after waiting :attr:`max_pause_s` at the closed gate.
        """
        async with self._changed:
            if self._open:
                return
            if self._permits:
                self._permits -= 1
                self._changed.notify_all()
                return
            self._parked_at = turn
            self._changed.notify_all()
            try:
                async with asyncio.timeout(self.max_pause_s):
                    await self._changed.wait_for(lambda: self._open or self._permits > 0)
            except TimeoutError:
                raise PauseExpiredError(
                    f"the game stayed paused before turn {turn} for more than "
                    f"{self.max_pause_s:g} s"
                ) from None
            finally:
                self._parked_at = None
            if not self._open:
                self._permits -= 1
            self._changed.notify_all()

    async def pause(self) -> None:
        """Close the gate: the game stops before its next turn."""
        async with self._changed:
            self._open = False
            self._changed.notify_all()

    async def resume(self) -> None:
        """Open the gate: every turn goes through again."""
        async with self._changed:
            self._open = True
            self._permits = 0
            self._changed.notify_all()

    async def step(self) -> None:
        """Let exactly one more turn through a closed gate.

        Raises:
            NotPausedError: if the gate is open.
        """
        async with self._changed:
            if self._open:
                raise NotPausedError("the game is not paused; pause it before stepping")
            self._permits += 1
            self._changed.notify_all()

    async def settled(self, timeout_s: float) -> None:
        """Wait until the game is calm, at most ``timeout_s`` (then return anyway).

        Calm: it holds at the closed gate with no step pending, the gate is open, or
        the game is over.
        """

        def calm() -> bool:
            held = self._parked_at is not None and self._permits == 0
            return self._done or self._open or held

        async with self._changed:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout_s):
                    await self._changed.wait_for(calm)

    async def finish(self) -> None:
        """Say the game is over: wakes whoever waits in :meth:`settled`."""
        async with self._changed:
            self._done = True
            self._changed.notify_all()
