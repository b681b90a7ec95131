"""The Halite III pages in a real browser: Debian's chromium driven by Playwright.

An official replay (written by the official engine) is uploaded through the
``/halite`` form and watched in the viewer.  Screenshots go to
``$SNAKEWAR_ARTIFACTS`` (default ``test-artifacts/``).  With
``CI=1`` (as in .ci/run) a missing browser fails instead of skipping.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.browser.browser_env import shot
from tests.conformance_data import SHIPPED_HALITE_REPLAYS

# 2 players, 76 turns; player 1 ends holding 615 halite but scores 0 (it ran out of ships).
REPLAY = SHIPPED_HALITE_REPLAYS / "public-s100208-32x32-2p.hlt"


def document() -> dict[str, Any]:
    import zstandard

    raw = zstandard.ZstdDecompressor().decompress(REPLAY.read_bytes(), max_output_size=1 << 26)
    result: dict[str, Any] = json.loads(raw)
    return result


CANVAS_COLOURS = """(canvas) => {
  const ctx = canvas.getContext("2d");
  const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  const seen = new Set();
  for (let i = 0; i < data.length; i += 4 * 97) {
    seen.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
  }
  return seen.size;
}"""


def test_upload_an_official_replay_and_scrub_to_the_final_scores(base_url: str, page: Page) -> None:
    doc = document()
    names = [p["name"] for p in doc["players"]]
    stats = sorted(doc["game_statistics"]["player_statistics"], key=lambda s: s["player_id"])
    last = len(doc["full_frames"]) - 1

    page.goto(base_url + "/halite")
    page.get_by_test_id("halite-upload-file").set_input_files(str(REPLAY))
    page.get_by_test_id("halite-upload").click()
    expect(page).to_have_url(re.compile(r"/view/[0-9a-f-]+$"))
    board = page.frame_locator("[data-testid=halite-frame]")

    # The scoreboard names the players; the map is drawn (a heat map has many colours).
    expect(board.get_by_test_id("halite-player-name")).to_have_text(names)
    canvas = board.get_by_test_id("halite-canvas")
    expect(canvas).to_be_visible()
    assert canvas.evaluate(CANVAS_COLOURS) > 20
    expect(board.get_by_test_id("turn")).to_have_text("Turn 0")
    expect(board.get_by_test_id("halite-player-energy")).to_have_text(["5000", "5000"])
    # The chart: one line per player, and a cursor.
    expect(board.get_by_test_id("halite-chart-line")).to_have_count(len(names))
    expect(board.get_by_test_id("halite-chart-cursor")).to_have_attribute("x1", "2.0")

    # Step with the Battlesnake viewer's keys (once the frame has focus, as after a click).
    canvas.click()
    body = board.locator("body")
    body.press("ArrowRight")
    body.press("l")
    expect(board.get_by_test_id("turn")).to_have_text("Turn 2")
    energy_at_2 = [str(doc["full_frames"][2]["energy"][str(i)]) for i in range(len(names))]
    expect(board.get_by_test_id("halite-player-energy")).to_have_text(energy_at_2)
    body.press("t")
    expect(board.get_by_test_id("turn")).to_have_text(f"Turn {last}")
    expect(board.get_by_test_id("game-status")).to_have_text("Game over")
    expect(board.get_by_test_id("halite-chart-cursor")).to_have_attribute("x1", "298.0")
    expect(board.get_by_test_id("halite-player-score")).to_have_text(
        [f"Final score {s['final_production']} · rank {s['rank']}" for s in stats]
    )
    assert [s["final_production"] for s in stats] == [1039, 0]
    # Halite held at the end is shown too (player 1 still holds halite but scores 0).
    final_energy = [str(doc["full_frames"][last]["energy"][str(i)]) for i in range(len(names))]
    expect(board.get_by_test_id("halite-player-energy")).to_have_text(final_energy)

    # The scrubber goes back; the tooltip names a cell and the shipyard on it.
    board.get_by_test_id("scrubber").fill("10")
    expect(board.get_by_test_id("turn")).to_have_text("Turn 10")
    yard = doc["players"][0]["factory_location"]
    box = canvas.bounding_box()
    assert box is not None
    width, height = doc["production_map"]["width"], doc["production_map"]["height"]
    cell = min(box["width"] / width, box["height"] / height)  # drawn centred, aspect kept
    left = (box["width"] - cell * width) / 2
    top = (box["height"] - cell * height) / 2
    canvas.hover(
        position={"x": left + (yard["x"] + 0.5) * cell, "y": top + (yard["y"] + 0.5) * cell}
    )
    tooltip = board.get_by_test_id("halite-tooltip")
    expect(tooltip).to_contain_text(f"({yard['x']}, {yard['y']})")
    expect(tooltip).to_contain_text(f"shipyard of {names[0]}")
    shot(page, "halite-viewer")

    # The game is listed with its players and winner.
    page.goto(base_url + "/halite")
    row = page.get_by_test_id("halite-game").first
    expect(row).to_contain_text(names[0])
    expect(row).to_contain_text(f"won by {names[0]}")
    shot(page, "halite-list")


def test_a_bad_upload_shows_the_servers_one_line_error(
    base_url: str, page: Page, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.hlt"
    bad.write_bytes(REPLAY.read_bytes()[:200])
    page.goto(base_url + "/halite")
    page.get_by_test_id("halite-upload-file").set_input_files(str(bad))
    page.get_by_test_id("halite-upload").click()
    expect(page.get_by_test_id("halite-upload-error")).to_contain_text("truncated")


def test_open_a_local_replay_without_storing_it(base_url: str, page: Page) -> None:
    page.goto(base_url + "/halite/view")
    board = page.frame_locator("[data-testid=page-frame]")
    board.get_by_test_id("replay-file").set_input_files(str(REPLAY))
    expect(board.get_by_test_id("halite-player-name")).to_have_count(2)
    board.locator("body").press("t")
    expect(board.get_by_test_id("game-status")).to_have_text("Game over")
    # The site's header is above it, with the way back.
    expect(page.locator("header .brand")).to_have_attribute("href", "/")


def test_the_halite_viewer_fits_a_laptop_window(base_url: str, browser: Browser) -> None:
    import httpx

    created = httpx.post(
        f"{base_url}/api/halite/games",
        content=REPLAY.read_bytes(),
        headers={"Content-Type": "application/octet-stream"},
        timeout=60,
    ).json()
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    page.goto(base_url + created["url"])
    board = page.frame_locator("[data-testid=halite-frame]")
    expect(board.get_by_test_id("halite-player-name")).to_have_count(2)
    for test_id in ("halite-canvas", "scrubber", "btn-play", "btn-last"):
        box = board.get_by_test_id(test_id).bounding_box()
        assert box is not None and box["y"] >= 0 and box["x"] >= 0, test_id
        assert box["y"] + box["height"] <= 768 and box["x"] + box["width"] <= 1366, (test_id, box)
    assert page.evaluate("document.documentElement.scrollHeight") <= 768
    shot(page, "halite-1366x768")
    context.close()
