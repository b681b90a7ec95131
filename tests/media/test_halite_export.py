"""``snakewar export`` of Halite III replays, decoded back and checked cell by cell.

Two replays: one played here by ``snakewar halite play`` (Snakewar's own ``.hlt``, zstd
as the engine writes it) and one of the official engine's (shipped with the tests).
Each picture is read back with Pillow and each video with PyAV; the pixel at the centre
of known cells (an empty cell's heat colour, a shipyard, a ship with its cargo or an
empty hull) is compared with what the replay's frame says is there, in the viewer's
colours; the GIF's and the MP4's frames are compared with the PNG of the same turn.
(The viewer's own canvas, in chromium, is compared with the PNG in
tests/browser/test_export_halite.py.)
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from snakewar.games.halite3.media import (
    DARK_THEME,
    DEFAULT_STYLE,
    HEAT,
    HEAT_STOPS,
    MAX_CARGO,
    PALETTES,
    PLAYERS,
    THEME,
    THEMES,
    Style,
    cell_size,
    heat_colors,
    heat_level,
)
from snakewar.games.halite3.replay.hlt import HltReplay, read_hlt
from snakewar.media import blend, parse_color
from tests.conformance_data import SHIPPED_HALITE_REPLAYS
from tests.test_cli_bad_input import assert_one_error_line, run

av = pytest.importorskip("av")
Image = pytest.importorskip("PIL.Image")

VIEWER = Path(__file__).parents[2] / "src" / "snakewar" / "games" / "halite3" / "viewer"
OFFICIAL = SHIPPED_HALITE_REPLAYS / "public-s100215-32x32-2p.hlt"
"""An official 32x32 game of 24 turns (its bots crashed early: a short replay)."""
LARGE = SHIPPED_HALITE_REPLAYS / "public-s104215-64x64-2p.hlt"
"""An official 64x64 game of 28 turns."""

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class Played:
    """A Halite game played here: its folder and its ``.hlt`` file."""

    home: Path
    replay: Path


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    home = tmp_path_factory.mktemp("halite-export")
    done = run(
        "halite", "play", "--width", "32", "--height", "32", "--turn-limit", "12",
        "-s", "7", "-i", str(home), "--no-logs", "--results-as-json",
        "builtin:greedy", "builtin:crowd", home=home,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (replay,) = home.glob("*.hlt")
    assert replay.read_bytes()[:4] == b"\x28\xb5\x2f\xfd"  # zstd, as the engine writes
    return Played(home, replay)


def export(home: Path, source: Path, *args: str) -> Path:
    out = home / ("out-" + source.stem + re.sub(r"[^A-Za-z0-9]+", "-", " ".join(args))[:60])
    done = run("export", str(source), *args, "-o", str(out), home=home)
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}" in done.stdout
    return out


def expected_cells(
    replay: HltReplay, turn: int, style: Style = DEFAULT_STYLE
) -> dict[tuple[int, int], RGB]:
    """Known cells of frame ``turn`` and the colour at their centre, as the viewer draws.

    Cells with a ship carrying a little (its inner disc a pixel or two wide) and wreck
    cells are left out; ships carrying at least a quarter of ``MAX_CARGO`` show their
    owner's colour, empty ones their hull, shipyards without a ship their shade.
    """
    grid = replay.grid_at(turn)
    richest = max(max(v for row in replay.initial_grid for v in row), 1000)

    def heat(x: int, y: int) -> str:
        return style.heat[heat_level(grid[y][x], richest)]

    seat = {p.id: i for i, p in enumerate(replay.players)}
    cells: dict[tuple[int, int], RGB] = {}
    busy: set[tuple[int, int]] = set()
    shades: dict[tuple[int, int], str] = {}
    structures = [p.factory for p in replay.players]
    structures += [(d.x, d.y) for d in replay.dropoffs_at(turn)]
    for x, y in structures:
        busy.add((x, y))
        shades[x, y] = blend(style.colors["shade"], heat(x, y), 0.35)
        cells[x, y] = parse_color(shades[x, y])
    for ship in replay.ships_at(turn).values():
        busy.add((ship.x, ship.y))
        cells.pop((ship.x, ship.y), None)
        color = style.player(seat[ship.owner])
        if ship.halite == 0:
            # Over a shipyard's or a dropoff's shade where it stands on one.
            below = shades.get((ship.x, ship.y), heat(ship.x, ship.y))
            cells[ship.x, ship.y] = parse_color(blend(style.colors["hull"], below, 0.75))
        elif ship.halite >= MAX_CARGO // 4:
            cells[ship.x, ship.y] = parse_color(color)
    for event in replay.frames[turn]["events"]:
        if event["type"] == "shipwreck":
            where = (event["location"]["x"], event["location"]["y"])
            busy.add(where)
            cells.pop(where, None)
    free = [(x, y) for y in range(replay.height) for x in range(replay.width) if (x, y) not in busy]
    for x, y in free[:: max(1, len(free) // 40)]:  # about 40 plain cells across the map
        cells[x, y] = parse_color(heat(x, y))
    return cells


def check_cells(
    image: object,
    replay: HltReplay,
    turn: int,
    *,
    tolerance: int = 0,
    style: Style = DEFAULT_STYLE,
) -> None:
    """The picture's known cells have their colours (a picture at the default size)."""
    from PIL.Image import Image as PilImage

    assert isinstance(image, PilImage)
    rgb = image.convert("RGB")
    c = cell_size(replay.width, replay.height)
    for (x, y), color in expected_cells(replay, turn, style).items():
        got = rgb.getpixel((int((x + 0.5) * c), int((y + 0.5) * c)))
        assert isinstance(got, tuple)
        assert all(abs(a - b) <= tolerance for a, b in zip(got, color, strict=True)), (
            f"turn {turn}, cell {(x, y)}: {got} is not {color}"
        )


def mean_difference(a: object, b: object) -> float:
    """The mean absolute difference of two pictures' RGB bytes (0: the same picture)."""
    from PIL import ImageChops, ImageStat
    from PIL.Image import Image as PilImage

    assert isinstance(a, PilImage) and isinstance(b, PilImage)
    assert a.size == b.size
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    return sum(ImageStat.Stat(diff).mean) / 3


# -- the viewer's colours ----------------------------------------------------------------


def test_the_colours_are_the_viewers_default_palette() -> None:
    view = (VIEWER / "view.js").read_text(encoding="utf-8")
    default = view[view.index("default: {") : view.index('"okabe-ito": {')]
    players = re.search(r"players: \[([^\]]*)\]", default)
    assert players is not None
    assert tuple(re.findall(r'"(#[0-9a-f]{6})"', players.group(1))) == PLAYERS
    stops = re.findall(r"\[([0-9.]+), \[(\d+), (\d+), (\d+)\]\]", default)
    assert tuple((float(v), (int(r), int(g), int(b))) for v, r, g, b in stops) == HEAT_STOPS
    halite = (VIEWER / "halite.js").read_text(encoding="utf-8")
    assert f"const MAX_CARGO = {MAX_CARGO};" in halite
    assert "rgb(0 0 0 / 35%)" in halite and "rgb(10 12 16 / 75%)" in halite
    assert parse_color(THEME["hull"]) == (10, 12, 16)
    # The heat map's ends are the stops' colours; a cell's level rises with its halite.
    assert parse_color(HEAT[0]) == HEAT_STOPS[0][1] and parse_color(HEAT[255]) == HEAT_STOPS[-1][1]
    assert heat_level(0, 1000) == 0 and heat_level(1000, 1000) == 255
    assert heat_level(250, 1000) == 128  # sqrt(0.25) * 255 = 127.5: halves round up, as JS


def test_the_other_palette_and_the_dark_theme_are_the_viewers() -> None:
    view = (VIEWER / "view.js").read_text(encoding="utf-8")
    okabe = view[view.index('"okabe-ito": {') : view.index("});")]
    players = re.search(r"players: \[([^\]]*)\]", okabe)
    assert players is not None
    ours_players, ours_stops = PALETTES["okabe-ito"]
    assert tuple(re.findall(r'"(#[0-9a-f]{6})"', players.group(1))) == ours_players
    stops = re.findall(r"\[([0-9.]+), \[(\d+), (\d+), (\d+)\]\]", okabe)
    assert tuple((float(v), (int(r), int(g), int(b))) for v, r, g, b in stops) == ours_stops
    assert list(PALETTES) == re.findall(r'^  "?([a-z-]+)"?: \{$', view, re.MULTILINE)
    assert PALETTES["default"] == (PLAYERS, HEAT_STOPS)
    # The page's themes (the shared viewer.css): the panel and its lettering.
    from snakewar.media.html import shared_static

    css = (shared_static() / "viewer.css").read_text(encoding="utf-8")
    start = css.index(':root[data-theme="dark"]')
    blocks = {"light": css[: css.index("}")], "dark": css[start : css.index("}", start)]}
    assert list(THEMES) == ["light", "dark"] and THEMES["dark"] is DARK_THEME
    for name, block in blocks.items():
        for key in ("panel", "text", "muted"):
            found = re.search(rf"--{key}:\s*(#[0-9a-fA-F]{{6}});", block)
            assert found is not None and THEMES[name][key] == found.group(1).lower()
    # The canvas's own colours are the same in both themes (halite.js draws them).
    assert {k: v for k, v in DARK_THEME.items() if k not in ("panel", "text", "muted")} == {
        k: v for k, v in THEME.items() if k not in ("panel", "text", "muted")
    }
    okabe_heat = heat_colors(ours_stops)
    assert parse_color(okabe_heat[0]) == (0, 32, 77) and okabe_heat[0] != HEAT[0]


@pytest.mark.parametrize(
    ("theme", "palette"), [("dark", "default"), ("light", "okabe-ito"), ("dark", "okabe-ito")]
)
def test_a_theme_and_a_palette_draw_in_the_viewers_colours(
    played: Played, theme: str, palette: str
) -> None:
    replay = read_hlt(played.replay)
    turn = 8
    plain = export(played.home, played.replay, "--png", str(turn))
    styled = export(
        played.home, played.replay, "--png", str(turn), "--theme", theme, "--palette", palette
    )
    style = Style.of(theme, palette)
    with Image.open(plain) as before, Image.open(styled) as after:
        check_cells(after, replay, turn, style=style)
        a, b = before.convert("RGB"), after.convert("RGB")
        # The panel's background, below the players' rows: the theme's.
        corner = (a.width - 2, a.height - 2)
        assert b.getpixel(corner) == parse_color(THEMES[theme]["panel"])
        assert a.getpixel(corner) == parse_color(THEME["panel"])
        assert (a.getpixel(corner) != b.getpixel(corner)) == (theme == "dark")
        # A shipyard's outline (its corner, clear of any ship): its player's colour.
        c = cell_size(replay.width, replay.height)
        for seat, player in enumerate(replay.players):
            x, y = player.factory
            edge = (x * c + 1, y * c + 1)
            assert a.getpixel(edge) == parse_color(PLAYERS[seat])
            assert b.getpixel(edge) == parse_color(PALETTES[palette][0][seat])


def test_a_cell_is_20_pixels_on_32x32_maps_and_10_on_64x64() -> None:
    assert cell_size(32, 32) == 20 and cell_size(64, 64) == 10 and cell_size(40, 48) == 14


# -- the formats, decoded back -----------------------------------------------------------


@pytest.mark.parametrize("which", ["played", "official"])
def test_png_of_a_turn_shows_that_turns_cells(played: Played, which: str) -> None:
    source = played.replay if which == "played" else OFFICIAL
    replay = read_hlt(source)
    turn = min(8, len(replay.frames) - 1)
    out = export(played.home, source, "--png", str(turn))
    with Image.open(out) as image:
        assert image.format == "PNG"
        # The default size: whole-pixel cells, the panel beside the map.
        assert image.width > replay.width * cell_size(replay.width, replay.height)
        check_cells(image, replay, turn)
    other = export(played.home, source, "--png", str(turn - 1))
    assert other.read_bytes() != out.read_bytes()


def test_a_64x64_map_is_drawn_with_10_pixel_cells(played: Played) -> None:
    replay = read_hlt(LARGE)
    out = export(played.home, LARGE, "--png", "20", "--no-scoreboard")
    with Image.open(out) as image:
        assert image.size == (640, 640)
        check_cells(image, replay, 20)


def test_gif_has_every_frame_and_each_is_the_png_of_its_turn(played: Played) -> None:
    replay = read_hlt(played.replay)
    frames = len(replay.frames)
    assert frames == 12 + 2  # the initial frame, 12 turns, the final frame
    out = export(played.home, played.replay, "--gif", "--fps", "4")
    with Image.open(out) as gif:
        assert gif.format == "GIF" and getattr(gif, "n_frames", 1) == frames
        assert gif.info["duration"] == 250
        for turn in (0, frames // 2, frames - 1):
            gif.seek(turn)
            frame = gif.convert("RGB")
            png = export(played.home, played.replay, "--png", str(turn))
            with Image.open(png) as picture:
                # A GIF has 256 colours: the map's exact, the panel's lettering close.
                assert mean_difference(frame, picture) < 1.0
            check_cells(frame, replay, turn, tolerance=3)


def test_mp4_decodes_to_every_frame_close_to_the_pngs(played: Played) -> None:
    replay = read_hlt(OFFICIAL)
    out = export(played.home, OFFICIAL, "--mp4", "--fps", "12", "--no-scoreboard")
    with av.open(str(out)) as container:
        stream = container.streams.video[0]
        assert stream.average_rate == 12
        images = [frame.to_image() for frame in container.decode(stream)]
    assert len(images) == len(replay.frames)
    side = 32 * cell_size(32, 32)
    assert images[0].size == (side, side)
    for turn in (0, len(images) // 2, len(images) - 1):
        png = export(played.home, OFFICIAL, "--png", str(turn), "--no-scoreboard")
        with Image.open(png) as picture:
            assert mean_difference(images[turn], picture) < 4.0  # lossy, 4:2:0 chroma
        check_cells(images[turn], replay, turn, tolerance=12)


def test_svg_is_xml_with_the_map_ships_and_players(played: Played) -> None:
    replay = read_hlt(played.replay)
    turn = 10
    out = export(played.home, played.replay, "--svg", str(turn))
    root = ET.fromstring(out.read_bytes())
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    c = cell_size(replay.width, replay.height)
    fills = {el.get("fill") for el in root.iter()}
    for seat in range(len(replay.players)):
        assert PLAYERS[seat] in fills
    texts = [el.text for el in root.iter(f"{ns}text")]
    assert f"Turn {turn}" in texts
    for player in replay.players:
        assert player.name in texts
    energy = replay.energy_at(turn)
    assert f"halite {energy[0]}" in texts
    # Each ship is a ring of its owner's colour centred on its cell.
    rings = {(el.get("cx"), el.get("cy"), el.get("fill")) for el in root.iter(f"{ns}circle")}
    ships = replay.ships_at(turn).values()
    assert ships
    for ship in ships:
        centre = (f"{(ship.x + 0.5) * c:g}", f"{(ship.y + 0.5) * c:g}")
        assert (*centre, PLAYERS[ship.owner]) in rings


def test_html_is_one_file_with_the_replay_and_both_stylesheets(played: Played) -> None:
    out = export(played.home, played.replay, "--html")
    text = out.read_text(encoding="utf-8")
    assert 'src="' not in text and '<link rel="stylesheet"' not in text
    assert 'id="sw-inline-replay"' in text and '<script type="importmap">' in text
    assert ".halite-canvas" in text and "--board-bg" in text  # halite.css and viewer.css
    assert '"REPLAY_FILE_VERSION":3' in text


def test_bad_halite_input_is_one_error_line(played: Played, tmp_path: Path) -> None:
    frames = len(read_hlt(played.replay).frames)
    done = run("export", str(played.replay), "--png", str(frames), home=played.home)
    assert_one_error_line(done, f"turn {frames}", f"0..{frames - 1}")
    broken = tmp_path / "broken.hlt"
    broken.write_bytes(played.replay.read_bytes()[:200])
    done = run("export", str(broken), "--gif", home=played.home)
    assert_one_error_line(done, "broken.hlt")


def test_a_stored_halite_game_exports_by_its_id(played: Played) -> None:
    import dataclasses

    from snakewar.games.halite3.adapter import played_from_hlt
    from snakewar.storage import Store

    data = played.replay.read_bytes()
    game = played_from_hlt(data, game_id="halite-stored-1")
    game = dataclasses.replace(game, data=dataclasses.replace(game.data, replay=data))
    database = f"sqlite:///{played.home / 'games.db'}"
    with Store(database) as store:
        assert store.games.save_played(game)
    by_id = played.home / "by-id.png"
    done = run(
        "export", "halite-stored-1", "--png", "5", "--database", database, "-o", str(by_id),
        home=played.home,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    from_file = export(played.home, played.replay, "--png", "5")
    assert by_id.read_bytes() == from_file.read_bytes()
    with Image.open(by_id) as image:
        check_cells(image, read_hlt(played.replay), 5)
    # A game stored without its .hlt (one that did not finish) says so, in one line.
    unfinished = played_from_hlt(data, game_id="halite-stored-2")
    unfinished = dataclasses.replace(
        unfinished, data=dataclasses.replace(unfinished.data, replay=None)
    )
    with Store(database) as store:
        assert store.games.save_played(unfinished)
    done = run("export", "halite-stored-2", "--gif", "--database", database, home=played.home)
    assert_one_error_line(done, "did not finish")
