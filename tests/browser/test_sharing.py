"""Sharing and events in chromium, on a public server: share a game at a turn, embed it in
another site, link previews that spoil nothing, save a game under a title, watch TV mode
cycle the live games, and download an export.  Anonymous visitors see no control that
changes anything.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.browser.browser_env import shot
from tests.browser.layout import VIEWPORTS, assert_no_sideways_scroll
from tests.server.accounts import make_user, password_of
from tests.waiting import wait_finished

BOARD = {"width": 7, "height": 7}


@dataclass
class Site:
    """A public server on loopback and its accounts' API headers."""

    url: str
    headers: dict[str, dict[str, str]]

    def game(self, who: str, seed: int, *, step: bool = False) -> str:
        """A game of two built-ins started by ``who`` (finished unless ``step``); its id."""
        made = httpx.post(
            f"{self.url}/api/games",
            json={"snakes": ["builtin:random", "builtin:greedy"], "seed": seed, "step": step,
                  **BOARD},
            headers=self.headers[who],
            timeout=60,
        )  # fmt: skip
        assert made.status_code == 201, made.text
        game_id = str(made.json()["id"])
        if not step:
            wait_finished(self.url, game_id, headers=self.headers[who])
        return game_id

    def winner_game(self, who: str) -> tuple[str, str]:
        """A finished game with one winner, and the winner's name."""
        for seed in range(80, 90):
            game_id = self.game(who, seed)
            winner = httpx.get(f"{self.url}/api/games/{game_id}", timeout=60).json()["winner"]
            if winner:
                return game_id, str(winner)
        raise AssertionError("ten games and no winner")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    db = tmp_path_factory.mktemp("db") / "sharing.db"
    with Store(f"sqlite:///{db}") as store:
        headers = {"owner": make_user(store, "owner"), "other": make_user(store, "other")}
        config = ServerConfig(database_url=f"sqlite:///{db}", public=True, signup="closed")
        with serve(create_app(config, store=store)) as url:
            yield Site(url, headers)


def context_of(browser: Browser, site: Site, name: str | None) -> BrowserContext:
    """A browser context logged in as ``name`` (``None``: an anonymous visitor)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    errors: list[str] = []
    context.on("weberror", lambda failure: errors.append(str(failure.error)))
    context.errors = errors  # type: ignore[attr-defined]
    if name is not None:
        page = context.new_page()
        page.goto(site.url + "/login")
        page.get_by_test_id("login-name").fill(name)
        page.get_by_test_id("login-password").fill(password_of(name))
        page.get_by_test_id("login-submit").click()
        expect(page).to_have_url(re.compile(r"/account$"))
        page.close()
    return context


def done(context: BrowserContext) -> None:
    """Close a context; no page of it may have thrown a JavaScript error."""
    errors: list[str] = context.errors  # type: ignore[attr-defined]
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def og(page: Page, name: str) -> str:
    content = page.locator(f'meta[property="{name}"]').get_attribute("content")
    assert content is not None, name
    return content


def test_a_shared_link_at_a_turn_opens_the_game_at_that_turn(site: Site, browser: Browser) -> None:
    game_id, _ = site.winner_game("owner")
    context = context_of(browser, site, None)
    page = context.new_page()
    page.goto(f"{site.url}/view/{game_id}")
    page.get_by_test_id("share-open").click()
    page.get_by_test_id("share-turn").fill("5")
    link = page.get_by_test_id("share-link")
    expect(link).to_have_value(f"{site.url}/view/{game_id}?turn=5")
    expect(page.get_by_test_id("share-embed")).to_have_value(
        re.compile(re.escape(f'src="{site.url}/embed/{game_id}?turn=5"'))
    )
    shot(page, "share-panel")
    page.goto(link.input_value())
    expect(page.get_by_test_id("toolbar-turn")).to_have_text("Turn 5")
    expect(page.frame_locator("[data-testid=board-frame]").get_by_test_id("turn")).to_have_text(
        "Turn 5"
    )
    # The panel opened from a shared link keeps its turn.
    expect(page.get_by_test_id("share-turn")).to_have_value("5")
    done(context)


def test_the_embed_code_shows_the_board_in_another_site(site: Site, browser: Browser) -> None:
    game_id = site.game("owner", 91)
    context = context_of(browser, site, None)
    page = context.new_page()
    page.goto(f"{site.url}/view/{game_id}?turn=3")
    page.get_by_test_id("share-open").click()
    code = page.get_by_test_id("share-embed").input_value()
    # Another site (another origin: its own server on loopback) pastes the code.
    blog = Starlette(
        routes=[
            Route(
                "/blog",
                lambda request: HTMLResponse(
                    f"<!doctype html><title>blog</title><p>Mine:</p>{code}"
                ),
            )
        ]
    )
    with serve(blog) as other:
        page.goto(f"{other}/blog")
        board = page.frame_locator("iframe")
        expect(board.get_by_test_id("turn")).to_have_text("Turn 3")
        # Shown, not played past: the embedded board holds the linked turn.
        expect(board.get_by_test_id("btn-play")).to_have_attribute("data-state", "paused")
    shot(page, "share-embedded")
    done(context)


def test_preview_tags_spoil_nothing_unless_the_sharer_asks(site: Site, browser: Browser) -> None:
    game_id, winner = site.winner_game("owner")
    context = context_of(browser, site, None)
    page = context.new_page()
    page.goto(f"{site.url}/view/{game_id}")
    for name in ("og:title", "og:description", "og:image", "og:url"):
        assert og(page, name), name
    description = og(page, "og:description")
    assert " won " not in description and "no spoilers" in description
    assert page.locator('meta[name="twitter:card"]').get_attribute("content") == (
        "summary_large_image"
    )
    image = httpx.get(og(page, "og:image"), timeout=60)
    assert image.status_code == 200 and image.headers["content-type"] == "image/png"
    # The sharer asks for the winner: the link says so, and its preview names them.
    page.get_by_test_id("share-open").click()
    page.get_by_test_id("share-reveal").check()
    link = page.get_by_test_id("share-link")
    expect(link).to_have_value(re.compile(r"reveal=1"))
    page.goto(link.input_value())
    assert og(page, "og:description").startswith(f"{winner} won a game of")
    done(context)


def test_a_user_saves_a_game_under_a_title_and_finds_it_in_their_list(
    site: Site, browser: Browser
) -> None:
    game_id = site.game("owner", 95)
    context = context_of(browser, site, "other")
    page = context.new_page()
    page.goto(f"{site.url}/view/{game_id}")
    page.get_by_test_id("share-open").click()
    page.get_by_test_id("save-title").fill("Greedy's great escape")
    page.get_by_test_id("save-game").click()
    expect(page.get_by_test_id("save-state")).to_have_text("Saved as “Greedy's great escape”")
    page.get_by_test_id("saved-link").click()
    row = page.get_by_test_id(f"saved-{game_id}")
    expect(row).to_contain_text("Greedy's great escape")
    row.get_by_role("link").click()
    expect(page).to_have_url(f"{site.url}/view/{game_id}")
    # Back on the game's page, the panel shows its saved title.
    page.get_by_test_id("share-open").click()
    expect(page.get_by_test_id("save-title")).to_have_value("Greedy's great escape")
    done(context)


def test_tv_mode_shows_and_cycles_the_live_games(site: Site, browser: Browser) -> None:
    # Step-mode games hold at turn 0: live for as long as the test needs.
    live = sorted(site.game("owner", seed, step=True) for seed in (101, 102))
    context = context_of(browser, site, None)
    page = context.new_page()
    try:
        page.goto(f"{site.url}/tv?dwell=3")
        tv = page.get_by_test_id("tv")
        expect(page.get_by_test_id("tv-board")).to_be_visible()
        expect(page.get_by_test_id("tv-entrant")).to_have_count(2)
        expect(page.get_by_test_id("tv-entrants")).to_contain_text("greedy")
        expect(page.get_by_test_id("tv-status")).to_have_text("Turn 0")
        first = tv.get_attribute("data-showing")
        assert first in live
        second = next(g for g in live if g != first)
        expect(tv).to_have_attribute("data-showing", second)
        expect(page.get_by_test_id("tv-board")).to_have_attribute("src", f"/embed/{second}")
        expect(page.frame_locator("[data-testid=tv-board]").get_by_test_id("turn")).to_have_text(
            "Turn 0"
        )
        expect(tv).to_have_attribute("data-showing", first)  # and round again
        expect(page.get_by_test_id("tv-next")).to_contain_text("2 live")
        shot(page, "tv-mode")
        # Filtered by a ladder with no live games: it says so and shows none.
        page.goto(f"{site.url}/tv?ladder=no-such-ladder")
        expect(page.get_by_test_id("tv-status")).to_contain_text("No live games")
        expect(page.get_by_test_id("tv-board")).to_be_hidden()
    finally:
        for game_id in live:
            httpx.post(
                f"{site.url}/api/games/{game_id}/cancel", headers=site.headers["owner"], timeout=60
            )
        done(context)


def test_a_user_exports_their_games_and_downloads_the_archive(site: Site, browser: Browser) -> None:
    site.game("owner", 111)
    context = context_of(browser, site, "owner")
    page = context.new_page()
    page.goto(f"{site.url}/saved")
    # The user's own games are what the form offers first.
    expect(page.get_by_test_id("export-kind")).to_have_value("user")
    expect(page.get_by_test_id("export-target")).to_have_value("owner")
    page.get_by_test_id("export-start").click()
    download_link = page.get_by_role("link", name="Download user-owner.zip")
    expect(download_link).to_be_visible()
    expect(page.get_by_test_id("exports")).to_contain_text("done")
    with page.expect_download() as waiting:
        download_link.click()
    download = waiting.value
    assert download.suggested_filename == "user-owner.zip"
    path = download.path()
    archive = zipfile.ZipFile(io.BytesIO(path.read_bytes()))
    names = archive.namelist()
    assert "results.csv" in names and any(n.startswith("replays/") for n in names)
    shot(page, "exports")
    # A ladder's page links here with the ladder filled in; a refused export says why.
    page.goto(f"{site.url}/saved?kind=ladder&target=no-such-ladder")
    expect(page.get_by_test_id("export-kind")).to_have_value("ladder")
    expect(page.get_by_test_id("export-target")).to_have_value("no-such-ladder")
    page.get_by_test_id("export-start").click()
    expect(page.get_by_test_id("export-error")).to_have_text("target: no ladder 'no-such-ladder'")
    done(context)


def test_anonymous_visitors_see_no_control_that_changes_anything(
    site: Site, browser: Browser
) -> None:
    game_id = site.game("owner", 121)
    context = context_of(browser, site, None)
    page = context.new_page()
    page.goto(f"{site.url}/view/{game_id}")
    page.get_by_test_id("share-open").click()
    expect(page.get_by_test_id("share-link")).to_be_visible()
    for control in ("save-form", "save-game", "rematch", "step-controls", "nav-new"):
        expect(page.get_by_test_id(control)).to_have_count(0)
    # Every button left only copies, shows or downloads (a turn as a test scenario: a GET).
    buttons = page.locator("main button:visible")
    assert sorted(buttons.all_inner_texts()) == ["Copy", "Copy", "Save as test scenario"]
    page.goto(f"{site.url}/tv")
    assert sorted(page.locator("main button").all_inner_texts()) == ["Full screen", "Show"]
    expect(page.locator("form[method=post]")).to_have_count(0)
    page.goto(f"{site.url}/saved")
    expect(page).to_have_url(f"{site.url}/login")
    done(context)


@VIEWPORTS
def test_the_sharing_pages_fit_every_window(
    site: Site, browser: Browser, width: int, height: int
) -> None:
    game_id = site.game("owner", 131)
    context = context_of(browser, site, "owner")
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{site.url}/view/{game_id}")
    page.get_by_test_id("share-open").click()
    expect(page.get_by_test_id("share-embed")).to_be_visible()
    assert_no_sideways_scroll(page)
    for path, ready in (("/tv", "tv-status"), ("/saved", "export-form")):
        page.goto(site.url + path)
        expect(page.get_by_test_id(ready)).to_be_visible()
        assert_no_sideways_scroll(page)
    shot(page, f"saved-{width}")
    done(context)
