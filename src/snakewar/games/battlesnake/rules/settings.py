"""Game settings with the reference's names, defaults and parsing rules.

The reference keeps settings as raw strings (``map[string]string``) and parses them
where they are read: ``Settings.Int(key, default)`` returns the *call-site* default
when the key is missing **or** its value is not a valid integer.  :class:`Settings`
does the same, so a setting such as ``{"shrinkEveryNTurns": "abc"}`` behaves exactly
as in the reference (royale falls back to 20, the others to 0).

Keys are the rules' internal parameter names.  Hazard damage is ``damagePerTurn``
inside the rules; the API and the CLI call it ``hazardDamagePerTurn``
(:func:`Settings.from_api` and :meth:`Settings.to_api` translate).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from snakewar.errors import SettingsError
from snakewar.games.battlesnake.rules.rng import GoRand, Rand, wrap_int64
from snakewar.games.battlesnake.rules.types import reduce_dataclass

__all__ = [
    "CLASSIC_SETTINGS",
    "CLI_DEFAULTS",
    "DEC_HEALTH_POINTS",
    "FOOD_SPAWN_CHANCE",
    "HAZARD_DAMAGE_PER_TURN",
    "MAX_FOOD",
    "MINIMUM_FOOD",
    "SHRINK_EVERY_N_TURNS",
    "SNAKE_START_LENGTH",
    "Settings",
]

FOOD_SPAWN_CHANCE = "foodSpawnChance"
"""Percent chance-ish of a food spawn each turn (the real chance is one less)."""
MINIMUM_FOOD = "minimumFood"
"""Food is topped up to this many items each turn."""
HAZARD_DAMAGE_PER_TURN = "damagePerTurn"
"""Damage per hazard stack per turn; negative heals.  API name: ``hazardDamagePerTurn``."""
SHRINK_EVERY_N_TURNS = "shrinkEveryNTurns"
"""Royale shrink period; also the period of healing_pools, sinkholes and hz_hazard_pits."""

# The classic ruleset's settings (classic.py): the 2018 server's game-form fields, camelCased.
MAX_FOOD = "maxFood"
"""Classic: how many food items the board keeps (2018: ``max_food``)."""
SNAKE_START_LENGTH = "snakeStartLength"
"""Classic: how many stacked segments a snake starts with (2018: ``snake_start_length``)."""
DEC_HEALTH_POINTS = "decHealthPoints"
"""Classic: health lost per turn (2018: ``dec_health_points``)."""
CLASSIC_SETTINGS = (MAX_FOOD, SNAKE_START_LENGTH, DEC_HEALTH_POINTS)
"""The classic ruleset's settings; the API and the rules use the same names."""

CLI_DEFAULTS: Mapping[str, str] = {
    FOOD_SPAWN_CHANCE: "15",
    MINIMUM_FOOD: "1",
    HAZARD_DAMAGE_PER_TURN: "14",
    SHRINK_EVERY_N_TURNS: "25",
}
"""The official CLI's flag defaults (the settings of an ordinary game)."""

# Go's strconv.Atoi: optional sign, ASCII digits, nothing else, within int64.
_ATOI = re.compile(r"[+-]?[0-9]+\Z")
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def go_atoi(text: str) -> int | None:
    """Parse ``text`` like Go's ``strconv.Atoi`` on 64-bit; ``None`` where Go errors."""
    if not _ATOI.match(text):
        return None
    value = int(text)
    if not _INT64_MIN <= value <= _INT64_MAX:
        return None
    return value


@dataclass(frozen=True, slots=True)
class Settings:
    """Raw game parameters plus the game's seed.

    >>> s = Settings({"foodSpawnChance": "15", "shrinkEveryNTurns": "abc"}, seed=7)
    >>> s.get_int("foodSpawnChance", 0), s.get_int("shrinkEveryNTurns", 20)
    (15, 20)
    """

    params: Mapping[str, str] = field(default_factory=dict)
    seed: int = 0
    # Parsed once: the rules read some settings every turn.
    _ints: dict[str, int | None] = field(init=False, repr=False, compare=False)

    def __reduce__(self) -> tuple[type[Any], tuple[Any, ...]]:
        return reduce_dataclass(self)

    def __post_init__(self) -> None:
        # Keep a private copy: callers may mutate the dict they passed.
        object.__setattr__(self, "params", dict(self.params))
        items: list[tuple[object, object]] = list(self.params.items())
        for key, value in items:
            if not isinstance(key, str) or not isinstance(value, str):
                raise SettingsError(
                    f"setting {key!r}: raw settings map strings to strings, got {value!r}"
                )
        object.__setattr__(self, "_ints", {k: go_atoi(v) for k, v in self.params.items()})
        if type(self.seed) is not int or not _INT64_MIN <= self.seed <= _INT64_MAX:
            raise SettingsError(f"seed {self.seed!r} is not a 64-bit integer")

    @classmethod
    def defaults(cls, seed: int = 0, **overrides: int) -> Settings:
        """Return the official CLI's default settings, optionally overridden.

        >>> Settings.defaults(1, minimumFood=3).get_int("minimumFood", 0)
        3
        """
        params = dict(CLI_DEFAULTS)
        params.update({key: str(value) for key, value in overrides.items()})
        return cls(params, seed)

    def with_seed(self, seed: int) -> Settings:
        """Return a copy with another seed."""
        return Settings(self.params, seed)

    def get_int(self, key: str, default: int) -> int:
        """Return ``key`` as an int; ``default`` if it is missing or not an integer."""
        value = self._ints.get(key)
        return default if value is None else value

    def get_rand(self, turn: int) -> Rand:
        """Return a fresh Go-compatible source seeded with ``seed + turn``.

        This is the reference's ``settings.GetRand(turn)``.  Two calls with the same
        turn return independent sources that replay the same stream.  With seed 0 the
        reference falls back to Go's process-global source; Snakewar stays pure and
        seeds with ``0 + turn`` instead (the official CLI never uses seed 0).
        """
        return GoRand(wrap_int64(self.seed + turn))

    # -- the API's settings object ------------------------------------------------------

    @classmethod
    def from_api(cls, api: Mapping[str, Any], seed: int = 0) -> Settings:
        """Build settings from the API v1 ``game.ruleset.settings`` object.

        Raises:
            SettingsError: if a known field has a non-integer value.
        """
        params: dict[str, str] = {}
        royale = api.get("royale") or {}
        for key, value in (
            (FOOD_SPAWN_CHANCE, api.get("foodSpawnChance")),
            (MINIMUM_FOOD, api.get("minimumFood")),
            (HAZARD_DAMAGE_PER_TURN, api.get("hazardDamagePerTurn")),
            (
                SHRINK_EVERY_N_TURNS,
                royale.get("shrinkEveryNTurns") if isinstance(royale, dict) else None,
            ),
        ):
            if value is None:
                continue
            if type(value) is not int:
                raise SettingsError(f"setting {key!r}: expected an integer, got {value!r}")
            params[key] = str(value)
        for key in CLASSIC_SETTINGS:
            value = api.get(key)
            if value is None:
                continue
            if type(value) is not int:
                raise SettingsError(f"setting {key!r}: expected an integer, got {value!r}")
            params[key] = str(value)
        return cls(params, seed)

    def to_api(self) -> dict[str, Any]:
        """Return the API v1 ``ruleset.settings`` object (missing values are 0).

        The classic settings (:data:`CLASSIC_SETTINGS`) are added when present, so a
        classic game's snakes see them beside the standard fields.
        """
        api: dict[str, Any] = {
            "foodSpawnChance": self.get_int(FOOD_SPAWN_CHANCE, 0),
            "minimumFood": self.get_int(MINIMUM_FOOD, 0),
            "hazardDamagePerTurn": self.get_int(HAZARD_DAMAGE_PER_TURN, 0),
            "hazardMap": "",
            "hazardMapAuthor": "",
            "royale": {"shrinkEveryNTurns": self.get_int(SHRINK_EVERY_N_TURNS, 0)},
            "squad": {
                "allowBodyCollisions": False,
                "sharedElimination": False,
                "sharedHealth": False,
                "sharedLength": False,
            },
        }
        for key in CLASSIC_SETTINGS:
            value = self._ints.get(key)
            if value is not None:
                api[key] = value
        return api
