"""The official board's engine API shapes: game info and frames.

The official board (``board.battlesnake.com?engine=URL&game=ID``), its exporter
and community tools read a game through ``GET /games/{id}`` and
``/games/{id}/events`` / ``/games/{id}/frames``, in these shapes (PascalCase keys,
points as ``{"X", "Y"}``).  Snakewar's own viewer reads the same frames, so one
format serves live games, stored games and replays.

A frame also carries, per snake, the call status of the move that led to it
(``StatusCode``, ``Error``, ``Latency``), as the official CLI's engine does: so frames
read the referee's records (:mod:`snakewar.games.battlesnake.records`) and are, like
the replay formats, in the ``replay`` layer, not the pure rules.  Beside the official
fields, Snakewar's own per snake: ``CallStatus`` (the
:class:`~snakewar.games.battlesnake.records.CallStatus` value, empty at turn 0),
``TimeBank`` (the bank left under an unofficial time bank, else ``null``) and
``Retried`` (whether the move was asked twice under the unofficial retry rule), which
the game page's latency chart reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from snakewar.games.battlesnake.records import CallOutcome, GameRecord, SnakeEntry
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState, Point

__all__ = ["frame", "game_info", "game_info_from_header", "record_frames"]


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
        call_status = ""
        if call is not None:
            call_status = str(call.status)
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
                "CallStatus": call_status,
                "TimeBank": call.bank_ms if call is not None else None,
                "Retried": call is not None and call.first_try is not None,
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
    return _game_info(
        record.id,
        status,
        config.ruleset,
        config.map,
        config.width,
        config.height,
        config.settings,
        record.timeout_ms,
        record.source,
    )


def game_info_from_header(header: Mapping[str, Any], status: str) -> dict[str, Any]:
    """The ``Game`` object of a game from its replay header (a stored or running game)."""
    config = header.get("config", {})
    raw = config.get("settings", {})
    settings = Settings({str(k): str(v) for k, v in raw.items()}, int(config.get("seed", 0)))
    return _game_info(
        str(header.get("id", "")),
        status,
        str(config.get("ruleset", "")),
        str(config.get("map", "")),
        int(config.get("width", 0)),
        int(config.get("height", 0)),
        settings,
        int(header.get("timeout", 0)),
        str(header.get("source", "")),
    )


def _game_info(
    game_id: str,
    status: str,
    ruleset: str,
    map_id: str,
    width: int,
    height: int,
    settings: Settings,
    timeout_ms: int,
    source: str,
) -> dict[str, Any]:
    api = settings.to_api()
    return {
        "ID": game_id,
        "Status": status,
        "Width": width,
        "Height": height,
        "Ruleset": {
            "name": ruleset,
            "foodSpawnChance": str(api["foodSpawnChance"]),
            "minimumFood": str(api["minimumFood"]),
            "hazardDamagePerTurn": str(api["hazardDamagePerTurn"]),
            "shrinkEveryNTurns": str(api["royale"]["shrinkEveryNTurns"]),
        },
        "SnakeTimeout": timeout_ms,
        "Source": source,
        "RulesetName": ruleset,
        "RulesStages": [],
        "Map": map_id,
        "Seed": settings.seed,
        # Snakewar's own, beside the official board's fields: the seed exactly, as a
        # string, since JavaScript reads "Seed" as a double and rounds it above 2**53.
        "SeedString": str(settings.seed),
    }


def record_frames(record: GameRecord) -> list[dict[str, Any]]:
    """Every frame of a recorded game, turn 0 first."""
    frames = [frame(record.initial, record.snakes)]
    frames.extend(frame(t.after, record.snakes, t.calls) for t in record.turns)
    return frames
