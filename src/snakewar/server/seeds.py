"""Seeds on the wire: exact decimal strings, because JavaScript numbers round them.

A seed is a signed 64-bit integer.  JavaScript reads every JSON number as a double,
so a seed above 2**53 (``2618439174457646105``, say) arrives as
``2618439174457646000``: a page that showed it, or sent it back, would name another
game.  So the JSON the pages read carries seeds as decimal strings, and request
bodies accept a seed as an integer or as such a string.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Final, TypeVar

from pydantic import BeforeValidator, Field, WithJsonSchema

__all__ = ["SEED_MAX", "SEED_MIN", "SeedInput", "with_seed_strings"]

SEED_MIN: Final = -(2**63)
SEED_MAX: Final = 2**63 - 1

JsonT = TypeVar("JsonT")

_DECIMAL = re.compile(r"-?[0-9]{1,20}")


def _seed_value(value: object) -> object:
    """An int seed from an int or a decimal string; anything else is refused (a 422)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError('expected an integer or a string of decimal digits, such as "42"')
    if isinstance(value, str):
        if not _DECIMAL.fullmatch(value):
            raise ValueError(f'{value!r} is not a decimal integer; expected digits, such as "42"')
        return int(value)
    return value


SeedInput = Annotated[
    int,
    BeforeValidator(_seed_value),
    Field(ge=SEED_MIN, le=SEED_MAX),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": SEED_MIN, "maximum": SEED_MAX},
                {"type": "string", "pattern": "^-?[0-9]{1,20}$"},
            ],
            "description": "A 64-bit seed: an integer, or the same as a decimal string "
            "(exact in JavaScript).",
            "examples": ["2618439174457646105"],
        }
    ),
]
"""A request's seed: an integer or a decimal string, in the signed 64-bit range."""


def with_seed_strings(data: JsonT) -> JsonT:
    """``data`` (JSON-ready) with every integer under a ``"seed"`` key as a decimal string.

    Lists and dicts are copied; other values are returned as they are.
    """
    result: JsonT = _seed_strings(data)
    return result


def _seed_strings(data: Any) -> Any:
    if isinstance(data, dict):
        return {
            key: str(value)
            if key == "seed" and isinstance(value, int) and not isinstance(value, bool)
            else _seed_strings(value)
            for key, value in data.items()
        }
    if isinstance(data, list):
        return [_seed_strings(item) for item in data]
    return data
