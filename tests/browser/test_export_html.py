"""``snakewar export --html``: the one file opens in chromium offline and plays the game.

Every request the page makes is recorded and refused: the file must need none (its
modules, style and replay are inside it).  The board then shows the game's last turn.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from snakewar.games.battlesnake.replay.format import read_replay
from tests.test_cli_bad_input import run

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Page, Route


def test_the_html_replay_opens_offline_and_shows_the_last_turn(page: Page, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    replay = tmp_path / "game.jsonl"
    done = run(
        "play", "-W", "7", "-H", "7", "-r", "11", "--replay", str(replay),
        "builtin:hunter", "builtin:greedy", home=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    record = read_replay(replay)
    out = tmp_path / "replay.html"
    done = run("export", str(replay), "--html", "-o", str(out), home=tmp_path)
    assert done.returncode == 0, done.stderr

    requested: list[str] = []

    def refuse(route: Route) -> None:
        requested.append(route.request.url)
        route.abort()

    # The file itself is the one URL let through; anything else would be the network.
    page.context.route(re.compile(r"^(?!file://).*"), refuse)
    page.context.set_offline(True)
    page.goto(out.as_uri())
    last = len(record.turns)
    scrubber = page.get_by_test_id("scrubber")
    expect(scrubber).to_have_attribute("max", str(last))
    page.get_by_test_id("btn-last").click()
    expect(page.get_by_test_id("turn")).to_contain_text(f"Turn {last}")
    board = page.locator("[data-testid=board] svg.board-svg")
    expect(board).to_have_attribute("data-turn", str(last))
    final = record.turns[-1].after
    for snake in final.snakes:
        shown = page.locator(f'[data-testid=board] [data-snake-id="{snake.id}"]')
        if not snake.eliminated_cause or snake.eliminated_on_turn == last:
            expect(shown).to_have_count(1)
    for entry in record.snakes:
        expect(page.get_by_test_id("scoreboard")).to_contain_text(entry.name)
    # The viewer names the game from the inlined replay's header.
    assert record.id in page.title()
    assert requested == [], requested


# -- the game page's Export menu and its API route ---------------------------------------


def test_the_game_pages_export_menu_downloads_png_gif_and_html(
    base_url: str, page: Page, tmp_path: Path
) -> None:
    from PIL import Image
    from playwright.sync_api import expect

    from tests.browser.test_game_page import finished_game

    game, last = finished_game(base_url)
    page.goto(f"{base_url}/view/{game}")
    expect(page.get_by_test_id("toolbar-turn")).to_be_visible()
    page.keyboard.press("t")  # the last turn: the PNG is of the turn the board shows
    expect(page.get_by_test_id("toolbar-turn")).to_have_text(f"Turn {last}")
    menu = page.get_by_test_id("export-menu")
    menu.locator("summary").click()
    expect(page.get_by_test_id("export-png")).to_have_text(f"PNG of turn {last}")
    saved: dict[str, Path] = {}
    for kind in ("png", "gif", "html"):
        with page.expect_download() as info:
            page.get_by_test_id(f"export-{kind}").click()
        download = info.value
        target = tmp_path / download.suggested_filename
        download.save_as(target)
        saved[kind] = target
    assert saved["png"].name == f"{game}-{last}.png"
    with Image.open(saved["png"]) as png:
        assert png.format == "PNG" and png.width == 640
    with Image.open(saved["gif"]) as gif:
        assert gif.format == "GIF" and getattr(gif, "n_frames", 1) == last + 1
    # The downloaded HTML replay plays the same game from the file, with no server.
    offline = page.context.browser
    assert offline is not None
    context = offline.new_context()
    context.set_offline(True)
    replay_page = context.new_page()
    replay_page.goto(saved["html"].as_uri())
    expect(replay_page.get_by_test_id("scrubber")).to_have_attribute("max", str(last))
    context.close()


def test_the_media_route_refuses_bad_input_naming_the_field(base_url: str) -> None:
    import httpx

    from tests.browser.test_game_page import finished_game

    game, last = finished_game(base_url)
    url = f"{base_url}/api/games/{game}/media"
    answer = httpx.get(url, params={"format": "svg", "turn": "1"}, timeout=60)
    assert answer.status_code == 200 and answer.headers["content-type"] == "image/svg+xml"
    assert "<svg" in answer.text
    answer = httpx.get(url, params={"format": "bmp"}, timeout=60)
    assert answer.status_code == 422 and "format" in answer.text
    answer = httpx.get(url, params={"format": "png", "turn": str(last + 1)}, timeout=60)
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"][-1] == "turn"
    answer = httpx.get(url, params={"format": "png", "size": "100000"}, timeout=60)
    assert answer.status_code == 422 and "size" in answer.text
    answer = httpx.get(f"{base_url}/api/games/nosuchgame/media?format=png", timeout=60)
    assert answer.status_code == 404
