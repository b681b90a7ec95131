"""The game constants: the official defaults, strict JSON overrides and the turn count.

The official engine reads an override file with ``json.at()`` on every key, so a
constants file must name every key; :func:`Constants.from_json` keeps that rule and
says which key is missing or has the wrong type, in one line.  Where the engine reads
a number it plays with, so does this module: each integer constant is a C++ ``long``
or ``unsigned long`` there, so a fraction is truncated (``3.7`` is 3) and a value out of
the type's range wraps (``MAX_TURNS: -5`` is 18446744073709551611).  What the engine
aborts on (a missing key, a string or a bool for a number, a number for a bool) and
what it cannot read defined (a number beyond 64 bits) are refused.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from typing import Any

from snakewar.errors import SnakewarError

__all__ = ["Constants", "ConstantsError", "turns_for_size"]


class ConstantsError(SnakewarError):
    """A constants override is not a complete, well-typed Halite III constants object."""


@dataclasses.dataclass(frozen=True, slots=True)
class Constants:
    """Halite III game constants, with the official engine's defaults (1.2.2.finals).

    Field names are the JSON keys the engine sends to bots and stores in replays.
    ``MAX_TURNS`` here is the configured maximum; the turn count a game actually
    uses depends on the map size (:func:`turns_for_size`).
    """

    CAPTURE_ENABLED: bool = False
    CAPTURE_RADIUS: int = 3
    DEFAULT_MAP_HEIGHT: int = 48
    DEFAULT_MAP_WIDTH: int = 48
    DROPOFF_COST: int = 4000
    DROPOFF_PENALTY_RATIO: int = 4
    EXTRACT_RATIO: int = 4
    FACTOR_EXP_1: float = 2.0
    FACTOR_EXP_2: float = 2.0
    INITIAL_ENERGY: int = 5000
    INSPIRATION_ENABLED: bool = True
    INSPIRATION_RADIUS: int = 4
    INSPIRATION_SHIP_COUNT: int = 2
    INSPIRED_BONUS_MULTIPLIER: float = 2.0
    INSPIRED_EXTRACT_RATIO: int = 4
    INSPIRED_MOVE_COST_RATIO: int = 10
    MAX_CELL_PRODUCTION: int = 1000
    MAX_ENERGY: int = 1000
    MAX_PLAYERS: int = 16
    MAX_TURNS: int = 500
    MAX_TURN_THRESHOLD: int = 64
    MIN_CELL_PRODUCTION: int = 900
    MIN_TURNS: int = 400
    MIN_TURN_THRESHOLD: int = 32
    MOVE_COST_RATIO: int = 10
    NEW_ENTITY_ENERGY_COST: int = 1000
    PERSISTENCE: float = 0.7
    SHIPS_ABOVE_FOR_CAPTURE: int = 3
    STRICT_ERRORS: bool = False

    def to_json(self) -> dict[str, Any]:
        """The constants as the engine's JSON object (keys sorted, like nlohmann's std::map)."""
        return {f.name: getattr(self, f.name) for f in sorted(dataclasses.fields(self), key=_name)}

    def dumps(self, **extra: Any) -> str:
        """The compact, key-sorted JSON line the engine sends (``extra`` keys merged in)."""
        return json.dumps({**self.to_json(), **extra}, sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Constants:
        """Read a complete constants object; every key is required, as in the engine.

        Raises:
            ConstantsError: a key is missing or its value has the wrong type.
        """
        if not isinstance(data, Mapping):
            raise ConstantsError(f"constants must be a JSON object, got {type(data).__name__}")
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name not in data:
                raise ConstantsError(f"constants: missing key {f.name!r} (every key is required)")
            values[f.name] = _coerce(f.name, data[f.name], type(getattr(cls(), f.name)))
            if f.name in _DIVISORS and values[f.name] == 0:
                # The engine divides by it at a ship's first move or mining and dies of
                # SIGFPE without a replay: refused up front, as the engine's other aborts.
                raise ConstantsError(
                    f"constants: {f.name} must not be 0 (the engine divides cells' halite by it)"
                )
        return cls(**values)

    @classmethod
    def loads(cls, text: str) -> Constants:
        """Parse a constants JSON document (see :meth:`from_json`)."""
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ConstantsError(f"constants: not valid JSON ({exc})") from None
        return cls.from_json(data)

    def with_turn_limit(self, turns: int) -> Constants:
        """The official ``--turn-limit N``: MIN_TURNS = MAX_TURNS = N.

        N is the engine's ``unsigned long``: 0 is a game of no turns (the engine plays
        none; see :meth:`~snakewar.games.halite3.HaliteGame.end_without_turns`).

        Raises:
            ConstantsError: N is negative or beyond 64 bits.
        """
        if not 0 <= turns < _U64:
            raise ConstantsError(f"turn limit must be 0 to {_U64 - 1}, got {turns}")
        return dataclasses.replace(self, MIN_TURNS=turns, MAX_TURNS=turns)


def _name(f: dataclasses.Field[Any]) -> str:
    return f.name


_U64 = 1 << 64
_I64_MIN = -(1 << 63)
#: The constants the engine holds as ``unsigned long`` (the other integers are ``long``).
_UNSIGNED = frozenset(
    {
        "MAX_PLAYERS",
        "MOVE_COST_RATIO",
        "DROPOFF_PENALTY_RATIO",
        "EXTRACT_RATIO",
        "MIN_TURNS",
        "MIN_TURN_THRESHOLD",
        "MAX_TURNS",
        "MAX_TURN_THRESHOLD",
        "SHIPS_ABOVE_FOR_CAPTURE",
        "INSPIRED_EXTRACT_RATIO",
        "INSPIRED_MOVE_COST_RATIO",
        "INSPIRATION_SHIP_COUNT",
    }
)


#: The constants the engine divides by (integer division: 0 crashes it).
_DIVISORS = frozenset(
    {"MOVE_COST_RATIO", "EXTRACT_RATIO", "INSPIRED_EXTRACT_RATIO", "INSPIRED_MOVE_COST_RATIO"}
)


def _c_integer(key: str, value: int | float) -> int | None:
    """``static_cast`` of a JSON number to the engine's ``long``/``unsigned long``.

    ``None`` where the engine's reading is undefined: a number its JSON reader keeps
    as a double beyond the 64-bit range (a huge integer too), or not finite.
    """
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        value = math.trunc(value)
    if not _I64_MIN <= value < _U64:
        return None
    wrapped = value % _U64
    if key in _UNSIGNED:
        return wrapped
    return wrapped - _U64 if wrapped >= 1 << 63 else wrapped


def _coerce(key: str, value: Any, kind: type) -> Any:
    if kind is bool:
        if isinstance(value, bool):
            return value
    elif kind is int:
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = _c_integer(key, value)
            if number is not None:
                return number
            raise ConstantsError(
                f"constants: {key} must be a 64-bit integer, got {value!r} (out of range)"
            )
    elif (
        kind is float
        and isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
    ):
        return float(value)
    raise ConstantsError(f"constants: {key} must be a {kind.__name__}, got {value!r}")


def turns_for_size(width: int, height: int, constants: Constants) -> int:
    """The game's turn count: interpolated on the larger map side, not clamped (as the engine).

    The engine computes it in ``unsigned long`` (differences wrap) and ``double``: so
    does this, so that odd constants (``MAX_TURNS`` below ``MIN_TURNS``, wrapped values)
    give the engine's count.
    """
    turns = constants.MIN_TURNS
    biggest = max(width, height)
    if biggest > constants.MIN_TURN_THRESHOLD:
        over = float((biggest - constants.MIN_TURN_THRESHOLD) % _U64)
        span = float((constants.MAX_TURN_THRESHOLD - constants.MIN_TURN_THRESHOLD) % _U64)
        extra = float((constants.MAX_TURNS - constants.MIN_TURNS) % _U64)
        scaled = over / span * extra if span else math.inf
        # A double past 2**64 (or a division by zero) has no defined cast back to
        # unsigned long; x86-64's conversion gives 0, and so does this.
        turns += int(scaled) if 0 <= scaled < _U64 else 0
    return turns % _U64
