"""The official board's engine API shapes: game info and frames.

The official board (``board.battlesnake.com?engine=URL&game=ID``), its exporter
and community tools read a game through ``GET /games/{id}`` and
``/games/{id}/events`` / ``/games/{id}/frames``, in these shapes (PascalCase keys,
points as ``{"X", "Y"}``).  Snakewar's own viewer reads the same frames, so one
format serves live games, stored games and replays.

A frame also carries, per snake, the call status of the move that led to it
(``StatusCode``, ``Error``, ``Latency``), as the official CLI's engine does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from snakewar.games.battlesnake.types import BoardState, Point
from snakewar.referee.records import CallOutcome, GameRecord, SnakeEntry

__all__ = ["frame", "game_info", "record_frames"]


def _point(p: Point) -> dict[str, int]:
    return {"X": p.x, "Y": p.y}


def frame(
    state: BoardState,
    snakes: list[SnakeEntry],
    calls: Mapping[str, CallOutcome] | None = None,
) -> dict[str, Any]:
    """The engine-API frame of ``state``: every snake, eliminated ones with ``Death``.

    ``calls`` are the outcomes of the moves that led to this state (none at turn 0).
    Latency ``0`` is sent as ``"1"``: the official board shows 0 ms as an error.
    """
    calls = calls or {}
    entries = {e.id: e for e in snakes}
    out = []
    for snake in state.snakes:
        entry = entries.get(snake.id) or SnakeEntry(snake.id, snake.id, "")
        call = calls.get(snake.id)
        death = (
            {
                "Cause": snake.eliminated_cause,
                "Turn": snake.eliminated_on_turn,
                "EliminatedBy": snake.eliminated_by,
            }
            if snake.eliminated_cause
            else None
        )
        error = ""
        status_code = 200
        latency = "0"
        shout = ""
        if call is not None:
            latency = str(max(call.latency_ms, 1))
            shout = call.shout
            status_code = (
                call.http_status if call.http_status is not None else (200 if call.ok else 0)
            )
            if not call.ok:
                error = f"{call.status}: {call.error}" if call.error else str(call.status)
        out.append(
            {
                "ID": snake.id,
                "Name": entry.name,
                "Body": [_point(p) for p in snake.body],
                "Health": snake.health,
                "Death": death,
                "Color": entry.color,
                "HeadType": entry.head,
                "TailType": entry.tail,
                "Latency": latency,
                "Shout": shout,
                "Squad": "",
                "Author": entry.author,
                "StatusCode": status_code,
                "Error": error,
                "IsBot": entry.source.startswith("builtin:"),
                "IsEnvironment": False,
            }
        )
    return {
        "Turn": state.turn,
        "Snakes": out,
        "Food": [_point(p) for p in state.food],
        "Hazards": [_point(p) for p in state.hazards],
    }


def game_info(record: GameRecord, status: str) -> dict[str, Any]:
    """The ``Game`` object of ``GET /games/{id}`` (status: running, complete, aborted...)."""
    config = record.config
    settings = config.settings.to_api()
    return {
        "ID": record.id,
        "Status": status,
        "Width": config.width,
        "Height": config.height,
        "Ruleset": {
            "name": config.ruleset,
            "foodSpawnChance": str(settings["foodSpawnChance"]),
            "minimumFood": str(settings["minimumFood"]),
            "hazardDamagePerTurn": str(settings["hazardDamagePerTurn"]),
            "shrinkEveryNTurns": str(settings["royale"]["shrinkEveryNTurns"]),
        },
        "SnakeTimeout": record.timeout_ms,
        "Source": record.source,
        "RulesetName": config.ruleset,
        "RulesStages": [],
        "Map": config.map,
        "Seed": config.seed,
        # Snakewar's own, beside the official board's fields: the seed exactly, as a
        # string, since JavaScript reads "Seed" as a double and rounds it above 2**53.
        "SeedString": str(config.seed),
    }


def record_frames(record: GameRecord) -> list[dict[str, Any]]:
    """Every frame of a recorded game, turn 0 first."""
    frames = [frame(record.initial, record.snakes)]
    frames.extend(frame(t.after, record.snakes, t.calls) for t in record.turns)
    return frames
