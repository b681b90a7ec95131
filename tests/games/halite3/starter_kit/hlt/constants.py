"""Game constants, filled in from the engine's init message by :func:`load_constants`."""

from typing import Any

#: Cost of a new ship.
SHIP_COST = 1000
#: Cost of converting a ship into a dropoff.
DROPOFF_COST = 4000
#: A ship's cargo capacity.
MAX_HALITE = 1000
#: The game's number of turns.
MAX_TURNS = 500
#: A ship mines 1/EXTRACT_RATIO of its cell per turn (rounded up by the engine).
EXTRACT_RATIO = 4
#: Moving costs 1/MOVE_COST_RATIO of the cell left (rounded down).
MOVE_COST_RATIO = 10
INSPIRATION_ENABLED = True
INSPIRATION_RADIUS = 4
INSPIRATION_SHIP_COUNT = 2
INSPIRED_EXTRACT_RATIO = 4
INSPIRED_BONUS_MULTIPLIER = 2.0
INSPIRED_MOVE_COST_RATIO = 10


def load_constants(values: dict[str, Any]) -> None:
    """Set the module's constants from the engine's constants JSON object."""
    global SHIP_COST, DROPOFF_COST, MAX_HALITE, MAX_TURNS, EXTRACT_RATIO, MOVE_COST_RATIO
    global INSPIRATION_ENABLED, INSPIRATION_RADIUS, INSPIRATION_SHIP_COUNT
    global INSPIRED_EXTRACT_RATIO, INSPIRED_BONUS_MULTIPLIER, INSPIRED_MOVE_COST_RATIO
    SHIP_COST = values["NEW_ENTITY_ENERGY_COST"]
    DROPOFF_COST = values["DROPOFF_COST"]
    MAX_HALITE = values["MAX_ENERGY"]
    MAX_TURNS = values["MAX_TURNS"]
    EXTRACT_RATIO = values["EXTRACT_RATIO"]
    MOVE_COST_RATIO = values["MOVE_COST_RATIO"]
    INSPIRATION_ENABLED = values["INSPIRATION_ENABLED"]
    INSPIRATION_RADIUS = values["INSPIRATION_RADIUS"]
    INSPIRATION_SHIP_COUNT = values["INSPIRATION_SHIP_COUNT"]
    INSPIRED_EXTRACT_RATIO = values["INSPIRED_EXTRACT_RATIO"]
    INSPIRED_BONUS_MULTIPLIER = values["INSPIRED_BONUS_MULTIPLIER"]
    INSPIRED_MOVE_COST_RATIO = values["INSPIRED_MOVE_COST_RATIO"]
