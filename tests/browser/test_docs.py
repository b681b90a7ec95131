"""The pages that show another page under the site's header: the API docs and the
viewers' file pickers, offline, at three window sizes.

Swagger UI (``/docs``) and ReDoc (``/redoc``) come from the ``fastapi-offline``
package, served by Snakewar itself, each in a frame under the site's header, as is the
board viewer's file picker (``/replay``).  Every request the page and its frame make is
recorded: all go to this server (and, to make sure, anything else is refused).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.browser_env import shot
from tests.browser.conftest import PATIENCE_MS
from tests.browser.layout import VIEWPORTS, assert_no_sideways_scroll

if TYPE_CHECKING:
    from playwright.sync_api import Page, Request, Route


class Recorded:
    """Every request a page made, and those that went elsewhere (refused)."""

    def __init__(self, page: Page, base: str) -> None:
        self.origin = urlsplit(base)[:2]
        self.requests: list[str] = []
        self.refused: list[str] = []
        page.on("request", self._seen)
        page.route("**/*", self._route)

    def _seen(self, request: Request) -> None:
        self.requests.append(request.url)

    def _local(self, url: str) -> bool:
        return urlsplit(url)[:2] == self.origin or url.startswith(("data:", "blob:"))

    def _route(self, route: Route) -> None:
        url = route.request.url
        if self._local(url):
            route.continue_()
        else:
            self.refused.append(url)
            route.abort()

    def check(self) -> None:
        assert self.requests, "no request recorded at all?"
        elsewhere = [url for url in self.requests if not self._local(url)]
        assert elsewhere == [], f"requests off this server: {elsewhere}"
        assert self.refused == []


@pytest.fixture
def sized(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    width, height = request.node.callspec.params["width"], request.node.callspec.params["height"]
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(PATIENCE_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def assert_site_header(page: Page) -> None:
    brand = page.locator("body > header .brand")
    expect(brand).to_be_visible()
    expect(brand).to_have_attribute("href", "/")
    expect(page.get_by_test_id("nav-docs")).to_be_visible()


@VIEWPORTS
def test_swagger_ui_under_the_header_offline(
    base_url: str, sized: Page, width: int, height: int
) -> None:
    page = sized
    recorded = Recorded(page, base_url)
    page.goto(base_url + "/docs")
    assert_site_header(page)
    expect(page.get_by_test_id("docs-redoc-link")).to_be_visible()
    docs = page.frame_locator("[data-testid=page-frame]")
    games = docs.locator(".opblock", has=docs.locator("[data-path='/api/games']"))
    expect(games.first).to_be_visible()
    halite = docs.locator(".opblock-summary-path[data-path='/api/halite/games']")
    expect(halite.first).to_be_attached()
    expect(docs.locator(".info .title")).to_contain_text("Snakewar")
    page.wait_for_load_state("networkidle")
    shot(page, f"docs-swagger-{width}x{height}")
    assert_no_sideways_scroll(page)
    recorded.check()
    # The way back: the header's home link.
    page.locator("body > header .brand").click()
    expect(page).to_have_url(base_url + "/")


@VIEWPORTS
def test_redoc_under_the_header_asks_no_other_server(
    base_url: str, sized: Page, width: int, height: int
) -> None:
    page = sized
    recorded = Recorded(page, base_url)
    page.goto(base_url + "/redoc")
    assert_site_header(page)
    docs = page.frame_locator("[data-testid=page-frame]")
    expect(docs.locator("h1").first).to_contain_text("Snakewar")
    expect(docs.get_by_text("/api/games/{game_id}/rematch").first).to_be_attached()
    # The menu's footer, whose logo ReDoc's bundle would fetch from its maker's CDN, is
    # drawn: its request would have been recorded by now.
    expect(docs.get_by_text("API docs by Redocly")).to_be_attached()
    page.wait_for_load_state("networkidle")
    shot(page, f"docs-redoc-{width}x{height}")
    assert_no_sideways_scroll(page)
    recorded.check()
    page.get_by_test_id("docs-swagger-link").click()
    expect(page).to_have_url(base_url + "/docs")


@VIEWPORTS
def test_open_a_replay_under_the_header(
    base_url: str, sized: Page, width: int, height: int
) -> None:
    page = sized
    recorded = Recorded(page, base_url)
    page.goto(base_url + "/replay")
    assert_site_header(page)
    board = page.frame_locator("[data-testid=page-frame]")
    expect(board.get_by_test_id("replay-picker")).to_be_visible()
    expect(board.get_by_test_id("drop-zone")).to_contain_text("Open a replay file")
    # The picker fits the frame, and the frame the window.
    box = page.get_by_test_id("page-frame").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    page.wait_for_load_state("networkidle")
    shot(page, f"replay-picker-{width}x{height}")
    assert_no_sideways_scroll(page)
    recorded.check()
    expect(page.get_by_test_id("nav-replay")).to_be_visible()
