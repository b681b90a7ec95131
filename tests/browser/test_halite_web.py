"""Halite III as a web game, in a real browser (Debian's chromium driven by Playwright).

* A Halite game is started from the new-game page (its game selector switches the form
  to Halite's: players, map size, seed, each seat's bot among the built-ins and the
  user's own bots) and watched live: a real bot program holds the game on a turn until
  the test lets it go, so what the page shows while it runs is checked without the
  clock.
* The viewer's map: the wheel, a drag, the keys and the buttons zoom and pan it, and
  "Reset view" gives back the very picture it started with; the colour-blind palette
  (Okabe–Ito) changes the players' and the map's colours and is remembered by the
  browser; a click on a ship shows its panel (id, owner, halite carried, position, its
  cell's halite and structure) with the values of the turn shown, and it follows the
  ship to the next turn.  The expected values are read from the replay document here.
* An anonymous visitor of a public server sees no control that changes anything.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, FrameLocator, Locator, Page, Position, expect

from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.browser.browser_env import shot
from tests.browser.test_game_page import logged_in
from tests.browser.test_halite_viewer import REPLAY, document
from tests.games.halite3.viewer.test_view_static import TURN, expected, halite_at
from tests.server.accounts import make_user
from tests.server.test_halite_live import TIMEOUT_MS, Gated
from tests.waiting import wait_finished

WAIT_MS = 60_000
"""What the page shows may wait for a busy machine: generous waits."""

IMAGE_HASH = """(canvas) => canvas.toDataURL("image/png")"""


class Local:
    """A local server on loopback and its store."""

    def __init__(self, url: str, store: Store) -> None:
        self.url = url
        self.store = store

    def upload(self) -> str:
        """The official replay, stored; its game's id."""
        created = httpx.post(
            f"{self.url}/api/halite/games",
            content=REPLAY.read_bytes(),
            headers={"Content-Type": "application/octet-stream"},
            timeout=60,
        )
        assert created.status_code == 201, created.text
        return str(created.json()["id"])


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Local]:
    db = tmp_path_factory.mktemp("db") / "games.db"
    with Store(f"sqlite:///{db}") as store:
        config = ServerConfig(database_url="memory", max_timeout_ms=TIMEOUT_MS)
        with serve(create_app(config, store=store)) as url:
            yield Local(url, store)


def board_of(page: Page) -> FrameLocator:
    return page.frame_locator("[data-testid=halite-frame]")


def image(canvas: Locator) -> str:
    """A digest of what the canvas shows now."""
    data: str = canvas.evaluate(IMAGE_HASH)
    return hashlib.sha256(data.encode()).hexdigest()


def camera(canvas: Locator) -> tuple[float, float, float]:
    """The view's zoom and centre (in cells), as the viewer puts them on its canvas."""
    zoom = float(canvas.get_attribute("data-zoom") or "nan")
    cx, cy = (float(v) for v in (canvas.get_attribute("data-center") or "nan,nan").split(","))
    return zoom, cx, cy


def until(canvas: Locator, check: Callable[[float, float, float], bool]) -> tuple[float, ...]:
    """The camera once ``check(zoom, cx, cy)`` holds (it is redrawn at the next frame)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while not check(*(now := camera(canvas))):
        assert time.monotonic() < deadline, f"the camera stayed at {now}"
        time.sleep(0.05)
    return now


def cell_point(canvas: Locator, x: float, y: float, size: int = 32) -> Position:
    """Where map point (x, y) (in cells) is on the canvas, as its camera shows it now."""
    box = canvas.bounding_box()
    assert box is not None
    zoom, cx, cy = camera(canvas)
    side = min(box["width"], box["height"])  # a square map, drawn centred, aspect kept
    left = (box["width"] - side) / 2
    top = (box["height"] - side) / 2
    u = (x - cx) * zoom / size + 0.5
    v = (y - cy) * zoom / size + 0.5
    return {"x": left + u * side, "y": top + v * side}


def test_a_halite_game_started_from_the_new_game_page_is_watched_live(
    local: Local, page: Page, tmp_path: Path
) -> None:
    bot = Gated(local.store, tmp_path / "bot", {2})
    # The Halite page leads to Halite's form of the new-game page.
    page.goto(local.url + "/halite")
    page.get_by_test_id("halite-new-game").click()
    expect(page).to_have_url(re.compile(r"/new\?game=halite3$"))
    expect(page.get_by_test_id("halite-new-game-form")).to_be_visible()
    expect(page.get_by_test_id("new-game-form")).to_be_hidden()
    page.goto(local.url + "/new")
    # The default game's form first; the selector switches to Halite's.
    expect(page.get_by_test_id("new-game-form")).to_be_visible()
    expect(page.get_by_test_id("halite-new-game-form")).to_be_hidden()
    page.get_by_test_id("game-select").select_option("halite3")
    form = page.get_by_test_id("halite-new-game-form")
    expect(form).to_be_visible()
    expect(page.get_by_test_id("new-game-form")).to_be_hidden()
    expect(page).to_have_url(re.compile(r"/new\?game=halite3$"))
    expect(form).to_have_attribute("data-ready", "true")

    seats = form.get_by_test_id("halite-seat")
    expect(seats).to_have_count(4)
    expect(seats.nth(0)).to_be_visible()
    expect(seats.nth(2)).to_be_hidden()
    # Each seat offers the built-in bots and the user's own bots.
    first = seats.nth(0)
    expect(first.locator("optgroup[label='Built-in bots'] option")).to_have_text(
        ["crowd", "greedy", "random"]
    )
    expect(first.locator("optgroup[label='Your bots'] option")).to_have_text(["gated"])
    expect(first).to_have_value("builtin:greedy")
    expect(seats.nth(1)).to_have_value("builtin:random")
    # Four players show four seats; back to two.
    form.get_by_test_id("halite-players").select_option("4")
    expect(seats.nth(3)).to_be_visible()
    form.get_by_test_id("halite-players").select_option("2")
    expect(seats.nth(2)).to_be_hidden()

    first.select_option(bot.ref)
    seats.nth(1).select_option("builtin:greedy")
    form.get_by_test_id("halite-size").select_option("40")
    form.get_by_test_id("halite-seed").fill("7")
    form.get_by_test_id("halite-turns").fill("8")
    shot(page, "halite-new-game")
    form.get_by_test_id("halite-create").click()
    expect(page).to_have_url(re.compile(r"/view/[0-9a-f-]+$"), timeout=WAIT_MS)
    game_id = page.url.rsplit("/", 1)[1]

    # The game the form asked for, running: turn 1 played, turn 2 held by the bot.
    bot.reached(2)
    game = httpx.get(f"{local.url}/api/games/{game_id}", timeout=30).json()
    assert game["game"] == "halite3" and game["status"] == "running"
    assert [e["source"] for e in game["entrants"]] == [bot.ref, "builtin:greedy"]
    assert (game["width"], game["height"], game["seed"]) == (40, 40, "7")
    board = board_of(page)
    expect(board.get_by_test_id("turn")).to_have_text("Turn 1", timeout=WAIT_MS)
    expect(board.get_by_test_id("game-status")).to_have_text("Live: the next turn is being played")
    expect(board.get_by_test_id("game-info")).to_contain_text("40x40 · 2 players · seed 7")
    shot(page, "halite-new-game-live")

    # Let it go: the viewer follows it to its end, then shows the stored replay.
    bot.release(2)
    assert wait_finished(local.url, game_id)["status"] == "complete"
    expect(board.get_by_test_id("scrubber")).to_have_attribute("max", "9", timeout=WAIT_MS)
    expect(board.get_by_test_id("turn")).to_have_text("Turn 9")
    expect(board.get_by_test_id("game-status")).to_have_text("Game over")
    expect(board.get_by_test_id("halite-player-score")).to_have_count(2)


def test_the_map_zooms_and_pans_and_its_reset_restores_it(local: Local, page: Page) -> None:
    game_id = local.upload()
    page.goto(f"{local.url}/view/{game_id}?turn=20")
    board = board_of(page)
    canvas = board.get_by_test_id("halite-canvas")
    expect(board.get_by_test_id("turn")).to_have_text("Turn 20")
    reset = board.get_by_test_id("halite-zoom-reset")
    expect(canvas).to_have_attribute("data-zoom", "1.000")
    expect(canvas).to_have_attribute("data-center", "16.00,16.00")
    expect(reset).to_be_disabled()
    whole = image(canvas)

    # The wheel zooms in where the cursor is: the point under it stays there.
    box = canvas.bounding_box()
    assert box is not None
    canvas.hover(position={"x": box["width"] * 0.25, "y": box["height"] * 0.25})
    page.mouse.wheel(0, -300)
    expect(canvas).not_to_have_attribute("data-zoom", "1.000")
    zoom, cx, cy = camera(canvas)
    assert zoom > 1.5 and cx < 16 and cy < 16, (zoom, cx, cy)
    assert image(canvas) != whole
    expect(reset).to_be_enabled()

    # A drag pans: the map follows the pointer (dragging left shows what is to the right).
    start = cell_point(canvas, cx, cy)
    canvas.hover(position=start)
    page.mouse.down()
    page.mouse.move(box["x"] + start["x"] - 120, box["y"] + start["y"] - 60, steps=6)
    page.mouse.up()
    # Dragged by (-120, -60) pixels: the centre moved right and down by as many cells.
    until(canvas, lambda _, x, y: x > cx and y > cy)
    # A drag is no click: nothing was selected.
    expect(board.get_by_test_id("halite-inspect")).to_be_hidden()

    # The keys: + zooms in, Shift+arrows pan, - zooms out.
    canvas.focus()
    body = board.locator("body")
    before = camera(canvas)
    body.press("+")
    zoomed, _, at_y = until(canvas, lambda z, _x, _y: z > before[0])
    body.press("Shift+ArrowUp")
    until(canvas, lambda _z, _x, y: y < at_y)
    expect(board.get_by_test_id("turn")).to_have_text("Turn 20")  # the playback's keys stay put
    body.press("-")
    until(canvas, lambda z, _x, _y: z < zoomed)
    # The buttons too.
    board.get_by_test_id("halite-zoom-in").click()
    shot(page, "halite-zoomed")

    # Reset: the whole map, the very same picture.
    reset.click()
    expect(canvas).to_have_attribute("data-zoom", "1.000")
    expect(canvas).to_have_attribute("data-center", "16.00,16.00")
    expect(reset).to_be_disabled()
    assert image(canvas) == whole
    # And 0 resets from the keyboard.
    board.get_by_test_id("halite-zoom-in").click()
    expect(canvas).not_to_have_attribute("data-zoom", "1.000")
    assert image(canvas) != whole
    body.press("0")
    expect(canvas).to_have_attribute("data-zoom", "1.000")
    assert image(canvas) == whole


OKABE_ITO = ["rgb(230, 159, 0)", "rgb(86, 180, 233)"]


def swatches(board: FrameLocator) -> list[str]:
    found: list[str] = board.get_by_test_id("halite-player-swatch").evaluate_all(
        "(nodes) => nodes.map((n) => getComputedStyle(n).backgroundColor)"
    )
    return found


def test_the_colour_blind_palette_changes_the_colours_and_is_remembered(
    local: Local, browser: Browser
) -> None:
    game_id = local.upload()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{local.url}/view/{game_id}?turn=30")
    board = board_of(page)
    canvas = board.get_by_test_id("halite-canvas")
    expect(board.get_by_test_id("turn")).to_have_text("Turn 30")
    colours = board.get_by_test_id("halite-palette")
    expect(colours).to_have_value("default")
    before_swatches = swatches(board)
    before = image(canvas)
    lines = board.get_by_test_id("halite-chart-line")
    assert lines.first.get_attribute("stroke") == "#f2a900"

    colours.select_option("okabe-ito")
    expect(board.get_by_test_id("halite-player-swatch").first).to_have_css(
        "background-color", OKABE_ITO[0]
    )
    assert swatches(board) == OKABE_ITO != before_swatches
    assert image(canvas) != before  # the map's colours too
    expect(lines.first).to_have_attribute("stroke", "#e69f00")
    shot(page, "halite-okabe-ito")

    # Remembered by this browser: a new visit (another game's page too) opens with it.
    other = local.upload()
    page.goto(f"{local.url}/view/{other}?turn=30")
    board = board_of(page)
    expect(board.get_by_test_id("halite-player-swatch")).to_have_count(2)
    expect(board.get_by_test_id("halite-palette")).to_have_value("okabe-ito")
    assert swatches(board) == OKABE_ITO
    # Another browser (a fresh context) has the default.
    fresh = browser.new_context(viewport={"width": 1280, "height": 900})
    elsewhere = fresh.new_page()
    elsewhere.goto(f"{local.url}/view/{other}?turn=30")
    expect(board_of(elsewhere).get_by_test_id("halite-palette")).to_have_value("default")
    expect(board_of(elsewhere).get_by_test_id("halite-player-swatch")).to_have_count(2)
    assert swatches(board_of(elsewhere)) == before_swatches
    fresh.close()
    context.close()


def inspector(board: FrameLocator) -> dict[str, str]:
    rows: dict[str, str] = board.get_by_test_id("halite-inspect-rows").evaluate(
        "(dl) => Object.fromEntries([...dl.querySelectorAll('dd')]"
        ".map((dd) => [dd.dataset.testid.replace('halite-inspect-', ''), dd.textContent]))"
    )
    return rows


def ship_rows(doc: dict[str, Any], turn: int, ship: dict[str, Any]) -> dict[str, str]:
    names = [p["name"] for p in doc["players"]]
    structure = "none"
    for pid, player in enumerate(doc["players"]):
        if (player["factory_location"]["x"], player["factory_location"]["y"]) == (
            ship["x"],
            ship["y"],
        ):
            structure = f"shipyard of {names[pid]}"
    return {
        "ship-id": f"#{ship['id']}",
        "owner": names[ship["owner"]],
        "cargo": str(ship["cargo"]),
        "position": f"({ship['x']}, {ship['y']})",
        "inspired": "yes" if ship["inspired"] else "no",
        "cell": f"({ship['x']}, {ship['y']})",
        "cell-halite": str(halite_at(doc, turn, ship["x"], ship["y"])),
        "structure": structure,
    }


def test_clicking_a_ship_shows_its_panel_for_the_turn_shown(local: Local, page: Page) -> None:
    doc = document()
    want = expected(doc)
    ship = want["ship"]
    game_id = local.upload()
    page.goto(f"{local.url}/view/{game_id}?turn={TURN}")
    board = board_of(page)
    canvas = board.get_by_test_id("halite-canvas")
    expect(board.get_by_test_id("turn")).to_have_text(f"Turn {TURN}")
    panel = board.get_by_test_id("halite-inspect")
    expect(panel).to_be_hidden()

    # Zoomed in first: the click finds the ship where the camera draws it.
    board.get_by_test_id("halite-zoom-in").click()
    board.get_by_test_id("halite-zoom-in").click()
    until(canvas, lambda z, _x, _y: z > 1.5)
    canvas.click(position=cell_point(canvas, ship["x"] + 0.5, ship["y"] + 0.5))
    expect(panel).to_be_visible()
    expect(board.get_by_test_id("halite-inspect-title")).to_have_text(
        f"Ship #{ship['id']} · turn {TURN}"
    )
    assert inspector(board) == ship_rows(doc, TURN, ship)
    shot(page, "halite-ship-panel")

    # The next turn: the panel follows the ship, with that turn's values.
    board.locator("body").press("ArrowRight")
    expect(board.get_by_test_id("turn")).to_have_text(f"Turn {TURN + 1}")
    following = doc["full_frames"][TURN + 1]["entities"][str(ship["owner"])][str(ship["id"])]
    moved = {
        "id": ship["id"], "owner": ship["owner"], "x": following["x"], "y": following["y"],
        "cargo": following["energy"], "inspired": following["is_inspired"],
    }  # fmt: skip
    expect(board.get_by_test_id("halite-inspect-title")).to_have_text(
        f"Ship #{ship['id']} · turn {TURN + 1}"
    )
    assert inspector(board) == ship_rows(doc, TURN + 1, moved)

    # A cell with no ship: its own details; then the panel closes.
    yard = want["yard"]
    board.get_by_test_id("halite-zoom-reset").click()
    expect(canvas).to_have_attribute("data-zoom", "1.000")
    canvas.click(position=cell_point(canvas, yard["x"] + 0.5, yard["y"] + 0.5))
    expect(board.get_by_test_id("halite-inspect-title")).to_have_text(f"Cell · turn {TURN + 1}")
    rows = inspector(board)
    assert rows["cell"] == f"({yard['x']}, {yard['y']})"
    assert rows["cell-halite"] == str(halite_at(doc, TURN + 1, yard["x"], yard["y"]))
    assert rows["structure"] == f"shipyard of {doc['players'][1]['name']}"
    board.get_by_test_id("halite-inspect-close").click()
    expect(panel).to_be_hidden()


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    db = tmp_path_factory.mktemp("db") / "games.db"
    with Store(f"sqlite:///{db}") as store:
        headers = make_user(store, "owner")
        config = ServerConfig(database_url="memory", public=True, signup="closed")
        with serve(create_app(config, store=store)) as url:
            created = httpx.post(
                f"{url}/api/halite/games",
                content=REPLAY.read_bytes(),
                headers={"Content-Type": "application/octet-stream", **headers},
                timeout=60,
            )
            assert created.status_code == 201, created.text
            yield url, str(created.json()["id"])


def test_an_anonymous_visitor_sees_no_control_that_changes_anything(
    public: tuple[str, str], browser: Browser
) -> None:
    url, game_id = public
    context = logged_in(browser, url, None)
    page = context.new_page()
    page.goto(url + "/new?game=halite3")
    expect(page.get_by_test_id("log-in-to-play")).to_be_visible()
    for testid in ("game-select", "halite-new-game-form", "new-game-form", "halite-create"):
        expect(page.get_by_test_id(testid)).to_have_count(0)
    expect(page.get_by_test_id("nav-new")).to_have_count(0)
    page.goto(url + "/halite")
    expect(page.get_by_test_id("halite-new-game")).to_have_count(0)

    # The game page: the viewer's own view controls only (zoom, colours: this browser's),
    # nothing that changes the game.
    page.goto(f"{url}/view/{game_id}")
    board = board_of(page)
    expect(board.get_by_test_id("halite-player-name")).to_have_count(2)
    # The share panel's Copy buttons copy a link; its save form is for members only.
    page_buttons = page.locator("main :is(button, form):not([data-testid=share-panel] *)")
    expect(page_buttons).to_have_count(0)
    expect(page.get_by_test_id("save-form")).to_have_count(0)
    for testid in ("rematch", "cancel", "step-controls", "delete"):
        expect(page.get_by_test_id(testid)).to_have_count(0)
    context.close()

    # The owner sees the Halite form.
    owner = logged_in(browser, url, "owner")
    mine = owner.new_page()
    mine.goto(url + "/new?game=halite3")
    expect(mine.get_by_test_id("halite-new-game-form")).to_be_visible()
    owner.close()
