"""The Halite III map generator and its mt19937 against the official engine's output."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path
from typing import Any

import pytest

from snakewar.errors import SnakewarError
from snakewar.games.halite3.rules.mapgen import GeneratedMap, MapError, generate_map, size_for_seed
from snakewar.games.halite3.rules.mt19937 import MT19937
from tests.conformance_data import require
from tests.games.halite3.oracle import CONFORMANCE_DIR


def _game_files() -> list[Path]:
    return sorted((CONFORMANCE_DIR / "games").glob("*.jsonl.gz"))


def _header(path: Path) -> dict[str, Any]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        header: dict[str, Any] = json.loads(fh.readline())
    return header


GAME_FILES = _game_files()


@pytest.fixture(scope="module")
def headers() -> list[dict[str, Any]]:
    require(GAME_FILES, f"Halite III conformance games under {CONFORMANCE_DIR / 'games'}")
    return [_header(p) for p in GAME_FILES]


# ---- mt19937 -------------------------------------------------------------------------------


def test_mt19937_matches_the_cpp_reference_vectors() -> None:
    rng = MT19937(5489)
    assert [rng.next_u32() for _ in range(3)] == [3499211612, 581869302, 3890346734]
    # The C++ standard requires the 10000th output of a default-constructed mt19937.
    rng = MT19937(5489)
    assert int(MT19937(5489).next_u32_array(10000)[-1]) == 4123659995
    for _ in range(9999):
        rng.next_u32()
    assert rng.next_u32() == 4123659995


def test_mt19937_seed_is_taken_modulo_2_32() -> None:
    assert MT19937(5489 + 2**32).next_u32() == 3499211612
    assert MT19937(-1).next_u32_array(5).tolist() == MT19937(2**32 - 1).next_u32_array(5).tolist()


def test_mt19937_scalar_and_array_draws_share_one_stream() -> None:
    whole = MT19937(12345).next_u32_array(2000).tolist()
    rng = MT19937(12345)
    mixed: list[int] = [rng.next_u32() for _ in range(7)]
    mixed += rng.next_u32_array(1000).tolist()
    mixed += [rng.next_u32() for _ in range(300)]
    mixed += rng.next_u32_array(693).tolist()
    assert mixed == whole
    assert MT19937(1).next_u32_array(0).tolist() == []
    with pytest.raises(ValueError, match="-1"):
        MT19937(1).next_u32_array(-1)


def test_canonical_double_is_libstdcxx_two_draw_generate_canonical() -> None:
    raw = MT19937(42).next_u32_array(8).tolist()
    rng = MT19937(42)
    for k in range(4):
        lo, hi = raw[2 * k], raw[2 * k + 1]
        assert rng.canonical_double() == (lo + hi * 2.0**32) / 2.0**64
    assert MT19937(42).canonical_array(4).tolist() == [
        (raw[2 * k] + raw[2 * k + 1] * 2.0**32) / 2.0**64 for k in range(4)
    ]
    rng = MT19937(42)
    value = rng.uniform_real(3.0, 5.0)
    assert value == (raw[0] + raw[1] * 2.0**32) / 2.0**64 * 2.0 + 3.0
    assert 3.0 <= value < 5.0


def test_canonical_double_never_returns_one() -> None:
    class AllOnes(MT19937):
        def next_u32(self) -> int:
            return 0xFFFFFFFF

    # (2**32 - 1) * (1 + 2**32) rounds to 2**64 in doubles, which would be 1.0.
    assert AllOnes(0).canonical_double() == math.nextafter(1.0, 0.0)


# ---- the oracle ----------------------------------------------------------------------------


def test_maps_match_the_official_engine(headers: list[dict[str, Any]]) -> None:
    assert len(headers) >= 1
    for h in headers:
        generated = generate_map(h["seed"], h["width"], h["height"], h["num_players"])
        expected = tuple(tuple(row) for row in h["initial_halite"])
        assert generated.halite == expected, h["game_id"]
        assert generated.factories == tuple(tuple(p["shipyard"]) for p in h["players"]), h[
            "game_id"
        ]
        assert sum(map(sum, generated.halite)) == h["map_total_halite"]


def test_size_for_seed_matches_the_engine_default_size(headers: list[dict[str, Any]]) -> None:
    for h in headers:
        assert size_for_seed(h["seed"]) == h["constants"]["DEFAULT_MAP_WIDTH"], h["game_id"]
        assert size_for_seed(h["seed"]) == h["constants"]["DEFAULT_MAP_HEIGHT"], h["game_id"]


# ---- factories and symmetry ----------------------------------------------------------------

FACTORY_TABLE = {
    (32, 2): ((8, 16), (23, 16)),
    (32, 4): ((8, 8), (23, 8), (8, 23), (23, 23)),
    (40, 2): ((11, 20), (28, 20)),
    (40, 4): ((11, 11), (28, 11), (11, 28), (28, 28)),
    (48, 2): ((12, 24), (35, 24)),
    (48, 4): ((14, 14), (33, 14), (14, 33), (33, 33)),
    (56, 2): ((14, 28), (41, 28)),
    (56, 4): ((18, 18), (37, 18), (18, 37), (37, 37)),
    (64, 2): ((16, 32), (47, 32)),
    (64, 4): ((21, 21), (42, 21), (21, 42), (42, 42)),
}


@pytest.mark.parametrize(("size", "players"), sorted(FACTORY_TABLE))
def test_factories_follow_the_spec_table(size: int, players: int) -> None:
    generated = generate_map(7, size, size, players)
    assert generated.factories == FACTORY_TABLE[size, players]
    for x, y in generated.factories:
        assert generated.halite[y][x] == 0


def _mirrors(grid: tuple[tuple[int, ...], ...], cols: int, rows: int) -> bool:
    """Whether every doubling step of the tiling is a mirror image."""
    h, w = len(grid), len(grid[0])
    for k in range(cols.bit_length() - 1):
        span = w >> k  # the part that is a mirror of its left half
        half = span // 2
        for row in grid:
            for start in range(0, w, span):
                part = row[start : start + span]
                if part[half:] != part[:half][::-1]:
                    return False
    for k in range(rows.bit_length() - 1):
        span = h >> k
        half = span // 2
        for start in range(0, h, span):
            block = grid[start : start + span]
            if block[half:] != block[:half][::-1]:
                return False
    return True


@pytest.mark.parametrize(
    ("width", "height", "players", "cols", "rows"),
    [
        (32, 32, 1, 1, 1),
        (48, 32, 2, 2, 1),
        (32, 32, 2, 2, 1),
        (64, 64, 4, 2, 2),
        (64, 32, 8, 4, 2),
        (64, 64, 8, 4, 2),
        (64, 64, 16, 4, 4),
    ],
)
def test_maps_are_mirror_symmetric(
    width: int, height: int, players: int, cols: int, rows: int
) -> None:
    generated = generate_map(2024, width, height, players)
    assert (generated.width, generated.height) == (width, height)
    assert len(generated.factories) == players
    assert len(set(generated.factories)) == players
    for x, y in generated.factories:
        assert 0 <= x < width and 0 <= y < height
        assert generated.halite[y][x] == 0
    assert _mirrors(generated.halite, cols, rows)
    assert not _mirrors(generated.halite, cols * 2, rows)
    tw, th = width // cols, height // rows
    # Every player's factory is the first one mirrored into its own tile.
    fx, fy = generated.factories[0]
    assert fx < tw and fy < th
    cells = [v for row in generated.halite for v in row]
    assert 900 <= max(cells) <= 1000
    assert min(cells) == 0


def test_one_player_map_uses_the_whole_map_as_its_tile() -> None:
    generated = generate_map(99, 40, 40, 1)
    # y stays at the centre: it only moves with more than 2 players.
    assert generated.factories == ((28, 20),)


def test_mirror_order_for_eight_and_sixteen_players() -> None:
    # Columns flip first, then rows, then columns again; each flip appends mirrored copies.
    eight = generate_map(5, 64, 64, 8)
    assert eight.factories == (
        (8, 21), (23, 21), (8, 42), (23, 42), (55, 21), (40, 21), (55, 42), (40, 42),
    )  # fmt: skip
    sixteen = generate_map(5, 64, 64, 16)
    assert sixteen.factories[:8] == (
        (8, 8), (23, 8), (8, 23), (23, 23), (55, 8), (40, 8), (55, 23), (40, 23),
    )  # fmt: skip
    assert sixteen.factories[8:] == tuple((x, 63 - y) for x, y in sixteen.factories[:8])


def test_generation_is_deterministic_and_seed_dependent() -> None:
    a = generate_map(100201, 32, 32, 2)
    assert a == generate_map(100201, 32, 32, 2)
    assert a != generate_map(100202, 32, 32, 2)
    assert isinstance(a, GeneratedMap)


def test_size_for_seed_is_one_of_the_five_sizes() -> None:
    assert {size_for_seed(s) for s in range(200)} == {32, 40, 48, 56, 64}


@pytest.mark.parametrize(
    ("args", "kwargs", "fragment"),
    [
        ((1, 32, 32, 3), {}, "player count 3"),
        ((1, 32, 32, 0), {}, "player count 0"),
        ((1, 33, 32, 2), {}, "width 33"),
        ((1, 32, 31, 8), {}, "height 31"),
        ((1, 64, 30, 16), {}, "height 30 does not split into 4"),
        ((1, 0, 32, 1), {}, "width 0"),
        ((1, 32, -4, 1), {}, "height -4"),
        ((1, 32, 32, 2), {"min_production": 1000, "max_production": 900}, "1000..900"),
        ((1, 32, 32, 2), {"factor_exp_1": 0.0}, "factor_exp_1 0.0"),
    ],
)
def test_bad_input_raises_map_error(
    args: tuple[int, int, int, int], kwargs: dict[str, Any], fragment: str
) -> None:
    with pytest.raises(MapError, match=fragment) as info:
        generate_map(*args, **kwargs)
    assert isinstance(info.value, SnakewarError)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(("th", "tw"), [(13, 7), (40, 24), (5, 1), (33, 17)])
def test_vectorised_smoothing_equals_the_engine_loop_on_odd_tiles(th: int, tw: int) -> None:
    # The oracle only has power-of-two-ish tiles; odd ones exercise the ceil'd mini grid.
    from snakewar.games.halite3.rules.mapgen import _smooth

    source = MT19937(th * 100 + tw).canonical_array(th * tw).reshape(th, tw)
    top_octave = min(tw, th).bit_length()
    for octave in range(2, top_octave + 1):
        wl = 2 ** (top_octave - octave)
        mh, mw = math.ceil(th / wl), math.ceil(tw / wl)
        mini = [[float(source[wl * y][wl * x]) for x in range(mw)] for y in range(mh)]
        smoothed = _smooth(source, wl)
        for y in range(th):
            yi, yf = y // wl, (y // wl + 1) % mh
            vb = float(y) / wl - yi
            for x in range(tw):
                xi, xf = x // wl, (x // wl + 1) % mw
                hb = float(x) / wl - xi
                top = (1 - hb) * mini[yi][xi] + hb * mini[yi][xf]
                bottom = (1 - hb) * mini[yf][xi] + hb * mini[yf][xf]
                assert float(smoothed[y][x]) == (1 - vb) * top + vb * bottom, (y, x, wl)


def test_the_largest_map_is_made_whole() -> None:
    # How fast it is made is a figure of benchmarks/halite_mapgen.py, not a test: a CPU
    # hog beside the suite stretched even its CPU time past a margin of 60 times.
    made = generate_map(104401, 64, 64, 4)
    assert len(made.halite) == 64 and all(len(row) == 64 for row in made.halite)
    assert len(set(made.factories)) == 4
    assert all(made.halite[y][x] == 0 for x, y in made.factories)
