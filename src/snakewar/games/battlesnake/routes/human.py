"""A person's moves in a game a server plays: the game page's keys (``human`` entrant).

``POST /api/games/{id}/human`` queues a move (``{"move": "left"}``) for the game's
``human`` snake; ``GET`` says whether the requester plays in the game and whether the
referee waits for their move now (every game page asks: a game with no person, or
someone else's, answers ``playing: false``).  Only the game's owner (on a local
server, its user) or an admin may move it.  The snake has its own
deadline a move (``human?timeout=MS``, 10 s by default): a person who does not answer
in time replays the last move, like any snake, so no game waits for ever.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from snakewar.errors import NotFoundError
from snakewar.games.battlesnake.referee.human import SEATS, HumanClient
from snakewar.server.auth import (
    NotAllowedError,
    Principal,
    PrincipalDep,
    UserDep,
    require_owner,
)
from snakewar.server.deps import ManagerDep

__all__ = ["HumanMove", "HumanSeatOut", "NoHumanError", "router"]

router = APIRouter(prefix="/api/games", tags=["games"])


class NoHumanError(NotFoundError):
    """Raised for a game that is not running or has no person playing in it."""


class HumanMove(BaseModel):
    """A key the person pressed: the move it means."""

    model_config = ConfigDict(extra="forbid")

    move: Literal["up", "down", "left", "right"] = Field(description="The move to play.")


class HumanSeatOut(BaseModel):
    """Where the person's snake of a running game stands."""

    playing: bool = Field(description="Whether the requester plays a snake of this game now.")
    waiting: bool = Field(description="Whether the referee waits for the person's move now.")
    turn: int | None = Field(description="The turn it waits for a move on (null: not waiting).")
    timeout_ms: int = Field(description="The person's time for each move.")
    queued: int = Field(description="Moves pressed ahead, for the next turns (two at most).")


def _seat(game_id: str, principal: Principal, manager: ManagerDep) -> HumanClient:
    live = manager.games.get(game_id)
    client = SEATS.get(game_id)
    if live is None or client is None:
        raise NoHumanError(f"game {game_id[:80]!r}: no running game with a person playing")
    require_owner(principal, live.owner_id, f"game {game_id!r}")
    return client


def _out(client: HumanClient) -> HumanSeatOut:
    turn = client.moves.waiting_turn
    return HumanSeatOut(
        playing=True,
        waiting=turn is not None,
        turn=turn,
        timeout_ms=client.timeout_ms,
        queued=client.moves.queued,
    )


@router.get("/{game_id}/human")
async def human_seat(game_id: str, principal: PrincipalDep, manager: ManagerDep) -> HumanSeatOut:
    """Whether the requester plays this game, and whether it waits for their move now."""
    try:
        return _out(_seat(game_id, principal, manager))
    except (NoHumanError, NotAllowedError):
        return HumanSeatOut(playing=False, waiting=False, turn=None, timeout_ms=0, queued=0)


@router.post("/{game_id}/human")
async def human_move(
    game_id: str, body: HumanMove, principal: UserDep, manager: ManagerDep
) -> HumanSeatOut:
    """Play ``move`` for the person's snake: now if the referee waits, else next turn."""
    client = _seat(game_id, principal, manager)
    client.moves.push(body.move)
    return _out(client)
