"""The request and answer models of Halite III's routes (``/api/halite``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from snakewar.storage.models import GameStatus

__all__ = ["HaliteReplayDocumentOut", "ProgramGameOut"]


class ProgramGameOut(BaseModel):
    """A stored Halite III game."""

    id: str
    created_at: str
    source: str
    seed: str
    width: int
    height: int
    num_players: int
    players: list[str]
    ranks: list[int]
    scores: list[float]
    winner: str | None
    failures: list[str] = Field(
        default_factory=list,
        description="Why each player failed, by player id ('' when it played correctly): "
        "'killed on turn 5: timed out after 2000 ms (when reading string)', 'failed to "
        "initialize: ...'.",
    )
    status: GameStatus = Field(
        GameStatus.COMPLETE, description="running, complete, aborted or cancelled."
    )
    turns: int
    replay_size: int
    url: str
    replay: str


class HaliteReplayDocumentOut(BaseModel):
    """A Halite III replay's JSON document, as the official engine writes it.

    The server sends the document through unchanged (it is large, and the official
    viewer reads it as is); this model names its top-level fields for the API docs.
    """

    model_config = ConfigDict(extra="allow")

    ENGINE_VERSION: str
    REPLAY_FILE_VERSION: int
    GAME_CONSTANTS: dict[str, Any]
    map_generator_seed: int
    number_of_players: int
    players: list[dict[str, Any]]
    production_map: dict[str, Any]
    full_frames: list[dict[str, Any]]
    game_statistics: dict[str, Any]
