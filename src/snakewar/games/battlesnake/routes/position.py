"""``POST /api/battlesnake/position``: check a position and return it normalised.

The position editor (``/editor``) sends what it drew or what was pasted (an API v1
``/move`` body or board, or a Snakewar position) and draws the answer with the board
viewer's renderer; the answer's ``position`` is what ``POST /api/games`` takes as its
``position`` and ``snakewar play --from-position`` reads.  A bad position is a 422
naming the field (``position.board.snakes[0].body[2].x``), as the game's creation
refuses it; so is a board past this server's size cap.  Anonymous visitors of a public
server get a 401, as for every route that computes for its caller.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import AfterValidator, BaseModel, Field

from snakewar.games.battlesnake.adapter import GAME, POSITION
from snakewar.games.battlesnake.frames import frame
from snakewar.games.battlesnake.position import parse_position
from snakewar.games.battlesnake.records import SnakeEntry
from snakewar.games.battlesnake.referee.runner import DUPLICATE_COLORS
from snakewar.server.auth import UserDep
from snakewar.server.deps import ConfigDep
from snakewar.server.matches import check_caps
from snakewar.server.schemas import RequestModel, position_size

__all__ = ["PositionCheck", "PositionOut", "router"]

router = APIRouter(prefix="/api/battlesnake", tags=["battlesnake"])


class PositionCheck(RequestModel):
    """A position to check, in any shape the game takes."""

    position: Annotated[dict[str, Any], AfterValidator(position_size)] = Field(
        description="An API v1 /move body or board, or a Snakewar position."
    )


class PositionOut(BaseModel):
    """A checked position: normalised, and drawn as the board viewer draws a frame."""

    position: dict[str, Any] = Field(
        description="The Snakewar position (what POST /api/games takes as 'position')."
    )
    game: dict[str, Any] = Field(description="The viewer's game object: the board's size.")
    frame: dict[str, Any] = Field(description="The viewer's frame of the position.")


@router.post("/position")
def check_position(body: PositionCheck, config: ConfigDep, user: UserDep) -> PositionOut:
    """Check a position (422 naming the field at fault) and return it normalised.

    For those who may play (on a public server, a signed-in user), as the games it is for.
    """
    del user
    params = GAME.parse_params({POSITION: body.position})
    check_caps(config, GAME, 1, params, None)
    position = parse_position(params[POSITION])
    state = position.state
    entries = [
        SnakeEntry(
            snake.id,
            (position.names[i] if i < len(position.names) else "") or f"snake {i + 1}",
            "",
            color=DUPLICATE_COLORS[i % len(DUPLICATE_COLORS)],
        )
        for i, snake in enumerate(state.snakes)
    ]
    game = {"Width": state.width, "Height": state.height, "RulesetName": "standard"}
    return PositionOut(position=params[POSITION], game=game, frame=frame(state, entries))
