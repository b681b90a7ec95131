"""A tournament's settings: the format, the entrants by seed and the match rules.

:class:`TournamentConfig` is frozen and checked when it is made, so a tournament never
holds settings that do not fit; :meth:`TournamentConfig.to_mapping` is the JSON shape
that storage and the API keep (unchanged since settings were a plain dict), and
:meth:`TournamentConfig.from_mapping` reads it back.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from snakewar.errors import SnakewarError, choices_text

__all__ = [
    "FORMATS",
    "FORMAT_TITLES",
    "MAX_ENTRANTS",
    "MAX_HEAT",
    "TournamentConfig",
    "TournamentError",
    "TournamentFormat",
]


class TournamentFormat(StrEnum):
    """The tournament formats; each value is the format's id on the wire and in storage."""

    SINGLE_ELIMINATION = "single_elimination"
    DOUBLE_ELIMINATION = "double_elimination"
    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"


FORMATS: tuple[str, ...] = tuple(f.value for f in TournamentFormat)
"""The tournament formats' ids."""

FORMAT_TITLES = {
    TournamentFormat.SINGLE_ELIMINATION.value: "Single elimination",
    TournamentFormat.DOUBLE_ELIMINATION.value: "Double elimination",
    TournamentFormat.ROUND_ROBIN.value: "Round robin",
    TournamentFormat.SWISS.value: "Swiss",
}
"""Each format's name for people (pages, tables), by its id in :data:`FORMATS`."""

MAX_ENTRANTS = 64
MAX_HEAT = 8


class TournamentError(SnakewarError, ValueError):
    """Raised for a tournament that cannot be set up or a report that does not fit."""


def _is(value: object, kind: type) -> bool:
    """``isinstance`` for values that may come from JSON despite their annotations."""
    return isinstance(value, kind) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """A tournament's settings, checked on construction.

    Build one with :meth:`create` (which fills in the defaults) or :meth:`from_mapping`.

    Attributes:
        format: the format.
        entrants: up to 64 distinct names, by seed (best first); it is played with 2 or
            more (fewer: it waits for entrants, with no bracket).
        heat_size: entrants per match, 2 to 8.
        best_of: games per match, odd: a match is won with ``best_of // 2 + 1``.
        advance: entrants going on from each heat before the final; divides
            ``heat_size`` and is smaller.
        grand_final_reset: double elimination: replay the grand final when the losers'
            bracket champion wins it (1v1 grand finals only).
        swiss_rounds: Swiss: its rounds, 1 to ``len(entrants) - 1``; ``None`` for the
            other formats.
        seed: Swiss: orders equal scores by a hash of it instead of by seed.

    Raises:
        TournamentError: any value out of range, with the value and what fits.
    """

    format: TournamentFormat
    entrants: tuple[str, ...]
    heat_size: int = 2
    best_of: int = 1
    advance: int = 1
    grand_final_reset: bool = True
    swiss_rounds: int | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise TournamentError(
                f"unknown tournament format {self.format!r}; expected {choices_text(FORMATS)}"
            )
        # Frozen: the coerced values are set once, here, before anyone sees the object.
        object.__setattr__(self, "format", TournamentFormat(self.format))
        object.__setattr__(self, "entrants", tuple(self.entrants))
        object.__setattr__(self, "grand_final_reset", bool(self.grand_final_reset))
        names = self.entrants
        # Fewer than 2 is a tournament still taking entrants: it has no bracket yet.
        if len(names) > MAX_ENTRANTS:
            raise TournamentError(
                f"a tournament needs 2 to {MAX_ENTRANTS} entrants, not {len(names)}"
            )
        for name in names:
            if not _is(name, str) or not name:
                raise TournamentError(f"entrant {name!r} is not a non-empty string")
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise TournamentError(f"entrant {dup!r} appears more than once")
        heat = self.heat_size
        if not _is(heat, int) or not 2 <= heat <= MAX_HEAT:
            raise TournamentError(f"heat size must be 2 to {MAX_HEAT}, not {heat!r}")
        if not _is(self.best_of, int) or self.best_of < 1 or self.best_of % 2 == 0:
            raise TournamentError(f"best of must be a positive odd number, not {self.best_of!r}")
        adv = self.advance
        if not _is(adv, int) or not 1 <= adv < heat or heat % adv:
            raise TournamentError(
                f"advance must divide heat size {heat} and be smaller, not {adv!r}"
            )
        rounds = self.swiss_rounds
        if self.format is TournamentFormat.SWISS:
            # Too few entrants to pair: its rounds are checked once it has enough.
            most = max(1, len(names) - 1)
            if not _is(rounds, int) or not 1 <= rounds <= most:  # type: ignore[operator]
                raise TournamentError(
                    f"swiss rounds must be 1 to {most} for {len(names)} entrants, not {rounds!r}"
                )
        elif rounds is not None:
            raise TournamentError(f"swiss rounds {rounds!r}: only a Swiss tournament has them")
        if self.seed is not None and not _is(self.seed, int):
            raise TournamentError(f"seed must be an integer or null, not {self.seed!r}")

    @classmethod
    def create(
        cls,
        format: str,
        entrants: Sequence[str],
        heat_size: int = 2,
        best_of: int = 1,
        advance: int | None = None,
        *,
        grand_final_reset: bool = True,
        rounds: int | None = None,
        seed: int | None = None,
    ) -> TournamentConfig:
        """Settings with the defaults filled in.

        Args:
            format: one of :data:`FORMATS`.
            entrants: up to 64 distinct names, ordered by seed (best first); fewer than 2
                make a tournament that waits for entrants (no bracket, never finished).
            heat_size: snakes per match, 2 to 8.
            best_of: games per match, odd.
            advance: ``heat_size // 2`` by default.
            grand_final_reset: double elimination only, as :attr:`grand_final_reset`.
            rounds: Swiss rounds, ``ceil(log2(entrants))`` by default; ignored by the
                other formats.
            seed: Swiss only: orders equal scores by a hash of it instead of by seed.

        Raises:
            TournamentError: any value out of range, with the value and what fits.
        """
        names = list(entrants)
        # Defaults are worked out only from values that can be: a bad heat size or field
        # is then reported by the checks in __post_init__, in their order.
        adv = heat_size // 2 if advance is None and _is(heat_size, int) else advance
        swiss = format == TournamentFormat.SWISS
        default_rounds = max(1, math.ceil(math.log2(len(names)))) if names else 1
        return cls(
            format,  # type: ignore[arg-type]  # checked and coerced in __post_init__
            tuple(names),
            heat_size,
            best_of,
            adv,  # type: ignore[arg-type]
            grand_final_reset,
            (default_rounds if rounds is None else rounds) if swiss else None,
            seed,
        )

    def to_mapping(self) -> dict[str, Any]:
        """The JSON shape storage and the API keep (keys in this order)."""
        return {
            "format": self.format.value,
            "entrants": list(self.entrants),
            "heat_size": self.heat_size,
            "best_of": self.best_of,
            "advance": self.advance,
            "grand_final_reset": self.grand_final_reset,
            "swiss_rounds": self.swiss_rounds,
            "seed": self.seed,
        }

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> TournamentConfig:
        """Inverse of :meth:`to_mapping`; extra keys (a tournament's reports) are ignored.

        Raises:
            TournamentError: a missing key or a value that does not fit.
        """
        try:
            return cls.create(
                data["format"],
                data["entrants"],
                data["heat_size"],
                data["best_of"],
                data["advance"],
                grand_final_reset=data["grand_final_reset"],
                rounds=data["swiss_rounds"],
                seed=data["seed"],
            )
        except (KeyError, TypeError) as exc:
            raise TournamentError(f"tournament data is missing or mistypes {exc}") from None
