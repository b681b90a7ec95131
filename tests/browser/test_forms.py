"""The forms in chromium: the new-game form's maps and sizes.

* Every map is listed by its title; a map that does not take the board's size resets
  it to the map's default (Arcade Maze's 19x21, then Standard: 11x11, not 7x7).
"""

from __future__ import annotations

import re

import httpx

from tests.browser.browser_env import require_chromium, shot

require_chromium()

from playwright.sync_api import Page, expect  # noqa: E402


def size(page: Page) -> tuple[str, str]:
    return (
        page.locator("input[name=width]").input_value(),
        page.locator("input[name=height]").input_value(),
    )


def test_every_map_by_its_title_and_sizes_that_follow_the_map(base_url: str, page: Page) -> None:
    maps = {m["id"]: m for m in httpx.get(f"{base_url}/api/maps", timeout=30).json()}
    page.goto(base_url + "/new")
    select = page.get_by_test_id("map")
    expect(select).to_have_value("standard")
    options = select.locator("option")
    expect(options).to_have_count(len(maps))
    shown = {o.get_attribute("value"): o.inner_text() for o in options.all()}
    assert shown == {map_id: m["title"] for map_id, m in maps.items()}
    assert shown["hz_castle_wall"] == "Castle Wall"
    assert not [title for title in shown.values() if "_" in title or title.startswith("hz")]
    titles = list(shown.values())
    assert titles == sorted(titles, key=str.casefold), "listed in the order of their titles"

    assert size(page) == ("11", "11")
    select.select_option("arcade_maze")
    assert size(page) == ("19", "21")
    expect(page.locator("#map-info")).to_contain_text("arcade-style maze")
    select.select_option("standard")
    assert size(page) == ("11", "11")  # its default, not its first size (7x7)
    # A size the next map takes is kept; one it does not take becomes its default.
    page.locator("input[name=width]").fill("7")
    page.locator("input[name=height]").fill("7")
    select.select_option("healing_pools")
    assert size(page) == ("7", "7")
    select.select_option("hz_castle_wall_lg")
    assert size(page) == ("19", "19")
    select.select_option("hz_rings")
    assert size(page) == ("19", "19")
    select.select_option("hz_castle_wall")
    assert size(page) == ("11", "11")
    shot(page, "new-game-map-titles")

    # The game is made at the size the form shows.
    select.select_option("arcade_maze")
    select.select_option("standard")
    page.get_by_test_id("snakes").fill("builtin:greedy\nbuiltin:random")
    page.get_by_test_id("seed").fill("6")
    page.get_by_test_id("create").click()
    expect(page).to_have_url(re.compile(r"/view/[0-9a-f-]+$"))
    board = page.frame_locator("[data-testid=board-frame]")
    expect(board.get_by_test_id("game-info")).to_have_text("standard · standard · 11×11 · seed 6")
