"""Battlesnake's built-in bots as a bot worker process plays them.

The worker (:mod:`snakewar.bots.host`) imports this module alone, named by the
adapter's ``worker_host()``: loading the whole adapter, or every game's, would
double a fresh worker's start-up.  The referee's side is
:class:`snakewar.games.battlesnake.referee.workers.WorkerClient`.

A snake's calls are the API's: ``start``, ``move`` and ``end``, each with the
:class:`~snakewar.games.battlesnake.rules.wire.SnakeRequest` the referee built; only
``move`` answers, ``{"move": ..., "shout": ...}``.
"""

from __future__ import annotations

from typing import Any

from snakewar.games.battlesnake.bots import make_bot

__all__ = ["HOST", "SnakeWorkerHost"]

_MAX_MOVE_TEXT = 100
_MAX_SHOUT_TEXT = 256


class SnakeWorkerHost:
    """Builds a built-in bot and answers the referee's calls to it, in a worker."""

    def worker_bot(self, spec: str, seed: int | None = None) -> Any:
        """The built-in bot ``spec`` (``NAME[?options]``); a snake's bot needs no seed.

        Raises:
            UnknownBotError: for an unknown bot or a bad option.
        """
        del seed
        return make_bot(spec)

    def worker_call(self, bot: Any, state: Any, kind: str, payload: Any) -> tuple[Any, Any]:
        """One API call to ``bot``; the bot keeps its own state, so ``state`` passes through.

        Raises:
            ValueError: a call that is not ``start``, ``move`` or ``end``.
        """
        if kind in ("start", "end"):
            getattr(bot, kind)(payload)
            return state, None
        if kind == "move":
            return state, _move_reply(bot.move(payload))
        raise ValueError(f"unknown message {kind!r}")


def _move_reply(value: Any) -> dict[str, Any]:
    from snakewar.games.battlesnake.rules.wire import MoveReply

    reply = value if isinstance(value, MoveReply) else MoveReply(value)
    # A bot's values are typed as str but may be anything at run time.
    move: object = reply.move
    shout: object = reply.shout
    # Cut here, so a runaway string never fills the pipe; the referee validates the rest.
    return {
        "move": move[:_MAX_MOVE_TEXT] if isinstance(move, str) else repr(move)[:_MAX_MOVE_TEXT],
        "shout": shout[:_MAX_SHOUT_TEXT] if isinstance(shout, str) else "",
    }


HOST = SnakeWorkerHost()
"""The object a worker uses for Battlesnake's bots (``worker_host()`` names it)."""
