"""Halite III's map generator (official engine 1.2.2.finals, ``-m fractal``), bit for bit.

The engine builds one *tile* of fractal value noise and mirrors it until there is a
tile per player (see ``spec/halite3.md`` §2):

1. ``source[y][x] = U(0, 1) ** FACTOR_EXP_1``, drawn row by row from
   ``std::mt19937(seed)`` through libstdc++'s two-draw ``generate_canonical``.
2. For each octave, a sub-sampled copy of ``source`` is interpolated bilinearly
   (wrapping) and added to ``region`` with an amplitude that shrinks by
   ``PERSISTENCE``; the raw source is added last.
3. ``region ** FACTOR_EXP_2`` is scaled so that its maximum becomes ``maxprod``
   (one raw draw in ``[MIN_CELL_PRODUCTION, MAX_CELL_PRODUCTION]``), then rounded
   half away from zero.
4. The tile goes to the top-left corner with its factory, then the filled part is
   mirrored across a vertical axis, then a horizontal one, alternately, until the
   map is full.  Each mirror appends the mirrored factories, so player ``i`` gets
   the ``i``-th factory.

Every float operation happens in the engine's order with IEEE doubles (NumPy's
element-wise ``+``, ``-``, ``*`` and ``/`` round exactly like C), and ``pow`` is
the C library's, through Python's float ``**``.  NumPy is imported inside the
functions so that importing this module does not load the standard ``random``
module (see :mod:`snakewar.games.halite3.rules.mt19937`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from snakewar.errors import SnakewarError
from snakewar.games.halite3.rules.mt19937 import MT19937

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "MAP_SIZES",
    "PLAYER_COUNTS",
    "GeneratedMap",
    "MapError",
    "generate_map",
    "size_for_seed",
    "tiling",
]

#: The square map sizes the engine picks from when no size is given.
MAP_SIZES = (32, 40, 48, 56, 64)
#: The player counts the mirror tiling supports.
PLAYER_COUNTS = (1, 2, 4, 8, 16)


class MapError(SnakewarError, ValueError):
    """Raised when a map cannot be generated (player count, size or parameters)."""


@dataclass(frozen=True, slots=True)
class GeneratedMap:
    """A generated map.

    Attributes:
        halite: The halite of each cell, as ``height`` rows of ``width`` ints.
            Factory cells are 0.
        factories: The factory (shipyard) of each player id, as ``(x, y)``.
    """

    halite: tuple[tuple[int, ...], ...]
    factories: tuple[tuple[int, int], ...]

    @property
    def width(self) -> int:
        """The number of columns."""
        return len(self.halite[0])

    @property
    def height(self) -> int:
        """The number of rows."""
        return len(self.halite)


def size_for_seed(seed: int) -> int:
    """The square map size the engine picks for ``seed`` when no size is given.

    The engine draws it from its own fresh ``std::mt19937(seed)``.  It is also the
    ``DEFAULT_MAP_WIDTH``/``DEFAULT_MAP_HEIGHT`` the engine reports, even when the
    size was forced on the command line.
    """
    return MAP_SIZES[MT19937(seed).next_u32() % len(MAP_SIZES)]


def tiling(num_players: int) -> tuple[int, int]:
    """The ``(columns, rows)`` of tiles for ``num_players``: columns double first, then rows.

    Raises:
        MapError: If ``num_players`` is not 1, 2, 4, 8 or 16.
    """
    if isinstance(num_players, bool) or num_players not in PLAYER_COUNTS:
        raise MapError(
            f"player count {num_players!r} cannot be tiled; expected one of "
            f"{', '.join(map(str, PLAYER_COUNTS))}"
        )
    cols = rows = tiles = 1
    while tiles < num_players:
        cols *= 2
        tiles *= 2
        if tiles == num_players:
            break
        rows *= 2
        tiles *= 2
    return cols, rows


def _check_dimension(name: str, value: int, parts: int, num_players: int) -> int:
    # Exact int only: a bool or a float would index the tiling wrongly.
    if type(value) is not int or value <= 0:
        raise MapError(f"map {name} {value!r} is not a positive integer")
    if value % parts:
        raise MapError(
            f"map {name} {value!r} does not split into {parts} tiles for "
            f"{num_players} players; expected a multiple of {parts}"
        )
    return value // parts


def _c_pow(values: NDArray[np.float64], exponent: float) -> NDArray[np.float64]:
    """Element-wise C ``pow`` (NumPy may special-case exponents such as 2)."""
    import numpy as np

    flat = values.ravel().tolist()
    return np.array([v**exponent for v in flat], dtype=np.float64).reshape(values.shape)


def _smooth(source: NDArray[np.float64], wavelength: int) -> NDArray[np.float64]:
    """Bilinear interpolation of ``source`` sub-sampled every ``wavelength`` cells, wrapping."""
    import numpy as np

    th, tw = source.shape
    mini = source[::wavelength, ::wavelength]
    mh, mw = mini.shape
    ys = np.arange(th)
    xs = np.arange(tw)
    y_i = ys // wavelength
    y_f = (y_i + 1) % mh
    x_i = xs // wavelength
    x_f = (x_i + 1) % mw
    # double(y) / wavelength - y_i, in that order.
    vb = (ys.astype(np.float64) / float(wavelength) - y_i.astype(np.float64))[:, None]
    hb = xs.astype(np.float64) / float(wavelength) - x_i.astype(np.float64)
    one_h = 1.0 - hb
    top = one_h * mini[y_i][:, x_i] + hb * mini[y_i][:, x_f]
    bottom = one_h * mini[y_f][:, x_i] + hb * mini[y_f][:, x_f]
    smoothed: NDArray[np.float64] = (1.0 - vb) * top + vb * bottom
    return smoothed


def _c_round(values: NDArray[np.float64]) -> NDArray[np.int64]:
    """C ``round`` (half away from zero) of non-negative values, as integers."""
    import numpy as np

    floor = np.floor(values)
    # values - floor is exact for doubles, so the comparison with 0.5 is too.
    rounded = floor + (values - floor >= 0.5)
    return rounded.astype(np.int64)


def _tile(
    rng: MT19937,
    tw: int,
    th: int,
    persistence: float,
    factor_exp_1: float,
    factor_exp_2: float,
    min_production: int,
    max_production: int,
) -> NDArray[np.int64]:
    """One tile of fractal value noise, drawing from ``rng`` exactly as the engine does."""
    import numpy as np

    source = _c_pow(rng.canonical_array(tw * th).reshape(th, tw), factor_exp_1)
    region = np.zeros((th, tw), dtype=np.float64)
    max_octave = min(tw, th).bit_length()  # floor(log2(min)) + 1
    amplitude = 1.0
    for octave in range(2, max_octave + 1):
        region += amplitude * _smooth(source, 2 ** (max_octave - octave))
        amplitude *= persistence
    region += amplitude * source
    region = _c_pow(region, factor_exp_2)
    max_value = float(region.max())
    max_cell = rng.next_u32() % (1 + max_production - min_production) + min_production
    # The engine divides first and multiplies each cell by the quotient.
    region *= max_cell / max_value
    # The base class's random factory position: drawn, then ignored by the mirror tiling.
    rng.next_u32()
    rng.next_u32()
    return _c_round(region)


def _factory_in_tile(tw: int, th: int, num_players: int) -> tuple[int, int]:
    fx, fy = tw // 2, th // 2
    if 16 <= tw <= 40 and 16 <= th <= 40:
        # Nearer the map centre on mid-sized tiles; y only moves with more than 2 players.
        fx = int(8 + ((tw - 16) / 24.0) * 20)
        if num_players > 2:
            fy = int(8 + ((th - 16) / 24.0) * 20)
    return fx, fy


def generate_map(
    seed: int,
    width: int,
    height: int,
    num_players: int,
    *,
    persistence: float = 0.7,
    factor_exp_1: float = 2.0,
    factor_exp_2: float = 2.0,
    min_production: int = 900,
    max_production: int = 1000,
) -> GeneratedMap:
    """Generate the engine's fractal map for ``seed``.

    Args:
        seed: The game seed; taken modulo ``2**32`` like the engine's ``unsigned int``.
        width: Map width; a multiple of the number of tile columns.
        height: Map height; a multiple of the number of tile rows.
        num_players: 1, 2, 4, 8 or 16 (the map is made for this many players
            even when fewer play).
        persistence: ``PERSISTENCE``, the amplitude factor between octaves.
        factor_exp_1: ``FACTOR_EXP_1``, the exponent applied to the raw noise.
        factor_exp_2: ``FACTOR_EXP_2``, the exponent applied to the summed noise.
        min_production: ``MIN_CELL_PRODUCTION``, the least the highest cell can get.
        max_production: ``MAX_CELL_PRODUCTION``, the most the highest cell can get.

    Returns:
        The halite grid and each player's factory.

    Raises:
        MapError: If the player count, the size or the production range is invalid.
    """
    import numpy as np

    cols, rows = tiling(num_players)
    tw = _check_dimension("width", width, cols, num_players)
    th = _check_dimension("height", height, rows, num_players)
    if not 0 <= min_production <= max_production:
        raise MapError(
            f"production range {min_production!r}..{max_production!r} is invalid; "
            "expected 0 <= min_production <= max_production"
        )
    for name, value in (("factor_exp_1", factor_exp_1), ("factor_exp_2", factor_exp_2)):
        if not value > 0.0 or value == float("inf"):
            raise MapError(f"{name} {value!r} is invalid; expected a finite positive number")

    tile = _tile(
        MT19937(seed),
        tw,
        th,
        persistence,
        factor_exp_1,
        factor_exp_2,
        min_production,
        max_production,
    )
    fx, fy = _factory_in_tile(tw, th, num_players)
    tile[fy, fx] = 0
    grid = tile
    factories = [(fx, fy)]
    tiles = 1
    flip_columns = True
    while tiles < num_players:
        if flip_columns:
            cw = grid.shape[1]
            grid = np.concatenate([grid, grid[:, ::-1]], axis=1)
            factories += [(2 * cw - x - 1, y) for x, y in factories]
        else:
            ch = grid.shape[0]
            grid = np.concatenate([grid, grid[::-1, :]], axis=0)
            factories += [(x, 2 * ch - y - 1) for x, y in factories]
        tiles *= 2
        flip_columns = not flip_columns
    halite = tuple(tuple(int(v) for v in row) for row in grid.tolist())
    return GeneratedMap(halite=halite, factories=tuple(factories))
