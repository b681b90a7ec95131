"""Halite III export in chromium: the HTML replay offline, and the viewer's own drawing.

* ``snakewar export REPLAY.hlt --html`` opens from ``file://`` with every request
  refused and shows the Halite board (the map, the players), and its canvas, read
  pixel by pixel, shows at each known cell's centre the colour the exported PNG of the
  same turn has there: the export is the viewer's drawing.
* The game page's Export menu (both games) downloads a GIF of a finished game, the
  PNG and SVG of the turn the board shows, and shows the server's answer to a bad
  option instead of downloading it; the media route answers 422 naming the field.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from snakewar.games.battlesnake.media import DARK_THEME
from snakewar.games.halite3.media import cell_size
from snakewar.games.halite3.replay.hlt import read_hlt
from snakewar.media import parse_color
from tests.media.test_halite_export import OFFICIAL, expected_cells
from tests.test_cli_bad_input import run

if TYPE_CHECKING:
    from playwright.sync_api import Download, Locator, Page, Route

TURN = 12
"""The turn compared: ships out on the map, some carrying halite."""


def viewer_cell(width: int, height: int) -> int:
    """The viewer's cell in canvas pixels at zoom 1 (``MapView``'s ``cell``)."""
    return max(6, -(-768 // max(width, height)))


def canvas_centres(canvas: Locator, cells: list[list[int]], side: int) -> list[list[int]]:
    """The canvas's RGBA at the centre of each cell (a map ``side`` cells wide)."""
    cell = viewer_cell(side, side)
    script = """([cells, cell, side]) => {
      const canvas = document.querySelector("[data-testid=halite-canvas]");
      const ctx = canvas.getContext("2d");
      const scale = canvas.width / (cell * side);  // the device pixel ratio
      return cells.map(([x, y]) => Array.from(ctx.getImageData(
        Math.floor((x + 0.5) * cell * scale), Math.floor((y + 0.5) * cell * scale), 1, 1
      ).data));
    }"""
    result: list[list[int]] = canvas.page.evaluate(script, [cells, cell, side])
    return result


def test_the_html_replay_opens_offline_and_draws_as_the_png(page: Page, tmp_path: Path) -> None:
    from PIL import Image
    from playwright.sync_api import expect

    replay = read_hlt(OFFICIAL)
    html = tmp_path / "halite.html"
    done = run("export", str(OFFICIAL), "--html", "-o", str(html), home=tmp_path)
    assert done.returncode == 0, done.stderr
    png = tmp_path / "turn.png"
    done = run(
        "export", str(OFFICIAL), "--png", str(TURN), "--no-scoreboard", "-o", str(png),
        home=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr

    requested: list[str] = []

    def refuse(route: Route) -> None:
        requested.append(route.request.url)
        route.abort()

    page.context.route(re.compile(r"^(?!file://).*"), refuse)
    page.context.set_offline(True)
    page.goto(f"{html.as_uri()}?turn={TURN}")
    expect(page.get_by_test_id("stage")).to_be_visible()
    last = len(replay.frames) - 1
    expect(page.get_by_test_id("scrubber")).to_have_attribute("max", str(last))
    expect(page.get_by_test_id("turn")).to_have_text(f"Turn {TURN}")
    for player in replay.players:
        expect(page.get_by_test_id("scoreboard")).to_contain_text(player.name)
    energy = replay.energy_at(TURN)
    expect(page.get_by_test_id("halite-player-energy").first).to_have_text(str(energy[0]))

    cells = expected_cells(replay, TURN)
    points = sorted(cells)
    ships = {(s.x, s.y) for s in replay.ships_at(TURN).values()}
    assert ships & set(points), "some ships are compared"
    canvas = page.get_by_test_id("halite-canvas")
    shown = canvas_centres(canvas, [list(p) for p in points], replay.width)
    c = cell_size(replay.width, replay.height)
    with Image.open(png) as picture:
        rgb = picture.convert("RGB")
        for point, got in zip(points, shown, strict=True):
            mine = rgb.getpixel((int((point[0] + 0.5) * c), int((point[1] + 0.5) * c)))
            assert isinstance(mine, tuple)
            # The canvas blends its translucent fills itself: within a level or two.
            assert got[3] == 255 and all(
                abs(a - b) <= 3 for a, b in zip(got[:3], mine, strict=True)
            ), f"cell {point}: the viewer shows {got[:3]}, the PNG {mine}"
    # The animation's and the video's frame of that turn, decoded, show the same cells.
    gif, mp4 = tmp_path / "game.gif", tmp_path / "game.mp4"
    for fmt, out in (("--gif", gif), ("--mp4", mp4)):
        done = run("export", str(OFFICIAL), fmt, "-o", str(out), home=tmp_path)
        assert done.returncode == 0, done.stderr
    with Image.open(gif) as animation:
        assert getattr(animation, "n_frames", 1) == len(replay.frames)
        animation.seek(TURN)
        compare_centres(animation.convert("RGB"), points, shown, c, tolerance=3, what="GIF")
    import av

    with av.open(str(mp4)) as container:
        stream = container.streams.video[0]
        frames = [f.to_image() for f in container.decode(stream)]  # type: ignore[no-untyped-call]
    assert len(frames) == len(replay.frames)
    # H.264 (crf 12, 4:2:0 chroma): a cell's centre comes back within a few levels.
    compare_centres(frames[TURN], points, shown, c, tolerance=12, what="MP4")
    assert requested == [], requested


def compare_centres(
    image: object,
    points: list[tuple[int, int]],
    shown: list[list[int]],
    cell: int,
    *,
    tolerance: int,
    what: str,
) -> None:
    """``image``'s colour at each cell's centre is within ``tolerance`` of the canvas's."""
    from PIL.Image import Image as PilImage

    assert isinstance(image, PilImage)
    for point, got in zip(points, shown, strict=True):
        mine = image.getpixel((int((point[0] + 0.5) * cell), int((point[1] + 0.5) * cell)))
        assert isinstance(mine, tuple)
        assert all(abs(a - b) <= tolerance for a, b in zip(got[:3], mine, strict=True)), (
            f"{what}, cell {point}: the viewer shows {got[:3]}, the file {mine}"
        )


# -- the game page's Export menu ---------------------------------------------------------


def upload_halite(base_url: str) -> str:
    created = httpx.post(
        f"{base_url}/api/halite/games",
        content=OFFICIAL.read_bytes(),
        headers={"Content-Type": "application/octet-stream"},
        timeout=60,
    )
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


def save(download: Download, folder: Path) -> Path:
    target = folder / download.suggested_filename
    download.save_as(target)
    return target


def fetch(page: Page, testid: str, folder: Path) -> Path:
    with page.expect_download() as info:
        page.get_by_test_id(testid).click()
    return save(info.value, folder)


def test_the_export_menu_downloads_a_halite_games_gif_and_its_turns_pictures(
    base_url: str, page: Page, tmp_path: Path
) -> None:
    from PIL import Image
    from playwright.sync_api import expect

    replay = read_hlt(OFFICIAL)
    game = upload_halite(base_url)
    page.goto(f"{base_url}/view/{game}?turn={TURN}")
    board = page.frame_locator("[data-testid=halite-frame]")
    expect(board.get_by_test_id("turn")).to_have_text(f"Turn {TURN}")
    page.get_by_test_id("export-menu").locator("summary").click()
    # The pictures are of the turn the board shows.
    expect(page.get_by_test_id("export-png")).to_have_text(f"PNG of turn {TURN}")
    page.get_by_test_id("export-fps").fill("5")
    gif = fetch(page, "export-gif", tmp_path)
    assert gif.name == f"{game}.gif"
    with Image.open(gif) as image:
        assert image.format == "GIF" and getattr(image, "n_frames", 1) == len(replay.frames)
        assert image.info["duration"] == 200
    png = fetch(page, "export-png", tmp_path)
    assert png.name == f"{game}-{TURN}.png"
    # The file's PNG of that turn, made by the command line, is the same picture.
    mine = tmp_path / "cli.png"
    done = run("export", str(OFFICIAL), "--png", str(TURN), "-o", str(mine), home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert png.read_bytes() == mine.read_bytes()
    # The board moves on: so do the pictures.
    board.get_by_test_id("btn-next").click()
    expect(page.get_by_test_id("export-svg")).to_have_text(f"SVG of turn {TURN + 1}")
    svg = fetch(page, "export-svg", tmp_path)
    assert svg.name == f"{game}-{TURN + 1}.svg"
    assert ">Turn 13</text>" in svg.read_text(encoding="utf-8")
    # The viewer's dark theme and colour-blind palette: the command line's same picture.
    page.get_by_test_id("export-theme").select_option("dark")
    page.get_by_test_id("export-palette").select_option("okabe-ito")
    styled = fetch(page, "export-png", tmp_path)
    done = run(
        "export", str(OFFICIAL), "--png", str(TURN + 1), "--theme", "dark",
        "--palette", "okabe-ito", "-o", str(mine), home=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert styled.read_bytes() == mine.read_bytes()
    # A bad option is the server's answer in the menu, not a file.
    page.get_by_test_id("export-size").fill("10")
    page.get_by_test_id("export-png").click()
    expect(page.get_by_test_id("export-state")).to_contain_text("size")


def test_the_export_menu_downloads_a_battlesnake_games_gif_and_shown_turn(
    base_url: str, page: Page, tmp_path: Path
) -> None:
    from PIL import Image
    from playwright.sync_api import expect

    from tests.browser.test_game_page import finished_game

    game, last = finished_game(base_url)
    page.goto(f"{base_url}/view/{game}")
    expect(page.get_by_test_id("toolbar-turn")).to_be_visible()
    page.keyboard.press("r")  # the first turn, paused
    for _ in range(2):
        page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("toolbar-turn")).to_have_text("Turn 2")
    page.get_by_test_id("export-menu").locator("summary").click()
    expect(page.get_by_test_id("export-png")).to_have_text("PNG of turn 2")
    gif = fetch(page, "export-gif", tmp_path)
    with Image.open(gif) as image:
        assert image.format == "GIF" and getattr(image, "n_frames", 1) == last + 1
        assert image.info["duration"] == 100  # 10 frames a second, the default
    page.get_by_test_id("export-size").fill("300")
    page.get_by_test_id("export-scoreboard").uncheck()
    png = fetch(page, "export-png", tmp_path)
    assert png.name == f"{game}-2.png"
    with Image.open(png) as image:
        assert image.format == "PNG" and image.width == 300 and image.height == 300
    mp4 = fetch(page, "export-mp4", tmp_path)
    assert mp4.name == f"{game}.mp4" and mp4.read_bytes()[4:8] == b"ftyp"
    # Its dark theme; one palette (the snakes' own colours), so no choice of it.
    expect(page.get_by_test_id("export-palette")).to_have_count(0)
    page.get_by_test_id("export-theme").select_option("dark")
    dark = fetch(page, "export-png", tmp_path)
    with Image.open(dark) as image:
        # The board's frame, above the middle of its top row of cells.
        top = (image.width // 2, 2)
        assert image.convert("RGB").getpixel(top) == parse_color(DARK_THEME["board"])


def test_the_media_route_names_each_bad_field_for_a_halite_game(base_url: str) -> None:
    game = upload_halite(base_url)
    url = f"{base_url}/api/games/{game}/media"
    frames = len(read_hlt(OFFICIAL).frames)
    good = httpx.get(url, params={"format": "svg", "turn": "3"}, timeout=60)
    assert good.status_code == 200 and good.headers["content-type"] == "image/svg+xml"
    for params, field in (
        ({"format": "bmp"}, "format"),
        ({"format": "png", "turn": str(frames)}, "turn"),
        ({"format": "png", "turn": "-1"}, "turn"),
        ({"format": "gif", "size": "100000"}, "size"),
        ({"format": "gif", "size": "big"}, "size"),
        ({"format": "gif", "fps": "0"}, "fps"),
        ({"format": "png", "scoreboard": "perhaps"}, "scoreboard"),
    ):
        answer = httpx.get(url, params=params, timeout=60)
        assert answer.status_code == 422, (params, answer.text)
        assert answer.json()["detail"][0]["loc"][-1] == field, (params, answer.text)
    html = httpx.get(url, params={"format": "html"}, timeout=60)
    assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
    assert 'id="sw-inline-replay"' in html.text
