"""The Battlesnake API v1 JSON Schema, as data (strict: every field, nothing else).

``$defs`` holds ``SnakeRequest`` (the ``/start``, ``/move`` and ``/end`` bodies),
``MoveResponse`` and ``Metadata``.  :func:`snakewar.games.battlesnake.rules.wire.api_schema`
gives a copy; :func:`schema_json` writes it out as a ``.json`` file's text.
"""

from __future__ import annotations

import json
from typing import Any, Final

__all__ = ["API_V1_SCHEMA", "schema_json"]

API_V1_SCHEMA: Final[dict[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://snakewar.dev/schema/battlesnake/api-v1.json",
    "title": "Battlesnake API v1 as Snakewar sends and accepts it",
    "description": "Strict shapes: every field the official engine sends is required and no "
    "other field is allowed. Use $defs/SnakeRequest for /start, /move and /end "
    "bodies, $defs/MoveResponse and $defs/Metadata for replies.",
    "$defs": {
        "Coord": {
            "type": "object",
            "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
            "required": ["x", "y"],
            "additionalProperties": False,
        },
        "Customizations": {
            "type": "object",
            "properties": {
                "color": {"type": "string"},
                "head": {"type": "string"},
                "tail": {"type": "string"},
            },
            "required": ["color", "head", "tail"],
            "additionalProperties": False,
        },
        "Battlesnake": {
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "name": {"type": "string"},
                "latency": {"type": "string", "pattern": "^[0-9]+$"},
                "health": {"type": "integer", "minimum": 0, "maximum": 100},
                "body": {"type": "array", "items": {"$ref": "#/$defs/Coord"}, "minItems": 1},
                "head": {"$ref": "#/$defs/Coord"},
                "length": {"type": "integer", "minimum": 1},
                "shout": {"type": "string", "maxLength": 256},
                "squad": {"type": "string"},
                "customizations": {"$ref": "#/$defs/Customizations"},
            },
            "required": [
                "id",
                "name",
                "latency",
                "health",
                "body",
                "head",
                "length",
                "shout",
                "squad",
                "customizations",
            ],
            "additionalProperties": False,
        },
        "Board": {
            "type": "object",
            "properties": {
                "height": {"type": "integer", "minimum": 1},
                "width": {"type": "integer", "minimum": 1},
                "snakes": {"type": "array", "items": {"$ref": "#/$defs/Battlesnake"}},
                "food": {"type": "array", "items": {"$ref": "#/$defs/Coord"}},
                "hazards": {"type": "array", "items": {"$ref": "#/$defs/Coord"}},
            },
            "required": ["height", "width", "snakes", "food", "hazards"],
            "additionalProperties": False,
        },
        "RulesetSettings": {
            "type": "object",
            "properties": {
                "foodSpawnChance": {"type": "integer"},
                "minimumFood": {"type": "integer"},
                "hazardDamagePerTurn": {"type": "integer"},
                "hazardMap": {"type": "string"},
                "hazardMapAuthor": {"type": "string"},
                # The classic ruleset's own settings (Snakewar's 2017/18 game).
                "maxFood": {"type": "integer", "minimum": 0},
                "snakeStartLength": {"type": "integer", "minimum": 1},
                "decHealthPoints": {"type": "integer", "minimum": 0},
                "royale": {
                    "type": "object",
                    "properties": {"shrinkEveryNTurns": {"type": "integer"}},
                    "required": ["shrinkEveryNTurns"],
                    "additionalProperties": False,
                },
                "squad": {
                    "type": "object",
                    "properties": {
                        "allowBodyCollisions": {"type": "boolean"},
                        "sharedElimination": {"type": "boolean"},
                        "sharedHealth": {"type": "boolean"},
                        "sharedLength": {"type": "boolean"},
                    },
                    "required": [
                        "allowBodyCollisions",
                        "sharedElimination",
                        "sharedHealth",
                        "sharedLength",
                    ],
                    "additionalProperties": False,
                },
            },
            "required": [
                "foodSpawnChance",
                "minimumFood",
                "hazardDamagePerTurn",
                "hazardMap",
                "hazardMapAuthor",
                "royale",
                "squad",
            ],
            "additionalProperties": False,
        },
        "Game": {
            "type": "object",
            "properties": {
                "id": {"type": "string", "minLength": 1},
                "ruleset": {
                    "type": "object",
                    "properties": {
                        "name": {
                            "enum": [
                                "standard",
                                "solo",
                                "royale",
                                "constrictor",
                                "wrapped",
                                "wrapped_constrictor",
                                "classic",
                            ]
                        },
                        "version": {"type": "string"},
                        "settings": {"$ref": "#/$defs/RulesetSettings"},
                    },
                    "required": ["name", "version", "settings"],
                    "additionalProperties": False,
                },
                "map": {"type": "string", "minLength": 1},
                "timeout": {"type": "integer", "minimum": 1},
                "source": {"type": "string"},
            },
            "required": ["id", "ruleset", "map", "timeout", "source"],
            "additionalProperties": False,
        },
        "SnakeRequest": {
            "type": "object",
            "properties": {
                "game": {"$ref": "#/$defs/Game"},
                "turn": {"type": "integer", "minimum": 0},
                "board": {"$ref": "#/$defs/Board"},
                "you": {"$ref": "#/$defs/Battlesnake"},
            },
            "required": ["game", "turn", "board", "you"],
            "additionalProperties": False,
        },
        "MoveResponse": {
            "type": "object",
            "properties": {
                "move": {"enum": ["up", "down", "left", "right"]},
                "shout": {"type": "string", "maxLength": 256},
            },
            "required": ["move"],
        },
        "Metadata": {
            "type": "object",
            "properties": {
                "apiversion": {"const": "1"},
                "author": {"type": "string"},
                "color": {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"},
                "head": {"type": "string"},
                "tail": {"type": "string"},
                "version": {"type": "string"},
            },
            "required": ["apiversion"],
        },
    },
}


def schema_json() -> str:
    """The schema as JSON text (two-space indents), for tools that read files."""
    return json.dumps(API_V1_SCHEMA, indent=2) + "\n"
